/**
 * Starts WAL checkpoints in a thread of their own (checkpoint-worker.ts), one at a time: a request while one
 * runs is dropped (the running one copies those pages too, or the next request does). If that thread cannot
 * run, checkpoints run where they are requested.
 */
import { Worker } from 'node:worker_threads';
import type { CheckpointRequest } from './checkpoint-worker.js';
import type { Db } from './db.js';

export class Checkpointer {
  private worker: Worker | null = null;
  private running = false;
  private unavailable = false;

  constructor(
    private readonly dbPath: string,
    /** The requesting thread's own connection, for checkpoints when the thread is unavailable. */
    private readonly db: Db,
  ) {}

  /** Whether checkpoints run in the thread (false once it could not start or failed). */
  get threaded(): boolean {
    return !this.unavailable;
  }

  request(): void {
    if (this.unavailable) {
      this.checkpointHere();
      return;
    }
    if (this.running) return;
    let worker: Worker;
    try {
      worker = this.thread();
    } catch {
      this.giveUp();
      return;
    }
    this.running = true;
    worker.postMessage('checkpoint' satisfies CheckpointRequest);
  }

  /** Ends the thread after the checkpoint it is running, if any. */
  close(): void {
    this.worker?.postMessage('close' satisfies CheckpointRequest);
    this.worker = null;
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), {
      workerData: { dbPath: this.dbPath },
    });
    worker.on('message', () => {
      this.running = false;
    });
    worker.on('error', () => this.giveUp());
    // Not a reason to keep the process alive.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** The thread could not start or failed: checkpoints run here from now on, starting with a pending one. */
  private giveUp(): void {
    this.unavailable = true;
    this.worker = null;
    const pending = this.running;
    this.running = false;
    if (pending) this.checkpointHere();
  }

  private checkpointHere(): void {
    this.db.pragma('wal_checkpoint(PASSIVE)');
  }
}
