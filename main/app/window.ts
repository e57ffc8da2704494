/**
 * The dashboard window: the renderer's `index.html` from the app's own files,
 * with context isolation, the sandbox and no Node integration (the preload's
 * bridge is all it gets). Closing hides it, so the tray app keeps running and
 * the next open is instant; it is destroyed only when the app quits.
 */
import { app, BrowserWindow } from 'electron';
import type { ApiEvent } from '../shared/api/types.js';
import { EVENT_CHANNEL } from './ipc-contract.js';

export interface DashboardWindowOptions {
  rendererIndex: string;
  preload: string;
  platform: NodeJS.Platform;
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
      void window.loadFile(this.options.rendererIndex, route ? { hash: route } : {}).catch(() => {
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
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        spellcheck: false,
        preload: this.options.preload,
      },
    });
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
