/**
 * Stores the sources' batches off the event loop. Inserting a call costs SQLite
 * tens of microseconds over several indexes; at thousands of calls a second
 * that alone would keep the main thread busy and the local API, the health
 * probes and the watchdog waiting. So transcript batches go to a worker thread
 * with its own connection (ingest-worker.ts), which also does the WAL
 * checkpoints (page copying and fsync): the main connection's automatic
 * checkpoints are turned off while it runs.
 *
 * Batches queued while a group is being stored go together as the next group,
 * one transaction (group commit, see ingest-group.ts): the busier the sources,
 * the fewer the transactions, and the fewer times the same index pages are
 * written. One group waits behind the one being stored, so the thread never
 * idles for the main thread to send more. A group is kept to a few tens of
 * milliseconds of work (sized from how long recent ones took), because a write
 * of the main thread (a probe result, a transition) waits for the groups
 * already sent: the main thread is also what sends groups, so it never waits
 * for more than those two.
 *
 * Where a worker thread cannot run (a TypeScript test runner) or its thread
 * fails to open the database, the same grouping runs on the main thread's
 * store, a turn of the event loop later.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../runtime/log.js';
import type { Batch, CommitResult } from './batch.js';
import type { Store } from './db.js';
import { commitGroup, type GroupResult } from './ingest-group.js';
import type { WorkerReply, WorkerRequest } from './ingest-worker.js';
import type { WriteFailures } from './room.js';
import { StoreError } from './store-error.js';

/** A group's work, as estimated from the recent cost per event: what a main-thread write may wait for. */
export const GROUP_BUDGET_MS = 30;
/** Groups sent and not yet answered: one being stored, one waiting behind it. */
const MAX_IN_FLIGHT = 2;
/** Events per group: at least this many when queued (a batch is never split)… */
export const MIN_GROUP_EVENTS = 128;
/** …and at most this many, whatever the estimate. */
export const MAX_GROUP_EVENTS = 2048;
/** The thread checkpoints the WAL at least this often (after a quiet spell, too). */
const CHECKPOINT_EVERY_MS = 10_000;
/** SQLite's default, restored on the main connection when the thread is gone. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

/** Stores groups of batches, in a thread or in this one. */
interface Executor {
  readonly kind: 'worker' | 'thread';
  /** Stores a group; `ms` is how long storing it took (not waiting for its turn). */
  commit(batches: Batch[]): Promise<{ results: GroupResult[]; ms: number }>;
  checkpoint(): Promise<void>;
  close(): Promise<void>;
}

interface Pending {
  batch: Batch;
  resolve: (result: CommitResult) => void;
  reject: (error: Error) => void;
}

export interface IngestWriterOptions {
  store: Store;
  /** The database file the thread opens; null keeps everything on this thread. */
  dbPath: string | null;
  log: Logger;
  /** Told of a checkpoint that failed for lack of room (said once there, not every ten seconds here). */
  writes?: WriteFailures;
}

export class IngestWriter {
  private readonly queue: Pending[] = [];
  private executor: Executor;
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;
  /** Recent cost of storing one event, ms (a moving average over groups). */
  private msPerEvent = GROUP_BUDGET_MS / MIN_GROUP_EVENTS;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: IngestWriterOptions) {
    this.executor =
      options.dbPath !== null && canRunWorkers()
        ? new WorkerExecutor(options.dbPath, (reason) => this.fallBack(reason))
        : new ThreadExecutor(options.store);
    if (this.executor.kind === 'worker') options.store.db.pragma('wal_autocheckpoint = 0');
    this.timer = setInterval(() => {
      this.executor.checkpoint().catch((error: Error) => {
        if (options.writes?.failed(error, 'a WAL checkpoint')) return;
        options.log.warn('WAL checkpoint failed; will retry', { error: error.message });
      });
    }, CHECKPOINT_EVERY_MS);
    this.timer.unref?.();
  }

  /** Where batches are stored: `worker` (a thread of their own) or `thread` (the main thread). */
  get mode(): 'worker' | 'thread' {
    return this.executor.kind;
  }

  /** Stores `batch` (its events with its cursor, atomically); rejects if it could not be stored. */
  commit(batch: Batch): Promise<CommitResult> {
    if (this.closed) return Promise.reject(new StoreError('the ingest writer is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ batch, resolve, reject });
      this.next();
    });
  }

  /** Stores what is queued, then ends the thread. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
    await this.executor.close();
  }

  /** Events the next group may hold: about GROUP_BUDGET_MS of work at the recent cost. */
  groupLimit(): number {
    const fit = Math.floor(GROUP_BUDGET_MS / this.msPerEvent);
    return Math.min(MAX_GROUP_EVENTS, Math.max(MIN_GROUP_EVENTS, fit));
  }

  private next(): void {
    while (this.inFlight.size < MAX_IN_FLIGHT && this.queue.length > 0) this.send();
  }

  private send(): void {
    const limit = this.groupLimit();
    const group: Pending[] = [];
    let events = 0;
    while (this.queue.length > 0) {
      const size = this.queue[0]?.batch.events.length ?? 0;
      if (group.length > 0 && events + size > limit) break;
      group.push(this.queue.shift() as Pending);
      events += size;
    }
    const sent: Promise<void> = this.executor
      .commit(group.map((pending) => pending.batch))
      .then(
        ({ results, ms }) => {
          // Small groups say more about fixed costs than about storing: only full-ish ones teach the cost.
          if (events >= MIN_GROUP_EVENTS / 4) this.msPerEvent = 0.7 * this.msPerEvent + (0.3 * ms) / events;
          // One batch's result per turn of the event loop: what the sources then do (the breakers and metrics
          // see the calls, the file's next batch is read and parsed) took one long turn for a whole group.
          const settleFrom = (i: number): void => {
            const pending = group[i];
            if (pending === undefined) return;
            settle(pending, results[i]);
            if (i + 1 < group.length) setImmediate(() => settleFrom(i + 1));
          };
          settleFrom(0);
        },
        (error: Error) => {
          for (const pending of group) pending.reject(error);
        },
      )
      .finally(() => {
        this.inFlight.delete(sent);
        this.next();
      });
    this.inFlight.add(sent);
  }

  /** The thread is gone for good (it could not open the database, or died): store on this thread from now on. */
  private fallBack(reason: string): void {
    if (this.executor.kind === 'thread') return;
    this.options.log.warn('ingest writer thread unavailable; storing on the main thread', { reason });
    this.executor = new ThreadExecutor(this.options.store);
    try {
      this.options.store.db.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
    } catch {
      // A closed store: nothing left to checkpoint.
    }
  }
}

