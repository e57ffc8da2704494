/**
 * The rows a commit writes for calls, turns and gateway signals: their INSERT statements and the values
 * bound to them, each number made one a STRICT table accepts. Shared with the storing benchmarks, which
 * bind rows the same way.
 */
import type { CallEvent, GatewaySignal } from '../calls/events.js';
import { storableInteger } from './whole-numbers.js';

/** A call row, its values bound by position in this order (the storing benchmark binds them the same way). */
export const INSERT_CALL_SQL = `
  INSERT INTO calls (event_key, ts, source, agent_id, session_id, dep, provider, model, api, stop_reason,
    outcome, phase, http_status, error_code, retry_after_ms, tokens_input, tokens_output,
    tokens_cache_read, tokens_cache_write, tokens_total, cost, credential, role, run_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (event_key) DO NOTHING`;

/**
 * A value for an INTEGER column of a STRICT table: whatever a source let through, a fraction or a number past
 * 2^53 would make SQLite refuse the row and the whole batch with it (the sources repair what they read; this
 * holds for every source, so one odd value can never stop ingestion).
 */
export function whole(value: number): number {
  return storableInteger(value) ?? 0;
}

function wholeOrNull(value: number | null): number | null {
  return value === null ? null : storableInteger(value);
}

/** A gateway signal's row, its numbers whole (see `whole`). */
export function signalValues(signal: GatewaySignal): GatewaySignal {
  return {
    ...signal,
    ts: whole(signal.ts),
    httpStatus: wholeOrNull(signal.httpStatus),
    durationMs: wholeOrNull(signal.durationMs),
  };
}

/** The values of `event`'s call row, in INSERT_CALL_SQL's order. */
export function callValues(event: CallEvent): unknown[] {
  const { usage } = event;
  return [
    event.key,
    whole(event.ts),
    event.source,
    event.agentId,
    event.sessionId,
    event.dep,
    event.provider,
    event.model,
    event.api,
    event.stopReason,
    event.outcome,
    event.phase,
    wholeOrNull(event.httpStatus),
    event.errorCode,
    wholeOrNull(event.retryAfterMs),
    whole(usage.input),
    whole(usage.output),
    whole(usage.cacheRead),
    whole(usage.cacheWrite),
    whole(usage.totalTokens),
    usage.cost,
    event.credential,
    event.role ?? null,
    event.runId ?? null,
  ];
}

/** A turn row, its values bound by position in this order. */
export const INSERT_TURN_SQL = `
  INSERT INTO turns (turn_key, ts, source, agent_id, session_id, run_id, dep, outcome, reason, tokens_total, cost)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (turn_key) DO NOTHING`;

/** The values of the turn row a transcript record (`role: 'record'`) is, in INSERT_TURN_SQL's order. */
export function recordTurnValues(event: CallEvent): unknown[] {
  const { key, ts, source, agentId, sessionId, dep, outcome, usage } = event;
  const tokens = whole(usage.totalTokens);
  return [key, whole(ts), source, agentId, sessionId, event.runId ?? null, dep, outcome, null, tokens, usage.cost];
}
