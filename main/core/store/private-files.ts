/**
 * The data directory and the files in it are private to the user BreakerBar runs as: the database holds
 * which agents called which models, when, and at what cost; the token file opens the local API. Modes are set
 * explicitly after creation, because `mkdir`/`open` modes pass through the umask (and SQLite creates its
 * files 0644 whatever we ask); a chmod after the fact is the only mode that does not depend on the caller.
 */
import { chmodSync, mkdirSync, readdirSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Files whose presence marks a directory as one of BreakerBar's data directories (safe to tighten): the
 * config file too, as BreakerBar's home often holds only `config.json` (secrets among them) before a first start.
 */
const OWN_MARKERS = ['breakerbar.sqlite', 'breakerbar.lock', 'breakerbar.pid', 'api-token', 'api-url', 'config.json'];

/** The files of a data directory that must stay private (those that exist are checked by `breakerbar doctor`). */
export function privateDataFiles(dataDir: string, dbPath: string): string[] {
  return [
    dbPath,
    `${dbPath}-wal`,
    `${dbPath}-shm`,
    join(dataDir, 'breakerbar.lock'),
    join(dataDir, 'breakerbar.lock-journal'),
    join(dataDir, 'breakerbar.pid'),
    join(dataDir, 'api-token'),
    join(dataDir, 'api-url'),
  ];
}

/** Bits that let someone other than the owner read, write or enter. */
export function openToOthers(mode: number): number {
  return mode & 0o077;
}

export type PrivateDirResult =
  | { kind: 'created' | 'private' | 'tightened' }
  /** Someone else's directory (another owner, or one holding other files): left as it is. */
  | { kind: 'foreign'; mode: number; reason: string };

/**
 * Creates `dir` 0700, or checks an existing one: a directory of ours (owned by this user, empty or holding
 * BreakerBar's files) open to others is tightened to 0700; anyone else's is reported, never changed.
 */
export function ensurePrivateDir(dir: string): PrivateDirResult {
  let stats: Stats;
  try {
    stats = statSync(dir);
  } catch {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    chmodSync(dir, PRIVATE_DIR_MODE);
    return { kind: 'created' };
  }
  const mode = stats.mode & 0o777;
  if (openToOthers(mode) === 0) return { kind: 'private' };
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  if (uid !== null && stats.uid !== uid) {
    return { kind: 'foreign', mode, reason: `owned by uid ${stats.uid}, not this user (uid ${uid})` };
  }
  const entries = readdirSync(dir);
  if (entries.length > 0 && !entries.some((name) => OWN_MARKERS.includes(name))) {
    return { kind: 'foreign', mode, reason: 'it holds files that are not BreakerBar’s' };
  }
  chmodSync(dir, PRIVATE_DIR_MODE);
  return { kind: 'tightened' };
}

/** Sets each existing path to 0600 (a file not there yet is skipped: it is made private once it exists). */
export function makePrivate(...paths: string[]): void {
  for (const path of paths) {
    try {
      chmodSync(path, PRIVATE_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
