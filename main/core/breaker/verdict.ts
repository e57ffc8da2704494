/**
 * How one observed outcome counts for a breaker. One table, so that the rule
 * "which outcomes may trip a breaker" is reviewed in one place and tested row by
 * row. Pure.
 */
import type { Outcome } from '../calls/classify.js';
import type { Observation, Verdict } from './types.js';

/**
 * Failures are what an unhealthy dependency does to every caller (transport
 * errors, 5xx, overload, quota). Neutral outcomes are about the caller or the
 * request (credentials, billing, prompt size, a user's abort, unknown errors):
 * opening a breaker for them would fail fast healthy traffic of other callers.
 */
const VERDICTS: Readonly<Record<Outcome, Verdict>> = {
  ok: 'success',
  timeout: 'failure',
  connection_reset: 'failure',
  server_error: 'failure',
  overloaded: 'failure',
  rate_limited: 'failure',
  auth: 'neutral',
  billing: 'neutral',
  context_overflow: 'neutral',
  other_error: 'neutral',
  aborted: 'neutral',
};

export function verdictOf(obs: Pick<Observation, 'outcome' | 'phase'>): Verdict {
  const verdict = VERDICTS[obs.outcome];
  // A stream that broke after tokens were delivered reached a working upstream;
  // the failure is the stream's (often a client timeout or a disputed, partly billed answer), not
  // the provider's availability, so it never opens a breaker. A rate limit is the exception: whenever it
  // arrives it is the provider refusing the quota every caller of the dependency shares, and the watchdog
  // counts every rate-limited call as storm evidence, so a storm it counts must reach the breakers too (a
  // phase misread from a transcript record would otherwise hide it from them, the incidents and the headline).
  return verdict === 'failure' && obs.phase === 'mid_stream' && !isQuota(obs) ? 'neutral' : verdict;
}

/** A quota failure: what makes a breaker `throttled` (quota) rather than `open` (outage). */
export function isQuota(obs: Pick<Observation, 'outcome'>): boolean {
  return obs.outcome === 'rate_limited';
}
