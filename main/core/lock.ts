/**
 * One BreakerBar core per data directory: a second one would ingest the same
 * files into the same database and race the first. The lock is a file holding
 * the owner's pid; a lock left by a process that no longer exists (kill -9,
 * power loss) is taken over.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class LockError extends Error {
  override name = 'LockError';
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

export function lockDataDir(dataDir: string, pid = process.pid): DataDirLock {
  const path = join(dataDir, 'breakerbar.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${pid}\n`, { flag: 'wx' });
      return {
        path,
        release: () => {
          if (lockOwner(path) === pid) unlinkSync(path);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = lockOwner(path);
      if (owner !== null && owner !== pid && isAlive(owner)) {
        throw new LockError(
          `another BreakerBar (pid ${owner}) is already running for ${dataDir}; stop it first, or give this one its own dataDir`,
        );
      }
      // Stale: its owner is gone.
      try {
        unlinkSync(path);
      } catch {}
    }
  }
  throw new LockError(`could not take the lock ${path}`);
}

/** The pid holding the lock at `path`, or null when there is none. */
export function lockOwner(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
