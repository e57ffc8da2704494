/**
 * The breaker's sliding window: exact counts against a brute-force model over
 * random histories, and a cost bound that cannot flake (entries looked at are
 * counted, nothing is timed).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Breaker } from '../../../main/core/breaker/engine.js';
import { TimeWindow, type WindowCounts, type WindowEntry } from '../../../main/core/breaker/time-window.js';
import { DEFAULT_POLICY, type Observation, type Verdict } from '../../../main/core/breaker/types.js';

const SPAN = 1000;

function entry(ts: number, verdict: Verdict, sessionId = 's1', quota = false): WindowEntry {
  return { ts, verdict, quota, sessionId };
}

/** The window as the definition says it: every accepted entry, filtered on each question. */
class ModelWindow {
  entries: WindowEntry[] = [];
  end = Number.NEGATIVE_INFINITY;

  add(e: WindowEntry, end: number): boolean {
    this.end = Math.max(this.end, end);
    if (e.ts <= this.end - SPAN) return false;
    this.entries.push(e);
    return true;
  }

  at(t: number): WindowCounts {
    const counts = { calls: 0, failures: 0, quotaFailures: 0 };
    for (const e of this.entries) {
      if (e.ts <= t - SPAN || e.ts > t || e.verdict === 'neutral') continue;
      counts.calls++;
      if (e.verdict === 'failure') {
        counts.failures++;
        if (e.quota) counts.quotaFailures++;
      }
    }
    return counts;
  }

  hasSessionOutside(known: readonly string[]): boolean {
    return this.entries.some((e) => e.ts > this.end - SPAN && !known.includes(e.sessionId));
  }
}

type Op =
  | { kind: 'add'; dt: number; lag: number; verdict: Verdict; quota: boolean; session: string }
  | { kind: 'tick'; dt: number }
  | { kind: 'sessions'; known: string[] }
  | { kind: 'clear' };

const sessionArb = fc.constantFrom('a', 'b', 'c', 'd');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      dt: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 3000 })),
      lag: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1500 })),
      verdict: fc.constantFrom<Verdict>('success', 'failure', 'neutral'),
      quota: fc.boolean(),
      session: sessionArb,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('tick' as const),
      dt: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 3000 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sessions' as const), known: fc.array(sessionArb) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

