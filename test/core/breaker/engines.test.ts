import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BreakerEngines, breakerKeyOf, policyFor, replayWindowMs } from '../../../main/core/breaker/engines.js';
import { type BreakerSnapshot, DEFAULT_POLICY, type Transition } from '../../../main/core/breaker/types.js';
import type { Outcome } from '../../../main/core/calls/classify.js';
import type { CallEvent } from '../../../main/core/calls/events.js';
import { type Config, configSchema } from '../../../main/core/config/index.js';
import { parseWith } from '../../../main/core/config/schema.js';
import { Store } from '../../../main/core/store/db.js';
import { callEvent, tokenUsage } from '../../helpers/calls.js';

type BreakersConfig = Config['breakers'];

/** Event time of the first call; the wall clock runs a little behind the events it reads (ingest lag). */
const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const s = (seconds: number): number => T0 + seconds * 1000;
const GLM = 'zhipu/glm-5.1';
const HOUR = 3_600_000;

let tmp: string;
let store: Store;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-engines-'));
  store = Store.open(join(tmp, 'breakerbar.sqlite'));
});

afterEach(() => {
  store.close();
  rmSync(tmp, { recursive: true, force: true });
});

function breakersConfig(breakers: Record<string, unknown> = {}): BreakersConfig {
  return parseWith(configSchema, { breakers }).breakers;
}

let nextKey = 0;

/** A stored-call event to `dep` at `ts` (seconds after T0) with `outcome`. */
function call(seconds: number, outcome: Outcome, over: Partial<CallEvent> = {}): CallEvent {
  const failed = outcome !== 'ok';
  return callEvent({
    key: `main/e${nextKey++}`,
    ts: s(seconds),
    outcome,
    httpStatus: outcome === 'rate_limited' ? 429 : outcome === 'server_error' ? 503 : null,
    usage: tokenUsage(failed ? 10 : 15, 10),
    ...over,
  });
}

/** `n` calls one second apart from `start` seconds. */
const burst = (start: number, n: number, outcome: Outcome, over: Partial<CallEvent> = {}) =>
  Array.from({ length: n }, (_, i) => call(start + i, outcome, over));

interface Harness {
  engines: BreakerEngines;
  /** Transitions announced through onTransition. */
  announced: Transition[];
  snapshots: BreakerSnapshot[];
  /** The injected wall clock; tests move it. */
  wall: { now: number };
}

function harness(config: BreakersConfig = breakersConfig(), now = s(0)): Harness {
  const wall = { now };
  const announced: Transition[] = [];
  const snapshots: BreakerSnapshot[] = [];
  const engines = new BreakerEngines({
    config,
    store,
    clock: () => wall.now,
    onTransition: (t) => announced.push(t),
    onSnapshot: (snapshot) => snapshots.push(snapshot),
  });
  return { engines, announced, snapshots, wall };
}

/** What the monitor does with new calls: store them, then hand them to the breakers. */
function ingest(h: Harness, calls: readonly CallEvent[]): void {
  store.commit({ events: calls });
  h.engines.observe(calls);
}

const stored = () => store.transitionsBetween(0, Number.MAX_SAFE_INTEGER);
const stateOf = (h: Harness, dep = GLM) => h.engines.snapshots().find((b) => b.dep === dep)?.state;
const arrows = (transitions: readonly Pick<Transition, 'from' | 'to'>[]) => transitions.map((t) => `${t.from}→${t.to}`);

/** Engines whose GLM breaker tripped open on 5 server errors at 0–4 s (cooldown over at 34 s). */
function tripped(config?: BreakersConfig): Harness {
  const h = harness(config, s(5));
  ingest(h, burst(0, 5, 'server_error'));
  expect(stateOf(h)).toBe('open');
  return h;
}

/** Tripped at 4 s, with a call from another session at 20 s that it rejected, then half-open at 34 s. */
function halfOpen(): Harness {
  const h = tripped();
  ingest(h, [call(20, 'server_error', { sessionId: 's2' })]);
  h.wall.now = s(34);
  h.engines.tick();
  expect(stateOf(h)).toBe('half_open');
  return h;
}

/** Fresh engines over the same store, replayed at the wall time `now`. */
function replayed(config: BreakersConfig, now: number): Harness {
  const h = harness(config, now);
  h.engines.replay();
  return h;
}

