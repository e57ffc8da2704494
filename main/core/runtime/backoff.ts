/**
 * The one capped exponential backoff of the core: a first delay, multiplied at each further try, never over a
 * cap. Whoever retries (an unreadable source, the Redis link, a webhook) takes its step from here and adds what
 * is its own (the fleet's jitter, a webhook's spread, a server's Retry-After).
 */

export interface BackoffPolicy {
  /** The delay before the first retry. */
  initialMs: number;
  /** Each further retry multiplies the delay by this (default 2)… */
  factor?: number;
  /** …up to this. */
  maxMs: number;
}

/** The delay before retry number `retry` (1 for the first): `initialMs × factor^(retry − 1)`, at most `maxMs`. */
export function backoffStep(retry: number, policy: BackoffPolicy): number {
  // Bounded, so a long streak of failures cannot overflow the power to Infinity before the cap applies.
  const exponent = Math.min(Math.max(0, retry - 1), 64);
  return Math.min(policy.maxMs, policy.initialMs * (policy.factor ?? 2) ** exponent);
}