describe('TimeWindow', () => {
  it('counts exactly what the window holds, at the latest event time and at the latest time seen', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => {
        const window = new TimeWindow(SPAN);
        let model = new ModelWindow();
        // Event times only grow (a late entry has an older ts, but the end passed to add never goes back),
        // and the wall clock is never behind them: as the breaker drives it.
        let eventEnd = 0;
        let clock = 0;
        for (const op of ops) {
          if (op.kind === 'add') {
            clock += op.dt;
            eventEnd = Math.max(eventEnd, clock - op.lag);
            const e = entry(clock - op.lag, op.verdict, op.session, op.quota);
            expect(window.add(e, eventEnd)).toBe(model.add(e, eventEnd));
            expect(window.current()).toEqual(model.at(eventEnd));
          } else if (op.kind === 'tick') {
            clock += op.dt;
          } else if (op.kind === 'sessions') {
            expect(window.hasSessionOutside(op.known)).toBe(model.hasSessionOutside(op.known));
          } else {
            window.clear();
            model = new ModelWindow();
          }
          expect(window.at(clock)).toEqual(model.at(clock));
          expect(window.at(eventEnd)).toEqual(model.at(eventEnd));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('answers an end between the latest event time and the latest time seen by walking (and exactly)', () => {
    const window = new TimeWindow(SPAN);
    window.add(entry(100, 'failure'), 100);
    window.add(entry(900, 'success'), 900);
    expect(window.at(1500)).toEqual({ calls: 1, failures: 0, quotaFailures: 0 });
    const before = window.entriesVisited;
    expect(window.at(1050)).toEqual({ calls: 2, failures: 1, quotaFailures: 0 });
    expect(window.entriesVisited).toBeGreaterThan(before);
  });

  it('never slides back: an end earlier than one already given counts as that one', () => {
    const window = new TimeWindow(SPAN);
    window.add(entry(5000, 'success'), 5000);
    expect(window.add(entry(3000, 'failure'), 3000)).toBe(false);
    expect(window.add(entry(4500, 'failure'), 4500)).toBe(true);
    expect(window.current()).toEqual({ calls: 2, failures: 1, quotaFailures: 0 });
  });
});

describe('breaker bookkeeping cost', () => {
  const N = 150_000;
  const obs = (ts: number, failed: boolean, sessionId = 'a'): Observation => ({
    ts,
    outcome: failed ? 'timeout' : 'ok',
    phase: failed ? 'before_output' : 'complete',
    retryAfterMs: null,
    sessionId,
  });

  it('stays O(1) amortised per call when ticks move the clock past the newest call', () => {
    // A call every 1 ms, so the 30 s window holds 30,000 of them; every call is followed by a tick
    // a second ahead of it (the wall clock ahead of event time, as live) and a snapshot (as the engines do).
    const breaker = new Breaker('p/m', DEFAULT_POLICY);
    for (let i = 0; i < N; i++) {
      const ts = 1_000_000 + i;
      breaker.observe(obs(ts, i % 10 === 0));
      breaker.tick(ts + 1000);
      breaker.snapshot();
    }
    // Each call enters once and leaves each of the two windows at most once. A walk of the window per
    // snapshot would look at ~30,000 entries per call (4.5e9 here).
    expect(breaker.windowEntriesVisited()).toBeLessThanOrEqual(2 * N);
    expect(breaker.snapshot().window.calls).toBe(29_000);
  });

  it('stays cheap when ticks race far ahead and calls keep arriving a little late', () => {
    const breaker = new Breaker('p/m', DEFAULT_POLICY);
    let clock = 2_000_000;
    for (let i = 0; i < N; i++) {
      clock += 1;
      // Every 100th call comes 3 ms late (out of order among its neighbours); every 1000th step the wall
      // clock jumps 20 s ahead of the calls, then the calls catch up.
      const lateBy = i % 100 === 0 ? 3 : 0;
      breaker.observe(obs(clock - lateBy, false, i % 2 === 0 ? 'a' : 'b'));
      if (i % 1000 === 0) breaker.tick(clock + 20_000);
      breaker.tick(clock + 5);
      breaker.snapshot();
    }
    // A late call costs a heap step or two on its way in and out of each window (a few hundred are held).
    expect(breaker.windowEntriesVisited()).toBeLessThanOrEqual(2 * N + (N / 100) * 2 * 2 * 10);
  });

  it('stays cheap when whole batches arrive out of order (sessions read one after another)', () => {
    // 100 sessions each writing a call every 100 ms, read in batches of 10 calls per session, one session
    // after another: most calls are older than the newest already seen. The window holds 30,000 calls.
    const breaker = new Breaker('p/m', DEFAULT_POLICY);
    const sessions = 100;
    const perBatch = 10;
    let observed = 0;
    for (let round = 0; observed < N; round++) {
      for (let s = 0; s < sessions; s++) {
        for (let k = 0; k < perBatch; k++) {
          const ts = 3_000_000 + (round * perBatch + k) * 100 + s;
          breaker.observe(obs(ts, k === 0 && s % 7 === 0, `s${s}`));
          breaker.snapshot();
          observed++;
        }
      }
      breaker.tick(3_000_000 + (round + 1) * perBatch * 100 + 50);
    }
    // In and out of two windows, each step of a heap of at most 30,000 entries at most log2(30,000) < 15 moves.
    expect(breaker.windowEntriesVisited()).toBeLessThanOrEqual(observed * (2 + 2 * 2 * 15));
    expect(breaker.snapshot().window.calls).toBeGreaterThan(29_000);
  });
});
