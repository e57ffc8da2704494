/**
 * The normalized facts every source emits. Sources differ in where they read
 * (JSONL files, SQLite databases, the gateway log); everything downstream of
 * them (store, breakers, watchdog) sees only these shapes.
 */
import type { Outcome, Phase } from './classify.js';

/** Which kind of source produced a fact; also the `source` column in the store. */
export type SourceKind = 'jsonl' | 'sqlite' | 'gatewaylog' | 'gatewaymetrics';

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  /** Provider-reported cost in USD, when the record carries one. */
  cost: number;
}

/**
 * How a fact relates to the run it belongs to. A **call** is one upstream request
 * (what the provider saw and rate-limits); a **turn** is one outcome the user saw
 * (a transcript's assistant record). OpenClaw retries inside a run and persists
 * only the run's outcome, so the two differ:
 * - `attempt`: one failed upstream request the gateway log reported, as it happened;
 * - `record`: a transcript's assistant record, always a turn; also a call when it is
 *   a success (the default log level prints no 2xx answers), or a failure the log
 *   did not report (older gateways, no log) — a failure and its own log attempt are
 *   one call, paired in the store.
 * Absent: a call as it is (fallback decisions, gateway metrics, older stores).
 */
export type CallRole = 'attempt' | 'record';

/** One upstream model call the gateway made, and how it ended. */
export interface CallEvent {
  /**
   * Stable identity of the call, the same in every source and every copy of its
   * record (`<agent>/<entryId>@<message created ms>`). The store rejects a
   * second event with the same key, so a copy or a re-read shows up as a counted
   * duplicate instead of a double-counted call.
   */
  key: string;
  /** Event time in epoch ms, taken from the record itself, never the clock. */
  ts: number;
  source: SourceKind;
  agentId: string;
  sessionId: string;
  /** Dependency key the breakers use: `provider/model`. */
  dep: string;
  provider: string;
  model: string;
  api: string | null;
  stopReason: string | null;
  outcome: Outcome;
  phase: Phase;
  httpStatus: number | null;
  errorCode: string | null;
  retryAfterMs: number | null;
  /**
   * A short fingerprint (sha256, 12 hex digits) of the auth profile the call used,
   * where the record names one; never the profile id itself (it may be an e-mail).
   */
  credential: string | null;
  usage: TokenUsage;
  role?: CallRole;
  /** OpenClaw's run id, where the line or record names it (pairs a record with its run's attempts). */
  runId?: string | null;
  /**
   * Records only: false when OpenClaw wrote the record itself with no request behind
   * it (2026.7 writes its "Context overflow" notice as an assistant message): a turn, never a call.
   */
  upstream?: boolean;
}

/** A turn's outcome: a call's, or refused by OpenClaw itself before any request (key disabled, cooldown). */
export type TurnOutcome = Outcome | 'refused';

/** A run's outcome as the user saw it, when it is not a transcript record (turns OpenClaw refused itself). */
export interface TurnEvent {
  /** Unique per turn (the log line's key), so a re-read stores it once. */
  key: string;
  ts: number;
  source: SourceKind;
  agentId: string;
  sessionId: string;
  runId: string | null;
  /** `provider/model`, or the provider alone when only it is named. */
  dep: string;
  outcome: TurnOutcome;
  /** Why OpenClaw refused it, in its own words (at most 300 characters); never message content. */
  reason: string | null;
}

/** What a gateway log line tells beyond the calls themselves. */
export type SignalKind =
  | 'fallback_decision'
  | 'failover_decision'
  | 'lane_error'
  | 'stall'
  | 'run_timeout'
  | 'gateway_restart';

/**
 * A fact from the gateway's JSON log: a model fallback or failover decision, a
 * lane task error, a stalled session, an embedded run timeout, the gateway
 * restarting itself in-process (SIGUSR2: `openclaw gateway restart` against a
 * gateway no service manager runs). Signals are not
 * calls; where no transcript is readable, fallback decisions stand in for them
 * (see the gateway-log source).
 */
export interface GatewaySignal {
  /** Unique per log line (file identity and byte offset), so a re-read stores it once. */
  key: string;
  /** The line's own time, epoch ms. */
  ts: number;
  kind: SignalKind;
  sessionId: string | null;
  /** `agent:<id>:…` when the line names one. */
  sessionKey: string | null;
  runId: string | null;
  /** The tslog trace of the line (one per run), where written; not stored. */
  traceId?: string | null;
  /** The dependency asked for (fallback: requested; failover: from). */
  dep: string | null;
  /** The dependency tried (fallback candidate; failover: to / next). */
  candidateDep: string | null;
  /** `candidate_failed`, `candidate_succeeded`, `skip_candidate`, `probe_cooldown_candidate`, `surface_error`, … */
  decision: string | null;
  /** OpenClaw's reason: `rate_limit`, `overloaded`, `timeout`, `billing`, `auth`, `model_not_found`, … */
  reason: string | null;
  httpStatus: number | null;
  /** Fallback step's final outcome: `next_fallback`, `succeeded`, `chain_exhausted`. */
  finalOutcome: string | null;
  lane: string | null;
  /** Stalls: how long the session had been stuck; run timeouts: the timeout. */
  durationMs: number | null;
  /** Stalls: OpenClaw's classification (`stalled_agent_run`, …) or state. */
  classification: string | null;
  /** Short error text (lane errors), at most 300 characters; never message content. */
  detail: string | null;
}
