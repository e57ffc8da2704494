/**
 * The shapes the breaker engine speaks: what it observes, what it decides, and
 * how it is configured. The engine itself (engine.ts) is pure: no I/O, no
 * timers, time only as the arguments it is given.
 */
import type { BreakerReason } from '../../words/breaker-reasons.js';
import type { Outcome, Phase } from '../calls/classify.js';

export const BREAKER_STATES = ['closed', 'half_open', 'open', 'throttled'] as const;
export type BreakerState = (typeof BREAKER_STATES)[number];

/**
 * `breaker_state` gauge values: 0 closed, 1 half_open, 2 open is the convention breaker dashboards and
 * alert rules already read, so existing Grafana panels work unchanged; throttled (a quota, not an
 * outage) is added as 3 so it sorts above open without renumbering them.
 */
export const STATE_GAUGE: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2, throttled: 3 };

export interface BreakerPolicy {
  /** Sliding window over event time for the failure rate. */
  windowMs: number;
  /** Calls in the window before the failure rate counts. */
  minCalls: number;
  /** Trip when more than this share of the window's calls failed (0..1). */
  failureRate: number;
  /** Trip on this many failures in a row. */
  consecutiveFailures: number;
  /** First open duration. */
  cooldownMs: number;
  /** Open duration grows by this factor after each failed half-open trial… */
  backoffFactor: number;
  /** …up to this. */
  maxOpenMs: number;
  /** Consecutive successful trials that close a half-open breaker. */
  trialsToClose: number;
  /** A Retry-After longer than this is capped (a provider asking for a day should not blind BreakerBar for a day). */
  maxRetryAfterMs: number;
}

/**
 * The defaults, each with its reason:
 * - a 30 s window with at least 20 calls before the rate counts: long enough that one slow
 *   agent turn (a handful of calls) cannot decide, short enough to notice a storm within a minute;
 * - open above 60 % failures, or on 5 failures in a row: the run catches a total outage at low
 *   traffic, the ratio catches partial decay at high traffic, and 60 % leaves a provider that fails
 *   every other call (a flaky but working route) closed;
 * - 30 s first cooldown, doubled after each failed trial up to 10 min: a blip recovers in one
 *   cooldown, a real outage is probed less and less often;
 * - 2 successful trials to close: one success may be luck; two (from different sessions, where
 *   there are any) is evidence;
 * - a provider's Retry-After is honoured up to 1 h: beyond that it is more likely a misparsed
 *   header than a plan, and a breaker held open for a day would hide the recovery.
 */
export const DEFAULT_POLICY: BreakerPolicy = {
  windowMs: 30_000,
  minCalls: 20,
  failureRate: 0.6,
  consecutiveFailures: 5,
  cooldownMs: 30_000,
  backoffFactor: 2,
  maxOpenMs: 600_000,
  trialsToClose: 2,
  maxRetryAfterMs: 3_600_000,
};

/** One observed call (or active probe) outcome for a dependency, at its own event time. */
export interface Observation {
  ts: number;
  outcome: Outcome;
  phase: Phase;
  retryAfterMs: number | null;
  /** Session the call belonged to; trials from different sessions are preferred evidence. */
  sessionId: string;
  /** An active probe BreakerBar sent itself (never gateway traffic). */
  probe?: boolean;
}

/** How an observation counts for the breaker. */
export type Verdict = 'success' | 'failure' | 'neutral';

export type OperatorAction = 'force_open' | 'force_closed' | 'reset';

export interface Transition {
  dep: string;
  from: BreakerState;
  to: BreakerState;
  /**
   * Why, as the engine's English line (`5 consecutive failures`, `rate limited, Retry-After 120 s`, …) for the
   * log and the rehearsal report: always `breakerReasonLine(why)`.
   */
  reason: string;
  /**
   * Why, as a code and its facts: what is stored, and worded in the reader's language when read
   * (`wordBreakerReason`). Absent only from an older core's answers: readers then read `reason` as a line.
   */
  why?: BreakerReason;
  /** Event time that caused it (the observation's time, or the time the cooldown ran out). */
  ts: number;
}

export interface BreakerSnapshot {
  dep: string;
  state: BreakerState;
  /** Set by an operator: the breaker holds this state until reset. */
  forced: 'open' | 'closed' | null;
  /** The current state's reason: its English line and its code and facts (see Transition). */
  reason: string;
  why?: BreakerReason;
  /** When the current state began (event time). */
  since: number;
  /**
   * When it left closed (event time), kept through every round of trials since (open, half-open, open again):
   * how long an outage has lasted. Null while closed.
   */
  outSince: number | null;
  /** Open/throttled: when trials may start (cooldown end, or Retry-After end if later). */
  openUntil: number | null;
  /** Throttled by a provider's Retry-After: not before this instant. */
  retryAfterUntil: number | null;
  /** The open duration in force (grows on failed trials, resets on close). */
  openDurationMs: number;
  window: { calls: number; failures: number; successes: number; failureRate: number };
  consecutiveFailures: number;
  /** Half-open: successful trials so far. */
  trialSuccesses: number;
  /** Counters since start (the metrics read them). */
  rejections: number;
  retryAfterSkips: number;
  lastEventAt: number | null;
}
