/**
 * How often a tailer's reconcile tick makes a full re-check (re-listing the
 * directories and stat'ing every followed file), the costliest thing an idle
 * daemon does: less often while the watcher proves it reports every change.
 */

/**
 * The longest wait between two full re-checks while the watcher reports every change. Each full re-check that
 * finds nothing unreported doubles the ticks to the next one, up to this; each one that finds a change the
 * watcher did not report (an append, a new file, a file gone) goes back to every tick. So a watcher that
 * misses changes (a network file system, say) costs at most this once, after a quiet spell.
 */
export const FULL_RECONCILE_MAX_MS = 60_000;

export class FullRecheckPace {
  /** Ticks from one full re-check to the next (see `FULL_RECONCILE_MAX_MS`), and ticks since the last one. */
  private fullEvery = 1;
  private sinceFull = 0;

  /** One reconcile tick went by: true when a full re-check is due. */
  tick(): boolean {
    this.sinceFull++;
    return this.sinceFull >= this.fullEvery;
  }

  /**
   * A full re-check was made: back to every tick when `everyTick` (the first one, or one that found a change
   * unreported), else twice the ticks to the next one, up to `mostTicks`.
   */
  made(everyTick: boolean, mostTicks: number): void {
    this.sinceFull = 0;
    this.fullEvery = everyTick ? 1 : Math.min(this.fullEvery * 2, mostTicks);
  }
}
