/**
 * The Electron host, composed: each feature is a small module enabled in
 * order (as in cawa-93/vite-electron-builder), and everything they decide
 * lives in modules tested without Electron. The core never runs in this
 * process: the supervisor attaches to a running daemon or starts one in a
 * utility process (docs/architecture.md, "The menu-bar app").
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { app, protocol, session, shell } from 'electron';
import { readApiUrl } from '../core/api-files/address.js';
import { API_TOKEN_FILE } from '../core/api-files/token.js';
import { type LoadedConfig, loadConfig } from '../core/config/index.js';
import { languageOf } from '../core/runtime/language.js';
import type { LockState } from '../core/runtime/lock.js';
import { createLogger, type LogFields, type Logger } from '../core/runtime/log.js';
import type { Language, LanguageSetting } from '../words/i18n.js';
import { translator } from '../words/messages/index.js';
import { enableAppProtocol, registerAppScheme } from './app-protocol.js';
import { forkCore, spawnCoreWithNode } from './core-process.js';
import { type CoreChild, CoreSupervisor, type ForkRequest, type SupervisorTiming } from './core-supervisor.js';
import { pidLockState } from './dev-lock.js';
import { enableIpc } from './ipc.js';
import { autostartDir, createLoginItem } from './login-item.js';
import { enableNotifications } from './notifications.js';
import { type AppPaths, appPaths } from './paths.js';
import { PreferenceStore } from './preferences.js';
import { enableSecurity } from './security.js';
import { TrayController } from './tray.js';
import { DashboardWindow } from './window.js';

export interface AppDependencies {
  paths: AppPaths;
  platform: NodeJS.Platform;
  loadConfig(): LoadedConfig;
  lockState(dataDir: string): LockState;
  readApiUrl(dataDir: string): string | null;
  readToken(dataDir: string): string | null;
  /** Starts our own core (an Electron utility process). */
  fork(request: ForkRequest, logFile: string): CoreChild;
  log: Logger;
  timing?: Partial<SupervisorTiming>;
}

export interface RunningApp {
  supervisor: CoreSupervisor;
  tray: TrayController;
  window: DashboardWindow;
  /** Stops our own core (never a service daemon, never the gateway), then quits. */
  quit(): Promise<void>;
}

/** Second launches of the app, answered once start-up is complete. */
export interface SecondLaunches {
  /** From now on each second launch calls `show`; one that came earlier is answered now, once. */
  handleWith(show: () => void): void;
}

/**
 * One app per user: a second launch only shows the first one's dashboard and exits. Returns null (and quits)
 * when another instance already runs. A second launch that comes while this one is still starting is kept
 * until `handleWith`: the dashboard must not open before the security rules and the IPC handler are in place.
 */
export function claimSingleInstance(): SecondLaunches | null {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }
  let show: (() => void) | null = null;
  let missed = false;
  app.on('second-instance', () => {
    if (show) show();
    else missed = true;
  });
  return {
    handleWith(handler) {
      show = handler;
      if (missed) {
        missed = false;
        handler();
      }
    },
  };
}