function settle(pending: Pending, result: GroupResult | undefined): void {
  if (result === undefined) {
    pending.reject(new StoreError('the ingest writer returned no result for a batch'));
  } else if (!result.ok) {
    pending.reject(new StoreError(result.error, { code: result.code }));
  } else {
    const events = pending.batch.events;
    pending.resolve({
      inserted: result.inserted,
      duplicates: result.duplicates,
      stored: result.stored === 'all' ? [...events] : result.stored.map((i) => events[i] as (typeof events)[number]),
      turns: result.turns,
    });
  }
}

/** Worker threads need the compiled module; under a TypeScript test runner the writer stays in-thread. */
function canRunWorkers(): boolean {
  return import.meta.url.endsWith('.js');
}

class ThreadExecutor implements Executor {
  readonly kind = 'thread';

  constructor(private readonly store: Store) {}

  commit(batches: Batch[]): Promise<{ results: GroupResult[]; ms: number }> {
    // A turn later, as a thread's answer would come: the caller never depends on it being synchronous.
    return new Promise((resolve) =>
      setImmediate(() => {
        const started = performance.now();
        const results = commitGroup(this.store, batches);
        resolve({ results, ms: performance.now() - started });
      }),
    );
  }

  async checkpoint(): Promise<void> {}

  async close(): Promise<void> {}
}

class WorkerExecutor implements Executor {
  readonly kind = 'worker';
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (reply: WorkerReply) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private gone: Error | null = null;
  private readonly exited: Promise<void>;

  constructor(dbPath: string, onGone: (reason: string) => void) {
    this.worker = new Worker(new URL('./ingest-worker.js', import.meta.url), { workerData: { dbPath } });
    this.worker.on('message', (reply: WorkerReply) => {
      if (reply.kind === 'failed') {
        this.fail(new StoreError(`ingest writer thread could not open the database: ${reply.error}`));
        onGone(reply.error);
        return;
      }
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      waiter?.resolve(reply);
    });
    this.worker.on('error', (error) => {
      this.fail(error);
      onGone(error.message);
    });
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        if (!this.gone) {
          this.fail(new StoreError(`ingest writer thread exited (${code})`));
          onGone(`exited with code ${code}`);
        }
        resolve();
      }),
    );
  }

  async commit(batches: Batch[]): Promise<{ results: GroupResult[]; ms: number }> {
    const reply = await this.request({ kind: 'commit', batches });
    return reply.kind === 'commit' ? { results: reply.results, ms: reply.ms } : { results: [], ms: 0 };
  }

  async checkpoint(): Promise<void> {
    if (this.gone) return;
    const reply = await this.request({ kind: 'checkpoint' });
    if (reply.kind === 'checkpoint' && reply.error !== null) throw new StoreError(reply.error, { code: reply.code });
  }

  async close(): Promise<void> {
    if (!this.gone) {
      this.gone = new StoreError('the ingest writer is closed');
      this.worker.postMessage({ id: this.nextId++, kind: 'close' } satisfies WorkerRequest);
    }
    await this.exited;
  }

  private request(message: { kind: 'commit'; batches: Batch[] } | { kind: 'checkpoint' }): Promise<WorkerReply> {
    if (this.gone) return Promise.reject(this.gone);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message } satisfies WorkerRequest);
    });
  }

  private fail(error: Error): void {
    this.gone ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}
