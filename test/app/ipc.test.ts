/**
 * The dashboard's IPC: every channel is handled, a foreign sender is refused
 * before anything else, arguments are checked before anything reaches the
 * core, and a trusted call goes through to the core's API (a real server on
 * loopback) and answers its JSON, or its `{error, param}`.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ConfirmDangerous, confirmDialogOptions } from '../../main/app/confirm-dialog.js';
import { CoreApi } from '../../main/app/core-api.js';
import { enableIpc } from '../../main/app/ipc.js';
import { API_CHANNEL, checkCall, isTrustedSender } from '../../main/app/ipc-contract.js';
import { translator } from '../../main/words/messages/index.js';
import { type FakeCore, startFakeCore } from './fake-core.js';
import { FakeBrowserWindow as BrowserWindow, dialog, ipcMain, reset, state } from './fake-electron.js';

vi.mock('electron', async () => (await import('./fake-electron.js')).electron);

const RENDERER = 'app://dashboard/index.html';
const OWN = { senderFrame: { url: `${RENDERER}#view=overview`, parent: null } };
const FOREIGN = { senderFrame: { url: 'https://evil.example/', parent: null } };

let core: FakeCore;
let api: CoreApi | null;
const changed = vi.fn();

function invoke(channel: string, event: unknown, ...args: unknown[]): Promise<unknown> {
  const handler = ipcMain.handlers.get(channel);
  if (!handler) throw new Error(`no handler for ${channel}`);
  return Promise.resolve(handler(event, ...args));
}

beforeEach(async () => {
  reset();
  changed.mockClear();
  core = await startFakeCore();
  api = new CoreApi({ url: core.url, token: () => core.token });
  enableIpc({ rendererUrl: RENDERER, api: () => api, unavailable: () => 'starting the core…', changed });
});

afterEach(async () => {
  await core.close();
});

/** One API call over the single channel, as the preload sends it. */
function call(event: unknown, route: string, params?: unknown): Promise<unknown> {
  return invoke(API_CHANNEL, event, params === undefined ? { route } : { route, params });
}

