/**
 * The spend report over a real store: calls are upstream requests (a failed record and its log attempt
 * are one call, as `Store.summary` counts them), tokens and cost are the records' (a record paired into
 * an attempt still counts its usage), periods start at local midnight and 7 and 30 days back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallEvent } from '../../../main/core/calls/events.js';
import { fixedZone } from '../../../main/core/spend/period.js';
import { spendQueries, spendReport } from '../../../main/core/spend/report.js';
import { Store } from '../../../main/core/store/db.js';
import { callEvent, tokenUsage } from '../../helpers/calls.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** UTC+8: local midnight of 1 Dec 2026 is 30 Nov 16:00 UTC. */
const ZONE = fixedZone(8 * 60);
const NOW = Date.UTC(2026, 11, 1, 6, 0, 0);
const LOCAL_MIDNIGHT = Date.UTC(2026, 10, 30, 16, 0, 0);
const GLM = 'zhipu/glm-5.1';
const CLAUDE = 'anthropic/claude-sonnet-4';

let tmp: string;
let store: Store;
let n = 0;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-spend-'));
  store = Store.open(join(tmp, 'breakerbar.sqlite'));
});

afterEach(() => {
  store.close();
  rmSync(tmp, { recursive: true, force: true });
});

function record(ts: number, over: Partial<CallEvent> & { tokens?: number; cost?: number } = {}): CallEvent {
  const { tokens = 0, cost = 0, ...rest } = over;
  n++;
  return callEvent({
    key: `main/e${n}@${ts}`,
    ts,
    role: 'record',
    runId: null,
    usage: tokenUsage(tokens, tokens, cost),
    ...rest,
  });
}

function attempt(ts: number, over: Partial<CallEvent> = {}): CallEvent {
  n++;
  return callEvent({
    key: `gatewaylog/1:2:3@${n}`,
    ts,
    source: 'gatewaylog',
    agentId: 'unknown',
    sessionId: 'unknown',
    outcome: 'rate_limited',
    httpStatus: 429,
    role: 'attempt',
    runId: null,
    ...over,
  });
}

/** A store with calls in every span: today, yesterday (local), days back, weeks back, and too old. */
function seed(): void {
  // Today, within the last hour: a success of main on GLM.
  store.commit({ events: [record(NOW - 30 * 60_000, { dep: GLM, tokens: 1000, cost: 0.01 })] });
  // Today, earlier: a 429 the log saw first, then its record (with a little usage): one call, one failure.
  store.commit({ events: [attempt(NOW - 3 * HOUR, { dep: GLM, runId: 'run-1' })] });
  store.commit({
    events: [
      record(NOW - 3 * HOUR + 500, { dep: GLM, outcome: 'rate_limited', httpStatus: 429, tokens: 5, runId: 'run-1' }),
    ],
  });
  // 15 h ago: within 24 hours but before local midnight, so not today.
  store.commit({ events: [record(LOCAL_MIDNIGHT - HOUR, { dep: CLAUDE, agentId: 'ops', tokens: 200, cost: 0.2 })] });
  // 3 days ago: ops on Claude.
  store.commit({ events: [record(NOW - 3 * DAY, { dep: CLAUDE, agentId: 'ops', tokens: 2000, cost: 0.5 })] });
  // 20 days ago: an attempt that never paired (a failure without a record).
  store.commit({ events: [attempt(NOW - 20 * DAY, { dep: CLAUDE, outcome: 'server_error', httpStatus: 500 })] });
  store.commit({ events: [record(NOW - 20 * DAY, { dep: GLM, tokens: 300, cost: 0.1 })] });
  // 40 days ago: outside every span.
  store.commit({ events: [record(NOW - 40 * DAY, { dep: GLM, tokens: 99_999, cost: 9 })] });
}

const report = () => spendReport(spendQueries(store), { now: NOW, zone: ZONE, budgets: [], quota: [] });

