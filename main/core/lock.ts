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
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export class LockError extends Error {
  override name = 'LockError';
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

export function lockDataDir(dataDir: string, pid = process.pid): DataDirLock {
  const path = join(dataDir, 'breakerbar.lock');
  const pidPath = join(dataDir, 'breakerbar.pid');
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (error) {
    throw new LockError(`cannot create the lock ${path}: ${(error as Error).message}`);
  }
  try {
    db.pragma('busy_timeout = 0');
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
    throw new LockError(`cannot take the lock ${path}: ${(error as Error).message}`);
  }
  writeFileSync(pidPath, `${pid}\n`);
  let held = true;
  return {
    path,
    release: () => {
      if (!held) return;
      held = false;
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

/** True when another process holds the lock of `dataDir` (a daemon is running for it). */
export function isLocked(dataDir: string): boolean {
  try {
    lockDataDir(dataDir).release();
    return false;
  } catch (error) {
    if (error instanceof LockError && /already running/.test(error.message)) return true;
    throw error;
  }
}
