/**
 * How often the SQLite source asks its open agent databases whether the gateway committed (`PRAGMA
 * data_version`) while the gateway writes. The watcher reports each commit as it happens (the `-wal` file
 * changes), so this poll is the safety net for a commit it did not report. Asked every 50 ms, ten databases
 * cost a tenth of the daemon's main thread at 100 calls/s, for nothing while the watcher works.
 *
 * So each poll that finds no commit the watcher had not already reported doubles the wait to the next one, up
 * to the interval of a quiet gateway; one that finds an unreported commit (a watcher that misses events, or no
 * watcher at all) goes back to the shortest wait. A watcher that misses changes costs at most one longest wait.
 */
export class CommitPollPace {
  private wait: number;

  constructor(
    private readonly shortestMs: number,
    private readonly longestMs: number,
  ) {
    this.wait = shortestMs;
  }

  /** The wait before the next poll (ms). */
  get nextMs(): number {
    return this.wait;
  }

  /** A poll found every commit already reported by the watcher (or none): the next one may wait longer. */
  reported(): void {
    this.wait = Math.min(this.wait * 2, this.longestMs);
  }

  /** A poll found a commit the watcher had not reported: the shortest wait again. */
  unreported(): void {
    this.wait = this.shortestMs;
  }
}
