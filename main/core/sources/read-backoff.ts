/**
 * When to try an input again that failed to read, and when that is worth telling. A busy database is
 * ordinary contention with the gateway: retried soon, never logged. Any other failure (a corrupt page, a file
 * that is not a database) may last forever: the retries slow down exponentially up to a cap, and the log hears
 * of it once per change of state (became unreadable, failed differently, readable again), with the time of the
 * next try, instead of a warning every few seconds. Pure: the caller passes `now` and keeps the state.
 */
import { type BackoffPolicy, backoffStep } from '../runtime/backoff.js';

/** Lock contention with the gateway: its write transactions are short. */
export const BUSY_BACKOFF: BackoffPolicy = { initialMs: 50, factor: 2, maxMs: 5000 };
/** A read that failed for another reason: tried again after 1 s, 2 s, 4 s, … at most every 10 minutes. */
export const FAILURE_BACKOFF: BackoffPolicy = { initialMs: 1000, factor: 2, maxMs: 10 * 60_000 };

export interface ReadHealth {
  /** Consecutive failures (0: the last read succeeded). */
  failures: number;
  /** Why the reads fail (null while they succeed, or when only busy). */
  problem: string | null;
  /** When the current failing streak began. */
  since: number | null;
  /** When the next try is due (null: no retry pending). */
  retryAt: number | null;
}

export const HEALTHY: ReadHealth = { failures: 0, problem: null, since: null, retryAt: null };

/** What to tell the log, if anything: the state changed. */
export type HealthChange = 'unreadable' | 'still_unreadable' | 'readable_again' | null;

export interface AfterFailure {
  health: ReadHealth;
  delayMs: number;
  /** `unreadable` on the first failure or a different reason; null for a repeat of the same one. */
  change: HealthChange;
}

/** The delay before try number `failures + 1` under `policy`. */
export function delayAfter(failures: number, policy: BackoffPolicy): number {
  return backoffStep(failures, policy);
}

/** A read failed with `problem` at `now` (`busy`: lock contention, which is not a problem to report; `policy` for the rest). */
export function readFailed(
  health: ReadHealth,
  problem: string,
  busy: boolean,
  now: number,
  policy: BackoffPolicy = FAILURE_BACKOFF,
): AfterFailure {
  const failures = health.failures + 1;
  const delayMs = delayAfter(failures, busy ? BUSY_BACKOFF : policy);
  if (busy) return { health: { ...health, failures, retryAt: now + delayMs }, delayMs, change: null };
  const change: HealthChange =
    health.problem === null ? 'unreadable' : health.problem !== problem ? 'still_unreadable' : null;
  return {
    health: { failures, problem, since: health.since ?? now, retryAt: now + delayMs },
    delayMs,
    change,
  };
}

/** A read succeeded: back to healthy; `readable_again` when it had been reported unreadable. */
export function readSucceeded(health: ReadHealth): { health: ReadHealth; change: HealthChange } {
  return { health: HEALTHY, change: health.problem !== null ? 'readable_again' : null };
}
