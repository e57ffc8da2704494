/**
 * Why BreakerBar could not start, in one sentence that names the cause and what to do, instead of a
 * stack trace or a guess. Every start-up failure that comes from the machine (a port, a permission, a
 * full disk, a database file) carries a code somewhere in its `cause` chain: Node's `code` (EADDRINUSE,
 * ENOSPC…) or SQLite's (SQLITE_FULL…, as better-sqlite3 reports it). Pure: it reads the error and the
 * places BreakerBar uses, nothing else.
 */

import { errorChain } from './error-chain.js';

export interface StartupPlaces {
  dataDir: string;
  dbPath: string;
  /** `host:port` of the local API. */
  address: string;
}

/** What the error and each error it wraps (`cause`) say about themselves: the first code, the first path. */
function facts(error: unknown): { code: string | null; path: string | null; syscall: string | null } {
  let code: string | null = null;
  let path: string | null = null;
  let syscall: string | null = null;
  for (const { code: c, path: p, syscall: s } of errorChain(error)) {
    if (code === null && typeof c === 'string') code = c;
    if (path === null && typeof p === 'string') path = p;
    if (syscall === null && typeof s === 'string') syscall = s;
  }
  return { code, path, syscall };
}

/** The one-line explanation, or null when the error is not one of the causes known here. */
export function explainStartupError(error: unknown, places: StartupPlaces): string | null {
  const { code, path, syscall } = facts(error);
  if (code === null) return null;
  const { dataDir, dbPath, address } = places;
  const listening = syscall === 'listen' || syscall === 'bind';
  const where = path ?? dataDir;
  switch (code) {
    case 'EADDRINUSE':
      return `cannot start the API server on ${address}: the port is already in use (another BreakerBar? set server.port, or --port)`;
    case 'EADDRNOTAVAIL':
      return `cannot start the API server on ${address}: this machine has no such address (set server.host)`;
    case 'EACCES':
    case 'EPERM':
      return listening
        ? `cannot start the API server on ${address}: permission denied (ports below 1024 need privileges; set server.port, or --port)`
        : `permission denied on ${where}: run BreakerBar as the user who owns ${dataDir}, or set dataDir`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `the disk holding ${where} is full (${code}): free some space there, or set dataDir to another disk`;
    case 'EROFS':
      return `${where} is on a read-only file system: set dataDir to a writable directory`;
  }
  // SQLite's refusals name the file they came from when it is not the database (the instance lock, say).
  const file = path !== null && path !== dbPath ? path : null;
  if (code === 'SQLITE_FULL') {
    return file
      ? `the disk holding ${dataDir} is full (SQLITE_FULL, writing ${file}): free some space there, or set dataDir to another disk`
      : `the database ${dbPath} cannot grow: the disk is full (SQLITE_FULL); free some space there, or set dataDir`;
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return file
      ? `${file} is read-only (${code}): make ${dataDir} and the files in it writable by this user, or set dataDir`
      : `the database ${dbPath} is read-only (${code}): make it and ${dataDir} writable by this user`;
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return `cannot open ${file ?? `the database ${dbPath}`} (${code}): check that ${dataDir} is a writable directory and ${file ? 'that' : 'the database'} a file`;
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return file
      ? `${file} is damaged (${code}): remove it while no BreakerBar runs (the next start makes a new one)`
      : `the database ${dbPath} is damaged or not a BreakerBar database (${code}): move it aside and start again`;
  }
  return null;
}
