import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TokenRate } from '../../../main/api/types.js';
import type { BreakerService } from '../../../main/core/breaker/service.js';
import type { Transition } from '../../../main/core/breaker/types.js';
import type { Outcome } from '../../../main/core/calls/classify.js';
import type { CallEvent, GatewaySignal, SourceKind } from '../../../main/core/calls/events.js';
import { composeBreakers } from '../../../main/core/compose.js';
import { configSchema } from '../../../main/core/config/index.js';
import { parseWith } from '../../../main/core/config/schema.js';
import { BreakerbarMetrics } from '../../../main/core/metrics/breakerbar-metrics.js';
import { METRIC_NAMES } from '../../../main/core/metrics/names.js';
import { silentLogger } from '../../../main/core/runtime/log.js';
import { Store } from '../../../main/core/store/db.js';
import { callEvent, tokenUsage } from '../../helpers/calls.js';

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const s = (seconds: number): number => T0 + seconds * 1000;
const GLM = 'zhipu/glm-5.1';
const GLM_AIR = 'zhipu/glm-4.5-air';
const CLAUDE = 'anthropic/claude-sonnet-4';

let tmp: string;
let store: Store;
let services: BreakerService[];

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-service-'));
  store = Store.open(join(tmp, 'breakerbar.sqlite'));
  services = [];
});

afterEach(() => {
  for (const service of services) service.stop();
  store.close();
  rmSync(tmp, { recursive: true, force: true });
});

interface CallSpec {
  agent?: string;
  session?: string;
  dep?: string;
  outcome?: Outcome;
  tokens?: number;
  source?: SourceKind;
}

let nextKey = 0;

/** A call at `seconds` after T0: by default agent main, session s1, to GLM, ok, 100 tokens. */
function call(seconds: number, spec: CallSpec = {}): CallEvent {
  const { agent = 'main', session = 's1', dep = GLM, outcome = 'ok', tokens = 100, source = 'jsonl' } = spec;
  return callEvent({
    key: `${agent}/e${nextKey++}`,
    ts: s(seconds),
    source,
    agentId: agent,
    sessionId: session,
    dep,
    outcome,
    httpStatus: outcome !== 'ok' ? 503 : null,
    usage: tokenUsage(tokens),
  });
}

/** Five server errors on `dep` at 0–4 s: enough to open its breaker. */
const outage = (dep: string, spec: CallSpec = {}) =>
  [0, 1, 2, 3, 4].map((i) => call(i, { ...spec, dep, outcome: 'server_error', tokens: 0 }));

/** A gateway-log stall report for `sessionId` at `seconds`. */
function stall(sessionId: string, seconds: number): GatewaySignal {
  return {
    key: `gateway.log:${nextKey++}`,
    ts: s(seconds),
    kind: 'stall',
    sessionId,
    sessionKey: `agent:main:${sessionId}`,
    runId: null,
    dep: null,
    candidateDep: null,
    decision: null,
    reason: null,
    httpStatus: null,
    finalOutcome: null,
    lane: null,
    durationMs: 120_000,
    classification: 'stalled_agent_run',
    detail: null,
  };
}

interface Harness {
  service: BreakerService;
  metrics: BreakerbarMetrics;
  wall: { now: number };
  transitions: Transition[];
  budgets: TokenRate[];
}

/** A service over the test store with `config` (as in config.json), the wall clock at `now`. */
function harness(config: Record<string, unknown> = {}, now = s(10)): Harness {
  const wall = { now };
  const metrics: BreakerbarMetrics = new BreakerbarMetrics({
    snapshots: () => service.snapshots(),
    sources: () => [],
    stalledSessions: () => service.stalledSessions(),
  });
  const service = composeBreakers({
    config: parseWith(configSchema, config),
    store,
    metrics,
    log: silentLogger,
    clock: () => wall.now,
    env: {},
  });
  services.push(service);
  const h: Harness = { service, metrics, wall, transitions: [], budgets: [] };
  service.on('transition', (t) => h.transitions.push(t));
  service.on('budget', (rate) => h.budgets.push(rate));
  return h;
}

/** Feeds each call as its own batch, as a source delivers them. */
function observeEach(h: Harness, calls: readonly CallEvent[]): void {
  for (const c of calls) h.service.observe([c]);
}

