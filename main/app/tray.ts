/**
 * The menu-bar icon: one object owns the Tray (kept referenced, or it would be
 * collected and vanish), draws what tray-model.ts decides, and turns menu
 * clicks into calls on the core's API and the OS. The menu is rebuilt whenever
 * what it shows changed; on Linux a changed menu only shows after
 * `setContextMenu` is called again, so it always is
 * (https://www.electronjs.org/docs/latest/api/tray#traysetcontextmenumenu).
 */
import { mkdirSync } from 'node:fs';
import {
  dialog,
  Menu,
  type MenuItemConstructorOptions,
  type MessageBoxOptions,
  type NativeImage,
  nativeImage,
  shell,
  Tray,
} from 'electron';
import { type Translator, translator } from '../words/messages/index.js';
import { CoreApiError } from './core-api.js';
import type { CoreSupervisor } from './core-supervisor.js';
import { trayIconPath } from './icons.js';
import type { LoginItem } from './login-item.js';
import type { PreferenceStore } from './preferences.js';
import { type MenuItemModel, PAUSE_SECONDS, type TrayAction, type TrayModel, trayModel } from './tray-model.js';

/** Relative times in the menu ("in 42 s") are redrawn this often; nothing is fetched for it. */
const REDRAW_MS = 10_000;

export interface TrayControllerOptions {
  supervisor: Pick<CoreSupervisor, 'view' | 'status' | 'api' | 'on' | 'off' | 'refresh'>;
  openDashboard(route?: string): void;
  preferences: PreferenceStore;
  loginItem: LoginItem;
  platform: NodeJS.Platform;
  assetsDir: string;
  /** Where the core's log and the app's log go. */
  logsDir: string;
  quit(): void;
  clock?: () => number;
  /** The app's language, resolved once at start (English when not given). */
  translator?: Translator;
}

const RESTART_REASON = 'restart from the menu bar';
const PAUSE_REASON = 'paused from the menu bar';

export class TrayController {
  private tray: Tray | null = null;
  private timer: NodeJS.Timeout | null = null;
  private shown: { icon: string; tooltip: string; menu: string } | null = null;
  private readonly onChange = () => this.render();
  private readonly clock: () => number;

  private readonly words: Translator;

  constructor(private readonly options: TrayControllerOptions) {
    this.clock = options.clock ?? Date.now;
    this.words = options.translator ?? translator('en');
  }

  /** Creates the tray icon (after `app.whenReady()`). */
  enable(): void {
    const model = this.model();
    const iconPath = trayIconPath(model.state, this.options.platform, this.options.assetsDir);
    const tray = new Tray(this.image(iconPath));
    this.tray = tray;
    if (this.options.platform === 'darwin') tray.setIgnoreDoubleClickEvents(true);
    // Windows opens the menu on a right click only; a left click should not do nothing.
    if (this.options.platform === 'win32') tray.on('click', () => tray.popUpContextMenu());
    this.render(model, iconPath);
    this.options.supervisor.on('change', this.onChange);
    this.timer = setInterval(() => this.render(), REDRAW_MS);
    this.timer.unref?.();
  }

  destroy(): void {
    this.options.supervisor.off('change', this.onChange);
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.tray?.destroy();
    this.tray = null;
    this.shown = null;
  }

  model(): TrayModel {
    const { supervisor, preferences, loginItem } = this.options;
    return trayModel({
      core: supervisor.view,
      status: supervisor.status,
      confirmRestart: preferences.value.confirmRestart,
      launchAtLogin: loginItem.get(),
      now: this.clock(),
      translator: this.words,
    });
  }

  /** Applies the current model: icon, tooltip and menu, each only when it changed. */
  render(model = this.model(), iconPath?: string): void {
    const tray = this.tray;
    if (!tray || tray.isDestroyed()) return;
    const icon = iconPath ?? trayIconPath(model.state, this.options.platform, this.options.assetsDir);
    const menu = JSON.stringify(model.menu);
    const shown = this.shown;
    if (shown?.icon !== icon) {
      const image = this.image(icon);
      if (shown) tray.setImage(image);
      // Without artwork a macOS menu bar item would be invisible and unreachable: show a word instead.
      if (this.options.platform === 'darwin') tray.setTitle(image.isEmpty() ? 'BreakerBar' : '');
    }
    if (shown?.tooltip !== model.tooltip) tray.setToolTip(model.tooltip);
    if (shown?.menu !== menu) tray.setContextMenu(Menu.buildFromTemplate(this.template(model.menu)));
    this.shown = { icon, tooltip: model.tooltip, menu };
  }

