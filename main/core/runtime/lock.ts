/**
 * One BreakerBar core per data directory: a second one would ingest the same
 * files into the same database and race the first.
 *
 * The lock is an operating-system file lock, taken through SQLite (exclusive
 * locking mode on a tiny lock database), because Node has no flock of its own:
 * the kernel releases it when the owner dies, even by kill -9 or power loss, so
 * there is no stale lock to detect and no race between two processes taking
 * one over. `breakerbar.pid` beside it only tells humans who holds it.
 */
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { makePrivate } from '../store/private-files.js';

export class LockError extends Error {
  override name = 'LockError';

  /** `path`: the lock file, when the machine refused it (the cause then says why: a full disk, a read-only one). */
  constructor(message: string, options: { cause?: unknown; path?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    if (options.path !== undefined) this.path = options.path;
  }

  readonly path?: string;
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/**
 * The connections holding a lock, until released. better-sqlite3 closes a connection that is garbage
 * collected, and closing it drops the lock: a caller that kept no reference to its lock (a one-line
 * holder, a forgotten variable) would lose it at the next collection, which Node 24 runs early.
 */
const held = new Set<Database.Database>();

export function lockDataDir(dataDir: string, pid = process.pid): DataDirLock {
  const path = join(dataDir, 'breakerbar.lock');
  const pidPath = join(dataDir, 'breakerbar.pid');
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (error) {
    throw new LockError(`cannot create the lock ${path}: ${(error as Error).message}`, { cause: error, path });
  }
  try {
    // A moment's patience: a reader checking the lock (`lockState`) holds a shared lock for microseconds.
    db.pragma('busy_timeout = 250');
    db.pragma('locking_mode = EXCLUSIVE');
    // The first write takes the exclusive lock; in this mode it is kept until close.
    db.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL)');
    db.prepare('DELETE FROM owner').run();
    db.prepare('INSERT INTO owner (pid) VALUES (?)').run(pid);
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY') || /locked/i.test((error as Error).message)) {
      const owner = lockOwner(dataDir);
      throw new LockError(
        `another BreakerBar${owner ? ` (pid ${owner})` : ''} is already running for ${dataDir}; stop it first, or give this one its own dataDir`,
      );
    }
    throw new LockError(`cannot take the lock ${path}: ${(error as Error).message}`, { cause: error, path });
  }
  writeFileSync(pidPath, `${pid}\n`);
  // SQLite made the lock database's journal as the umask allowed; in exclusive mode it stays beside the lock.
  makePrivate(path, `${path}-journal`, pidPath);
  held.add(db);
  return {
    path,
    release: () => {
      if (!held.delete(db)) return;
      if (lockOwner(dataDir) === pid) {
        try {
          unlinkSync(pidPath);
        } catch {}
      }
      db.close();
    },
  };
}

/** The pid recorded by the current (or last) holder of the data directory's lock, if any. */
export function lockOwner(dataDir: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(join(dataDir, 'breakerbar.pid'), 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export type LockState = { held: true; pid: number | null } | { held: false } | { held: 'unknown'; reason: string };

/**
 * Whether a BreakerBar holds the lock of `dataDir`, found without creating or
 * taking anything: the lock database is opened read-only and read; the
 * holder's exclusive lock makes that read fail busy.
 */
export function lockState(dataDir: string): LockState {
  const path = join(dataDir, 'breakerbar.lock');
  if (!existsSync(path)) return { held: false };
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    return { held: 'unknown', reason: `cannot open ${path}: ${(error as Error).message}` };
  }
  try {
    db.pragma('busy_timeout = 0');
    db.prepare('SELECT pid FROM owner LIMIT 1').all();
    return { held: false };
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
      return { held: true, pid: lockOwner(dataDir) };
    // A lock file without its table: its creator died before finishing it; nobody holds it.
    if (/no such table/i.test((error as Error).message)) return { held: false };
    return { held: 'unknown', reason: `cannot read ${path}: ${(error as Error).message}` };
  } finally {
    db.close();
  }
}

/** True when another process holds the lock of `dataDir` (a daemon is running for it). */
export function isLocked(dataDir: string): boolean {
  const state = lockState(dataDir);
  if (state.held === 'unknown') throw new LockError(state.reason);
  return state.held;
}
