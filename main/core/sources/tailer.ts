/**
 * Follows every matching file under a set of directories and hands complete
 * lines to a consumer, exactly once.
 *
 * Completeness does not rest on the file watcher: watchers coalesce `change`
 * events and can drop the last one of a burst (measured with chokidar 4: up to
 * 49 of 1,000 fast appends unread). So the watcher (dir-watcher.ts) only makes
 * us fast; correctness comes from
 *  - a follow-up re-check shortly after every read that found new bytes (a file
 *    being appended to is re-checked until it is quiet, covering the dropped
 *    last event within `followUpMs`), and
 *  - a reconcile tick that re-lists the directories and stats every followed
 *    file (covering everything else: missed creations, renames, directories that
 *    did not exist yet). With a thousand followed files that is most of what an
 *    idle daemon does, so while the watcher proves it reports every change the
 *    full re-check thins out to about once a minute, and the first change it
 *    finds unreported brings it back to every tick.
 *
 * Offsets belong to the consumer's transaction: `consume` must store the lines'
 * results together with `batch.toOffset` atomically and throw if it cannot; only
 * then does the tailer advance. A crash between the two loses nothing (the lines
 * are read again) and duplicates nothing (their results were not stored).
 * `consume` may also store later (return a promise): the tailer then advances
 * when it resolves and reads nothing more of that file, under any name, until
 * then, while other files are read meanwhile.
 *
 * A file deleted (or replaced at its path) right after a write still gives its
 * last lines: the descriptor of each recently looked-at file is kept open
 * (a few dozen at most), and a file found gone is read through it to its end
 * before it is let go.
 */
