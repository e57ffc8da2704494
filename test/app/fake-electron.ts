/**
 * A stand-in for the `electron` module (whose runtime cannot be downloaded
 * here), in the spirit of max-mapper/menubar's `__mocks__/electron.ts`: just
 * the APIs the host uses, recording what was done with them so a test can
 * assert it, and letting a test play the OS (click a menu item or a
 * notification, launch a second instance, answer a dialog).
 *
 * Use: `vi.mock('electron', async () => (await import('./fake-electron.js')).electron)`,
 * and `fake.reset()` in `beforeEach`.
 */
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { vi } from 'vitest';

type Listener = (...args: unknown[]) => unknown;

/** An emitter whose listeners a test can fire by name (`emit`), like Electron's objects. */
class Emitting extends EventEmitter {}

export interface FakeMenuItem {
  id?: string;
  label?: string;
  type?: string;
  enabled?: boolean;
  checked?: boolean;
  click?: () => void;
  submenu?: FakeMenuItem[];
}

export class FakeMenu {
  constructor(readonly items: FakeMenuItem[]) {}

  /** The item with this id, anywhere in the menu (submenus included). */
  find(id: string): FakeMenuItem | undefined {
    const search = (items: FakeMenuItem[]): FakeMenuItem | undefined => {
      for (const item of items) {
        if (item.id === id) return item;
        const inner = item.submenu ? search(item.submenu) : undefined;
        if (inner) return inner;
      }
      return undefined;
    };
    return search(this.items);
  }

  /** Clicks an item as the user would; fails the test when it is missing or disabled. */
  click(id: string): void {
    const item = this.find(id);
    if (!item) throw new Error(`no menu item ${id}`);
    if (item.enabled === false) throw new Error(`menu item ${id} is disabled`);
    item.click?.();
  }

  labels(): string[] {
    return this.items.filter((i) => i.type !== 'separator').map((i) => i.label ?? '');
  }
}

export class FakeImage {
  readonly setTemplateImage = vi.fn();
  constructor(readonly path: string) {}
  isEmpty(): boolean {
    return !existsSync(this.path);
  }
}

