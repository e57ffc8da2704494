/**
 * The composition root of the core: opens the store, wires the sources into it,
 * and runs the housekeeping around them (backfill progress, retention). Hosts
 * (the daemon, the Electron app, the rehearsal) create one Monitor and start it.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import type { LoadedConfig } from './config/index.js';
import type { CallEvent } from './events.js';
import { type DataDirLock, lockDataDir } from './lock.js';
import type { Logger } from './log.js';
import type { IngestSink, Source, SourceStatus } from './sources/source.js';
import { JsonlTranscriptSource } from './sources/transcripts-jsonl.js';
import { SqliteTranscriptSource } from './sources/transcripts-sqlite.js';
import { Store } from './store/db.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

export interface MonitorStatus {
  stateDir: string;
  dbPath: string;
  startedAt: number;
  /** Calls older than this (record time) are not stored: fixed at the first start. */
  backfillCutoff: number;
  caughtUp: boolean;
  sources: SourceStatus[];
}

export interface MonitorEvents {
  calls: [CallEvent[]];
  /** The backlog present at start has been read. */
  'caught-up': [];
}

export interface MonitorOptions {
  log: Logger;
  clock?: () => number;
  /** How often backfill progress is logged while there is a backlog. */
  progressIntervalMs?: number;
}

export class Monitor extends EventEmitter<MonitorEvents> {
  private store: Store | null = null;
  private lock: DataDirLock | null = null;
  private sources: Source[] = [];
  private timers: NodeJS.Timeout[] = [];
  private startedAt = 0;
  private cutoff = 0;
  private wasCaughtUp = false;
  private readonly clock: () => number;
  private readonly log: Logger;

  constructor(
    readonly loaded: LoadedConfig,
    private readonly options: MonitorOptions,
  ) {
    super();
    this.clock = options.clock ?? Date.now;
    this.log = options.log;
  }

  start(): void {
    const { config, dataDir, dbPath, stateDir } = this.loaded;
    mkdirSync(dataDir, { recursive: true });
    this.lock = lockDataDir(dataDir);
    try {
      this.store = Store.open(dbPath);
    } catch (error) {
      this.lock.release();
      throw error;
    }
    this.startedAt = this.clock();
    const firstCutoff =
      config.ingest.backfillDays === 0 ? this.startedAt : this.startedAt - config.ingest.backfillDays * DAY_MS;
    // Fixed at the first start, so a restart does not change what counts as history.
    this.cutoff = Number(this.store.getOrInitMeta('ingest.backfillCutoff', String(firstCutoff)));

    const store = this.store;
    const sink: IngestSink = { cursors: (kind) => store.cursors(kind), commit: (batch) => store.commit(batch) };
    this.sources = [
      new JsonlTranscriptSource({
        stateDir,
        includeArchives: config.ingest.includeArchives,
        sink,
        cutoff: this.cutoff,
        reconcileIntervalMs: config.ingest.reconcileIntervalMs,
        maxLineBytes: config.ingest.maxLineBytes,
        log: this.log,
        onStored: (calls) => this.emit('calls', calls),
      }),
      new SqliteTranscriptSource({
        stateDir,
        sink,
        cutoff: this.cutoff,
        reconcileIntervalMs: config.ingest.reconcileIntervalMs,
        maxSchemaVersion: config.ingest.sqliteMaxSchemaVersion,
        log: this.log,
        onStored: (calls) => this.emit('calls', calls),
      }),
    ];
    for (const source of this.sources) source.start();
    this.log.info('following OpenClaw state directory', {
      stateDir,
      db: dbPath,
      backfillSince: new Date(this.cutoff).toISOString(),
    });

    this.prune();
    this.every(HOUR_MS, () => this.prune());
    this.every(this.options.progressIntervalMs ?? 5000, () => this.reportProgress());
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await Promise.all(this.sources.map((source) => source.stop()));
    this.sources = [];
    this.store?.close();
    this.store = null;
    this.lock?.release();
    this.lock = null;
  }

  get caughtUp(): boolean {
    return this.sources.every((source) => source.caughtUp);
  }

  status(): MonitorStatus {
    return {
      stateDir: this.loaded.stateDir,
      dbPath: this.loaded.dbPath,
      startedAt: this.startedAt,
      backfillCutoff: this.cutoff,
      caughtUp: this.caughtUp,
      sources: this.sources.map((source) => source.status()),
    };
  }

  private every(ms: number, action: () => void): void {
    const timer = setInterval(action, ms);
    timer.unref?.();
    this.timers.push(timer);
  }

  private prune(): void {
    if (!this.store) return;
    try {
      const before = this.clock() - this.loaded.config.retention.days * DAY_MS;
      const removed = this.store.prune(before);
      if (removed > 0)
        this.log.info('pruned history past retention', { rows: removed, before: new Date(before).toISOString() });
    } catch (error) {
      this.log.warn('pruning failed; will retry in an hour', { error: (error as Error).message });
    }
  }

  private reportProgress(): void {
    const caughtUp = this.caughtUp;
    if (caughtUp) {
      if (!this.wasCaughtUp) {
        this.wasCaughtUp = true;
        const stored = this.sources.reduce((sum, s) => sum + s.status().stored, 0);
        this.log.info('caught up; following live', { storedSinceStart: stored });
        this.emit('caught-up');
      }
      return;
    }
    for (const status of this.sources.map((source) => source.status())) {
      if (status.pending === 0) continue;
      this.log.info('reading backlog', {
        source: status.kind,
        inputs: status.inputs,
        pendingMB: Math.round(status.pending / 1e5) / 10,
        calls: status.calls,
        stored: status.stored,
      });
    }
  }
}