import { closeSync, type Dirent, fstatSync, readdirSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import { directoryWatcher, isDirectory } from './dir-watcher.js';
import { type FileIdentity, fingerprintMatches, identityKey, inodeOfKey, readIdentity } from './file-identity.js';
import { FULL_RECONCILE_MAX_MS, FullRecheckPace } from './full-recheck-pace.js';
import { HeldFiles } from './held-files.js';
import { type LineBatchData, readLineBatch } from './line-batch.js';
import { NotRegularFileError, openRegularFile } from './regular-file.js';
import type { DirectoryFilter, FileRole, Watcher, WatcherFactory } from './watcher.js';
import { WorkQueue } from './work-queue.js';

export interface LineBatch extends LineBatchData {
  path: string;
  key: string;
  identity: FileIdentity;
}

export interface StoredPosition {
  key: string;
  path: string;
  position: number;
}

export interface TailerOptions {
  roots: readonly string[];
  /** Directory levels below each root to look into (files at depth 0 are in the root). */
  depth: number;
  /** Which of those directories are looked into and watched (default: all). */
  looksInto?: DirectoryFilter;
  roleOf(path: string): FileRole;
  /**
   * The order files of one directory are first looked at, when it matters (a log
   * read oldest first, so lines are consumed in the order they were written).
   */
  compareNames?: (a: string, b: string) => number;
  /** Positions committed earlier (from the store), matched to files by identity. */
  initialPositions: readonly StoredPosition[];
  /** Stores a batch with its end offset, now or later (a promise); throws or rejects if it cannot. */
  consume(batch: LineBatch): void | Promise<void>;
  /** A file we had a position for is gone for good (deleted): forget its cursor. */
  forget(key: string): void;
  onError(error: Error, path: string): void;
  reconcileIntervalMs: number;
  maxLineBytes: number;
  /** Bytes read per step; larger lines grow the buffer up to `maxLineBytes`. */
  chunkBytes?: number;
  /**
   * Where each step reads to (at least `bytes` long), for a consumer that is done with a batch's bytes
   * when `consume` returns. Without it every step reads into a buffer of its own: over a backlog of
   * hundreds of megabytes, allocating and first touching those cost more than reading the bytes.
   */
  scratch?: (bytes: number) => Buffer;
  /**
   * Lines handed to `consume` per step at most: one step is one turn of the event loop, and what the
   * consumer does per line (parse, store, decide) must leave room for everything else the process does.
   */
  maxLinesPerBatch?: number;
  followUpMs?: number;
  /** The longest wait between full re-checks while the watcher reports every change (default a minute). */
  fullReconcileMaxMs?: number;
  /** Injected for tests; defaults to one `fs.watch` per directory. Return null to rely on reconciling alone. */
  watcherFactory?: WatcherFactory;
}

export interface TailerProgress {
  files: number;
  /** Bytes present in followed files but not yet consumed. */
  pendingBytes: number;
  consumedBytes: number;
}

interface Tracked {
  path: string;
  key: string;
  identity: FileIdentity;
  offset: number;
  /** Size at the last look; lets a reconcile skip files that did not change. */
  seenSize: number;
  /** A batch of it is being stored: its offset moves when that is done. */
  committing: boolean;
  /** The descriptor kept open since its last look (see held-files.ts), or null. */
  held: number | null;
}

/**
 * A step's read: 1 MiB holds a few hundred of the largest usual lines (long answers) and more than
 * DEFAULT_MAX_LINES of short ones, while re-reading what a step leaves for the next stays cheap.
 */
const DEFAULT_CHUNK = 1024 * 1024;
/** The least a step reads, however short the lines have been. */
const MIN_READ_BYTES = 16 * 1024;
/** A few milliseconds of parsing and storing per step, whatever the line lengths. */
const DEFAULT_MAX_LINES = 128;
/**
 * Files whose batch may be waiting to be stored at once. While a backlog is read, the batches queued
 * behind the store's current group are what its next group is made of: with 8 the store's thread and the
 * reading waited for each other (each idle about a third of a 540 MB first start); 32 keep the next group full.
 * At most this many batches' events wait in memory (the bytes they came from are not kept).
 */
const FILES_IN_FLIGHT = 32;

export class FileTailer {
  private readonly byPath = new Map<string, Tracked>();
  /** The same files by `dev:ino`, to recognise a followed file under a new name. */
  private readonly byInode = new Map<string, Tracked>();
  /** Positions from the store not yet matched to a file, by `dev:ino`. */
  private readonly remembered = new Map<string, StoredPosition>();
  /**
   * Files found by a listing but not looked at yet (queued behind others during a backfill), with the bytes
   * of each still to read: counted as pending, so the backlog is known before every file has had its turn.
   */
  private readonly unread = new Map<string, number>();
  /** Files that vanished from their path; kept one reconcile round in case they were renamed. */
  private readonly orphans = new Map<string, { tracked: Tracked; since: number }>();
  private readonly queue: WorkQueue;
  /** Files whose first line is not complete yet, with how many quick re-looks they had. */
  private readonly unidentified = new Map<string, number>();
  /** Paths found to be no regular file (a named pipe, say), already reported. */
  private readonly notFiles = new Set<string>();
  /** Files with a descriptor held open (see held-files.ts). */
  private readonly held = new HeldFiles<Tracked>();
  /** Paths found by the first listing and not looked at yet; stored positions are trusted until it is empty. */
  private firstLook: Set<string> | null = null;
  private readonly watchedRoots = new Set<string>();
  private watcher: Watcher | null = null;
  private reconcileTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  private reconciles = 0;
  /** When the reconcile tick makes a full re-check (see full-recheck-pace.ts). */
  private readonly pace = new FullRecheckPace();
  /** The paths the last full re-check listed: an unfollowed path not among them is new. */
  private lastListed: Set<string> | null = null;
  /** The full re-check under way found a change the watcher had not reported. */
  private unreported = false;
  private consumed = 0;
  private readonly chunkBytes: number;
  private readonly maxLines: number;
  /** Recent bytes per line (a moving average), so a step reads about what its lines need, not a whole chunk. */
  private lineBytes = 1024;

  constructor(private readonly options: TailerOptions) {
    this.chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK;
    this.maxLines = options.maxLinesPerBatch ?? DEFAULT_MAX_LINES;
    this.queue = new WorkQueue(
      (path) => {
        const done = this.safely(path, () => this.check(path));
        this.firstLookDone(path);
        return done;
      },
      options.followUpMs ?? 100,
      FILES_IN_FLIGHT,
    );
    for (const position of options.initialPositions) this.remembered.set(inodeOfKey(position.key), position);
  }

  /** Discovers files and starts following; resolves once the first discovery has been queued. */
  start(): void {
    this.stopped = false;
    const factory = this.options.watcherFactory ?? directoryWatcher;
    this.watcher = factory({
      depth: this.options.depth,
      looksInto: this.options.looksInto,
      roleOf: this.options.roleOf,
      onPath: (path) => this.touch(path),
    });
    this.reconcile();
    this.firstLook = new Set(this.queue.keys());
    this.firstLookDone(null);
    this.reconcileTimer = setInterval(() => this.tick(), this.options.reconcileIntervalMs);
    this.reconcileTimer.unref?.();
  }

  /**
   * One reconcile tick: a full re-check when one is due (always without a watcher, or while a vanished file
   * may turn up under a new name); otherwise only a look for roots not watched yet, which may have appeared.
   */
  tick(): void {
    if (this.stopped) return;
    if (this.pace.tick() || this.watcher === null || this.orphans.size > 0) {
      this.reconcile();
      return;
    }
    if (this.options.roots.some((root) => !this.watchedRoots.has(root) && isDirectory(root))) this.reconcile();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    // Batches being stored finish (or fail) first: their files' offsets are settled when this resolves.
    await this.queue.stop();
    await this.watcher?.close();
    this.watcher = null;
    this.held.releaseAll();
  }

  progress(): TailerProgress {
    let pendingBytes = 0;
    for (const tracked of this.byPath.values()) pendingBytes += Math.max(0, tracked.seenSize - tracked.offset);
    for (const bytes of this.unread.values()) pendingBytes += bytes;
    return { files: this.byPath.size, pendingBytes, consumedBytes: this.consumed };
  }

  /** The paths of the files followed right now. */
  paths(): string[] {
    return [...this.byPath.keys()];
  }

  /** True when nothing is queued: every followed file has been read to its last complete line. */
  get idle(): boolean {
    return this.queue.idle;
  }

  /** Idle, and no follow-up look is pending: nothing will be read until a file changes or a reconcile runs. */
  get settled(): boolean {
    return this.queue.settled;
  }

  /** A follow-up look at `path` is pending (it was just read, or its look had to wait). */
  followingUp(path: string): boolean {
    return this.queue.followingUp(path);
  }

  /** Marks a path for a look soon (watcher events, tests, hosts that know better). */
  touch(path: string): void {
    if (this.stopped || this.options.roleOf(path) === 'ignore') return;
    this.queue.add(path);
  }

  /** Re-lists the roots and queues every file whose size or identity may have changed (a full re-check). */
  reconcile(): void {
    if (this.stopped) return;
    this.reconciles++;
    this.unreported = false;
    const first = this.lastListed === null;
    const seen = new Set<string>();
    for (const root of this.options.roots) {
      if (this.walk(root, 0, seen) && !this.watchedRoots.has(root)) {
        this.watchedRoots.add(root);
        this.watcher?.add(root);
      }
    }
    for (const path of this.byPath.keys()) if (!seen.has(path)) this.requeue(path, true);
    this.lastListed = seen;
    const longest = this.options.fullReconcileMaxMs ?? FULL_RECONCILE_MAX_MS;
    const most = Math.max(1, Math.floor(longest / this.options.reconcileIntervalMs));
    this.pace.made(first || this.unreported, most);
    // Orphans not found again under another name for a whole round were deleted.
    for (const [inode, orphan] of this.orphans) {
      if (orphan.since < this.reconciles - 1) {
        this.orphans.delete(inode);
        this.safely(orphan.tracked.path, () => this.options.forget(orphan.tracked.key));
      }
    }
  }

  /** Lists `dir` down to the configured depth; false when it does not exist (yet). */
  private walk(dir: string, depth: number, seen: Set<string>): boolean {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      // A root that does not exist yet is normal (OpenClaw not installed, no agent yet).
      if (!isMissing(error)) this.options.onError(error as Error, dir);
      return false;
    }
    if (this.options.compareNames) {
      const compare = this.options.compareNames;
      entries.sort((a, b) => compare(a.name, b.name));
    }
    // Archives matter only while a followed file may have been renamed into one.
    const lookForRenames = this.orphans.size > 0 || this.remembered.size > 0;
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth < this.options.depth && (this.options.looksInto?.(path, depth + 1) ?? true)) {
          this.walk(path, depth + 1, seen);
        }
        continue;
      }
      if (!entry.isFile()) continue;
      const role = this.options.roleOf(path);
      if (role === 'ignore' || (role === 'continue' && !lookForRenames && !this.byPath.has(path))) continue;
      seen.add(path);
      const tracked = this.byPath.get(path);
      if (!tracked) {
        this.noteUnread(path);
        this.requeue(path, !this.lastListed?.has(path));
        continue;
      }
      const size = statSize(path);
      if (size !== tracked.offset) this.requeue(path, size !== tracked.seenSize);
    }
    return true;
  }

  /** Queues `path` for a look; `changed` since our last look at it, and not queued yet, is a change unreported. */
  private requeue(path: string, changed: boolean): void {
    if (changed && !this.queue.has(path) && !this.queue.followingUp(path)) this.unreported = true;
    this.queue.add(path);
  }

  /**
   * Stored positions whose files were not found by the first complete look
   * belong to files deleted while BreakerBar was not running: forget them.
   */
  private firstLookDone(path: string | null): void {
    if (!this.firstLook || (path !== null && !this.firstLook.delete(path)) || this.firstLook.size > 0) return;
    this.firstLook = null;
    for (const position of this.remembered.values()) {
      this.safely(position.path, () => this.options.forget(position.key));
    }
    this.remembered.clear();
  }

  private safely(path: string, action: () => void | Promise<void>): void | Promise<void> {
    const report = (error: unknown) =>
      this.options.onError(error instanceof Error ? error : new Error(String(error)), path);
    try {
      const done = action();
      if (done instanceof Promise) return done.catch(report);
    } catch (error) {
      report(error);
    }
  }

  private check(path: string): void | Promise<void> {
    // From now on the file is followed (its pending bytes are its own) or not followed at all.
    this.unread.delete(path);
    let fd: number;
    let stats: Stats;
    try {
      ({ fd, stats } = openRegularFile(path));
    } catch (error) {
      if (error instanceof NotRegularFileError) return this.notAFile(error);
      if (!isMissing(error)) throw error;
      const tracked = this.byPath.get(path);
      const last = tracked && this.readLastBytes(tracked);
      if (last) return last.read;
      this.vanished(path);
      return;
    }
    this.notFiles.delete(path);
    let keep = false;
    try {
      let tracked = this.byPath.get(path);
      if (tracked && (tracked.identity.dev !== stats.dev || tracked.identity.ino !== stats.ino)) {
        // Rotation: the file we followed was renamed away or deleted, and a new one took its name. A deleted
        // one is read to its end first; the new one waits until then.
        const last = this.readLastBytes(tracked);
        if (last) return last.read;
        this.vanished(path);
        tracked = undefined;
      }
      if (tracked && stats.size < tracked.offset) {
        // Truncated in place: what follows is new content with possibly a new first line.
        this.forgetTracked(tracked);
        tracked = undefined;
      }
      if (tracked && stats.size > tracked.offset && !fingerprintMatches(fd, tracked.identity)) {
        // Same inode number, different file (inode reuse after deletion).
        this.forgetTracked(tracked);
        tracked = undefined;
      }
      tracked ??= this.adopt(fd, path, stats);
      if (!tracked) return;
      tracked.seenSize = stats.size;
      keep = this.held.hold(tracked, fd);
      // The batch's bytes are read before the file is closed: storing them may take longer.
      if (stats.size > tracked.offset) return this.readFrom(fd, tracked, stats.size);
    } finally {
      if (!keep) closeSync(fd);
    }
  }

  /**
   * The file followed as `tracked` is gone from its path. If it was deleted (no name left), what it has past
   * our offset is read through the descriptor held since its last look, a batch per look, the path looked at
   * again until nothing is left. Null when nothing is left, or when the file was renamed (found again by its
   * inode under its new name, if that name is ours to read): the descriptor is let go then.
   */
  private readLastBytes(tracked: Tracked): { read: void | Promise<void> } | null {
    if (tracked.held === null) return null;
    const { nlink, size } = fstatSync(tracked.held);
    if (nlink > 0 || size <= tracked.offset) {
      this.held.release(tracked);
      return null;
    }
    tracked.seenSize = size;
    return { read: this.readFrom(tracked.held, tracked, size) };
  }

  /** A named pipe (or the like) where a file is followed: said once while it stays, never opened for reading. */
  private notAFile(error: NotRegularFileError): void {
    if (this.notFiles.has(error.path)) return;
    this.notFiles.add(error.path);
    this.options.onError(error, error.path);
  }

  /** Records the bytes of a listed file not looked at yet: all of it, or what follows a position we know. */
  private noteUnread(path: string): void {
    let stats: Stats;
    try {
      stats = statSync(path);
    } catch {
      this.unread.delete(path);
      return;
    }
    const inode = `${stats.dev}:${stats.ino}`;
    const known = this.byInode.get(inode)?.offset ?? this.remembered.get(inode)?.position ?? 0;
    this.unread.set(path, Math.max(0, stats.size - known));
  }

  /** Starts following a file not followed at this path: a renamed one we know, a remembered one, or a new one. */
  private adopt(fd: number, path: string, stats: Stats): Tracked | undefined {
    const inode = `${stats.dev}:${stats.ino}`;
    const role = this.options.roleOf(path);
    // The file may be one we know under another name: renamed while followed (whether or
    // not its old path has been looked at since), or remembered from an earlier run.
    const previous = this.byInode.get(inode) ?? this.orphans.get(inode)?.tracked;
    if (previous?.committing) {
      // Renamed while a batch of it is being stored: its offset is not known yet.
      this.queue.later(path);
      return undefined;
    }
    const remembered = this.remembered.get(inode);
    if (role !== 'follow' && !previous && !remembered) return undefined;
    const identity = readIdentity(fd, stats.dev, stats.ino, stats.size);
    if (!identity) {
      // The first line is still being written: look again soon a few times, then leave
      // it to the watcher and the reconcile tick (an empty file may stay empty for hours).
      const looks = this.unidentified.get(path) ?? 0;
      this.unidentified.set(path, looks + 1);
      if (looks < 5 && stats.size > 0) this.queue.later(path);
      return undefined;
    }
    this.unidentified.delete(path);
    const key = identityKey(identity);
    let offset = 0;
    if (previous && previous.key === key) {
      this.untrack(previous);
      this.orphans.delete(inode);
      offset = previous.offset;
    } else if (remembered && remembered.key === key) {
      this.remembered.delete(inode);
      offset = remembered.position;
    } else if (role !== 'follow') {
      return undefined;
    }
    // Shorter than where we were: truncated and rewritten (same first line) meanwhile.
    if (offset > stats.size) offset = 0;
    const tracked: Tracked = { path, key, identity, offset, seenSize: stats.size, committing: false, held: null };
    this.byPath.set(path, tracked);
    this.byInode.set(inode, tracked);
    return tracked;
  }

  /** Stops following `tracked` at its path (it may be found again by its inode). */
  private untrack(tracked: Tracked): void {
    this.held.release(tracked);
    if (this.byPath.get(tracked.path) === tracked) this.byPath.delete(tracked.path);
    const inode = `${tracked.identity.dev}:${tracked.identity.ino}`;
    if (this.byInode.get(inode) === tracked) this.byInode.delete(inode);
  }

  private vanished(path: string): void {
    const tracked = this.byPath.get(path);
    if (!tracked) return;
    this.untrack(tracked);
    this.orphans.set(`${tracked.identity.dev}:${tracked.identity.ino}`, { tracked, since: this.reconciles });
  }

  private forgetTracked(tracked: Tracked): void {
    this.untrack(tracked);
    this.options.forget(tracked.key);
  }

  /** Reads the next batch of complete lines and hands it to the consumer, which commits it. */
  private readFrom(fd: number, tracked: Tracked, size: number): void | Promise<void> {
    const want = this.readBytes();
    const batch = readLineBatch(
      fd,
      tracked.offset,
      size,
      want,
      this.options.maxLineBytes,
      this.options.scratch?.(want),
      this.maxLines,
    );
    if (!batch) return;
    const lines = batch.lineStarts.length;
    if (lines > 0) this.lineBytes = 0.8 * this.lineBytes + (0.2 * (batch.toOffset - batch.fromOffset)) / lines;
    const stored = this.options.consume({ ...batch, path: tracked.path, key: tracked.key, identity: tracked.identity });
    const { toOffset } = batch;
    if (!(stored instanceof Promise)) {
      this.advance(tracked, toOffset, size);
      return;
    }
    tracked.committing = true;
    // Only the offset is kept while the batch is stored, not its bytes.
    return stored
      .then(() => this.advance(tracked, toOffset, size))
      .finally(() => {
        tracked.committing = false;
      });
  }

  /**
   * Bytes to read for one step: room for its lines at the recent line length, with head-room, within the
   * chunk (a longer line still arrives whole: the read grows to its end). Reading a whole chunk to use a
   * tenth of it, step after step, cost more than parsing the lines.
   */
  private readBytes(): number {
    return Math.min(this.chunkBytes, Math.max(MIN_READ_BYTES, Math.ceil(this.lineBytes * this.maxLines * 1.5)));
  }

  private advance(tracked: Tracked, toOffset: number, size: number): void {
    this.consumed += toOffset - tracked.offset;
    tracked.offset = toOffset;
    // More already on disk: queue the rest behind other files' turns. Either way look
    // again shortly, because the watcher may never report the end of this burst.
    if (toOffset < size) this.queue.add(tracked.path);
    this.queue.later(tracked.path);
  }
}

function statSize(path: string): number | null {
  try {
    return statSync(path, { throwIfNoEntry: false })?.size ?? null;
  } catch {
    return null;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