describe('BreakerEngines: observing calls', () => {
  it('throttles the breaker on a storm of rate-limited calls', () => {
    const h = harness(breakersConfig(), s(10));
    ingest(h, burst(0, 5, 'rate_limited'));
    expect(h.engines.snapshots()).toMatchObject([
      { dep: GLM, state: 'throttled', reason: '5 consecutive failures', openUntil: s(4 + 30) },
    ]);
  });

  it('throttles at once until the Retry-After of a rate-limited call', () => {
    const h = harness(breakersConfig(), s(1));
    ingest(h, [call(0, 'rate_limited', { retryAfterMs: 120_000 })]);
    expect(h.engines.snapshots()).toMatchObject([{ state: 'throttled', retryAfterUntil: s(120), openUntil: s(120) }]);
  });

  it('stores every transition with its event time and the wall time it was decided, and announces it', () => {
    const h = harness(breakersConfig(), s(60));
    ingest(h, burst(0, 5, 'rate_limited'));
    const trip = {
      dep: GLM,
      from: 'closed',
      to: 'throttled',
      reason: '5 consecutive failures',
      why: { code: 'consecutive-failures', n: 5 },
      ts: s(4),
    };
    expect(h.announced).toEqual([trip]);
    expect(stored()).toEqual([{ ...trip, at: s(60) }]);
  });

  it('reports the snapshot after every change', () => {
    const h = harness();
    ingest(h, burst(0, 5, 'server_error'));
    expect(h.snapshots.map((b) => b.consecutiveFailures)).toEqual([1, 2, 3, 4, 5]);
    expect(h.snapshots.at(-1)?.state).toBe('open');
  });

  it('moves an expired open breaker to half-open on a tick of the wall clock', () => {
    const h = tripped();
    h.wall.now = s(33);
    h.engines.tick();
    expect(stateOf(h)).toBe('open');
    h.wall.now = s(34);
    h.engines.tick();
    expect(arrows(h.announced)).toEqual(['closed→open', 'open→half_open']);
    expect(stored().at(-1)).toMatchObject({ to: 'half_open', ts: s(34), at: s(34) });
  });
});

describe('BreakerEngines: the dependency answering while open', () => {
  it('stores and announces the half-open and the close a success causes, at their event times', () => {
    const h = tripped(); // open at 4 s until 34 s
    h.wall.now = s(11);
    ingest(h, [call(10, 'ok', { sessionId: 's1' }), call(11, 'ok', { sessionId: 's2' })]);
    const expected = [
      {
        dep: GLM,
        from: 'closed',
        to: 'open',
        reason: '5 consecutive failures',
        why: { code: 'consecutive-failures', n: 5 },
        ts: s(4),
      },
      {
        dep: GLM,
        from: 'open',
        to: 'half_open',
        reason: 'answered while open',
        why: { code: 'answered', while: 'open' },
        ts: s(10),
      },
      {
        dep: GLM,
        from: 'half_open',
        to: 'closed',
        reason: '2 successful trials',
        why: { code: 'trials-passed', n: 2 },
        ts: s(11),
      },
    ];
    expect(h.announced).toEqual(expected);
    expect(stored().map(({ at: _, ...t }) => t)).toEqual(expected);
    // A restart replays the same history to the same state, announcing nothing.
    const restarted = replayed(breakersConfig(), s(12));
    expect(restarted.engines.snapshots()).toEqual(h.engines.snapshots());
    expect(restarted.announced).toEqual([]);
  });
});

describe('BreakerEngines.replay', () => {
  it('rebuilds a throttled breaker from stored calls without storing or announcing its transitions again', () => {
    const config = breakersConfig();
    const live = harness(config, s(10));
    ingest(live, burst(0, 5, 'rate_limited'));
    // Rejected calls (not successes: one would end the throttle, see 'answered while throttled').
    ingest(live, burst(5, 3, 'server_error', { sessionId: 's2' }));
    live.engines.tick(s(20));
    const before = stored();

    const restarted = replayed(config, s(20));
    expect(restarted.engines.snapshots()).toEqual(live.engines.snapshots());
    expect(stateOf(restarted)).toBe('throttled');
    expect(restarted.announced).toEqual([]);
    expect(restarted.snapshots).toEqual([]);
    expect(stored()).toEqual(before);
  });

  it('keeps an operator force-open older than the replay window', () => {
    const config = breakersConfig();
    const live = harness(config, s(0));
    live.engines.control(GLM, 'force_open', 'maintenance');
    const later = s(0) + replayWindowMs(config) + HOUR;
    store.commit({ events: burst((later - T0) / 1000 - 10, 5, 'ok') });
    expect(store.callsSince(later - replayWindowMs(config))).toHaveLength(5);

    const restarted = replayed(config, later);
    expect(restarted.engines.snapshots()).toMatchObject([
      { dep: GLM, state: 'open', forced: 'open', reason: 'operator: maintenance' },
    ]);
    expect(restarted.announced).toEqual([]);
    expect(stored()).toHaveLength(1);
  });

  it('applies controls in event-time order among the calls: a reset after a trip closes it', () => {
    const config = breakersConfig();
    const live = tripped(config);
    live.wall.now = s(10);
    live.engines.control(GLM, 'reset', 'provider fixed');
    store.commit({ events: [call(11, 'ok')] });

    expect(stateOf(replayed(config, s(12)))).toBe('closed');
  });

  it('replays a trip that happened before a reset, then the trip that followed it', () => {
    const config = breakersConfig();
    const live = tripped(config);
    live.wall.now = s(10);
    live.engines.control(GLM, 'reset', 'provider fixed');
    ingest(live, burst(11, 5, 'server_error'));
    live.engines.tick(s(16));

    const restarted = replayed(config, s(16));
    expect(restarted.engines.snapshots()).toEqual(live.engines.snapshots());
    expect(restarted.engines.snapshots()).toMatchObject([{ state: 'open', since: s(15) }]);
  });

  it('lets an open breaker whose cooldown ran out while BreakerBar was down become half-open', () => {
    const config = breakersConfig();
    tripped(config);
    expect(stateOf(replayed(config, s(60)))).toBe('half_open');
  });

  it('ignores calls older than the replay window', () => {
    const config = breakersConfig();
    tripped(config);
    const restarted = replayed(config, s(4) + replayWindowMs(config) + 1);
    expect(restarted.engines.snapshots()).toEqual([]);
  });
});

