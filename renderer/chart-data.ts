/**
 * What the charts draw, computed from `/api/history` without touching the DOM:
 * stacked error counts per step, the marks (restarts, breaker transitions) on
 * the same time axis, and the gateway's up/down spans. Pure, so it is tested
 * in Node and the chart module only maps these arrays onto uPlot.
 */

import type { ApiHistory, Outcome, ProbeRow } from '../main/api/types.js';

export interface ErrorGroup {
  key: string;
  label: string;
  outcomes: readonly Outcome[];
}

/** Failed outcomes, grouped as an operator reads them; 429s first (the storms BreakerBar is about). */
export const ERROR_GROUPS: readonly ErrorGroup[] = [
  { key: 'rate_limited', label: '429 rate limited', outcomes: ['rate_limited'] },
  { key: 'overloaded', label: '529 overloaded', outcomes: ['overloaded'] },
  { key: 'server_error', label: '5xx server error', outcomes: ['server_error'] },
  { key: 'timeout', label: 'timeout', outcomes: ['timeout'] },
  { key: 'connection_reset', label: 'connection reset', outcomes: ['connection_reset'] },
  {
    key: 'other',
    label: 'other errors',
    outcomes: ['auth', 'billing', 'context_overflow', 'aborted', 'other_error'],
  },
];

export interface TimeRange {
  key: 'hour' | 'day' | 'week';
  label: string;
  spanMs: number;
  /** Bar width. Per minute over a week would be 10,080 bars (over the API's 10,000 steps, and unreadable). */
  stepSec: number;
  /** How the y axis is labelled. */
  per: string;
}

export const TIME_RANGES: readonly TimeRange[] = [
  { key: 'hour', label: 'Last hour', spanMs: 3_600_000, stepSec: 60, per: 'per minute' },
  { key: 'day', label: 'Last day', spanMs: 86_400_000, stepSec: 300, per: 'per 5 minutes' },
  { key: 'week', label: 'Last week', spanMs: 7 * 86_400_000, stepSec: 1800, per: 'per 30 minutes' },
];

export function rangeOf(key: string): TimeRange {
  return TIME_RANGES.find((range) => range.key === key) ?? TIME_RANGES[0]!;
}

/** A history window ending now, aligned to whole steps so bars do not shift on every refresh. */
export function windowFor(range: TimeRange, now: number): { from: number; to: number; stepSec: number } {
  const step = range.stepSec * 1000;
  const to = Math.ceil(now / step) * step;
  return { from: to - range.spanMs, to, stepSec: range.stepSec };
}

export interface StackedSeries {
  /** Step starts, in seconds (uPlot's time unit). */
  xs: number[];
  /** Per group (ERROR_GROUPS order): the count in each step. */
  counts: number[][];
  /** Per group: the count stacked on the groups before it (what the bars draw). */
  stacked: number[][];
  /** Per group: the total over the whole range. */
  totals: number[];
  /** Calls of every outcome, ok included, over the range. */
  calls: number;
}

export function stackErrors(steps: ApiHistory['steps']): StackedSeries {
  const xs = steps.map((step) => step.t / 1000);
  const counts = ERROR_GROUPS.map((group) =>
    steps.map((step) => group.outcomes.reduce((sum, outcome) => sum + (step.outcomes[outcome] ?? 0), 0)),
  );
  const stacked: number[][] = [];
  counts.forEach((row, g) => {
    const below = g === 0 ? null : stacked[g - 1]!;
    stacked.push(row.map((n, i) => n + (below ? below[i]! : 0)));
  });
  const totals = counts.map((row) => row.reduce((a, b) => a + b, 0));
  const calls = steps.reduce(
    (sum, step) => sum + Object.values(step.outcomes).reduce((a: number, b) => a + (b ?? 0), 0),
    0,
  );
  return { xs, counts, stacked, totals, calls };
}

