/**
 * The lock check of an unpackaged (development) app. The real check reads the
 * lock database through better-sqlite3, which a development checkout builds
 * for Node's ABI, not Electron's: the main process cannot load it. Here the
 * holder's pid file stands in: a live process with that pid holds the lock.
 * A stale pid file whose pid was reused is the known weakness; the supervisor
 * still attaches only to an address whose /healthz answers as BreakerBar, and
 * a second core started by mistake refuses to run (the lock itself decides).
 */
import { type LockState, lockOwner } from '../core/runtime/lock.js';

export function pidLockState(dataDir: string, alive: (pid: number) => boolean = isAlive): LockState {
  const pid = lockOwner(dataDir);
  if (pid === null) return { held: false };
  return alive(pid) ? { held: true, pid } : { held: false };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