describe('IPC handlers', () => {
  it('handles one channel, whatever the route', () => {
    expect([...ipcMain.handlers.keys()]).toEqual([API_CHANNEL]);
  });

  it('refuses a foreign sender, and nothing reaches the core', async () => {
    await expect(call(FOREIGN, 'restart', { force: true, reason: 'x' })).rejects.toThrow(
      "breakerbar:api refused: the sender is not BreakerBar's dashboard",
    );
    await expect(call({ senderFrame: null }, 'status')).rejects.toThrow(/refused/);
    // Our page, but inside a frame of another page.
    await expect(call({ senderFrame: { url: RENDERER, parent: {} } }, 'status')).rejects.toThrow(/refused/);
    expect(core.backend.watchdogRequests).toEqual([]);
  });

  it('passes a call from our own dashboard through to the core and answers its JSON', async () => {
    const status = (await call(OWN, 'status')) as { version: string };
    expect(status.version).toBe('0.0.0-test');
    expect(await call(OWN, 'restart', { force: true, reason: 'from the dashboard' })).toMatchObject({
      decision: 'restart',
    });
    expect(core.backend.watchdogRequests).toEqual([{ action: 'restart', force: true, reason: 'from the dashboard' }]);
    expect(changed).toHaveBeenCalledWith('restart');
    await call(OWN, 'history', { from: 1_000, to: 3_601_000, stepSec: 60, dep: 'a/b' });
    expect(core.backend.historyQueries).toEqual([{ dep: 'a/b', from: 1_000, to: 3_601_000, stepMs: 60_000 }]);
    expect(await call(OWN, 'incidents', { limit: 5, since: 1_000 })).toEqual({ incidents: [] });
    expect(await call(OWN, 'incidents')).toEqual({ incidents: [] });
    expect(core.backend.incidentQueries).toEqual([
      { limit: 5, since: 1_000 },
      { limit: 50, since: null },
    ]);
    expect(await call(OWN, 'incident', { id: 12 })).toEqual({ error: 'no incident 12' });
    await call(OWN, 'control', { dep: 'a/b', action: 'reset', reason: 'fixed upstream' });
    expect(core.backend.controls).toEqual([{ dep: 'a/b', action: 'reset', reason: 'fixed upstream' }]);
    await call(OWN, 'pause', { durationSec: null });
    await call(OWN, 'resume');
    expect(core.backend.watchdogRequests.slice(1).map((r) => r.action)).toEqual(['pause', 'resume']);
    expect(await call(OWN, 'saveConfig', { config: { log: { level: 'debug' } } })).toMatchObject({ ok: true });
    expect(await call(OWN, 'config')).toMatchObject({ file: '/fake/config.json' });
    expect(await call(OWN, 'doctor')).toMatchObject({ findings: [] });
    expect(await call(OWN, 'spend')).toEqual(core.backend.spendResult);
  });

  it('answers bad arguments with {error, param} and sends nothing', async () => {
    expect(await call(OWN, 'pause', { durationSec: -5 })).toMatchObject({ param: 'durationSec' });
    expect(await call(OWN, 'restart', { force: 'yes' })).toMatchObject({ param: 'force' });
    expect(await call(OWN, 'restart', { force: true, command: 'rm -rf /' })).toMatchObject({ param: 'command' });
    expect(await call(OWN, 'control', { dep: 'a/b', action: 'explode', reason: 'why' })).toMatchObject({
      param: 'action',
    });
    expect(await call(OWN, 'saveConfig', 'not an object')).toMatchObject({ param: 'params' });
    expect(await call(OWN, 'saveConfig', { settings: {} })).toMatchObject({ param: 'settings' });
    expect(await call(OWN, 'history', { from: 10, to: 5, stepSec: 60 })).toMatchObject({ param: 'from' });
    expect(await invoke(API_CHANNEL, OWN, { route: 'status' }, 'extra')).toMatchObject({ param: 'arguments' });
    expect(await invoke(API_CHANNEL, OWN, { route: 'status', extra: 1 })).toMatchObject({ param: 'extra' });
    expect(await call(OWN, 'metrics')).toMatchObject({ param: 'route' });
    expect(await call(OWN, 'toString')).toMatchObject({ param: 'route' });
    expect(await call(OWN, 'incidents', { limit: 0 })).toMatchObject({ param: 'limit' });
    expect(await call(OWN, 'incidents', { limit: 5, where: 'x' })).toMatchObject({ param: 'where' });
    expect(await call(OWN, 'incidents', { since: -1 })).toMatchObject({ param: 'since' });
    expect(await call(OWN, 'incident', { id: '1; DROP' })).toMatchObject({ param: 'id' });
    expect(await call(OWN, 'incident', { id: 0 })).toMatchObject({ param: 'id' });
    expect(core.backend.incidentQueries).toEqual([]);
    expect(core.backend.watchdogRequests).toEqual([]);
    expect(core.backend.controls).toEqual([]);
    expect(core.backend.savedConfigs).toEqual([]);
    expect(changed).not.toHaveBeenCalled();
  });

  it('answers the core’s refusal as {error, param}, and says when there is no core', async () => {
    core.backend.watchdogError = new Error('no watchdog here');
    expect(await call(OWN, 'resume')).toEqual({ error: 'no watchdog here' });
    api = null;
    expect(await call(OWN, 'status')).toEqual({
      error: "BreakerBar's core is not reachable: starting the core…",
    });
  });
});

describe('sender check', () => {
  it('trusts only our own index.html, whatever its fragment or query', () => {
    expect(isTrustedSender({ url: RENDERER }, RENDERER)).toBe(true);
    expect(isTrustedSender({ url: `${RENDERER}?x=1#view=logs` }, RENDERER)).toBe(true);
    expect(isTrustedSender({ url: RENDERER.replace('index.html', 'other.html') }, RENDERER)).toBe(false);
    expect(isTrustedSender({ url: 'file:///etc/passwd' }, RENDERER)).toBe(false);
    expect(isTrustedSender({ url: 'http://127.0.0.1:18820/' }, RENDERER)).toBe(false);
    // The dashboard's own files under file: are not the dashboard: only its app: origin is.
    expect(
      isTrustedSender({ url: 'file:///opt/BreakerBar/resources/app.asar/dist/renderer/index.html' }, RENDERER),
    ).toBe(false);
    expect(isTrustedSender({ url: 'app://elsewhere/index.html' }, RENDERER)).toBe(false);
    expect(isTrustedSender({ url: 'app://dashboard:8080/index.html' }, RENDERER)).toBe(false);
    expect(isTrustedSender({ url: 'app://x@dashboard/index.html' }, RENDERER)).toBe(false);
    expect(isTrustedSender({ url: 'other://dashboard/index.html' }, RENDERER)).toBe(false);
    expect(isTrustedSender({ url: 'not a url' }, RENDERER)).toBe(false);
    expect(isTrustedSender(null, RENDERER)).toBe(false);
  });

  it('checks the dashboard’s history request with the server’s own rules', () => {
    const NOW = 1_700_000_000_000;
    expect(checkCall({ route: 'history', params: { from: 0, to: 60_000, stepSec: 0.5 } }, NOW).ok).toBe(false);
    expect(checkCall({ route: 'history', params: { from: 0, to: 600_000_000_000, stepSec: 1 } }, NOW)).toMatchObject({
      ok: false,
      error: { param: 'step' },
    });
    expect(checkCall({ route: 'history', params: { from: 0, to: 60_000, stepSec: 1 } }, NOW)).toMatchObject({
      ok: true,
      route: 'history',
    });
  });
});