describe('BreakerEngines.control', () => {
  it.each(['reset', 'force_closed'] as const)(
    'refuses %s on a dependency it has not seen, storing nothing',
    (action) => {
      const h = harness();
      expect(() => h.engines.control('openai/gpt-5', action, 'typo')).toThrow(
        'no breaker for "openai/gpt-5" yet: BreakerBar has not seen a call to it (only force_open may create one)',
      );
      expect(store.controls()).toEqual([]);
      expect(h.engines.has('openai/gpt-5')).toBe(false);
    },
  );

  it('lets force_open create the breaker of a dependency it has not seen, storing the control at wall time', () => {
    const h = harness(breakersConfig(), s(42));
    const transitions = h.engines.control('openai/gpt-5', 'force_open', 'maintenance');
    expect(arrows(transitions)).toEqual(['closed→open']);
    expect(h.engines.has('openai/gpt-5')).toBe(true);
    expect(store.controls()).toMatchObject([
      { ts: s(42), dep: 'openai/gpt-5', action: 'force_open', reason: 'maintenance' },
    ]);
    expect(stored()).toMatchObject([
      { dep: 'openai/gpt-5', from: 'closed', to: 'open', reason: 'operator: maintenance', ts: s(42), at: s(42) },
    ]);
  });

  it('applies a control to a known breaker and returns its transitions', () => {
    const h = tripped();
    const transitions = h.engines.control(GLM, 'force_closed', 'false alarm');
    expect(transitions).toEqual([h.announced.at(-1)]);
    expect(h.engines.snapshots()).toMatchObject([{ state: 'closed', forced: 'closed' }]);
  });
});

describe('policyFor', () => {
  const config = breakersConfig({
    overrides: {
      'zhipu/glm-5.1': { cooldownMs: 120_000 },
      'zhipu/*': { cooldownMs: 60_000, minCalls: 5 },
      'anthropic/*': { minCalls: 99 },
    },
  });

  it('is the configured defaults for a dependency no override matches', () => {
    expect(policyFor('openai/gpt-5', config)).toEqual(DEFAULT_POLICY);
  });

  it('applies every matching override, the most specific last, whatever the order in the config', () => {
    expect(policyFor(GLM, config)).toEqual({ ...DEFAULT_POLICY, minCalls: 5, cooldownMs: 120_000 });
    expect(policyFor('zhipu/glm-4.6', config)).toEqual({ ...DEFAULT_POLICY, minCalls: 5, cooldownMs: 60_000 });
  });

  it('is the policy the engines give each breaker', () => {
    const h = tripped(config);
    expect(h.engines.snapshots()).toMatchObject([{ openDurationMs: 120_000, openUntil: s(4 + 120) }]);
  });
});

describe('replayWindowMs', () => {
  it('is twice the longest of open cap, Retry-After cap and window', () => {
    expect(replayWindowMs(breakersConfig())).toBe(2 * DEFAULT_POLICY.maxRetryAfterMs);
    expect(replayWindowMs(breakersConfig({ maxRetryAfterMs: 0, maxOpenMs: 2 * HOUR }))).toBe(4 * HOUR);
    expect(replayWindowMs(breakersConfig({ overrides: { 'zhipu/*': { maxOpenMs: 3 * HOUR } } }))).toBe(6 * HOUR);
  });

  it('is capped at a day', () => {
    expect(replayWindowMs(breakersConfig({ maxRetryAfterMs: 7 * 24 * HOUR }))).toBe(24 * HOUR);
  });
});

