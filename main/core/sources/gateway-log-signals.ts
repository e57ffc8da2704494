/**
 * What each kind of gateway-log signal keeps beyond the ids every signal has: one
 * builder per kind that reads its reasons, numbers and durations from the line
 * (never message content, save the capped start of a lane error's text).
 */
import { classifyErrorText } from '../calls/classify.js';
import type { GatewaySignal, SignalKind } from '../calls/events.js';
import { storableInteger } from '../store/whole-numbers.js';
import { cutCodePoints, type Fields } from './gateway-log-fields.js';

/** Lane error text kept as `detail`. */
const DETAIL_MAX = 300;

type Builder = (base: GatewaySignal, fields: Fields) => GatewaySignal;

export const BUILDERS: Record<SignalKind, Builder> = {
  fallback_decision: (base, f) => ({
    ...base,
    dep: f.dep('requested'),
    candidateDep: f.dep('candidate'),
    decision: f.str('decision'),
    reason: f.str('reason'),
    httpStatus: f.httpStatus('httpCode', 'status', 'httpStatus'),
    finalOutcome: f.str('fallbackStepFinalOutcome') ?? f.str('finalOutcome'),
  }),
  failover_decision: (base, f) => ({
    ...base,
    // 2026.9 writes structured `sourceProvider`/`sourceModel` and `provider`/`model`; older
    // console text `from=` / `to=`.
    dep: f.dep('source') ?? f.dep('from'),
    candidateDep: f.dep('to') ?? f.dep('next') ?? f.providerModel(),
    decision: f.str('decision'),
    reason: f.str('failoverReason') ?? f.str('reason'),
    httpStatus: f.httpStatus('httpCode', 'status', 'httpStatus'),
  }),
  run_timeout: (base, f) => ({ ...base, durationMs: milliseconds(f.num('timeoutMs')) }),
  lane_error: laneError,
  stall: (base, f) => ({
    ...base,
    durationMs: milliseconds(f.num('ageMs')) ?? ageMs(f.str('age')),
    classification: f.str('classification') ?? f.str('state'),
    reason: f.str('reason'),
  }),
  gateway_restart: (base) => base,
};

/**
 * A lane task error keeps the start of its error text (an error string, not
 * conversation content) and, when the text says rate limit, OpenClaw's reason
 * `rate_limit`, judged by the same classifier as transcript errors.
 */
function laneError(base: GatewaySignal, f: Fields): GatewaySignal {
  const error = f.text('error');
  const verdict = error === null ? null : classifyErrorText(error);
  return {
    ...base,
    durationMs: milliseconds(f.num('durationMs')),
    detail: error === null ? null : cutCodePoints(error, DETAIL_MAX),
    reason: f.str('reason') ?? (verdict?.outcome === 'rate_limited' ? 'rate_limit' : null),
    httpStatus: f.httpStatus('httpCode', 'status', 'httpStatus') ?? verdict?.httpStatus ?? null,
  };
}

/** A non-negative whole number of milliseconds (the store's column is an integer). */
function milliseconds(value: number | null): number | null {
  return value !== null && Number.isFinite(value) && value >= 0 ? storableInteger(value) : null;
}

const AGE = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;
const AGE_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `216s`, `4m`, `850ms`, `2h`; a bare number is in seconds, the unit OpenClaw prints ages in. */
export function ageMs(age: string | null): number | null {
  const match = age === null ? null : AGE.exec(age.trim());
  if (!match) return null;
  return milliseconds(Number(match[1]) * (AGE_UNIT_MS[match[2] ?? 's'] as number));
}