describe('saving dangerous settings over IPC', () => {
  const DANGEROUS = { watchdog: { restartCommand: ['sh', '-c', 'echo pwned'] }, server: { host: '0.0.0.0' } };

  function withConfirm(confirmDangerous: ConfirmDangerous, words = translator('en')) {
    ipcMain.handlers.clear();
    enableIpc({
      rendererUrl: RENDERER,
      api: () => api,
      unavailable: () => 'x',
      changed,
      confirmDangerous,
      translator: words,
    });
  }

  it('asks the human, and saves what was confirmed (the core does not ask again)', async () => {
    const confirm = vi.fn<ConfirmDangerous>(async () => true);
    withConfirm(confirm);
    expect(await call(OWN, 'saveConfig', { config: DANGEROUS })).toMatchObject({ ok: true });
    expect(confirm).toHaveBeenCalledTimes(1);
    expect(confirm.mock.calls[0]![0]).toEqual([
      { key: 'watchdog.restartCommand', change: 'added', from: null, to: '"sh" "-c" "echo pwned"' },
      { key: 'server.host', change: 'changed', from: '127.0.0.1', to: '0.0.0.0' },
    ]);
    expect(core.backend.savedConfigs).toEqual([DANGEROUS]);
  });

  it('saves nothing when the human cancels, and answers {error, param} in the app’s language', async () => {
    withConfirm(async () => false);
    expect(await call(OWN, 'saveConfig', { config: DANGEROUS })).toEqual({
      error: 'not confirmed: the change to watchdog.restartCommand and server.host was cancelled, nothing was saved',
      param: 'confirm',
    });
    withConfirm(async () => false, translator('zh-CN'));
    expect(await call(OWN, 'saveConfig', { config: DANGEROUS })).toMatchObject({
      error: expect.stringContaining('未确认'),
      param: 'confirm',
    });
    expect(core.backend.savedConfigs).toEqual([]);
    expect(changed).not.toHaveBeenCalled();
  });

  it('does not ask when nothing dangerous changes, nor about a config the core refuses anyway', async () => {
    const confirm = vi.fn<ConfirmDangerous>(async () => false);
    withConfirm(confirm);
    expect(
      await call(OWN, 'saveConfig', { config: { retention: { days: 3 }, server: { port: 18821 } } }),
    ).toMatchObject({
      ok: true,
    });
    expect(await call(OWN, 'saveConfig', { config: { watchdog: { restartCommand: 'rm -rf /' } } })).toMatchObject({
      param: 'watchdog.restartCommand',
    });
    expect(confirm).not.toHaveBeenCalled();
  });

  it('by default asks with a native message box on the asking window, Cancel the default', async () => {
    const window = new BrowserWindow({});
    const sender = { ...OWN, sender: window.webContents };
    state.dialogAnswers.push({ response: 0 });
    expect(await call(sender, 'saveConfig', { config: DANGEROUS })).toMatchObject({ param: 'confirm' });
    expect(core.backend.savedConfigs).toEqual([]);
    const [parent, options] = dialog.showMessageBox.mock.calls[0] as unknown as [unknown, Record<string, unknown>];
    expect(parent).toBe(window);
    expect(options).toMatchObject({ defaultId: 0, cancelId: 0, buttons: ['Cancel', 'Save'] });
    expect(options.detail).toContain('watchdog.restartCommand: add "sh" "-c" "echo pwned"');
    expect(options.detail).toContain('server.host: 127.0.0.1 → 0.0.0.0');

    state.dialogAnswers.push({ response: 1 });
    expect(await call(sender, 'saveConfig', { config: DANGEROUS })).toMatchObject({ ok: true });
    expect(core.backend.savedConfigs).toEqual([DANGEROUS]);
  });

  it('words the box in the app’s language', () => {
    const options = confirmDialogOptions(
      [{ key: 'heartbeat.url', change: 'removed', from: 'https://hc-ping.com/…', to: null }],
      translator('zh-CN'),
    );
    expect(options.buttons).toEqual(['取消', '保存']);
    expect(options.detail).toContain('heartbeat.url：移除 https://hc-ping.com/…');
  });
});
