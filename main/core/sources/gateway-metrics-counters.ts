/**
 * What OpenClaw's model-call counters say, and nothing about how they are fetched: the
 * `openclaw_model_call_total` series in a scrape, the outcome each series stands for, each counter's
 * growth since the values before it, the calls that growth becomes, and the form the last values are
 * kept in so that a BreakerBar restart counts from them.
 *
 * Label values, from OpenClaw's plugin (`extensions/diagnostics-prometheus/
 * src/service.ts`, `modelCallLabels`): `outcome` is `completed` or `error`;
 * `error_category` is `none` for completed calls, else the diagnostic event's
 * `errorCategory` (`other` when missing): a JS error class from
 * `diagnosticErrorCategory` (`Error`, `TypeError`, …), `StreamAbandoned`, or on
 * CLI-backend runs a failover reason (`rate_limit`, `overloaded`, `auth`, …) or
 * failure kind (`timeout`, `aborted`, `connection_reset`, `connection_closed`,
 * `terminated`).
 */
import type { Outcome } from '../calls/classify.js';
import { outcomeForReason } from '../calls/classify.js';
import type { CallEvent } from '../calls/events.js';
import { escapedName } from './dependency-name.js';
import { type PrometheusSample, seriesKey } from './prometheus-text.js';

export const MODEL_CALL_METRIC = 'openclaw_model_call_total';
/** Exporters that follow OpenMetrics naming print the counter without `_total`. */
const MODEL_CALL_NAMES: ReadonlySet<string> = new Set([MODEL_CALL_METRIC, 'openclaw_model_call']);
/** The version of the stored form of the last values (a cursor's detail). */
const DETAIL_VERSION = 1;

const SUCCESS_OUTCOMES: ReadonlySet<string> = new Set(['completed', 'ok', 'success', 'succeeded']);

/** The outcome of one `openclaw_model_call_total` series. */
export function modelCallOutcome(labels: Readonly<Record<string, string>>): Outcome {
  const outcome = labels.outcome?.trim().toLowerCase();
  const category = labels.error_category?.trim() ?? '';
  if (outcome !== undefined && SUCCESS_OUTCOMES.has(outcome)) return 'ok';
  // Without an outcome label, the category alone says whether the call failed.
  if (outcome === undefined && (category === '' || category === 'none')) return 'ok';
  const mapped = outcomeForReason(category);
  // An error whose category reads as success (`none`) is still an error.
  return mapped === 'ok' ? 'other_error' : mapped;
}

export interface Series {
  key: string;
  labels: Record<string, string>;
  value: number;
}

export interface ModelCallSeries {
  series: Map<string, Series>;
  /** False when a counter line was unusable: a series missing from `series` may then still exist. */
  complete: boolean;
}

export function modelCallSeries(samples: readonly PrometheusSample[], parseErrors: number): ModelCallSeries {
  const series = new Map<string, Series>();
  let complete = parseErrors === 0;
  for (const sample of samples) {
    if (!MODEL_CALL_NAMES.has(sample.name)) continue;
    if (!Number.isFinite(sample.value) || sample.value < 0) {
      complete = false;
      continue;
    }
    // Both spellings of the name are one counter.
    const key = seriesKey(MODEL_CALL_METRIC, sample.labels);
    series.set(key, { key, labels: sample.labels, value: Math.round(sample.value) });
  }
  return { series, complete };
}

export interface CounterDeltas {
  deltas: Array<{ series: Series; delta: number }>;
  /** The gateway restarted since the previous values: every counter started again from zero. */
  reset: boolean;
  /** The values to compare the next scrape with. */
  next: Map<string, number>;
}

/**
 * Growth of each counter since `previous` (null: no previous values, so this
 * scrape is a baseline only). OpenClaw keeps its counters in memory and never
 * removes a series, so a counter lower than before, or a series gone, means the
 * gateway restarted; then every series counts from zero, including ones that
 * have already grown past their old value. A restart that leaves every series
 * at or above its old value cannot be told from growth (a known limit).
 */
export function counterDeltas(previous: ReadonlyMap<string, number> | null, current: ModelCallSeries): CounterDeltas {
  const next = new Map<string, number>();
  for (const [key, series] of current.series) next.set(key, series.value);
  if (previous === null) return { deltas: [], reset: false, next };
  let reset = false;
  for (const [key, value] of previous) {
    const now = current.series.get(key);
    if (now !== undefined ? now.value < value : current.complete) reset = true;
    // A series hidden by a bad line keeps its old value for the next comparison.
    if (now === undefined && !current.complete) next.set(key, value);
  }
  const deltas: CounterDeltas['deltas'] = [];
  for (const series of current.series.values()) {
    const delta = reset ? series.value : series.value - (previous.get(series.key) ?? 0);
    if (delta > 0) deltas.push({ series, delta });
  }
  return { deltas, reset, next };
}

export function depOf(labels: Readonly<Record<string, string>>): string {
  // Another program's labels: a damaged one is shown escaped (see dependency-name.ts), never refused.
  return escapedName(`${labels.provider ?? 'unknown'}/${labels.model ?? 'unknown'}`);
}

function known(value: string | undefined): string | null {
  return value === undefined || value === '' || value === 'unknown' ? null : value;
}

/**
 * One call observed through the counters. Its time is the scrape's: the only
 * time known (the call happened somewhere since the previous scrape). The
 * phase is a guess the counters cannot confirm: failures `before_output`.
 */
export function metricsCall(series: Series, dep: string, scrapeTime: number, i: number): CallEvent {
  const outcome = modelCallOutcome(series.labels);
  const category = series.labels.error_category;
  return {
    key: `gatewaymetrics/${scrapeTime}/${series.key}/${i}`,
    ts: scrapeTime,
    source: 'gatewaymetrics',
    agentId: 'gateway',
    sessionId: 'metrics',
    dep,
    provider: series.labels.provider ?? 'unknown',
    model: series.labels.model ?? 'unknown',
    api: known(series.labels.api),
    stopReason: null,
    outcome,
    phase: outcome === 'ok' ? 'complete' : 'before_output',
    httpStatus: null,
    // OpenClaw's own category (`rate_limit`, `TimeoutError`, …) is the closest thing to an error code it exports.
    errorCode: outcome === 'ok' || category === undefined || category === 'none' ? null : category,
    retryAfterMs: null,
    credential: null,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0 },
  };
}

/** The last values as they are stored: `{"version":1,"values":{"<series key>":<count>}}`. */
export function storedValues(values: ReadonlyMap<string, number>): string {
  return JSON.stringify({ version: DETAIL_VERSION, values: Object.fromEntries(values) });
}

/** `{"version":1,"values":{"<series key>":<count>}}` → the values, or null when it is not that. */
export function parseDetail(detail: string | null): Map<string, number> | null {
  if (detail === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(detail);
  } catch {
    return null;
  }
  const { version, values } = (parsed ?? {}) as { version?: unknown; values?: unknown };
  if (version !== DETAIL_VERSION || typeof values !== 'object' || values === null) return null;
  const result = new Map<string, number>();
  for (const [key, value] of Object.entries(values)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return null;
    result.set(key, value);
  }
  return result;
}
