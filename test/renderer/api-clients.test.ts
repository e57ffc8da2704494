/**
 * The dashboard's two ways to the core, outside a browser: the HTTP client
 * against the real API server (over an in-memory backend), and the Electron
 * bridge adapter against a stand-in preload.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../main/api/types.js';
import { ConfigError } from '../../main/core/config/schema.js';
import type { IncidentDetail } from '../../main/core/incidents/types.js';
import { ApiFailure, Cancelled } from '../../renderer/api.js';
import type { BreakerBarBridge } from '../../renderer/bridge.js';
import { createBridgeApi } from '../../renderer/bridge-api.js';
import { createHttpApi, type TokenAccess } from '../../renderer/http-api.js';
import { type FakeCore, startFakeCore } from '../app/fake-core.js';

let core: FakeCore;

const INCIDENT: IncidentDetail = {
  id: 3,
  openedAt: 2000,
  closedAt: null,
  severity: 'warning',
  causes: ['breaker'],
  deps: ['zhipu/glm-5.1'],
  agents: ['main'],
  turnsLost: 1,
  failedCalls: 4,
  rateLimitedCalls: 4,
  restarts: 0,
  notifications: 1,
  summary: 'breaker on zhipu/glm-5.1: 4 failed calls, 1 turn lost, 0 restarts',
  timeline: [{ ts: 2000, kind: 'opened', dep: null, text: 'incident opened' }],
};

beforeEach(async () => {
  core = await startFakeCore();
});

afterEach(async () => {
  await core.close();
});

/** A token store whose prompt answers from a script of replies (a token, or null for Cancel). */
function scriptedTokens(held: string | null, replies: Array<string | null>) {
  const asked: string[] = [];
  let current = held;
  const access: TokenAccess = {
    get: () => current,
    set: (token) => {
      current = token;
    },
    clear: () => {
      current = null;
    },
    ask: async (reason) => {
      asked.push(reason);
      const reply = replies.shift();
      if (reply === undefined || reply === null) throw new Cancelled('cancelled');
      return reply;
    },
  };
  return { access, asked, held: () => current };
}

describe('the HTTP client', () => {
  it('reads without a token and maps history parameters to the API’s', async () => {
    const tokens = scriptedTokens(null, []);
    const api = createHttpApi(tokens.access, core.url);
    expect((await api.status()).version).toBe('0.0.0-test');
    await api.history({ from: 1000, to: 61_000, stepSec: 30, dep: 'zhipu/glm-5.1' });
    expect(core.backend.historyQueries).toEqual([{ from: 1000, to: 61_000, stepMs: 30_000, dep: 'zhipu/glm-5.1' }]);
    expect(await api.spend()).toEqual(core.backend.spendResult);
    expect(tokens.asked).toEqual([]);
  });

  it('asks for incidents with limit and since, and one incident by id (404 as an ApiFailure)', async () => {
    core.backend.incidentDetails = [INCIDENT];
    const tokens = scriptedTokens(null, []);
    const api = createHttpApi(tokens.access, core.url);
    expect((await api.incidents({ limit: 5, since: 1000.7 })).incidents.map((i) => i.id)).toEqual([3]);
    const { timeline: _timeline, ...summary } = INCIDENT;
    expect(await api.incidents({})).toEqual({ incidents: [summary] });
    expect(core.backend.incidentQueries).toEqual([
      { limit: 5, since: 1000 },
      { limit: 50, since: null },
    ]);
    expect((await api.incident(3)).timeline).toEqual(INCIDENT.timeline);
    await expect(api.incident(4)).rejects.toMatchObject({ name: 'ApiFailure', status: 404 });
    expect(tokens.asked).toEqual([]);
  });

  it('asks for a missing token before a POST, then sends it and keeps it', async () => {
    const tokens = scriptedTokens(null, [core.token]);
    const api = createHttpApi(tokens.access, core.url);
    const answer = await api.restart({ force: true, reason: 'from a test' });
    expect(answer.decision).toBe('restart');
    expect(tokens.asked).toEqual(['missing']);
    expect(core.backend.watchdogRequests).toEqual([{ action: 'restart', force: true, reason: 'from a test' }]);
    expect(tokens.held()).toBe(core.token);
  });

  it('asks again when the server refuses the token held, and retries once given a good one', async () => {
    const tokens = scriptedTokens('0'.repeat(64), [core.token]);
    const api = createHttpApi(tokens.access, core.url);
    await api.pause(900);
    expect(tokens.asked).toEqual(['refused']);
    expect(core.backend.watchdogRequests).toEqual([
      { action: 'pause', durationSec: 900, reason: 'paused by the user' },
    ]);
  });

  it('sends nothing when the prompt is dismissed', async () => {
    const tokens = scriptedTokens(null, [null]);
    const api = createHttpApi(tokens.access, core.url);
    await expect(api.resume()).rejects.toBeInstanceOf(Cancelled);
    await expect(api.config()).rejects.toBeInstanceOf(Cancelled);
    expect(core.backend.watchdogRequests).toEqual([]);
  });

  it('encodes a dependency with a slash in the control path', async () => {
    const api = createHttpApi(scriptedTokens(core.token, []).access, core.url);
    await api.control('zhipu/glm-5.1', 'reset', 'from a test');
    expect(core.backend.controls).toEqual([{ dep: 'zhipu/glm-5.1', action: 'reset', reason: 'from a test' }]);
  });

  it('turns a refused config into an ApiFailure naming the key', async () => {
    core.backend.saveConfig = () => {
      throw new ConfigError('config key "watchdog.threshold" is 0, expected an integer from 1 to 1000');
    };
    const api = createHttpApi(scriptedTokens(core.token, []).access, core.url);
    const failure = await api.saveConfig({ watchdog: { threshold: 0 } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiFailure);
    expect(failure).toMatchObject({ status: 400, param: 'watchdog.threshold' });
    expect((failure as Error).message).toContain('expected an integer from 1 to 1000');
  });

  it('says so when BreakerBar is not answering at all', async () => {
    const api = createHttpApi(scriptedTokens(null, []).access, core.url);
    await core.stop();
    const failure = await api.status().catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 0 });
    expect((failure as Error).message).toMatch(/not answering/);
  });
});

