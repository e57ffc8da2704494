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
import { type BackoffPolicy, backoffStep } from '../runtime/backoff.js';

export class CommitPollPace {
  private readonly policy: BackoffPolicy;
  /** Polls in a row that found every commit already reported. */
  private reportedInRow = 0;

  constructor(shortestMs: number, longestMs: number) {
    this.policy = { initialMs: shortestMs, maxMs: longestMs };
  }

  /** The wait before the next poll (ms). */
  get nextMs(): number {
    return backoffStep(this.reportedInRow + 1, this.policy);
  }

  /** A poll found every commit already reported by the watcher (or none): the next one may wait longer. */
  reported(): void {
    this.reportedInRow++;
  }

  /** A poll found a commit the watcher had not reported: the shortest wait again. */
  unreported(): void {
    this.reportedInRow = 0;
  }
}
