/**
 * The dashboard window: the renderer's page from the app's own files, at
 * `app://dashboard/index.html` (app-protocol.ts), with context isolation, the
 * sandbox and no Node integration (the preload's bridge is all it gets); its
 * web contents guarded (security.ts) as soon as they exist. Closing hides it,
 * so the tray app keeps running and the next open is instant; it is destroyed
 * only when the app quits.
 */
import { app, BrowserWindow, type WebContents } from 'electron';
import type { ApiEvent } from '../api/types.js';
import { EVENT_CHANNEL } from './ipc-contract.js';

export interface DashboardWindowOptions {
  /** The page: `app://dashboard/index.html` (DASHBOARD_URL). */
  url: string;
  preload: string;
  platform: NodeJS.Platform;
  /** The navigation, new-window and webview guards (security.ts), applied to the window's web contents. */
  guard(contents: WebContents): void;
}

export class DashboardWindow {
  private window: BrowserWindow | null = null;
  private quitting = false;

  constructor(private readonly options: DashboardWindowOptions) {}

  /** Shows the window (creating it when needed), at `route` (a URL fragment without `#`) when given. */
  show(route?: string): void {
    const existing = this.window && !this.window.isDestroyed() ? this.window : null;
    const window = existing ?? this.create();
    if (route !== undefined || !existing) {
      // A fragment-only change is a same-document navigation: the dashboard keeps its state.
      void window.loadURL(route ? `${this.options.url}#${route}` : this.options.url).catch(() => {
        // A load superseded by the next one rejects; nothing to report.
      });
    }
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
    // A menu-bar app (no Dock icon) is not the active app when its window opens: bring it forward.
    if (this.options.platform === 'darwin') app.focus({ steal: true });
  }

  /** Pushes one core event to the dashboard, when it is open. */
  send(event: ApiEvent): void {
    const window = this.window;
    if (!window || window.isDestroyed() || window.webContents.isDestroyed()) return;
    window.webContents.send(EVENT_CHANNEL, event);
  }

  get isOpen(): boolean {
    return this.window !== null && !this.window.isDestroyed() && this.window.isVisible();
  }

  /** From now on closing really closes (the app is quitting). */
  allowClose(): void {
    this.quitting = true;
  }

  private create(): BrowserWindow {
    const window = new BrowserWindow({
      width: 1180,
      height: 780,
      minWidth: 720,
      minHeight: 480,
      show: false,
      title: 'BreakerBar',
      autoHideMenuBar: true,
      webPreferences: {
        // Checklist #3 and #4: the page's scripts never share a context with the preload's, and the renderer
        // process is sandboxed (the preload gets only the bridge: preload/index.cts).
        contextIsolation: true,
        sandbox: true,
        // #2: no Node, in the page, its workers or any frame.
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        // #6 and #8: same-origin policy on, no http content in the secure app:// page.
        webSecurity: true,
        allowRunningInsecureContent: false,
        // #9 and #10: no experimental web platform features (and no enableBlinkFeatures at all).
        experimentalFeatures: false,
        // #12: no <webview> (and so no allowpopups, #11).
        webviewTag: false,
        // A page stuck in a loop of alert()s can be silenced by the user.
        safeDialogs: true,
        // A file dropped on the window must not replace the dashboard (will-navigate refuses it too).
        navigateOnDragDrop: false,
        // Developer tools only in a development run.
        devTools: !app.isPackaged,
        spellcheck: false,
        preload: this.options.preload,
      },
    });
    // Guarded before anything is loaded in it.
    this.options.guard(window.webContents);
    window.on('close', (event) => {
      if (this.quitting) return;
      event.preventDefault();
      window.hide();
    });
    window.on('closed', () => {
      if (this.window === window) this.window = null;
    });
    this.window = window;
    return window;
  }
}