export class FakeTray extends Emitting {
  static instances: FakeTray[] = [];
  image: FakeImage;
  tooltip = '';
  title = '';
  menu: FakeMenu | null = null;
  destroyed = false;
  readonly setImage = vi.fn((image: FakeImage) => {
    this.image = image;
  });
  readonly setToolTip = vi.fn((tooltip: string) => {
    this.tooltip = tooltip;
  });
  readonly setTitle = vi.fn((title: string) => {
    this.title = title;
  });
  readonly setContextMenu = vi.fn((menu: FakeMenu) => {
    this.menu = menu;
  });
  readonly setIgnoreDoubleClickEvents = vi.fn();
  readonly popUpContextMenu = vi.fn();
  constructor(image: FakeImage) {
    super();
    this.image = image;
    FakeTray.instances.push(this);
  }
  destroy(): void {
    this.destroyed = true;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

export class FakeNotification extends Emitting {
  static instances: FakeNotification[] = [];
  static supported = true;
  static isSupported = vi.fn(() => FakeNotification.supported);
  readonly show = vi.fn();
  constructor(readonly options: { title?: string; body?: string; silent?: boolean; urgency?: string }) {
    super();
    FakeNotification.instances.push(this);
  }
}

export class FakeWebContents extends Emitting {
  /** What the page shows: the last URL loaded into its window. */
  url = '';
  readonly send = vi.fn();
  readonly setWindowOpenHandler = vi.fn();
  getURL(): string {
    return this.url;
  }
  isDestroyed(): boolean {
    return false;
  }
}

export class FakeBrowserWindow extends Emitting {
  static instances: FakeBrowserWindow[] = [];
  /** The window showing these contents, as Electron finds it. */
  static fromWebContents = vi.fn(
    (contents: unknown) => FakeBrowserWindow.instances.find((window) => window.webContents === contents) ?? null,
  );
  readonly webContents = new FakeWebContents();
  visible = false;
  destroyed = false;
  readonly loadURL = vi.fn(async (url: string) => {
    this.webContents.url = url;
  });
  readonly show = vi.fn(() => {
    this.visible = true;
  });
  readonly hide = vi.fn(() => {
    this.visible = false;
  });
  readonly focus = vi.fn();
  readonly restore = vi.fn();
  constructor(readonly options: Record<string, unknown> & { webPreferences?: Record<string, unknown> }) {
    super();
    FakeBrowserWindow.instances.push(this);
  }
  isMinimized(): boolean {
    return false;
  }
  isVisible(): boolean {
    return this.visible;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  /** What the OS does when the user clicks the close button: returns whether the close went ahead. */
  userCloses(): boolean {
    let prevented = false;
    this.emit('close', { preventDefault: () => (prevented = true) });
    if (!prevented) {
      this.destroyed = true;
      this.emit('closed');
    }
    return !prevented;
  }
}

export class FakeUtilityProcess extends Emitting {
  static forks: Array<{
    modulePath: string;
    args: string[];
    options: Record<string, unknown>;
    child: FakeUtilityProcess;
  }> = [];
  pid: number | undefined = 4242;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly kill = vi.fn(() => {
    setImmediate(() => this.exit(0));
    return true;
  });
  exit(code: number): void {
    this.stdout.end();
    this.stderr.end();
    this.pid = undefined;
    this.emit('exit', code);
  }
}

/** Shared state a test sets up (paths, the lock answer, dialog answers). */
export const state = {
  singleInstanceLock: true,
  ready: true,
  paths: {} as Record<string, string>,
  openAtLogin: false,
  /** Answers of dialog.showMessageBox, in order; the default is "first button, box unchecked". */
  dialogAnswers: [] as Array<{ response: number; checkboxChecked?: boolean }>,
  openPathResult: '',
};

const appEmitter = new Emitting();

export const app = {
  requestSingleInstanceLock: vi.fn(() => state.singleInstanceLock),
  quit: vi.fn(),
  exit: vi.fn(),
  focus: vi.fn(),
  isReady: vi.fn(() => state.ready),
  whenReady: vi.fn(() => Promise.resolve()),
  isPackaged: false,
  getAppPath: vi.fn(() => '/app'),
  getLocale: vi.fn(() => 'en-US'),
  getPath: vi.fn((name: string) => {
    const path = state.paths[name];
    if (!path) throw new Error(`fake app.getPath: no path set for ${name}`);
    return path;
  }),
  setPath: vi.fn((name: string, path: string) => {
    state.paths[name] = path;
  }),
  dock: { hide: vi.fn() },
  getLoginItemSettings: vi.fn(() => ({ openAtLogin: state.openAtLogin })),
  setLoginItemSettings: vi.fn((settings: { openAtLogin: boolean }) => {
    state.openAtLogin = settings.openAtLogin;
  }),
  on: vi.fn((event: string, listener: Listener) => {
    appEmitter.on(event, listener);
    return app;
  }),
  /** Fires an app event as Electron would (`second-instance`, `before-quit`, …). */
  emit: (event: string, ...args: unknown[]) => appEmitter.emit(event, ...args),
  listenerCount: (event: string) => appEmitter.listenerCount(event),
};

export const ipcMain = {
  handlers: new Map<string, Listener>(),
  handle: vi.fn((channel: string, handler: Listener) => {
    if (ipcMain.handlers.has(channel)) throw new Error(`second handler for ${channel}`);
    ipcMain.handlers.set(channel, handler);
  }),
  removeHandler: vi.fn((channel: string) => {
    ipcMain.handlers.delete(channel);
  }),
};

export const dialog = {
  showMessageBox: vi.fn(async (_options: Record<string, unknown>) => {
    const answer = state.dialogAnswers.shift() ?? { response: 0 };
    return { response: answer.response, checkboxChecked: answer.checkboxChecked ?? false };
  }),
  showErrorBox: vi.fn(),
};

export const shell = {
  openPath: vi.fn(async (_path: string) => state.openPathResult),
  openExternal: vi.fn(async (_url: string) => {}),
};

export const nativeImage = {
  createFromPath: vi.fn((path: string) => new FakeImage(path)),
};

export const Menu = {
  buildFromTemplate: vi.fn((template: FakeMenuItem[]) => new FakeMenu(template)),
};

export const session = {
  defaultSession: {
    setPermissionRequestHandler: vi.fn(),
    setPermissionCheckHandler: vi.fn(),
    webRequest: { onHeadersReceived: vi.fn() },
  },
};

export const protocol = {
  registerSchemesAsPrivileged: vi.fn(),
  /** Scheme → the handler `protocol.handle` was given. */
  handlers: new Map<string, (request: { url: string; method: string }) => Promise<Response>>(),
  handle: vi.fn((scheme: string, handler: (request: { url: string; method: string }) => Promise<Response>) => {
    if (protocol.handlers.has(scheme)) throw new Error(`second handler for ${scheme}:`);
    protocol.handlers.set(scheme, handler);
  }),
};

export const utilityProcess = {
  fork: vi.fn((modulePath: string, args: string[] = [], options: Record<string, unknown> = {}) => {
    const child = new FakeUtilityProcess();
    FakeUtilityProcess.forks.push({ modulePath, args, options, child });
    return child;
  }),
};

/** The module as `vi.mock('electron', …)` should return it. */
export const electron = {
  app,
  BrowserWindow: FakeBrowserWindow,
  dialog,
  ipcMain,
  Menu,
  nativeImage,
  Notification: FakeNotification,
  protocol,
  session,
  shell,
  Tray: FakeTray,
  utilityProcess,
};

export function reset(): void {
  vi.clearAllMocks();
  appEmitter.removeAllListeners();
  ipcMain.handlers.clear();
  protocol.handlers.clear();
  FakeTray.instances = [];
  FakeNotification.instances = [];
  FakeNotification.supported = true;
  FakeBrowserWindow.instances = [];
  FakeUtilityProcess.forks = [];
  app.isPackaged = false;
  Object.assign(state, {
    singleInstanceLock: true,
    ready: true,
    paths: {},
    openAtLogin: false,
    dialogAnswers: [],
    openPathResult: '',
  });
}
