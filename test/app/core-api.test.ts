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
    const status = await client().status();
    expect(status.version).toBe('0.0.0-test');
    expect(status.breakers.map((b) => b.dep)).toEqual(['openai/gpt-4o']);
  });

  it('sends restart, pause and resume to the watchdog with the token', async () => {
    const api = client();
    expect((await api.restart({ force: false, reason: 'from the test' })).decision).toBe('restart');
    await api.pause(900, 'lunch');
    await api.pause(null);
    await api.resume();
    expect(core.backend.watchdogRequests).toEqual([
      { action: 'restart', reason: 'from the test', force: false },
      { action: 'pause', durationSec: 900, reason: 'lunch' },
      { action: 'pause', durationSec: null, reason: 'paused by the user' },
      { action: 'resume' },
    ]);
  });

  it('asks for incidents with their parameters, and one by id', async () => {
    const api = client();
    expect(await api.incidents({ limit: 10, since: 1_700_000_000_000 })).toEqual({ incidents: [] });
    expect(core.backend.incidentQueries).toEqual([{ limit: 10, since: 1_700_000_000_000 }]);
    await expect(api.incident(5)).rejects.toMatchObject({ name: 'CoreApiError', status: 404 });
  });

  it('asks for history in the API’s units and controls a breaker by its key', async () => {
    const api = client();
    await api.history({ from: 1_700_000_000_000, to: 1_700_003_600_000, stepMs: 60_000, dep: 'zhipu/glm-5.1' });
    expect(core.backend.historyQueries).toEqual([
      { dep: 'zhipu/glm-5.1', from: 1_700_000_000_000, to: 1_700_003_600_000, stepMs: 60_000 },
    ]);
    const answer = await api.control('zhipu/glm-5.1', 'force_open', 'maintenance');
    expect(answer.transitions[0]?.to).toBe('open');
    expect(core.backend.controls).toEqual([{ dep: 'zhipu/glm-5.1', action: 'force_open', reason: 'maintenance' }]);
    expect(await api.spend()).toEqual(core.backend.spendResult);
  });

  it('reads and saves the config and runs the doctor (the token goes along: the file may hold secrets)', async () => {
    const api = client();
    expect((await api.config()).file).toBe('/fake/config.json');
    expect((await api.saveConfig({ watchdog: { dryRun: true } })).ok).toBe(true);
    expect(core.backend.savedConfigs).toEqual([{ watchdog: { dryRun: true } }]);
    expect((await api.doctor()).findings).toEqual([]);
  });

  it('without the token, a mutation is refused and nothing reaches the watchdog', async () => {
    token = null;
    const error = await client()
      .restart({ force: false })
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
    await reread.resume();
    expect(calls).toBe(2);
    expect(core.backend.watchdogRequests).toEqual([{ action: 'resume' }]);
    // A wrong token that stays wrong is refused after the one retry.
    await expect(api.resume()).rejects.toMatchObject({ status: 401 });
    expect(tokenReads).toBe(2);
  });

  it('passes the refusal and the parameter at fault on', async () => {
    core.backend.watchdogError = new Error('this instance does not watch a gateway');
    await expect(client().restart({ force: false })).rejects.toMatchObject({
      status: 409,
      message: 'this instance does not watch a gateway',
    });
    await expect(client().pause(0)).rejects.toMatchObject({ status: 400, param: 'durationSec' });
  });

  it('says which core did not answer', async () => {
    await core.stop();
    await expect(client().status()).rejects.toThrow(`BreakerBar at ${core.url} did not answer (ECONNREFUSED)`);
  });

  it('tells a BreakerBar from something else on the port', async () => {
    expect(await client().alive()).toBe(true);
    await core.stop();
    expect(await client().alive()).toBe(false);
  });
});