describe('spend report', () => {
  it('counts today from local midnight: calls, failures, tokens and cost per provider, model and agent', () => {
    seed();
    const { today } = report();
    expect(today.from).toBe(LOCAL_MIDNIGHT);
    expect(today.to).toBe(NOW);
    expect(today.total).toEqual({ key: 'total', calls: 2, failures: 1, tokens: 1005, cost: 0.01 });
    expect(today.byProvider).toEqual([{ key: 'zhipu', calls: 2, failures: 1, tokens: 1005, cost: 0.01 }]);
    expect(today.byModel).toEqual([{ key: GLM, calls: 2, failures: 1, tokens: 1005, cost: 0.01 }]);
    // The attempt took the agent of the record it paired with.
    expect(today.byAgent).toEqual([{ key: 'main', calls: 2, failures: 1, tokens: 1005, cost: 0.01 }]);
  });

  it('counts the last 7 and 30 days, most expensive first', () => {
    seed();
    const { week, month } = report();
    expect(week.from).toBe(NOW - 7 * DAY);
    expect(week.total).toMatchObject({ calls: 4, failures: 1, tokens: 3205 });
    expect(week.total.cost).toBeCloseTo(0.71, 10);
    expect(week.byProvider.map((r) => [r.key, r.calls, r.tokens])).toEqual([
      ['anthropic', 2, 2200],
      ['zhipu', 2, 1005],
    ]);
    expect(month.total).toMatchObject({ calls: 6, failures: 2, tokens: 3505 });
    expect(month.byAgent.map((r) => [r.key, r.calls, r.failures])).toEqual([
      ['ops', 2, 0],
      ['main', 3, 1],
      ['unknown', 1, 1],
    ]);
  });

  it('counts calls exactly as the store summary does', () => {
    seed();
    const { month, week } = report();
    expect(month.total.calls).toBe(store.summary({ since: NOW - 30 * DAY, until: NOW + 1 }).calls);
    expect(week.total.calls).toBe(store.summary({ since: NOW - 7 * DAY, until: NOW + 1 }).calls);
    expect(month.total.tokens).toBe(store.summary({ since: NOW - 30 * DAY, until: NOW + 1 }).turns.tokens);
  });

  it('reports the burn rate of the hour before now, per provider, and none once calls stopped', () => {
    seed();
    expect(report().burn).toEqual([{ provider: 'zhipu', tokensPerHour: 1000, usdPerHour: 0.01 }]);
    const later = spendReport(spendQueries(store), { now: NOW + 2 * HOUR, zone: ZONE, budgets: [], quota: [] });
    expect(later.burn).toEqual([]);
  });

  it('is empty on an empty store', () => {
    const { today, month, burn } = report();
    expect(today.total).toEqual({ key: 'total', calls: 0, failures: 0, tokens: 0, cost: 0 });
    expect(month.byProvider).toEqual([]);
    expect(burn).toEqual([]);
  });

  it('stands each budget in its calendar period: used, projected at the burn rate, highest share crossed', () => {
    seed();
    const budgets = [
      { provider: 'zhipu', period: 'day' as const, tokens: 1000, usd: 0.02, alertAt: [0.5, 1] },
      { provider: '*', period: 'month' as const, tokens: null, usd: 100, alertAt: [0.8, 1] },
    ];
    const standings = spendReport(spendQueries(store), { now: NOW, zone: ZONE, budgets, quota: [] }).budgets;
    // 10 hours are left of the local day (14:00 → 24:00); the last hour burnt 1000 tokens and $0.01.
    expect(standings).toEqual([
      { provider: 'zhipu', period: 'day', unit: 'tokens', limit: 1000, used: 1005, projected: 11_005, crossed: 1 },
      {
        provider: 'zhipu',
        period: 'day',
        unit: 'usd',
        limit: 0.02,
        used: 0.01,
        projected: expect.any(Number),
        crossed: 0.5,
      },
      {
        provider: '*',
        period: 'month',
        unit: 'usd',
        limit: 100,
        used: expect.any(Number),
        projected: expect.any(Number),
        crossed: null,
      },
    ]);
    expect(standings[1]?.projected).toBeCloseTo(0.11, 10);
    // December began at local midnight today: the month so far is today.
    expect(standings[2]?.used).toBeCloseTo(0.01, 10);
  });

  it('answers fast on a big store (100,000 calls over 30 days)', () => {
    const events: CallEvent[] = [];
    for (let i = 0; i < 100_000; i++) {
      events.push(
        record(NOW - (i % (30 * 24)) * HOUR - i, { dep: i % 3 === 0 ? CLAUDE : GLM, tokens: 100, cost: 0.001 }),
      );
    }
    for (let i = 0; i < events.length; i += 5000) store.commit({ events: events.slice(i, i + 5000) });
    const started = performance.now();
    const { month } = report();
    const elapsed = performance.now() - started;
    expect(month.total.calls).toBe(100_000);
    console.log(`spend report over 100,000 calls: ${elapsed.toFixed(0)} ms`);
    expect(elapsed).toBeLessThan(2000);
  });
});
