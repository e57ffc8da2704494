/**
 * How long to wait before reconnecting to Redis. Pure, so the policy is tested
 * without sockets; ioredis calls it through its `retryStrategy`.
 */

export interface BackoffPolicy {
  /** Delay before the first retry. */
  initialMs: number;
  /** Cap: retries never wait longer than this. */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 100, maxMs: 5_000 };

/**
 * Delay before retry number `attempt` (0-based): the exponential step capped
 * at `maxMs`, then "equal jitter" — between half and all of it — so hosts
 * spread out after a Redis restart without ever retrying in a tight loop.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const step = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(step / 2 + (random() * step) / 2);
}
