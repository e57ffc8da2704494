/**
 * Replays the seed cron watchdog over a set of rate-limit times: every minute it
 * counted seed-rule 429s in the last 120 s; a minute with any incremented a
 * consecutive counter, a minute without reset it; at 3 it restarted the gateway.
 * `scan` uses it to show where the old watchdog would have fired.
 */
export interface SeedWatchdogRule {
  checkIntervalMs: number;
  windowMs: number;
  threshold: number;
}

export const SEED_WATCHDOG: SeedWatchdogRule = { checkIntervalMs: 60_000, windowMs: 120_000, threshold: 3 };

export interface Storm {
  /** First check that saw rate limits in this run of consecutive checks. */
  start: number;
  /** Last check of the run. */
  end: number;
  /** Seed-rule rate limits with a time inside [start - window, end]. */
  rateLimits: number;
  /** Times at which the seed watchdog would have restarted the gateway. */
  restarts: number[];
}

/** Storms in `times` (epoch ms, any order), as the seed watchdog running on the minute would have seen them. */
export function seedWatchdogStorms(times: readonly number[], rule: SeedWatchdogRule = SEED_WATCHDOG): Storm[] {
  if (times.length === 0) return [];
  const sorted = [...times].sort((a, b) => a - b);
  const first = Math.ceil((sorted[0] as number) / rule.checkIntervalMs) * rule.checkIntervalMs;
  const last = (sorted[sorted.length - 1] as number) + rule.windowMs;
  const storms: Storm[] = [];
  let current: Storm | null = null;
  let consecutive = 0;
  let lo = 0;
  let hi = 0;
  for (let check = first; check <= last + rule.checkIntervalMs; check += rule.checkIntervalMs) {
    // Window (check - windowMs, check]
    while (hi < sorted.length && (sorted[hi] as number) <= check) hi++;
    while (lo < hi && (sorted[lo] as number) <= check - rule.windowMs) lo++;
    if (hi > lo) {
      consecutive++;
      current ??= { start: check, end: check, rateLimits: 0, restarts: [] };
      current.end = check;
      if (consecutive >= rule.threshold) {
        current.restarts.push(check);
        consecutive = 0;
      }
    } else {
      consecutive = 0;
      if (current) storms.push(finish(current, sorted, rule));
      current = null;
    }
  }
  if (current) storms.push(finish(current, sorted, rule));
  return storms.filter((storm) => storm.restarts.length > 0);
}

function finish(storm: Storm, sorted: readonly number[], rule: SeedWatchdogRule): Storm {
  const from = storm.start - rule.windowMs;
  storm.rateLimits = sorted.filter((t) => t > from && t <= storm.end).length;
  return storm;
}