export async function startApp(deps: Partial<AppDependencies> = {}): Promise<RunningApp | null> {
  const paths = deps.paths ?? appPaths();
  const platform = deps.platform ?? process.platform;
  // Done before the first await: Electron may become ready meanwhile, and these must come first.
  const secondLaunches = claimSingleInstance();
  if (!secondLaunches) return null;
  // The dashboard's own origin (app-protocol.ts): privileged schemes can only be registered before ready.
  registerAppScheme(protocol);
  // Chromium's files (cache, local storage) in a folder of their own: on macOS userData is BreakerBar's
  // home, where the core keeps its config and database.
  app.setPath('sessionData', join(app.getPath('userData'), 'Session'));
  // A menu-bar app: no Dock icon (LSUIElement in the packaged app; this for development runs).
  if (platform === 'darwin') app.dock?.hide();
  // Closing the dashboard must not quit a tray app.
  app.on('window-all-closed', () => {});

  const d: AppDependencies = { ...(await defaultDependencies(paths, platform)), ...deps };
  const { log } = d;
  await app.whenReady();

  const logsDir = app.getPath('logs');
  const preferences = new PreferenceStore(join(app.getPath('userData'), 'preferences.json'));
  const supervisor = new CoreSupervisor({
    coreScript: paths.coreScript,
    loadConfig: d.loadConfig,
    lockState: d.lockState,
    readApiUrl: d.readApiUrl,
    readToken: d.readToken,
    fork: (request) => d.fork(request, join(logsDir, 'core.log')),
    timing: d.timing,
    log: (message, fields) => log.info(message, fields as LogFields),
  });
  const coreUrl = () => (supervisor.view.phase === 'connected' ? supervisor.view.url : null);

  // Security first: the scheme, the session's rules and the guards exist before any window does.
  enableAppProtocol({
    protocol,
    rendererDir: paths.rendererDir,
    log: (message, fields) => log.error(message, fields as LogFields),
  });
  const guard = enableSecurity({
    app,
    session: session.defaultSession,
    shell,
    rendererUrl: paths.rendererUrl,
    coreUrl,
  });
  const window = new DashboardWindow({ url: paths.rendererUrl, preload: paths.preload, platform, guard });
  enableIpc({
    rendererUrl: paths.rendererUrl,
    api: () => supervisor.api,
    unavailable: () => (supervisor.view.phase === 'connected' ? 'reconnecting' : supervisor.view.detail),
    changed: () => supervisor.refresh(),
    translator: translator(appLanguage(d.loadConfig)),
  });
  supervisor.on('event', (event) => window.send(event));
  enableNotifications({
    subscribe: (listener) => {
      supervisor.on('event', listener);
      return () => supervisor.off('event', listener);
    },
    ownsCore: () => supervisor.ownsCore,
    openDashboard: (route) => window.show(route),
    platform,
  });
  const loginItem = createLoginItem({
    platform,
    app,
    autostartDir: autostartDir(process.env, homedir()),
    execArgs: linuxExecArgs(),
  });

  let quitting: Promise<void> | null = null;
  const quit = (): Promise<void> => {
    quitting ??= (async () => {
      window.allowClose();
      tray.destroy();
      await supervisor.stop();
      app.quit();
    })();
    return quitting;
  };
  const tray = new TrayController({
    translator: translator(appLanguage(d.loadConfig)),
    supervisor,
    openDashboard: (route) => window.show(route),
    preferences,
    loginItem,
    platform,
    assetsDir: paths.assetsDir,
    logsDir,
    quit: () => void quit(),
  });
  // Quitting from anywhere (Cmd-Q in the window, the OS logging out) stops our core first.
  app.on('before-quit', (event) => {
    if (quitting) return;
    event.preventDefault();
    void quit();
  });

  tray.enable();
  supervisor.start();
  openOnFirstRun(supervisor, preferences, window);
  // Start-up is complete (security, IPC, tray): a second launch may open the dashboard now.
  secondLaunches.handleWith(() => window.show());
  log.info('BreakerBar app started', { platform, dataDir: supervisor.config?.dataDir ?? null });
  return { supervisor, tray, window, quit };
}

/**
 * The first time the app runs, the dashboard opens by itself once a core answers: a new user sees what
 * BreakerBar found instead of an icon to discover. Which view (the overview, or the doctor's findings when
 * OpenClaw or a source is missing) is the dashboard's own first-run decision (renderer/first-run.ts).
 */
function openOnFirstRun(supervisor: CoreSupervisor, preferences: PreferenceStore, window: DashboardWindow): void {
  if (preferences.value.welcomed) return;
  const onChange = () => {
    if (supervisor.view.phase !== 'connected' || !supervisor.status) return;
    supervisor.off('change', onChange);
    preferences.set({ welcomed: true });
    window.show();
  };
  supervisor.on('change', onChange);
}

/**
 * The app's language, resolved once: the config's `ui.language`, the locale variables, then the
 * system's own locale as Electron reports it. A config that does not load yet speaks the system's.
 */
function appLanguage(load: () => LoadedConfig): Language {
  let setting: LanguageSetting = 'auto';
  try {
    setting = load().config.ui.language;
  } catch {
    // The supervisor reports a bad config in the menu; the words follow the system meanwhile.
  }
  return languageOf({ ui: { language: setting } }, process.env, app.getLocale());
}

/** Linux autostart command: the AppImage when run from one, the installed binary, or electron + app dir. */
function linuxExecArgs(): string[] | null {
  if (process.env.APPIMAGE) return [process.env.APPIMAGE];
  return app.isPackaged ? [process.execPath] : [process.execPath, app.getAppPath()];
}

async function defaultDependencies(paths: AppPaths, platform: NodeJS.Platform): Promise<AppDependencies> {
  const log = createLogger({ level: 'info' });
  return {
    paths,
    platform,
    loadConfig: () => loadConfig(undefined),
    // An unpackaged checkout has better-sqlite3 for Node's ABI only: its core runs under Node (see core-process).
    lockState: app.isPackaged ? await lockStateOrReason(log) : pidLockState,
    readApiUrl,
    readToken,
    fork: app.isPackaged
      ? forkCore
      : (request, logFile) => spawnCoreWithNode(request, logFile, process.env.BREAKERBAR_NODE ?? 'node'),
    log,
  };
}

/**
 * The lock is read through better-sqlite3, a native module: loaded only here, so that a build for the
 * wrong ABI is a reason shown in the menu ("cannot read the lock: …") rather than an app that never starts.
 */
async function lockStateOrReason(log: Logger): Promise<(dataDir: string) => LockState> {
  try {
    return (await import('../core/runtime/lock.js')).lockState;
  } catch (error) {
    const reason = `cannot load the lock reader: ${(error as Error).message}`;
    log.error('lock reader unavailable', { error: (error as Error).message });
    return () => ({ held: 'unknown', reason });
  }
}

function readToken(dataDir: string): string | null {
  try {
    const token = readFileSync(join(dataDir, API_TOKEN_FILE), 'utf8').trim();
    return token === '' ? null : token;
  } catch {
    return null;
  }
}