describe('the Electron bridge adapter', () => {
  /** A bridge whose `call` answers from `routes` (by route name); any other route is an IPC failure. */
  function bridge(
    routes: Record<string, (params: unknown) => Promise<unknown>>,
    onEvent: BreakerBarBridge['onEvent'] = () => () => {},
  ): BreakerBarBridge {
    const call = (route: string, params?: unknown) =>
      Object.hasOwn(routes, route) ? routes[route]!(params) : Promise.reject(new Error('not in this test'));
    return { call: call as BreakerBarBridge['call'], onEvent };
  }

  it('passes incident requests through to the bridge', async () => {
    const asked: unknown[] = [];
    const api = createBridgeApi(
      bridge({
        incidents: async (request) => {
          asked.push(request);
          return { incidents: [] };
        },
        incident: async (params) => ((params as { id: number }).id === 3 ? INCIDENT : { error: 'no incident 9' }),
      }),
    );
    expect(await api.incidents({ limit: 2 })).toEqual({ incidents: [] });
    expect(asked).toEqual([{ limit: 2 }]);
    expect((await api.incident(3)).id).toBe(3);
    await expect(api.incident(9)).rejects.toMatchObject({ name: 'ApiFailure', message: 'no incident 9' });
  });

  it('passes answers through and turns an answered {error, param} into an ApiFailure', async () => {
    const api = createBridgeApi(
      bridge({
        saveConfig: async () => ({ error: 'config key "retention.days" is 0', param: 'retention.days' }),
        doctor: async () => ({ findings: [], summary: { ok: 1, info: 0, warn: 0, error: 0 } }),
      }),
    );
    expect(api.kind).toBe('electron');
    expect((await api.doctor()).summary.ok).toBe(1);
    await expect(api.saveConfig({ retention: { days: 0 } })).rejects.toMatchObject({
      name: 'ApiFailure',
      param: 'retention.days',
    });
    await expect(api.status()).rejects.toMatchObject({ name: 'ApiFailure', status: 0 });
  });

  it('subscribes through onEvent, is live at once, and unsubscribes', () => {
    const listeners = new Set<(event: ApiEvent) => void>();
    const api = createBridgeApi(
      bridge({}, (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      }),
    );
    const events: ApiEvent[] = [];
    const states: string[] = [];
    const stop = api.subscribe(
      (event) => events.push(event),
      (state) => states.push(state),
    );
    for (const listener of listeners) listener({ type: 'calls', data: { count: 1, deps: ['a/b'] } });
    expect(events).toEqual([{ type: 'calls', data: { count: 1, deps: ['a/b'] } }]);
    expect(states).toEqual(['live']);
    stop();
    expect(listeners.size).toBe(0);
  });
});
