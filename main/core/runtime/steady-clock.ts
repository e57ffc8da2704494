/**
 * A monotonic clock in epoch-like milliseconds: it starts at the wall time it
 * was made and then only moves forward at the rate real time passes, whatever
 * is done to the system clock (NTP steps, a user changing the date, a laptop's
 * clock corrected after sleep). Durations the watchdog judges — budgets,
 * spacing, grace, deferrals — are measured on it.
 */
import { performance } from 'node:perf_hooks';

export function steadyClock(wallNow: number = Date.now()): () => number {
  const origin = performance.now();
  return () => wallNow + (performance.now() - origin);
}
