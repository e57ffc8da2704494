/**
 * Source: OpenClaw's SQLite transcripts (2026.7.2 and later), one database per
 * agent at `<stateDir>/agents/<agentId>/agent/openclaw-agent.sqlite`.
 *
 * Position: the rowid of the last `transcript_events` row read, committed with
 * the calls it produced (exactly as the JSONL source commits byte offsets),
 * plus that row's identity (session, seq) and the file's inode. If the row at
 * the stored rowid is no longer that row (VACUUM renumbered the rows, the file
 * was replaced or restored), the database is read again from the start;
 * already-stored calls are recognised by their key and skipped, so nothing is
 * lost and nothing counted twice.
 *
 * Change detection: every open database is asked for `PRAGMA data_version`
 * twenty times a second while the gateway is committing. It changes whenever the
 * gateway commits and costs about 3 µs (a look at the WAL index in shared memory,
 * no read of the file), so it is both faster and more dependable than the file
 * watcher, which measurably missed `-wal` writes here (p99 latency ~300 ms →
 * 1.3 s under load). After 10 s without a commit the databases are asked twice a
 * second: twenty wake-ups a second were most of an idle daemon's CPU. The
 * watcher (on the database and its `-wal`, never `-shm`, which readers touch)
 * reports most first writes after a quiet spell at once, and the next look
 * within half a second catches one it misses; it also reports new databases,
 * and a reconcile tick re-lists the agents and notices replaced or deleted
 * files.
 *
 * Rows that cannot be decoded (a corrupt zstd frame, no event at all) are
 * counted (`undecodable`), reported once per database, and passed: the cursor
 * moves past them, so one bad row never stops a database from being read. A
 * database whose layout BreakerBar cannot read is refused and reported as an
 * error (`lastError`) for as long as it stays so. One that fails to read for
 * another reason (corrupt, not a database) is retried ever more slowly, up to
 * every 10 minutes, logged once per change of state (read-backoff.ts) and
 * reported as unreadable until a read succeeds.
 */
import { basename, join } from 'node:path';
import type { CallEvent } from '../calls/events.js';
import type { BackoffPolicy } from '../runtime/backoff.js';
import type { Logger } from '../runtime/log.js';
import type { Batch, CommitResult, Cursor } from '../store/batch.js';
import { isOutOfRoom } from '../store/room.js';
import {
  AGENT_DATABASE_NAME,
  AgentDatabase,
  findAgentDatabases,
  isBusy,
  type RowAnchor,
  SchemaError,
  type TranscriptRow,
} from './agent-database.js';
import { databaseOf, fileStamp, inodeOf, isDatabaseFile } from './agent-database-files.js';
import { type CursorDetail, type Follower, newFollower, refusal, unreadable } from './agent-database-follower.js';
import { decodeRows, type UndecodableRow } from './agent-database-rows.js';
import { CommitPollPace } from './commit-poll-pace.js';
import { directoryWatcher } from './dir-watcher.js';
import { readFailed, readSucceeded } from './read-backoff.js';
import type { IngestSink, Source, SourceStatus } from './source.js';
import { logRepairs, type RepairCounts } from './transcript-record.js';
import type { Watcher } from './watcher.js';
import { WorkQueue } from './work-queue.js';

const PAGE_ROWS = 1000;
/** How soon rows are read again when BreakerBar's store had no room for them. */
const STORE_FULL_RETRY_MS = 5000;

/** No commit seen for this long: the gateway is quiet, and the databases are asked less often. */
const QUIET_AFTER_MS = 10_000;
/** How often the databases are asked while the gateway is quiet. */
const QUIET_POLL_MS = 500;

export interface SqliteSourceOptions {
  stateDir: string;
  sink: IngestSink;
  /** Calls older than this (record time) are read but not stored. */
  cutoff: number;
  reconcileIntervalMs: number;
  log: Logger;
  onStored?: (calls: CallEvent[]) => void;
  /** Delay of the re-look after a read that found rows (default 100 ms). */
  followUpMs?: number;
  /** How often open databases are asked whether the gateway committed while it commits (default 50 ms). */
  pollIntervalMs?: number;
  /** Tests: false runs on the reconcile tick and follow-ups alone. */
  watch?: boolean;
  /** Wall clock for the retry times logged and reported (default Date.now). */
  clock?: () => number;
  /** Retries of a database that fails to read (default FAILURE_BACKOFF: 1 s doubling up to 10 min). */
  failureBackoff?: BackoffPolicy;
}

