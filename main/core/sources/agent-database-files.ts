/**
 * An agent database as files on disk: which paths a watcher event concerns (the
 * database and its WAL, never `-shm`), the inode that tells a replaced file, and
 * the stamp that tells a file the gateway wrote or migrated since it was refused.
 */
import { type Stats, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AGENT_DATABASE_NAME } from './agent-database.js';

/** `<agents>/<agentId>/<anything but agent>/…`: nothing there is an agent database. */
/** The database or its WAL, in an agent's `agent/` directory (never `-shm`, which readers touch too). */
export function isDatabaseFile(path: string): boolean {
  const name = basename(path);
  return basename(dirname(path)) === 'agent' && (name === AGENT_DATABASE_NAME || name === `${AGENT_DATABASE_NAME}-wal`);
}

export function databaseOf(path: string): string {
  return join(dirname(path), AGENT_DATABASE_NAME);
}

export function inodeOf(path: string): number | null {
  return statOrNull(path)?.ino ?? null;
}

/** Modification time and size of the database and its WAL: changes when the gateway writes (or migrates) it. */
export function fileStamp(path: string): string {
  const stamp = (stats: Stats | null) => (stats ? `${stats.mtimeMs}:${stats.size}` : '-');
  return `${stamp(statOrNull(path))}/${stamp(statOrNull(`${path}-wal`))}`;
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}
