/**
 * How the ingest writer's connection is tuned: for following live writes (a few events at a time) or for
 * storing a backlog (a first start over weeks of transcripts: groups of hundreds of events, one after the
 * other, for seconds or minutes). The thread switches to backlog mode on the first large group and back
 * once groups have stayed small for a checkpoint period.
 *
 * In either mode, statement journals stay in memory (see the constructor). Backlog mode changes two things:
 *  - A large page cache. The unique keys of calls and turns arrive in random order, so every group touches
 *    leaf pages all over those indexes; with SQLite's default 2 MiB most of them are read back for each
 *    group (measured storing 100,000 calls: a quarter less CPU per call, and half the system time, with 64 MiB).
 *  - Checkpoints every few groups instead of SQLite's automatic ones. While anything reads the database
 *    (the daemon's API, `breakerbar history`), the WAL often cannot start over after a checkpoint, so it stays over
 *    the automatic threshold and SQLite checkpoints after every commit, copying that group's pages a second
 *    time and syncing the file twice for each; every few groups, each hot page is copied once for several.
 */
import type { Db } from './database.js';

/**
 * Pages of WAL before the connection checkpoints when following live writes (SQLite's default is 1,000).
 * Every group rewrites the same hot index pages; checkpointing less often copies each of them once for many
 * groups instead of once for a few (measured: a quarter less time per stored call), for a WAL of some 16 MiB.
 */
export const AUTOCHECKPOINT_PAGES = 4000;
/** The page cache in backlog mode (KiB). */
export const BACKLOG_CACHE_KIB = 64 * 1024;
/** A group at least this large means a backlog. */
export const BACKLOG_GROUP_EVENTS = 256;
/** In backlog mode, a checkpoint after this many groups (a WAL of some tens of MiB in between). */
export const BACKLOG_CHECKPOINT_GROUPS = 16;
/** The WAL file is cut back to this size when it restarts, after a backlog made it large. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

export class BacklogMode {
  private readonly defaultCache: number;
  private backlog = false;
  private largeSincePeriod = false;
  private groupsSinceCheckpoint = 0;

  constructor(private readonly db: Db) {
    this.defaultCache = db.pragma('cache_size', { simple: true }) as number;
    db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    // Inside a transaction every INSERT keeps a statement journal (the pages it changes, as they were, in
    // case it must be undone); SQLite's default puts it in a temporary file, written page by page once it
    // passes 64 KiB: measured storing 100,000 calls, 580,000 of the thread's 910,000 write calls.
    db.pragma('temp_store = MEMORY');
  }

  get active(): boolean {
    return this.backlog;
  }

  /** Before storing a group of `events`: a large one starts (or continues) backlog mode. */
  beforeGroup(events: number): void {
    if (events < BACKLOG_GROUP_EVENTS) return;
    this.largeSincePeriod = true;
    if (this.backlog) return;
    this.backlog = true;
    this.groupsSinceCheckpoint = 0;
    this.db.pragma(`cache_size = ${-BACKLOG_CACHE_KIB}`);
    this.db.pragma('wal_autocheckpoint = 0');
  }

  /** After storing a group: in backlog mode, every few groups, a checkpoint. */
  afterGroup(): void {
    if (!this.backlog || ++this.groupsSinceCheckpoint < BACKLOG_CHECKPOINT_GROUPS) return;
    this.groupsSinceCheckpoint = 0;
    try {
      // In this thread, between groups: a checkpoint that runs while groups are written (in another thread)
      // never catches up with them, so the WAL could never start over and would grow for the whole backlog.
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // The periodic checkpoint reports failures; storing goes on either way.
    }
  }

  /** Every checkpoint period: no large group since the last one means the backlog is done. */
  period(): void {
    if (this.backlog && !this.largeSincePeriod) {
      this.backlog = false;
      // Lowering the limit frees the pages above it.
      this.db.pragma(`cache_size = ${this.defaultCache}`);
      this.db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    }
    this.largeSincePeriod = false;
  }
}
