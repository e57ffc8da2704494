/**
 * BreakerBar's config in the recovery scenarios and the recovery benchmark: the defaults, with these clocks
 * made faster so a storm is judged in seconds instead of minutes. The rules are the defaults' rules.
 */

/**
 * - health probes every 2 s (15 s): the restart's new process and the dead gateway are seen sooner;
 * - storm checks every 5 s over 10 s (60 s over 120 s): three checks in a row judge a storm in 15 s, not 3 min;
 * - an incident opens after 10 s of trouble (60 s) and closes after 15 s without (30 s).
 */
export const SHORTENED = {
  health: { intervalSec: 2 },
  watchdog: { checkIntervalSec: 5, windowSec: 10 },
  incidents: { graceSec: 10, settleSec: 15 },
};

/** The storm that outlives its Retry-After: the provider answers 429 asking for this long, every time it asks. */
export const STORM_RETRY_AFTER_SECONDS = 30;
