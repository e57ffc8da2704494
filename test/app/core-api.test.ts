/**
 * The app's client of a core's local API, against the real HTTP server on
 * loopback: every action reaches the backend with the token from the data
 * directory, and refusals come back worded, with the parameter at fault.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CoreApi, CoreApiError } from '../../main/app/core-api.js';
import { type FakeCore, startFakeCore } from './fake-core.js';

let core: FakeCore;
let tokenReads: number;
let token: string | null;

beforeEach(async () => {
  core = await startFakeCore();
  token = core.token;
  tokenReads = 0;
});

afterEach(async () => {
  await core.close();
});

function client(): CoreApi {
  return new CoreApi({
    url: core.url,
    token: () => {
      tokenReads++;
      return token;
    },
  });
}

describe('CoreApi', () => {
  it('reads the status', async () => {
    const status = await client().call('status');
    expect(status.version).toBe('0.0.0-test');
    expect(status.breakers.map((b) => b.dep)).toEqual(['openai/gpt-4o']);
  });

  it('sends restart, pause and resume to the watchdog with the token', async () => {
    const api = client();
    expect((await api.call('restart', { force: false, reason: 'from the test' })).decision).toBe('restart');
    await api.call('pause', { durationSec: 900, reason: 'lunch' });
    await api.call('pause', { durationSec: null });
    await api.call('resume');
    expect(core.backend.watchdogRequests).toEqual([
      { action: 'restart', reason: 'from the test', force: false },
      { action: 'pause', durationSec: 900, reason: 'lunch' },
      { action: 'pause', durationSec: null, reason: 'paused by the user' },
      { action: 'resume' },
    ]);
  });

  it('asks for incidents with their parameters, and one by id', async () => {
    const api = client();
    expect(await api.call('incidents', { limit: 10, since: 1_700_000_000_000 })).toEqual({ incidents: [] });
    expect(core.backend.incidentQueries).toEqual([{ limit: 10, since: 1_700_000_000_000 }]);
    await expect(api.call('incident', { id: 5 })).rejects.toMatchObject({ name: 'CoreApiError', status: 404 });
  });

  it('asks for history in the API’s units and controls a breaker by its key', async () => {
    const api = client();
    await api.call('history', { from: 1_700_000_000_000, to: 1_700_003_600_000, stepSec: 60, dep: 'zhipu/glm-5.1' });
    expect(core.backend.historyQueries).toEqual([
      { dep: 'zhipu/glm-5.1', from: 1_700_000_000_000, to: 1_700_003_600_000, stepMs: 60_000 },
    ]);
    const answer = await api.call('control', { dep: 'zhipu/glm-5.1', action: 'force_open', reason: 'maintenance' });
    expect(answer.transitions[0]?.to).toBe('open');
    expect(core.backend.controls).toEqual([{ dep: 'zhipu/glm-5.1', action: 'force_open', reason: 'maintenance' }]);
    expect(await api.call('spend')).toEqual(core.backend.spendResult);
  });

  it('reads and saves the config and runs the doctor (the token goes along: the file may hold secrets)', async () => {
    const api = client();
    expect((await api.call('config')).file).toBe('/fake/config.json');
    expect((await api.call('saveConfig', { config: { watchdog: { dryRun: true } } })).ok).toBe(true);
    expect(core.backend.savedConfigs).toEqual([{ watchdog: { dryRun: true } }]);
    expect((await api.call('doctor')).findings).toEqual([]);
  });

  it('without the token, a mutation is refused and nothing reaches the watchdog', async () => {
    token = null;
    const error = await client()
      .call('restart', { force: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CoreApiError);
    expect((error as CoreApiError).status).toBe(401);
    expect(core.backend.watchdogRequests).toEqual([]);
  });

  it('reads the token file again after a 401 (the core may have written a new one)', async () => {
    token = 'f'.repeat(64);
    const api = client();
    let calls = 0;
    const reread = new CoreApi({
      url: core.url,
      token: () => (calls++ === 0 ? 'f'.repeat(64) : core.token),
    });
    await reread.call('resume');
    expect(calls).toBe(2);
    expect(core.backend.watchdogRequests).toEqual([{ action: 'resume' }]);
    // A wrong token that stays wrong is refused after the one retry.
    await expect(api.call('resume')).rejects.toMatchObject({ status: 401 });
    expect(tokenReads).toBe(2);
  });

  it('passes the refusal and the parameter at fault on', async () => {
    core.backend.watchdogError = new Error('this instance does not watch a gateway');
    await expect(client().call('restart', { force: false })).rejects.toMatchObject({
      status: 409,
      message: 'this instance does not watch a gateway',
    });
    await expect(client().call('pause', { durationSec: 0 })).rejects.toMatchObject({
      status: 400,
      param: 'durationSec',
    });
  });

  it('says which core did not answer', async () => {
    await core.stop();
    await expect(client().call('status')).rejects.toThrow(`BreakerBar at ${core.url} did not answer (ECONNREFUSED)`);
  });

  it('tells a BreakerBar from something else on the port', async () => {
    expect(await client().alive()).toBe(true);
    await core.stop();
    expect(await client().alive()).toBe(false);
  });
});

describe('CoreApi and a core on a network address', () => {
  function recording(url: string) {
    const sent: Array<{ url: string; authorization: string | null }> = [];
    const fetchImpl = (async (target: string, init?: RequestInit) => {
      sent.push({ url: target, authorization: new Headers(init?.headers).get('authorization') });
      return new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const api = new CoreApi({ url, token: () => 'a'.repeat(64), fetch: fetchImpl });
    return { api, sent };
  }

  it('never sends the token off this machine: reads go without it, a route that needs it is refused unsent', async () => {
    const { api, sent } = recording('http://192.0.2.7:18820');
    await api.call('status');
    expect(sent).toEqual([{ url: 'http://192.0.2.7:18820/api/status', authorization: null }]);
    const refused = api.call('resume');
    await expect(refused).rejects.toBeInstanceOf(CoreApiError);
    await expect(refused).rejects.toThrow(/sent only to this machine .* not to 192\.0\.2\.7:18820/);
    expect(sent).toHaveLength(1);
  });

  it('sends it to a loopback core with every call', async () => {
    const { api, sent } = recording('http://[::1]:18820');
    await api.call('status');
    await api.call('resume');
    expect(sent.map((s) => s.authorization)).toEqual([`Bearer ${'a'.repeat(64)}`, `Bearer ${'a'.repeat(64)}`]);
  });
});
