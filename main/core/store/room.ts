/**
 * Whether BreakerBar's database has room to grow. On a full disk (or a spent quota, or SQLite's own size limit)
 * every write that needs a new page fails with SQLITE_FULL, ENOSPC or EDQUOT, from any timer or request. None of
 * those may end the daemon (under a service manager that becomes a crash loop), and none may be said a hundred
 * times: the first write refused for lack of room turns the store `full`, which is said once (a log line, the
 * status, the headline, a notice), and every later refusal is only counted. While full, a room check runs on the
 * store's timer; the first that passes ends it, said once too.
 *
 * Nothing read is lost meanwhile: a batch is stored with the cursor that produced it or not at all, so the
 * sources read the same records again once there is room. What cannot wait is done without its record: a
 * restart still runs, a pause still holds (see the watchdog runner).
 */
import { EventEmitter } from 'node:events';
import { statfsSync } from 'node:fs';
import { errorChain } from '../runtime/error-chain.js';
import type { Logger } from '../runtime/log.js';

/** The codes that mean "no room": SQLite's and the file system's. */
const OUT_OF_ROOM_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);

/**
 * Free space the disk must have again before the store is said to have room: enough for a few minutes of
 * calls and a WAL checkpoint, so that room that is gone at the next write does not end the condition.
 */
export const ROOM_NEEDED_BYTES = 16 * 1024 * 1024;

/**
 * A store full again this soon after room came back is the same shortage going on (room the check saw, gone at
 * the next write): said in the status and the log, not told again as a new one, unless it lasts this long too.
 */
export const RELAPSE_MS = 10 * 60_000;

/** Whether `error` (or an error it wraps) says there is no room to write. */
export function isOutOfRoom(error: unknown): boolean {
  return errorChain(error).some(({ code }) => typeof code === 'string' && OUT_OF_ROOM_CODES.has(code));
}

/** The store's room as the status reports it (null while there is room). */
export interface RoomShortage {
  /** When the first write was refused. */
  since: number;
  /** What that write was (e.g. "calls", "a watchdog decision"). */
  firstRefused: string;
  /** The error it got, as the database or the system said it. */
  error: string;
  /** Writes refused since (the first included). */
  refused: number;
}

export interface RoomWatchEvents {
  full: [RoomShortage];
  /** Room again, with how long the store was full. */
  room: [RoomShortage & { endedAt: number }];
}

/** What a writer needs of the room watch: to report a failed write. */
export interface WriteFailures {
  /**
   * A write failed. True when it failed for lack of room: then it is counted and the condition said already, so
   * the caller says nothing more; false for any other failure, which the caller reports as before.
   */
  failed(error: unknown, what: string): boolean;
}

export interface RoomWatchOptions {
  clock: () => number;
  log: Logger;
  /** Where the database lives, for the log and the status. */
  dbPath: string;
  /** Throws when there is still no room (see `roomCheck`). */
  check: () => void;
}

export class RoomWatch extends EventEmitter<RoomWatchEvents> implements WriteFailures {
  private shortage: RoomShortage | null = null;
  /** Whether the shortage in force was told (`full`); its end is told only then. */
  private told = false;
  private lastEnded = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: RoomWatchOptions) {
    super();
  }

  failed(error: unknown, what: string): boolean {
    if (!isOutOfRoom(error)) return false;
    if (this.shortage) {
      this.shortage.refused += 1;
      return true;
    }
    const message = (error as Error).message;
    const now = this.options.clock();
    this.shortage = { since: now, firstRefused: what, error: message, refused: 1 };
    const relapse = now - this.lastEnded < RELAPSE_MS;
    this.options.log.error(
      relapse
        ? 'no room to store again, soon after room came back'
        : 'no room to store: the disk holding the database is full; reading goes on, storing resumes when there is room',
      { db: this.options.dbPath, write: what, error: message },
    );
    this.told = !relapse;
    if (this.told) this.emit('full', { ...this.shortage });
    return true;
  }

  /** While full: checks for room, and ends the condition when there is. */
  check(): void {
    const shortage = this.shortage;
    if (!shortage) return;
    try {
      this.options.check();
    } catch (error) {
      if (!isOutOfRoom(error)) this.options.log.debug('room check failed', { error: (error as Error).message });
      // A relapse that lasts is a shortage of its own after all: told once it has lasted as long.
      if (!this.told && this.options.clock() - shortage.since >= RELAPSE_MS) {
        this.told = true;
        this.emit('full', { ...shortage });
      }
      return;
    }
    this.shortage = null;
    const endedAt = this.options.clock();
    this.lastEnded = endedAt;
    this.options.log.info('room to store again; storing resumes', {
      db: this.options.dbPath,
      fullForSec: Math.round((endedAt - shortage.since) / 1000),
      refusedWrites: shortage.refused,
    });
    if (this.told) this.emit('room', { ...shortage, endedAt });
  }

  /** The shortage in force, or null while there is room. */
  state(): RoomShortage | null {
    return this.shortage ? { ...this.shortage } : null;
  }
}

/**
 * The room check: the disk has ROOM_NEEDED_BYTES free again (what a full file system shows), and the database
 * can grow by as much as a busy minute's calls (what SQLite's own size limit, or a quota the file system does not
 * report, shows). `grow` tries that growth and takes it back.
 */
export function roomCheck(dataDir: string, grow: () => void, freeBytes = freeBytesOf): () => void {
  return () => {
    const free = freeBytes(dataDir);
    if (free < ROOM_NEEDED_BYTES) {
      throw Object.assign(new Error(`${free} bytes free, ${ROOM_NEEDED_BYTES} needed`), { code: 'ENOSPC' });
    }
    grow();
  };
}

/** Bytes an unprivileged process may still write on the file system holding `dir`. */
export function freeBytesOf(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/**
 * A write that failed, reported where it belongs: counted by the room watch when it failed for lack of room
 * (said once there), else logged as "could not store <what>". For writes whose failure must not stop what they
 * record (a transition, a decision, a probe result): the caller goes on either way.
 */
export function reportWriteFailure(writes: WriteFailures | undefined, log: Logger, what: string, error: unknown): void {
  if (writes?.failed(error, what)) return;
  log.warn(`could not store ${what}`, { error: (error as Error).message });
}