/** The value of one series of a metric, by its labels. */
async function sample(h: Harness, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const data = await h.metrics.registry.getSingleMetric(name)?.get();
  return data?.values.find((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))?.value;
}

const breaker = (h: Harness, dep: string) => h.service.breakers().find((b) => b.dep === dep);

describe('BreakerService: breakers', () => {
  it('announces each transition as an event and counts it in breaker_transitions_total', async () => {
    const h = harness();
    h.service.observe(outage(GLM));
    expect(h.transitions).toMatchObject([
      { dep: GLM, from: 'closed', to: 'open', reason: '5 consecutive failures', ts: s(4) },
    ]);
    expect(await sample(h, METRIC_NAMES.breakerTransitions, { dep: GLM, from: 'closed', to: 'open' })).toBe(1);
  });

  it('counts calls seen while open in breaker_rejections_total', async () => {
    const h = harness();
    h.service.observe(outage(GLM));
    // Failures: a success would end the open period (counted as a rejection too, but the breaker is half-open after).
    observeEach(h, [call(5, { outcome: 'server_error' }), call(6, { outcome: 'server_error' })]);
    expect(await sample(h, METRIC_NAMES.breakerRejections, { dep: GLM })).toBe(2);
  });

  it('rebuilds breakers and who depends on them from the store at start, without announcing anything', () => {
    store.commit({ events: [...outage(GLM), call(5, { agent: 'ops', dep: CLAUDE })] });
    const h = harness();
    h.service.start();
    expect(h.service.breakers().map((b) => [b.dep, b.state, b.soleDependents])).toEqual([
      [CLAUDE, 'closed', []],
      [GLM, 'open', ['main']],
    ]);
    expect(h.transitions).toEqual([]);
  });
});

