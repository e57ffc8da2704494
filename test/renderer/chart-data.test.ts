/** What the charts draw, computed from /api/history. */
import { describe, expect, it } from 'vitest';
import type { ApiHistory } from '../../main/api/types.js';
import { emptyOutcomeCounts, type Outcome } from '../../main/core/calls/classify.js';
import type { ProbeRow, RestartRow } from '../../main/core/store/gateway-history.js';
import { ERROR_GROUPS, healthSeries, marksOf, stackErrors, TIME_RANGES, windowFor } from '../../renderer/chart-data.js';

function step(t: number, counts: Partial<Record<Outcome, number>>): ApiHistory['steps'][number] {
  return { t, outcomes: { ...emptyOutcomeCounts(), ...counts } };
}

function restart(ts: number, result = 'recovered'): RestartRow {
  return {
    id: ts,
    ts,
    trigger: 'storm',
    reason: 'storm',
    result,
    durationMs: null,
    strategy: null,
    command: null,
    exitCode: null,
    output: null,
    recoveryMs: null,
    detail: null,
    evidence: 'storm',
  };
}

const probe = (ts: number, ok: boolean, latencyMs: number | null = ok ? 10 : null): ProbeRow => ({
  ts,
  ok,
  status: ok ? 'ok' : 'refused',
  startup: null,
  latencyMs,
  detail: null,
});

describe('chart data', () => {
  it('stacks error groups per step (429s at the bottom) and counts every call', () => {
    const series = stackErrors([
      step(60_000, { rate_limited: 4, timeout: 1, ok: 10 }),
      step(120_000, { auth: 2, billing: 1, server_error: 3 }),
    ]);
    expect(series.xs).toEqual([60, 120]);
    const at = (key: string) => ERROR_GROUPS.findIndex((g) => g.key === key);
    expect(series.counts[at('rate_limited')]).toEqual([4, 0]);
    expect(series.counts[at('other')]).toEqual([0, 3]);
    expect(series.stacked[at('rate_limited')]).toEqual([4, 0]);
    // Each group sits on the ones before it; the last one's height is the step's total.
    expect(series.stacked[ERROR_GROUPS.length - 1]).toEqual([5, 6]);
    expect(series.totals[at('rate_limited')]).toBe(4);
    expect(series.calls).toBe(21);
  });

  it('groups every failed outcome exactly once, and never ok', () => {
    const grouped = ERROR_GROUPS.flatMap((g) => g.outcomes);
    expect(new Set(grouped).size).toBe(grouped.length);
    expect(grouped).not.toContain('ok');
    expect(grouped.length).toBe(Object.keys(emptyOutcomeCounts()).length - 1);
  });

  it('asks the API for at most its 10,000 steps, aligned to whole steps', () => {
    for (const range of TIME_RANGES) {
      const window = windowFor(range, 1_750_000_012_345);
      expect((window.to - window.from) / (window.stepSec * 1000)).toBeLessThanOrEqual(10_000);
      expect(window.to % (range.stepSec * 1000)).toBe(0);
      expect(window.to).toBeGreaterThanOrEqual(1_750_000_012_345);
    }
  });

  it('marks every restart and the transitions of the chart’s dependency, in time order', () => {
    const history = {
      restarts: [restart(5000), restart(1000, 'failed')],
      transitions: [
        {
          dep: 'a/x',
          from: 'closed' as const,
          to: 'open' as const,
          reason: '5 consecutive failures',
          ts: 3000,
          at: 3100,
        },
        { dep: 'b/y', from: 'closed' as const, to: 'throttled' as const, reason: 'Retry-After', ts: 2000, at: 2000 },
      ],
    };
    expect(marksOf(history, 'a/x').map((m) => [m.ts, m.kind, m.label])).toEqual([
      [1000, 'restart', 'restart'],
      [3000, 'transition', '→ open'],
      [5000, 'restart', 'restart'],
    ]);
    expect(marksOf(history)).toHaveLength(4);
    expect(marksOf(history)[0]?.tone).toBe('failed');
  });

  it('turns failed probes into down spans that end at the next good probe (or the range end)', () => {
    // Newest first, as the API sends them.
    const series = healthSeries(
      [probe(6000, false), probe(5000, true), probe(4000, false), probe(3000, false), probe(2000, true)],
      9000,
    );
    expect(series.xs).toEqual([2, 3, 4, 5, 6]);
    expect(series.latency).toEqual([10, null, null, 10, null]);
    expect(series.down).toEqual([
      { from: 3000, to: 5000, status: 'refused' },
      { from: 6000, to: 9000, status: 'refused' },
    ]);
    expect([series.ok, series.failed]).toEqual([2, 3]);
  });
});
