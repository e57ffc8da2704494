/**
 * How long BreakerBar's own event loop was blocked while a probe waited. A
 * probe's timers and its socket's events only run when the loop gets to them:
 * while BreakerBar is busy (a backfill, a burst of calls), a gateway that
 * answered in time can look like one that did not, and a measured latency
 * includes the time BreakerBar was not listening. The meter lets the probe tell
 * the gateway's slowness from its own.
 *
 * Measured by timer drift: a short repeating timer notes how much later than
 * due each turn came. The turn in progress counts too, so a reading taken
 * right after a block (by a timeout that fired before the meter's own timer)
 * already includes it.
 */
import { performance } from 'node:perf_hooks';

/** The meter's tick while a probe is in flight (a probe is a few ms when the gateway answers). */
export const STALL_TICK_MS = 10;
/** Timers routinely fire this much late on an idle loop: not a stall. */
export const STALL_JITTER_MS = 2;
/** Below this, a stall explains no timeout and spoils no latency… */
export const STALL_MIN_MS = 50;
/** …and it must also be this share of the wait that ran out for a timeout to be possibly BreakerBar's own. */
export const STALL_SHARE_OF_WAIT = 0.1;

export class LoopStallMeter {
  private timer: NodeJS.Timeout | null = null;
  private last = 0;
  /** Stall of the turns already completed. */
  private settled = 0;

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly tickMs = STALL_TICK_MS,
  ) {}

  start(): this {
    this.last = this.now();
    this.timer = setInterval(() => {
      const t = this.now();
      this.settled += this.lateness(t);
      this.last = t;
    }, this.tickMs);
    this.timer.unref?.();
    return this;
  }

  /** Milliseconds the loop has been blocked since `start`, the turn in progress included. */
  stalledMs(): number {
    return this.settled + this.lateness(this.now());
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private lateness(t: number): number {
    const late = t - this.last - this.tickMs;
    return late > STALL_JITTER_MS ? late : 0;
  }
}

/** Whether a stall of `stallMs` during a wait of `waitMs` that ran out could be why it ran out. */
export function stallCouldExplain(stallMs: number, waitMs: number): boolean {
  return stallMs >= Math.max(STALL_MIN_MS, waitMs * STALL_SHARE_OF_WAIT);
}
