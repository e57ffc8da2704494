/**
 * The watchdog's two clocks, and the one way between them. The policy reasons
 * on a monotonic clock; everything stored or shown is wall time. Wall times
 * handed in (Retry-After deadlines, cooldowns, history, a pause) are converted
 * at the moment they are read, so a wall-clock step moves neither a deadline
 * already held nor the spacing between restarts.
 */

export class WatchdogClocks {
  constructor(
    /** Wall clock (stored and shown times). */
    readonly wall: () => number,
    /** Monotonic clock for every duration the policy judges. */
    readonly mono: () => number,
  ) {}

  /** A wall time as the policy's monotonic time; never later than now (a past event cannot be in the future). */
  toMono(wall: number, capAtNow = false): number {
    const m = this.mono() - (this.wall() - wall);
    return capAtNow ? Math.min(m, this.mono()) : m;
  }

  toWall(mono: number): number {
    return this.wall() - (this.mono() - mono);
  }
}