export class SqliteTranscriptSource implements Source {
  readonly kind = 'sqlite' as const;
  private readonly followers = new Map<string, Follower>();
  private readonly stored = new Map<string, Cursor>();
  private readonly queue: WorkQueue;
  private readonly counts = { lines: 0, malformed: 0, undecodable: 0, repaired: 0, calls: 0, stored: 0, duplicates: 0 };
  /** Fields whose repair was already logged (each is logged once). */
  private readonly repairsLogged = new Set<string>();
  private watcher: Watcher | null = null;
  private tick: NodeJS.Timeout | null = null;
  private poll: NodeJS.Timeout | null = null;
  /** When a commit was last seen (monotonic ms): sets how often the databases are asked. */
  private lastCommitSeenAt = 0;
  /** How often they are asked while the gateway commits: rarely while the watcher reports every commit. */
  private readonly pollPace: CommitPollPace;
  private stopped = true;
  private lastEventAt: number | null = null;
  private lastError: string | null = null;

  constructor(private readonly options: SqliteSourceOptions) {
    // While the gateway is writing, each read that finds rows schedules another look
    // (measured: a shorter delay only adds commits under bursts and raises p99).
    this.queue = new WorkQueue((path) => {
      const follower = this.followers.get(path);
      if (follower && !follower.retryTimer && !this.nothingNew(follower)) return this.read(follower);
    }, options.followUpMs ?? 100);
    const shortest = options.pollIntervalMs ?? 50;
    this.pollPace = new CommitPollPace(shortest, Math.max(shortest, QUIET_POLL_MS));
  }

  start(): void {
    this.stopped = false;
    for (const cursor of this.options.sink.cursors('sqlite')) this.stored.set(cursor.key, cursor);
    this.reconcile();
    this.tick = setInterval(() => this.reconcile(), this.options.reconcileIntervalMs);
    this.tick.unref?.();
    this.lastCommitSeenAt = performance.now();
    this.schedulePoll();
  }

  /**
   * The next look at the databases' versions: soon while the gateway commits and the watcher misses some of it,
   * less often while the watcher reports every commit or the gateway is quiet.
   */
  private schedulePoll(): void {
    if (this.stopped) return;
    const quiet = performance.now() - this.lastCommitSeenAt > QUIET_AFTER_MS;
    const wait = quiet ? Math.max(this.pollPace.nextMs, QUIET_POLL_MS) : this.pollPace.nextMs;
    this.poll = setTimeout(() => {
      const found = this.checkVersions().map((follower) => ({ follower, reports: follower.reports }));
      // Watcher events the system queued before this poll are handled before an immediate callback runs: only
      // a commit still without one then counts as unreported.
      setImmediate(() => {
        const reported = found.every(({ follower, reports }) => follower.reports > reports);
        if (this.watcher !== null && reported) this.pollPace.reported();
        else this.pollPace.unreported();
        this.schedulePoll();
      });
    }, wait);
    this.poll.unref?.();
  }

