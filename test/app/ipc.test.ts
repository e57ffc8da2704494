/**
 * The dashboard's IPC: every channel is handled, a foreign sender is refused
 * before anything else, arguments are checked before anything reaches the
 * core, and a trusted call goes through to the core's API (a real server on
 * loopback) and answers its JSON, or its `{error, param}`.
 */
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CoreApi } from '../../main/app/core-api.js';
import { enableIpc } from '../../main/app/ipc.js';
import { CHANNELS, checkArgs, isTrustedSender } from '../../main/app/ipc-contract.js';
import { type FakeCore, startFakeCore } from './fake-core.js';
import { ipcMain, reset } from './fake-electron.js';

vi.mock('electron', async () => (await import('./fake-electron.js')).electron);

const RENDERER = pathToFileURL('/opt/BreakerBar/resources/app.asar/dist/renderer/index.html').href;
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

describe('IPC handlers', () => {
  it('handles one channel per action', () => {
    expect([...ipcMain.handlers.keys()].sort()).toEqual(Object.values(CHANNELS).sort());
  });

  it('refuses a foreign sender, and nothing reaches the core', async () => {
    await expect(invoke(CHANNELS.restart, FOREIGN, { force: true, reason: 'x' })).rejects.toThrow(
      "breakerbar:restart refused: the sender is not BreakerBar's dashboard",
    );
    await expect(invoke(CHANNELS.status, { senderFrame: null })).rejects.toThrow(/refused/);
    // Our page, but inside a frame of another page.
    await expect(invoke(CHANNELS.status, { senderFrame: { url: RENDERER, parent: {} } })).rejects.toThrow(/refused/);
    expect(core.backend.watchdogRequests).toEqual([]);
  });

  it('passes a call from our own dashboard through to the core and answers its JSON', async () => {
    const status = (await invoke(CHANNELS.status, OWN)) as { version: string };
    expect(status.version).toBe('0.0.0-test');
    expect(await invoke(CHANNELS.restart, OWN, { force: true, reason: 'from the dashboard' })).toMatchObject({
      decision: 'restart',
    });
    expect(core.backend.watchdogRequests).toEqual([{ action: 'restart', force: true, reason: 'from the dashboard' }]);
    expect(changed).toHaveBeenCalledWith('restart');
    await invoke(CHANNELS.history, OWN, { from: 1_000, to: 3_601_000, stepSec: 60, dep: 'a/b' });
    expect(core.backend.historyQueries).toEqual([{ dep: 'a/b', from: 1_000, to: 3_601_000, stepMs: 60_000 }]);
    expect(await invoke(CHANNELS.incidents, OWN, { limit: 5, since: 1_000 })).toEqual({ incidents: [] });
    expect(await invoke(CHANNELS.incidents, OWN)).toEqual({ incidents: [] });
    expect(core.backend.incidentQueries).toEqual([
      { limit: 5, since: 1_000 },
      { limit: 50, since: null },
    ]);
    expect(await invoke(CHANNELS.incident, OWN, 12)).toEqual({ error: 'no incident 12' });
    await invoke(CHANNELS.control, OWN, 'a/b', 'reset', 'fixed upstream');
    expect(core.backend.controls).toEqual([{ dep: 'a/b', action: 'reset', reason: 'fixed upstream' }]);
    await invoke(CHANNELS.pause, OWN, null);
    await invoke(CHANNELS.resume, OWN);
    expect(core.backend.watchdogRequests.slice(1).map((r) => r.action)).toEqual(['pause', 'resume']);
    expect(await invoke(CHANNELS.saveConfig, OWN, { log: { level: 'debug' } })).toMatchObject({ ok: true });
    expect(await invoke(CHANNELS.config, OWN)).toMatchObject({ file: '/fake/config.json' });
    expect(await invoke(CHANNELS.doctor, OWN)).toMatchObject({ findings: [] });
    expect(await invoke(CHANNELS.spend, OWN)).toEqual(core.backend.spendResult);
  });

  it('answers bad arguments with {error, param} and sends nothing', async () => {
    expect(await invoke(CHANNELS.pause, OWN, -5)).toMatchObject({ param: 'durationSec' });
    expect(await invoke(CHANNELS.restart, OWN, { force: 'yes' })).toMatchObject({ param: 'force' });
    expect(await invoke(CHANNELS.restart, OWN, { force: true, command: 'rm -rf /' })).toMatchObject({
      param: 'command',
    });
    expect(await invoke(CHANNELS.control, OWN, 'a/b', 'explode', 'why')).toMatchObject({ param: 'action' });
    expect(await invoke(CHANNELS.saveConfig, OWN, 'not an object')).toMatchObject({ param: 'config' });
    expect(await invoke(CHANNELS.history, OWN, { from: 10, to: 5, stepSec: 60 })).toMatchObject({ param: 'from' });
    expect(await invoke(CHANNELS.status, OWN, 'extra')).toMatchObject({ param: 'arguments' });
    expect(await invoke(CHANNELS.incidents, OWN, { limit: 0 })).toMatchObject({ param: 'limit' });
    expect(await invoke(CHANNELS.incidents, OWN, { limit: 5, where: 'x' })).toMatchObject({ param: 'where' });
    expect(await invoke(CHANNELS.incidents, OWN, { since: -1 })).toMatchObject({ param: 'since' });
    expect(await invoke(CHANNELS.incident, OWN, '1; DROP')).toMatchObject({ param: 'id' });
    expect(await invoke(CHANNELS.incident, OWN, 0)).toMatchObject({ param: 'id' });
    expect(core.backend.incidentQueries).toEqual([]);
    expect(core.backend.watchdogRequests).toEqual([]);
    expect(core.backend.controls).toEqual([]);
    expect(changed).not.toHaveBeenCalled();
  });

  it('answers the core’s refusal as {error, param}, and says when there is no core', async () => {
    core.backend.watchdogError = new Error('no watchdog here');
    expect(await invoke(CHANNELS.resume, OWN)).toEqual({ error: 'no watchdog here' });
    api = null;
    expect(await invoke(CHANNELS.status, OWN)).toEqual({
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
    expect(
      isTrustedSender({ url: 'file://evil-host/opt/BreakerBar/resources/app.asar/dist/renderer/index.html' }, RENDERER),
    ).toBe(false);
    expect(isTrustedSender({ url: 'not a url' }, RENDERER)).toBe(false);
    expect(isTrustedSender(null, RENDERER)).toBe(false);
  });

  it('turns the dashboard’s history request into the API’s query', () => {
    const checked = checkArgs('history', [{ from: 0, to: 60_000, stepSec: 0.5 }]);
    expect(checked.ok).toBe(false);
    expect(checkArgs('history', [{ from: 0, to: 600_000_000_000, stepSec: 1 }])).toMatchObject({
      ok: false,
      error: { param: 'step' },
    });
  });
});