describe('breaker keys', () => {
  it('keys breakers by provider/model by default and by provider when configured', () => {
    const glm = { dep: GLM, provider: 'zhipu' };
    expect(breakerKeyOf(glm, 'model')).toBe(GLM);
    expect(breakerKeyOf(glm, 'provider')).toBe('zhipu');
  });

  it('keys by credential fingerprint with key "credential", where the record names one', () => {
    expect(breakerKeyOf({ dep: GLM, provider: 'zhipu', credential: 'a1b2c3d4e5f6' }, 'credential')).toBe(
      `${GLM}/a1b2c3d4e5f6`,
    );
    expect(breakerKeyOf({ dep: GLM, provider: 'zhipu', credential: null }, 'credential')).toBe(GLM);
    expect(breakerKeyOf({ dep: GLM, provider: 'zhipu', credential: 'a1b2c3d4e5f6' }, 'model')).toBe(GLM);
  });

  it('separates two credentials of one model into two breakers, and rebuilds them from the store', () => {
    const h = harness(breakersConfig({ key: 'credential' }), s(10));
    ingest(h, [...burst(0, 5, 'server_error', { credential: 'key-a' }), call(6, 'ok', { credential: 'key-b' })]);
    const states = () => Object.fromEntries(h.engines.snapshots().map((b) => [b.dep, b.state]));
    expect(states()).toEqual({ [`${GLM}/key-a`]: 'open', [`${GLM}/key-b`]: 'closed' });
    const again = harness(breakersConfig({ key: 'credential' }), s(10));
    again.engines.replay();
    expect(Object.fromEntries(again.engines.snapshots().map((b) => [b.dep, b.state]))).toEqual(states());
  });

  it('groups the models of one provider into one breaker with key "provider"', () => {
    const h = harness(breakersConfig({ key: 'provider' }), s(10));
    ingest(h, [
      ...burst(0, 3, 'server_error'),
      ...burst(3, 2, 'server_error', { dep: 'zhipu/glm-4.6' }),
      call(5, 'ok', { dep: 'anthropic/claude-sonnet-4' }),
    ]);
    expect(h.engines.snapshots().map((b) => [b.dep, b.state])).toEqual([
      ['anthropic', 'closed'],
      ['zhipu', 'open'],
    ]);
  });
});

describe('BreakerEngines: active probes', () => {
  it('wants a probe only for a breaker whose cooldown is over', () => {
    const h = tripped();
    ingest(h, [call(0, 'ok', { dep: 'anthropic/claude-sonnet-4' })]);
    expect(h.engines.probesWanted(s(33))).toEqual([]);
    expect(h.engines.probesWanted(s(34))).toEqual([GLM]);
  });

  it('claims the probe slot once: never two probes in flight for one dependency', () => {
    const h = halfOpen();
    expect(h.engines.probeStarted(GLM, s(35))).toBe(true);
    expect(h.engines.probeStarted(GLM, s(36))).toBe(false);
    expect(h.engines.probesWanted(s(36))).toEqual([]);
    expect(h.engines.probeStarted('openai/gpt-5', s(36))).toBe(false);
  });

  it('counts a successful probe as a half-open trial, not as gateway traffic', () => {
    const h = halfOpen();
    const window = h.engines.snapshots()[0]?.window;
    h.engines.probeStarted(GLM, s(35));
    h.engines.probeFinished(GLM, { ts: s(35), outcome: 'ok', retryAfterMs: null });
    expect(h.engines.snapshots()).toMatchObject([{ state: 'half_open', trialSuccesses: 1, window }]);
  });

  it('re-opens on a failed probe with the grown open duration', () => {
    const h = halfOpen();
    h.engines.probeStarted(GLM, s(35));
    h.engines.probeFinished(GLM, { ts: s(35), outcome: 'server_error', retryAfterMs: null });
    expect(h.engines.snapshots()).toMatchObject([{ state: 'open', openDurationMs: 60_000, openUntil: s(95) }]);
    expect(stored().at(-1)).toMatchObject({ from: 'half_open', to: 'open', reason: 'trial failed: server_error' });
  });

  it('counts each finished probe as a separate session: two successful probes close a half-open breaker', () => {
    const h = halfOpen();
    for (const ts of [s(35), s(36)]) {
      expect(h.engines.probeStarted(GLM, ts)).toBe(true);
      h.engines.probeFinished(GLM, { ts, outcome: 'ok', retryAfterMs: null });
    }
    expect(stateOf(h)).toBe('closed');
    expect(stored().at(-1)).toMatchObject({ from: 'half_open', to: 'closed', reason: '2 successful trials' });
  });

  it('ignores a finished probe for a dependency without a breaker', () => {
    const h = harness();
    h.engines.probeFinished('openai/gpt-5', { ts: s(1), outcome: 'ok', retryAfterMs: null });
    expect(h.engines.snapshots()).toEqual([]);
    expect(h.announced).toEqual([]);
  });
});