  template(items: MenuItemModel[]): MenuItemConstructorOptions[] {
    return items.map((item) => this.menuItem(item));
  }

  private menuItem(item: MenuItemModel): MenuItemConstructorOptions {
    switch (item.type) {
      case 'separator':
        return { type: 'separator' };
      case 'text':
        return { id: item.id, label: item.label, enabled: false };
      case 'action':
        return { id: item.id, label: item.label, enabled: item.enabled, click: () => void this.perform(item.id) };
      case 'checkbox':
        return {
          id: item.id,
          type: 'checkbox',
          label: item.label,
          checked: item.checked,
          enabled: item.enabled,
          click: () => void this.perform(item.id),
        };
      case 'submenu':
        return { id: item.id, label: item.label, enabled: item.enabled, submenu: this.template(item.items) };
    }
  }

  /** What a menu item does. Failures are told to the user in a dialog, never thrown into Electron. */
  async perform(action: TrayAction): Promise<void> {
    try {
      await this.run(action);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await this.tell({ type: 'error', message: 'BreakerBar could not do that', detail: message });
    } finally {
      this.render();
    }
  }

  private async run(action: TrayAction): Promise<void> {
    const { supervisor, preferences, loginItem } = this.options;
    switch (action) {
      case 'restart':
        return this.restart();
      case 'pause-15m':
      case 'pause-1h':
      case 'pause-until-resumed':
        await this.api().call('pause', { durationSec: PAUSE_SECONDS[action], reason: PAUSE_REASON });
        supervisor.refresh();
        return;
      case 'resume':
        await this.api().call('resume');
        supervisor.refresh();
        return;
      case 'open-dashboard':
        this.options.openDashboard();
        return;
      case 'open-logs': {
        mkdirSync(this.options.logsDir, { recursive: true });
        const problem = await shell.openPath(this.options.logsDir);
        if (problem) throw new Error(`cannot open ${this.options.logsDir}: ${problem}`);
        return;
      }
      case 'open-metrics':
        await shell.openExternal(`${this.api().url}/metrics`);
        return;
      case 'toggle-launch-at-login':
        loginItem.set(!(loginItem.get() ?? false));
        return;
      case 'toggle-confirm-restart':
        preferences.set({ confirmRestart: !preferences.value.confirmRestart });
        return;
      case 'quit':
        this.options.quit();
        return;
    }
  }

  private async restart(): Promise<void> {
    const { preferences, supervisor } = this.options;
    const api = this.api();
    if (preferences.value.confirmRestart) {
      const answer = await this.ask({
        type: 'question',
        message: this.words.t('tray.dialog.restartQuestion'),
        detail: this.words.t('tray.dialog.restartDetail'),
        buttons: [this.words.t('tray.dialog.restart'), this.words.t('tray.dialog.cancel')],
        defaultId: 0,
        cancelId: 1,
        checkboxLabel: this.words.t('tray.dialog.dontAsk'),
        checkboxChecked: false,
      });
      if (answer.response !== 0) return;
      if (answer.checkboxChecked) preferences.set({ confirmRestart: false });
    }
    const answer = await api.call('restart', { force: false, reason: RESTART_REASON });
    supervisor.refresh();
    if (answer.decision !== 'restart') {
      await this.tell({ type: 'info', message: this.words.t('tray.dialog.notRestarted'), detail: answer.reason });
    }
  }

  private api() {
    const api = this.options.supervisor.api;
    if (!api) {
      const view = this.options.supervisor.view;
      throw new CoreApiError(
        `BreakerBar's core is not reachable${view.phase === 'connected' ? '' : `: ${view.detail}`}`,
        null,
      );
    }
    return api;
  }

  private ask(options: MessageBoxOptions) {
    return dialog.showMessageBox(options);
  }

  private async tell(options: MessageBoxOptions): Promise<void> {
    await dialog.showMessageBox({ buttons: [this.words.t('tray.dialog.ok')], ...options });
  }

  private image(path: string): NativeImage {
    const image = nativeImage.createFromPath(path);
    if (this.options.platform === 'darwin') image.setTemplateImage(true);
    return image;
  }
}
