/**
 * How long to wait before reconnecting to Redis. Pure, so the policy is tested
 * without sockets; ioredis calls it through its `retryStrategy`.
 */
import { type BackoffPolicy, backoffStep } from '../runtime/backoff.js';

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 100, maxMs: 5_000 };

/**
 * Delay before retry number `attempt` (0-based): the exponential step capped
 * at `maxMs`, then "equal jitter" — between half and all of it — so hosts
 * spread out after a Redis restart without ever retrying in a tight loop.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const step = backoffStep(attempt + 1, policy);
  return Math.round(step / 2 + (random() * step) / 2);
}