describe('BreakerService: keeping time', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ticks only while a breaker waits for time: from its trip until it has closed again, never while all are closed', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const h = harness({ breakers: { cooldownMs: 10_000, trialsToClose: 1 } });
    h.service.start();
    h.service.observe([call(1)]);
    expect(vi.getTimerCount()).toBe(0);
    h.service.observe(outage(GLM).map((c) => ({ ...c, ts: c.ts + 2_000 })));
    expect(breaker(h, GLM)?.state).toBe('open');
    expect(vi.getTimerCount()).toBe(1);
    // The open period runs out on a tick, not on a call.
    h.wall.now = s(20);
    vi.advanceTimersByTime(250);
    expect(breaker(h, GLM)?.state).toBe('half_open');
    expect(vi.getTimerCount()).toBe(1);
    h.service.observe([call(21, { session: 's2' })]);
    expect(breaker(h, GLM)?.state).toBe('closed');
    vi.advanceTimersByTime(250);
    expect(vi.getTimerCount()).toBe(0);
    expect(h.transitions.map((t) => t.to)).toEqual(['open', 'half_open', 'closed']);
  });

  it('starts ticking at start when the history it rebuilt left a breaker open', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    store.commit({ events: outage(GLM) });
    const h = harness();
    h.service.start();
    expect(breaker(h, GLM)?.state).toBe('open');
    expect(vi.getTimerCount()).toBe(1);
  });

  it('ages the window of a closed breaker when it is read, with no tick in between', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const h = harness({ breakers: { windowMs: 60_000 } });
    h.service.start();
    h.service.observe([0, 1, 2].map((i) => call(i)));
    expect(breaker(h, GLM)?.window.calls).toBe(3);
    h.wall.now = s(62);
    expect(breaker(h, GLM)?.window.calls).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('BreakerService: sole dependents', () => {
  it('lists the agents whose only dependency is the open one', () => {
    const h = harness();
    observeEach(h, [call(0, { agent: 'ops', dep: CLAUDE }), call(0, { agent: 'ops' }), call(0, { agent: 'zed' })]);
    h.service.observe(outage(GLM));
    expect(breaker(h, GLM)).toMatchObject({ state: 'open', soleDependents: ['main', 'zed'] });
  });

  it('lists no one while the breaker is closed', () => {
    const h = harness();
    observeEach(h, [call(0), call(1, { agent: 'ops', dep: CLAUDE })]);
    expect(h.service.breakers().map((b) => b.soleDependents)).toEqual([[], []]);
  });

  it('counts the models of one provider as one dependency with breakers.key "provider"', () => {
    const h = harness({ breakers: { key: 'provider' } });
    observeEach(h, [call(0, { dep: GLM_AIR }), call(0, { agent: 'ops', dep: CLAUDE }), call(0, { agent: 'ops' })]);
    h.service.observe(outage(GLM));
    expect(breaker(h, 'zhipu')).toMatchObject({ state: 'open', soleDependents: ['main'] });
  });
});

describe('BreakerService: token rates and budgets', () => {
  const budgets = [{ agent: 'main', dep: 'zhipu/*', tokensPerMinute: 1000 }];

  it('reports tokens per agent and dependency over the minute before the clock', () => {
    const h = harness({}, s(100));
    observeEach(h, [
      call(0, { tokens: 5000 }),
      call(61, { tokens: 300 }),
      call(90, { tokens: 200 }),
      call(90, { agent: 'ops', tokens: 40 }),
      call(90, { dep: CLAUDE, tokens: 70 }),
    ]);
    expect(h.service.tokenRates()).toEqual([
      { agentId: 'main', dep: GLM, tokensPerMinute: 500, budget: null, overBudget: false },
      { agentId: 'main', dep: CLAUDE, tokensPerMinute: 70, budget: null, overBudget: false },
      { agentId: 'ops', dep: GLM, tokensPerMinute: 40, budget: null, overBudget: false },
    ]);
    // Once calls stop, the rates fall to zero with the clock.
    h.wall.now = s(200);
    expect(h.service.tokenRates().map((r) => r.tokensPerMinute)).toEqual([0, 0, 0]);
  });

  it('emits budget once when a rate crosses its budget, counted in the metric', async () => {
    const h = harness({ budgets: { rates: budgets } });
    observeEach(h, [call(0, { tokens: 600 }), call(10, { tokens: 600 }), call(20, { tokens: 600 })]);
    expect(h.budgets).toEqual([{ agentId: 'main', dep: GLM, tokensPerMinute: 1200, budget: 1000, overBudget: true }]);
    expect(await sample(h, METRIC_NAMES.tokenBudgetExceeded, { dep: GLM, agent: 'main' })).toBe(1);
  });

  it('emits budget again only after the rate has dropped below it', () => {
    const h = harness({ budgets: { rates: budgets } });
    observeEach(h, [
      call(0, { tokens: 1200 }),
      call(30, { tokens: 10 }),
      call(120, { tokens: 10 }),
      call(121, { tokens: 1200 }),
    ]);
    expect(h.budgets.map((b) => b.tokensPerMinute)).toEqual([1200, 1210]);
  });

  it('holds only the agents and dependencies the budget names', () => {
    const h = harness({ budgets: { rates: budgets } });
    observeEach(h, [call(0, { agent: 'ops', tokens: 5000 }), call(0, { dep: CLAUDE, tokens: 5000 })]);
    expect(h.budgets).toEqual([]);
  });
});

describe('BreakerService: stalls', () => {
  it("attributes a stall signal to the dependency of the session's last call", async () => {
    const h = harness({}, s(60));
    observeEach(h, [call(0, { dep: CLAUDE }), call(10), call(11, { session: 's2', dep: CLAUDE })]);
    h.service.signal([stall('s1', 50)]);
    expect(breaker(h, GLM)?.stalled).toMatchObject({ sessions: 1, since: s(50) });
    expect(breaker(h, CLAUDE)?.stalled).toBeNull();
    expect(h.service.stalledSessions()).toEqual([{ dep: GLM, sessions: 1 }]);
    expect(await sample(h, METRIC_NAMES.stalledSessions, { dep: GLM })).toBe(1);
    expect(await sample(h, METRIC_NAMES.signals, { kind: 'stall' })).toBe(1);
  });

  it('clears the stall when the session calls again', () => {
    const h = harness({}, s(60));
    h.service.observe([call(10)]);
    h.service.signal([stall('s1', 50)]);
    h.service.observe([call(55)]);
    expect(breaker(h, GLM)?.stalled).toBeNull();
    expect(h.service.stalledSessions()).toEqual([]);
  });

  it('clears the stall when the session calls again on another dependency', () => {
    const h = harness({}, s(60));
    h.service.observe([call(10)]);
    h.service.signal([stall('s1', 50)]);
    h.service.observe([call(55, { dep: CLAUDE })]);
    expect(h.service.stalledSessions()).toEqual([]);
  });

  it('does not flag a session whose last turn failed and that then went quiet, live or after a restart', () => {
    // breakers.stallAfterMs is deprecated: still accepted, ignored.
    const h = harness({ breakers: { stallAfterMs: 60_000 } }, s(30));
    const calls = [call(0), call(5, { outcome: 'rate_limited' }), call(6, { session: 's2', outcome: 'timeout' })];
    // As a source does: stored, then observed.
    store.commit({ events: calls });
    observeEach(h, calls);
    for (const later of [65, 600, 3600, 7200]) {
      h.wall.now = s(later);
      expect(breaker(h, GLM)?.stalled).toBeNull();
      expect(h.service.stalledSessions()).toEqual([]);
    }

    h.service.stop();
    const again = harness({ breakers: { stallAfterMs: 60_000 } }, s(3600));
    again.service.start();
    expect(breaker(again, GLM)?.stalled).toBeNull();
    expect(again.service.stalledSessions()).toEqual([]);
  });

  it('flags that session once the gateway log reports it stalled, and again after a restart, until it calls again', async () => {
    const h = harness({}, s(3600));
    const calls = [call(0, { dep: CLAUDE }), call(5, { outcome: 'rate_limited' })];
    store.commit({ events: calls });
    observeEach(h, calls);
    expect(h.service.stalledSessions()).toEqual([]);
    const line = stall('s1', 3590);
    store.commit({ events: [], signals: [line] });
    h.service.signal([line]);
    expect(breaker(h, GLM)?.stalled).toMatchObject({ sessions: 1, since: s(3590) });
    expect(await sample(h, METRIC_NAMES.stalledSessions, { dep: GLM })).toBe(1);

    // A service started later over the same store finds the line and the session's last call there.
    h.service.stop();
    const again = harness({}, s(3700));
    again.service.start();
    expect(breaker(again, GLM)?.stalled).toMatchObject({ sessions: 1, since: s(3590) });
    expect(breaker(again, CLAUDE)?.stalled).toBeNull();
    // Ten minutes after the line, without another one, it no longer counts (after a restart as well).
    const late = harness({}, s(3590 + 601));
    late.service.start();
    expect(late.service.stalledSessions()).toEqual([]);

    // A call after the line (progress) clears it, and a restart does not bring it back.
    const progress = call(3650, { dep: CLAUDE });
    store.commit({ events: [progress] });
    again.service.observe([progress]);
    expect(again.service.stalledSessions()).toEqual([]);
    again.service.stop();
    const third = harness({}, s(3700));
    third.service.start();
    expect(third.service.stalledSessions()).toEqual([]);
  });

  it('places a stall line about a session whose calls came before this service started', () => {
    store.commit({ events: [call(0, { session: 'old', dep: CLAUDE })] });
    const h = harness({}, s(600));
    h.service.start();
    h.service.signal([stall('old', 590)]);
    expect(breaker(h, CLAUDE)?.stalled).toMatchObject({ sessions: 1, since: s(590) });
  });

  it('treats failed attempts the gateway log shows while a run retries as progress, not a stall', () => {
    const h = harness({}, s(60));
    h.service.observe([call(10)]);
    h.service.signal([stall('s1', 50)]);
    expect(h.service.stalledSessions()).toEqual([{ dep: GLM, sessions: 1 }]);
    h.service.observe([call(55, { outcome: 'rate_limited', source: 'gatewaylog' })]);
    expect(h.service.stalledSessions()).toEqual([]);
  });

  it('does not let a call from before the line, read after it, clear the stall', () => {
    const h = harness({}, s(60));
    h.service.observe([call(10)]);
    h.service.signal([stall('s1', 50)]);
    h.service.observe([call(40)]);
    expect(h.service.stalledSessions()).toEqual([{ dep: GLM, sessions: 1 }]);
  });

  it('ignores stall signals for sessions it cannot place', () => {
    const h = harness({}, s(60));
    h.service.observe([call(10)]);
    h.service.signal([stall('unknown', 50)]);
    expect(h.service.stalledSessions()).toEqual([]);
  });
});
