/**
 * The store as a running monitor holds it: the data directory made private and locked, the database opened,
 * the watches that notice the file deleted or replaced and the disk out of room, the writer thread the sources
 * store through, and retention. Opened first and closed last, so its opening and closing read in one place.
 */
import type { Translator } from '../../words/messages/index.js';
import type { LoadedConfig } from '../config/index.js';
import { IncidentStore } from '../incidents/store.js';
import type { Notifier } from '../notify/notifier.js';
import { type DataDirLock, lockDataDir } from '../runtime/lock.js';
import type { Logger } from '../runtime/log.js';
import type { IngestSink } from '../sources/source.js';
import { DatabaseWatch, fileIdOf, type StoreHealth } from './database-watch.js';
import { Store } from './db.js';
import { IngestWriter } from './ingest-writer.js';
import { ensurePrivateDir } from './private-files.js';
import { RoomWatch, roomCheck } from './room.js';
import { storeFullNotice, storeRoomNotice } from './room-notices.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface StoreSideOptions {
  loaded: LoadedConfig;
  log: Logger;
  clock: () => number;
  /** Who tells a human that the store is full, or has room again (the gateway side's notifier, when there is one). */
  notifier: () => Pick<Notifier, 'notify'> | undefined;
  /** The words of those notices, in the daemon's language. */
  words: () => Translator;
}

export class StoreSide {
  /** Stores the transcript batches off the event loop (see ingest-writer.ts). */
  private writer: IngestWriter | null = null;

  private constructor(
    readonly store: Store,
    private readonly lock: DataDirLock,
    /** Notices the database file deleted or replaced under the running store. */
    private readonly dbWatch: DatabaseWatch | null,
    /** Notices the store out of room (a full disk), and room again. */
    readonly room: RoomWatch,
    private readonly options: StoreSideOptions,
  ) {}

  /** Makes the data directory private, takes its lock and opens the store; the lock is let go if the store cannot open. */
  static open(options: StoreSideOptions): StoreSide {
    const { loaded, log, clock } = options;
    const { dataDir, dbPath } = loaded;
    const dir = ensurePrivateDir(dataDir);
    if (dir.kind === 'tightened') log.info('data directory made private (0700)', { dataDir });
    if (dir.kind === 'foreign') {
      log.warn('data directory is open to other users; left as it is', {
        dataDir,
        mode: dir.mode.toString(8),
        why: dir.reason,
      });
    }
    const lock = lockDataDir(dataDir);
    let store: Store;
    try {
      store = Store.open(dbPath);
    } catch (error) {
      lock.release();
      throw error;
    }
    const opened = fileIdOf(dbPath);
    const dbWatch = opened ? new DatabaseWatch(dbPath, opened, log, clock) : null;
    return new StoreSide(store, lock, dbWatch, watchRoom(store, options), options);
  }

  /** One look of the watches: the database file still the one opened, room again after a full disk. */
  check(): void {
    this.dbWatch?.check();
    this.room.check();
  }

  /**
   * Where the sources store what they read: the store, and the writer thread for the large batches. Made with
   * the sources, late in start: a failure to serve the API stops the monitor, the writer with it.
   */
  ingestSink(): IngestSink {
    const { store, room, options } = this;
    const writer = new IngestWriter({ store, dbPath: options.loaded.dbPath, log: options.log, writes: room });
    this.writer = writer;
    // A batch refused for lack of room is told to the room watch (said once there); the source keeps its
    // position and reads the same records again, so they are stored once there is room.
    const refused = (error: unknown): never => {
      room.failed(error, 'calls read from OpenClaw');
      throw error;
    };
    return {
      cursors: (kind) => store.cursors(kind),
      commit: (batch) => {
        try {
          return store.commit(batch);
        } catch (error) {
          return refused(error);
        }
      },
      commitLater: (batch) => writer.commit(batch).catch(refused),
    };
  }

  /** The store as the status reports it: a file deleted or replaced under it comes first, then no room. */
  health(): StoreHealth {
    const file = this.dbWatch?.health() ?? { ok: true };
    const shortage = this.room.state();
    if (!file.ok || !shortage) return file;
    return {
      ok: false,
      problem: 'full',
      detail: `${this.options.loaded.dbPath} cannot grow (${shortage.error}): free space on its disk; nothing read is lost`,
      since: shortage.since,
      refused: shortage.refused,
    };
  }

  /** Removes the history (calls, incidents) older than the retention; a failure is tried again at the next call. */
  prune(): void {
    const { loaded, clock, log } = this.options;
    try {
      const before = clock() - loaded.config.retention.days * DAY_MS;
      const removed = this.store.prune(before) + new IncidentStore(this.store.db).prune(before);
      if (removed > 0)
        log.info('pruned history past retention', { rows: removed, before: new Date(before).toISOString() });
    } catch (error) {
      if (this.room.failed(error, 'pruning old history')) return;
      log.warn('pruning failed; will retry in an hour', { error: (error as Error).message });
    }
  }

  /** Waits for the writer thread to store what it was given, and lets it end. */
  async closeWriter(): Promise<void> {
    await this.writer?.close();
    this.writer = null;
  }

  /** Closes the store and lets go of the data directory's lock (after closeWriter). */
  close(): void {
    this.room.removeAllListeners();
    this.store.close();
    this.lock.release();
  }
}

/** The room watch of the store, telling a human (once) when it is full and when it has room again. */
function watchRoom(store: Store, options: StoreSideOptions): RoomWatch {
  const { loaded, clock, log, notifier, words } = options;
  const { dataDir, dbPath } = loaded;
  const room = new RoomWatch({
    clock,
    log,
    dbPath,
    check: roomCheck(dataDir, () => store.tryGrowth()),
  });
  room.on('full', (shortage) => notifier()?.notify(storeFullNotice(shortage, dbPath, words())));
  room.on('room', (ended) => notifier()?.notify(storeRoomNotice(ended, words())));
  return room;
}
