/**
 * The host as a whole, with Electron faked: one instance per user (a second
 * launch shows the first one's dashboard; without the lock the app quits),
 * no Dock icon, attach-or-start wired to the utility process, and quitting
 * stops only a core the app started.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DASHBOARD_CSP } from '../../main/api/server/static-files.js';
import { API_CHANNEL } from '../../main/app/ipc-contract.js';
import { type AppDependencies, type RunningApp, startApp } from '../../main/app/main.js';
import { loadConfig } from '../../main/core/config/index.js';
import type { LockState } from '../../main/core/runtime/lock.js';
import { silentLogger } from '../../main/core/runtime/log.js';
import { until } from '../helpers/transcripts.js';
import { startFakeCore } from './fake-core.js';
import {
  app,
  FakeBrowserWindow,
  FakeTray,
  FakeUtilityProcess,
  ipcMain,
  protocol,
  reset,
  state,
  utilityProcess,
} from './fake-electron.js';

vi.mock('electron', async () => (await import('./fake-electron.js')).electron);

let root: string;
let running: RunningApp | null;
let lock: LockState;

beforeEach(() => {
  reset();
  root = mkdtempSync(join(tmpdir(), 'bb-app-main-'));
  mkdirSync(join(root, 'home'), { recursive: true });
  writeFileSync(join(root, 'home', 'config.json'), JSON.stringify({ server: { port: 0 } }));
  state.paths = { userData: join(root, 'userData'), logs: join(root, 'logs') };
  lock = { held: false };
  running = null;
});

afterEach(async () => {
  await running?.supervisor.stop();
  running?.tray.destroy();
  rmSync(root, { recursive: true, force: true });
});

function deps(overrides: Partial<AppDependencies> = {}): Partial<AppDependencies> {
  return {
    paths: {
      coreScript: join(root, 'dist', 'main', 'cli', 'index.js'),
      preload: join(root, 'dist', 'preload', 'index.cjs'),
      rendererDir: join(root, 'dist', 'renderer'),
      rendererUrl: 'app://dashboard/index.html',
      assetsDir: join(root, 'assets'),
    },
    platform: 'darwin',
    loadConfig: () =>
      loadConfig(undefined, { env: { BREAKERBAR_HOME: join(root, 'home') }, home: root, platform: 'linux' }),
    lockState: () => lock,
    readApiUrl: () => null,
    readToken: () => null,
    log: silentLogger,
    timing: { pollMs: 20, minMs: 20 },
    ...overrides,
  };
}

describe('single instance', () => {
  it('quits when another instance holds the lock, without a tray or a core', async () => {
    state.singleInstanceLock = false;
    expect(await startApp(deps())).toBeNull();
    expect(app.quit).toHaveBeenCalledTimes(1);
    expect(FakeTray.instances).toHaveLength(0);
    expect(utilityProcess.fork).not.toHaveBeenCalled();
    expect(app.listenerCount('second-instance')).toBe(0);
  });

  it('shows the dashboard when a second instance is launched', async () => {
    running = await startApp(deps());
    expect(app.quit).not.toHaveBeenCalled();
    expect(FakeBrowserWindow.instances).toHaveLength(0);
    app.emit('second-instance', {}, ['breakerbar'], root);
    expect(FakeBrowserWindow.instances).toHaveLength(1);
    expect(FakeBrowserWindow.instances[0]?.show).toHaveBeenCalled();
  });

  it('answers a second launch during start-up only once start-up is complete (security and IPC in place)', async () => {
    let ready: () => void = () => {};
    app.whenReady.mockImplementationOnce(() => new Promise<void>((resolve) => (ready = resolve)));
    const starting = startApp(deps());
    app.emit('second-instance', {}, [], root);
    await until(() => app.whenReady.mock.calls.length === 1);
    app.emit('second-instance', {}, [], root);
    expect(FakeBrowserWindow.instances).toHaveLength(0);
    ready();
    running = await starting;
    // Both launches asked for the same thing: one window, shown once, guarded, with the IPC handler there.
    expect(FakeBrowserWindow.instances).toHaveLength(1);
    const [window] = FakeBrowserWindow.instances;
    expect(window?.show).toHaveBeenCalledTimes(1);
    expect(window?.webContents.setWindowOpenHandler).toHaveBeenCalled();
    expect([...ipcMain.handlers.keys()]).toEqual([API_CHANNEL]);
    expect([...protocol.handlers.keys()]).toEqual(['app']);
    // Later launches are answered at once.
    app.emit('second-instance', {}, [], root);
    expect(window?.show).toHaveBeenCalledTimes(2);
  });
});

describe('the dashboard’s origin', () => {
  it('registers app: as a privileged standard, secure scheme before ready, and nothing more', async () => {
    running = await startApp(deps());
    expect(protocol.registerSchemesAsPrivileged).toHaveBeenCalledTimes(1);
    expect(protocol.registerSchemesAsPrivileged).toHaveBeenCalledWith([
      { scheme: 'app', privileges: { standard: true, secure: true } },
    ]);
    expect(protocol.registerSchemesAsPrivileged.mock.invocationCallOrder[0]).toBeLessThan(
      app.whenReady.mock.invocationCallOrder[0] as number,
    );
  });

  it('serves app://dashboard from the renderer directory, with the dashboard’s CSP', async () => {
    mkdirSync(join(root, 'dist', 'renderer'), { recursive: true });
    writeFileSync(join(root, 'dist', 'renderer', 'index.html'), '<!doctype html><title>dashboard</title>');
    writeFileSync(join(root, 'dist', 'secret.txt'), 'not for the page');
    running = await startApp(deps());
    const handler = protocol.handlers.get('app');
    const page = await handler?.({ url: 'app://dashboard/index.html#view=logs', method: 'GET' });
    expect(page?.status).toBe(200);
    expect(await page?.text()).toBe('<!doctype html><title>dashboard</title>');
    expect(page?.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page?.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
    const outside = await handler?.({ url: 'app://dashboard/assets/%2e%2e/%2e%2e/secret.txt', method: 'GET' });
    expect(outside?.status).toBe(404);
    expect(outside?.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
  });

  it('opens the window at app://dashboard, guarded, and the IPC handler accepts only that page', async () => {
    running = await startApp(deps());
    running?.window.show('view=doctor');
    const [window] = FakeBrowserWindow.instances;
    expect(window?.loadURL).toHaveBeenCalledWith('app://dashboard/index.html#view=doctor');
    const handler = ipcMain.handlers.get(API_CHANNEL);
    const fromPage = { senderFrame: { url: 'app://dashboard/index.html#view=doctor', parent: null } };
    const fromFile = { senderFrame: { url: 'file:///tmp/dist/renderer/index.html', parent: null } };
    await expect(handler?.(fromFile, { route: 'status' })).rejects.toThrow(/not BreakerBar's dashboard/);
    expect(await handler?.(fromPage, { route: 'status' })).toMatchObject({
      error: expect.stringMatching(/not reachable/),
    });
  });
});

describe('the host', () => {
  it('hides the Dock icon on macOS, creates the tray, and registers the IPC handlers', async () => {
    running = await startApp(deps());
    expect(app.dock.hide).toHaveBeenCalled();
    expect(FakeTray.instances).toHaveLength(1);
    expect([...ipcMain.handlers.keys()]).toEqual([API_CHANNEL]);
    expect(app.setPath).toHaveBeenCalledWith('sessionData', join(root, 'userData', 'Session'));
  });

  it('a packaged app starts the core in a utility process when no daemon runs, and stops it on quit', async () => {
    app.isPackaged = true;
    running = await startApp(deps({ platform: 'linux' }));
    expect(app.dock.hide).not.toHaveBeenCalled();
    await until(() => FakeUtilityProcess.forks.length === 1);
    const [fork] = FakeUtilityProcess.forks;
    expect(fork?.modulePath).toBe(join(root, 'dist', 'main', 'cli', 'index.js'));
    expect(fork?.args).toEqual(['daemon', '--no-desktop']);
    expect(fork?.options).toMatchObject({ serviceName: 'BreakerBar core', stdio: 'pipe' });

    // Cmd-Q, logout, the menu's Quit: all go through before-quit.
    const event = { preventDefault: vi.fn() };
    app.emit('before-quit', event);
    expect(event.preventDefault).toHaveBeenCalled();
    await until(() => app.quit.mock.calls.length === 1);
    expect(fork?.child.kill).toHaveBeenCalledTimes(1);
    expect(FakeTray.instances[0]?.isDestroyed()).toBe(true);
  });

  it('an unpackaged app (a checkout) runs its core under Node, whose ABI the checkout built better-sqlite3 for', async () => {
    const script = join(root, 'core.mjs');
    const marker = join(root, 'core-started');
    writeFileSync(
      script,
      // Written aside and renamed into place: the test sees the marker whole or not at all.
      `import { renameSync, writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(`${marker}.tmp`)}, JSON.stringify({ argv: process.argv.slice(2), electron: process.versions.electron ?? null }));
renameSync(${JSON.stringify(`${marker}.tmp`)}, ${JSON.stringify(marker)});
setInterval(() => {}, 1000);
`,
    );
    const base = deps({ platform: 'linux' });
    running = await startApp({ ...base, paths: { ...(base.paths as AppDependencies['paths']), coreScript: script } });
    await until(() => existsSync(marker), 10_000);
    expect(JSON.parse(readFileSync(marker, 'utf8'))).toEqual({ argv: ['daemon', '--no-desktop'], electron: null });
    expect(FakeUtilityProcess.forks).toEqual([]);
    await running?.quit();
    running = null;
  });

  it('attaches to a running daemon instead, and leaves it running on quit', async () => {
    lock = { held: true, pid: 4321 };
    running = await startApp(deps());
    // The supervisor has decided (to attach): from then on it forks nothing.
    await until(
      () => {
        const view = running?.supervisor.view;
        return view?.phase === 'connecting' && view.detail === 'waiting for the BreakerBar daemon…';
      },
      5000,
      'the decision',
    );
    expect(utilityProcess.fork).not.toHaveBeenCalled();
    expect(running?.supervisor.view).toEqual({ phase: 'connecting', detail: 'waiting for the BreakerBar daemon…' });
    await running?.quit();
    expect(app.quit).toHaveBeenCalledTimes(1);
    expect(FakeUtilityProcess.forks).toEqual([]);
  });

  it('opens the dashboard by itself on the first run only, once a core answers', async () => {
    const core = await startFakeCore();
    try {
      lock = { held: true, pid: 4321 };
      const attach = deps({ readApiUrl: () => core.url, readToken: () => core.token });
      running = await startApp(attach);
      await until(() => FakeBrowserWindow.instances.length === 1);
      expect(FakeBrowserWindow.instances[0]?.show).toHaveBeenCalled();
      await running?.quit();
      running = null;

      reset();
      state.paths = { userData: join(root, 'userData'), logs: join(root, 'logs') };
      running = await startApp(attach);
      await until(() => running?.supervisor.view.phase === 'connected');
      expect(FakeBrowserWindow.instances).toHaveLength(0);
    } finally {
      await running?.supervisor.stop();
      await core.close();
    }
  });
});