export interface Mark {
  /** Epoch ms. */
  ts: number;
  kind: 'restart' | 'transition';
  /** Short text drawn next to the line ("restart", "→ open"). */
  label: string;
  /** The state a transition went to, or the restart's result: chooses the colour. */
  tone: string;
  /** The whole story, for the list under the chart. */
  title: string;
}

/** Restarts (every one) and breaker transitions (of `dep` when given) within the history's range. */
export function marksOf(history: Pick<ApiHistory, 'restarts' | 'transitions'>, dep?: string): Mark[] {
  const restarts: Mark[] = history.restarts.map((row) => ({
    ts: row.ts,
    kind: 'restart',
    label: 'restart',
    tone: row.result,
    title: `restart (${row.trigger}): ${row.reason} → ${row.result}`,
  }));
  const transitions: Mark[] = history.transitions
    .filter((t) => dep === undefined || t.dep === dep)
    .map((t) => ({
      // Event time: the call that caused it, which is where its bar is.
      ts: t.ts,
      kind: 'transition',
      label: `→ ${t.to.replace(/_/g, '-')}`,
      tone: t.to,
      title: `${t.dep}: ${t.from.replace(/_/g, '-')} → ${t.to.replace(/_/g, '-')} (${t.reason})`,
    }));
  return [...restarts, ...transitions].sort((a, b) => a.ts - b.ts);
}

export interface HealthSeries {
  /** Probe times, seconds. */
  xs: number[];
  /** Latency of answered probes in ms; null where the probe failed. */
  latency: Array<number | null>;
  /** Spans (epoch ms) during which probes failed: from the first failed probe to the next ok one. */
  down: Array<{ from: number; to: number; status: string }>;
  ok: number;
  failed: number;
}

/** Probes oldest first (the API returns them newest first, at most 5,000). */
export function healthSeries(probes: readonly ProbeRow[], rangeEnd: number): HealthSeries {
  const ordered = [...probes].sort((a, b) => a.ts - b.ts);
  const down: HealthSeries['down'] = [];
  let open: { from: number; status: string } | null = null;
  for (const probe of ordered) {
    if (!probe.ok && open === null) open = { from: probe.ts, status: probe.status };
    if (probe.ok && open !== null) {
      down.push({ ...open, to: probe.ts });
      open = null;
    }
  }
  if (open !== null) down.push({ ...open, to: rangeEnd });
  return {
    xs: ordered.map((p) => p.ts / 1000),
    latency: ordered.map((p) => (p.ok ? p.latencyMs : null)),
    down,
    ok: ordered.filter((p) => p.ok).length,
    failed: ordered.filter((p) => !p.ok).length,
  };
}

/** A card's sparkline: calls and failures per step over the last day. */
export interface SparkSeries {
  /** Step starts, in seconds. */
  xs: number[];
  calls: number[];
  failures: number[];
  /** Sums over the range (what the sparkline's label says). */
  totalCalls: number;
  totalFailures: number;
}

/** The card's 24 h: 96 steps of 15 minutes, aligned to whole steps so the bars do not shift on each refresh. */
export const SPARK_RANGE = { spanMs: 86_400_000, stepSec: 900 } as const;

export function sparkWindow(now: number): { from: number; to: number; stepSec: number } {
  const step = SPARK_RANGE.stepSec * 1000;
  const to = Math.ceil(now / step) * step;
  return { from: to - SPARK_RANGE.spanMs, to, stepSec: SPARK_RANGE.stepSec };
}

/** Calls (every outcome) and failures (every outcome but ok) per step. */
export function sparkSeries(steps: ApiHistory['steps']): SparkSeries {
  const xs: number[] = [];
  const calls: number[] = [];
  const failures: number[] = [];
  let totalCalls = 0;
  let totalFailures = 0;
  for (const step of steps) {
    let all = 0;
    for (const n of Object.values(step.outcomes)) all += n;
    const failed = all - (step.outcomes.ok ?? 0);
    xs.push(step.t / 1000);
    calls.push(all);
    failures.push(failed);
    totalCalls += all;
    totalFailures += failed;
  }
  return { xs, calls, failures, totalCalls, totalFailures };
}