  /**
   * Marks every open database the gateway has committed to since we last read it; returns those with a commit
   * no look has started from yet (the ones the watcher should have reported).
   */
  private checkVersions(): Follower[] {
    const found: Follower[] = [];
    for (const follower of this.followers.values()) {
      if (!follower.db || follower.retryTimer || this.queue.has(follower.path)) continue;
      try {
        const version = follower.db.dataVersion();
        if (version === follower.dataVersion) continue;
        this.lastCommitSeenAt = performance.now();
        if (version !== follower.lookedAtVersion) found.push(follower);
        this.queue.add(follower.path);
      } catch {
        this.queue.add(follower.path);
      }
    }
    return found;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.tick) clearInterval(this.tick);
    if (this.poll) clearTimeout(this.poll);
    await this.queue.stop();
    for (const follower of this.followers.values()) {
      if (follower.retryTimer) clearTimeout(follower.retryTimer);
      follower.db?.close();
    }
    this.followers.clear();
    await this.watcher?.close();
    this.watcher = null;
  }

  get caughtUp(): boolean {
    // An unreadable database has no backlog that can be read: it is reported (`lastError`), not waited for.
    return this.queue.idle && [...this.followers.values()].every((f) => !f.retryTimer || f.health.problem !== null);
  }

  coveredAgents(): ReadonlySet<string> {
    return new Set([...this.followers.values()].filter((f) => f.db).map((f) => f.agentId));
  }

  status(): SourceStatus {
    let pending = 0;
    for (const follower of this.followers.values()) {
      if (follower.db) pending += Math.max(0, this.safeMaxRowid(follower) - follower.position);
    }
    return {
      kind: this.kind,
      roots: [join(this.options.stateDir, 'agents', '*', 'agent', AGENT_DATABASE_NAME)],
      inputs: [...this.followers.values()].filter((f) => f.db).length,
      ...this.counts,
      pending,
      pendingUnit: 'rows',
      lastEventAt: this.lastEventAt,
      lastError: refusal(this.followers.values()) ?? unreadable(this.followers.values()) ?? this.lastError,
    };
  }

  /** Databases found, with why any is not read (unknown schema, busy). */
  databases(): Array<{
    agentId: string;
    path: string;
    schemaVersion: number | null;
    position: number;
    refused: string | null;
  }> {
    return [...this.followers.values()].map((f) => ({
      agentId: f.agentId,
      path: f.path,
      schemaVersion: f.db?.schemaVersion ?? null,
      position: f.position,
      refused: f.refused,
    }));
  }

  touch(path: string): void {
    if (this.stopped || !this.followers.has(path)) {
      // A database that appeared: the next reconcile adopts it; do it now instead of waiting.
      if (!this.stopped && basename(path) === AGENT_DATABASE_NAME) this.reconcile();
      return;
    }
    (this.followers.get(path) as Follower).reports++;
    this.queue.add(path);
  }

  /** Finds new and vanished databases and asks each open one whether the gateway wrote since. */
  reconcile(): void {
    if (this.stopped) return;
    this.ensureWatcher();
    const present = new Set<string>();
    for (const { agentId, path } of findAgentDatabases(this.options.stateDir)) {
      present.add(path);
      if (!this.followers.has(path)) this.adopt(agentId, path);
    }
    for (const follower of this.followers.values()) {
      if (!present.has(follower.path)) {
        this.drop(follower, 'deleted');
        continue;
      }
      if (this.changed(follower)) this.queue.add(follower.path);
    }
  }

  /** Watches `<stateDir>/agents` once it exists (OpenClaw may be installed after BreakerBar). */
  private ensureWatcher(): void {
    const root = join(this.options.stateDir, 'agents');
    if (this.watcher || this.options.watch === false || inodeOf(root) === null) return;
    // The lean per-directory watcher the transcripts use, not chokidar: chokidar lists the directory and stats
    // its entries at each event, and an agent database's directory has one at every commit (measured at 100
    // calls/s: half of the daemon's CPU). Watcher errors only cost speed: the polls and the reconcile tick
    // still find every change.
    this.watcher = directoryWatcher({
      depth: 2,
      // Only `<agentId>/agent/` holds a database: the sessions directories beside it, where JSONL transcripts
      // are appended thousands of times a second under load, are not watched at all.
      looksInto: (dir, level) => level < 2 || basename(dir) === 'agent',
      roleOf: () => 'follow',
      onPath: (path) => {
        if (isDatabaseFile(path)) this.touch(databaseOf(path));
      },
    });
    this.watcher?.add(root);
  }

  private adopt(agentId: string, path: string): void {
    this.followers.set(path, newFollower(agentId, path, this.stored.get(path)));
    this.queue.add(path);
  }

  private drop(follower: Follower, why: string): void {
    follower.db?.close();
    if (follower.retryTimer) clearTimeout(follower.retryTimer);
    this.followers.delete(follower.path);
    this.queue.delete(follower.path);
    this.options.sink.commit({ events: [], forget: [{ source: 'sqlite', key: follower.path }] });
    this.options.log.info('agent database gone; stopped following it', { path: follower.path, why });
  }

  /** Has the gateway written, or the file been replaced, since we last read? */
  private changed(follower: Follower): boolean {
    const ino = inodeOf(follower.path);
    if (ino !== null && follower.ino !== null && ino !== follower.ino) return true;
    if (!follower.db) {
      return follower.refused === null || ino !== follower.ino || fileStamp(follower.path) !== follower.refusedStamp;
    }
    try {
      return follower.db.dataVersion() !== follower.dataVersion;
    } catch {
      return true;
    }
  }

  /**
   * One look at a database: the rows after our position, stored with the position that follows them. Stored
   * through the writer thread when the host has one (a promise: the work queue reads nothing more of this
   * database until it settles, and the position moves only once the rows are stored), else at once.
   */
  private read(follower: Follower): void | Promise<void> {
    try {
      if (!this.ensureOpen(follower)) return;
      const db = follower.db as AgentDatabase;
      const { version, rows } = db.inOneSnapshot(() => {
        if (follower.anchor && follower.position > 0 && !db.anchorHolds(follower.anchor)) {
          this.replay(follower, 'rows were renumbered or removed (VACUUM, restore, session deleted)');
        }
        // The version of the rows read: a commit after them changes it, and is read at the next look.
        return { version: db.dataVersion(), rows: db.rowsAfter(follower.position, PAGE_ROWS) };
      });
      follower.lookedAtVersion = version;
      const stored = this.consume(follower, rows);
      if (stored === null) {
        this.readDone(follower, rows.length, version);
        return;
      }
      return stored.then(
        () => this.readDone(follower, rows.length, version),
        (error: Error) => this.failed(follower, error),
      );
    } catch (error) {
      this.failed(follower, error as Error);
    }
  }

  /** A look whose rows are stored: the database is healthy, and is looked at again while it has more. */
  private readDone(follower: Follower, rows: number, version: number): void {
    const recovered = readSucceeded(follower.health);
    follower.health = recovered.health;
    if (recovered.change === 'readable_again') {
      this.options.log.info('agent database readable again', { path: follower.path });
    }
    if (rows === PAGE_ROWS) {
      this.queue.add(follower.path);
    } else {
      follower.dataVersion = version;
      follower.replaying = false;
    }
    if (rows > 0) {
      this.lastCommitSeenAt = performance.now();
      this.queue.later(follower.path);
    }
  }

  /**
   * Read to its end, and neither committed to nor replaced since: a look now (a follow-up, a watcher event for
   * the `-wal`) would find no rows, so it is not made. At 100 calls/s that spared a tenth of the daemon's CPU.
   */
  private nothingNew(follower: Follower): boolean {
    return follower.db !== null && follower.dataVersion !== null && !follower.replaying && !this.changed(follower);
  }

  /** Opens the database if needed; false when it must not or cannot be read now. */
  private ensureOpen(follower: Follower): boolean {
    const ino = inodeOf(follower.path);
    if (ino === null) return false;
    if (follower.db && ino !== follower.ino) {
      follower.db.close();
      follower.db = null;
    }
    if (follower.db) return true;
    try {
      follower.db = AgentDatabase.open(follower.path);
    } catch (error) {
      if (error instanceof SchemaError) {
        this.refuse(follower, error, ino);
        return false;
      }
      throw error;
    }
    if (follower.refused) this.options.log.info('agent database readable again', { path: follower.path });
    follower.refused = null;
    if (follower.ino !== null && follower.ino !== ino && follower.position > 0) {
      this.replay(follower, 'the database file was replaced');
    }
    follower.ino = ino;
    return true;
  }

  /**
   * Its calls are missing until the layout changes: an error, logged once per
   * message, and `status().lastError` for as long as it lasts (not after).
   */
  private refuse(follower: Follower, error: SchemaError, ino: number): void {
    if (follower.refused !== error.message) this.options.log.error(error.message, { path: follower.path });
    follower.refused = error.message;
    follower.refusedStamp = fileStamp(follower.path);
    follower.ino = ino;
  }

  private replay(follower: Follower, why: string): void {
    this.options.log.info('re-reading agent database from the start; stored calls are skipped', {
      path: follower.path,
      why,
    });
    follower.position = 0;
    follower.anchor = null;
    follower.replaying = true;
  }

  /** Stores the calls of `rows` with the position after them: null when done at once, else when it will be. */
  private consume(follower: Follower, rows: TranscriptRow[]): Promise<void> | null {
    if (rows.length === 0) return null;
    const { calls, malformed, repairs, undecodable } = decodeRows(rows, follower.agentId);
    const last = rows[rows.length - 1] as (typeof rows)[number];
    const anchor: RowAnchor = { rowid: last.rowid, sessionId: last.sessionId, seq: last.seq };
    const detail: CursorDetail = { ino: follower.ino as number, anchor };
    const batch: Batch = {
      events: calls.filter((call) => call.ts >= this.options.cutoff),
      replay: follower.replaying,
      cursor: {
        source: 'sqlite',
        key: follower.path,
        path: follower.path,
        position: last.rowid,
        detail: JSON.stringify(detail),
      },
    };
    const stored = (result: CommitResult) => {
      follower.position = last.rowid;
      follower.anchor = anchor;
      this.counted(follower, rows.length, malformed, repairs, undecodable, calls, result);
      // Dropped (its file deleted) while its rows were being stored: the position just stored goes too.
      if (this.followers.get(follower.path) !== follower) {
        this.options.sink.commit({ events: [], forget: [{ source: 'sqlite', key: follower.path }] });
      }
    };
    const { sink } = this.options;
    if (sink.commitLater) return sink.commitLater(batch).then(stored);
    stored(sink.commit(batch));
    return null;
  }

  private counted(
    follower: Follower,
    rows: number,
    malformed: number,
    repairs: RepairCounts,
    undecodable: readonly UndecodableRow[],
    calls: readonly CallEvent[],
    result: CommitResult,
  ): void {
    this.counts.lines += rows;
    this.counts.malformed += malformed;
    // Re-reading after renumbering meets the same bad rows again: count them once, like duplicates.
    if (!follower.replaying) {
      this.reportUndecodable(follower, undecodable);
      this.counts.repaired += repairs.repaired ?? 0;
      logRepairs(repairs, this.repairsLogged, this.options.log, { database: follower.path });
    }
    this.counts.calls += calls.length;
    this.counts.stored += result.inserted;
    if (!follower.replaying) this.counts.duplicates += result.duplicates;
    for (const call of calls) if (this.lastEventAt === null || call.ts > this.lastEventAt) this.lastEventAt = call.ts;
    if (result.stored.length > 0) this.options.onStored?.(result.stored);
  }

  /** Counts rows that could not be decoded; the first of a database is logged, the rest only counted. */
  private reportUndecodable(follower: Follower, rows: readonly UndecodableRow[]): void {
    const first = rows[0];
    if (!first) return;
    this.counts.undecodable += rows.length;
    this.lastError =
      `${follower.path}: row ${first.rowid} (session ${first.sessionId}, seq ${first.seq}) cannot be decoded ` +
      `(${first.error}); skipped, with ${this.counts.undecodable} undecodable row(s) so far. ` +
      'A call stored in such a row is not counted; `breakerbar doctor` checks the compressed rows';
    if (follower.undecodableLogged) return;
    follower.undecodableLogged = true;
    this.options.log.warn('agent database row cannot be decoded; skipped (further ones are counted, not logged)', {
      path: follower.path,
      rowid: first.rowid,
      session: first.sessionId,
      seq: first.seq,
      error: first.error,
    });
  }

  /** SQLITE_BUSY and friends: back off and retry; the gateway is never made to wait for us. */
  private failed(follower: Follower, error: Error): void {
    // Not the agent database: BreakerBar's own store has no room (said once by the room watch). Its position
    // did not move, so the same rows are read again at the retry, until there is room.
    if (isOutOfRoom(error)) {
      this.retryIn(follower, STORE_FULL_RETRY_MS);
      return;
    }
    const busy = isBusy(error);
    // A busy database is passing contention, kept as the last error seen; any other failure is reported as
    // unreadable (`unreadable()`) for as long as it lasts, and no longer.
    if (busy) this.lastError = `${follower.path}: ${error.message}`;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || inodeOf(follower.path) === null) return;
    const now = (this.options.clock ?? Date.now)();
    const after = readFailed(follower.health, error.message, busy, now, this.options.failureBackoff);
    follower.health = after.health;
    if (!busy) {
      // Something else (a corrupt page, a file being swapped): reopen on the retry.
      follower.db?.close();
      follower.db = null;
      const fields = {
        path: follower.path,
        error: error.message,
        failures: after.health.failures,
        nextTry: new Date(now + after.delayMs).toISOString(),
      };
      // Told once per change of state; a database that stays corrupt is retried ever more slowly, quietly.
      if (after.change !== null) this.options.log.warn('agent database unreadable; retrying with backoff', fields);
      else this.options.log.debug('agent database still unreadable', fields);
    }
    this.retryIn(follower, after.delayMs);
  }

  private retryIn(follower: Follower, delayMs: number): void {
    if (follower.retryTimer) clearTimeout(follower.retryTimer);
    follower.retryTimer = setTimeout(() => {
      follower.retryTimer = null;
      this.touch(follower.path);
    }, delayMs);
    follower.retryTimer.unref?.();
  }

  private safeMaxRowid(follower: Follower): number {
    try {
      return follower.db?.maxRowid() ?? follower.position;
    } catch {
      return follower.position;
    }
  }
}
