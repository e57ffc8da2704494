/**
 * What the SQLite source keeps about each agent database it follows: where it has
 * read up to and how that position is stored (rowid, the last row's identity and
 * the file's inode, so renumbering or replacement is noticed), why the database is
 * not being read, and how that is said in the source's status.
 */
import type { Cursor } from '../store/batch.js';
import type { AgentDatabase, RowAnchor } from './agent-database.js';
import { HEALTHY, type ReadHealth } from './read-backoff.js';

/** The stored detail of a database's position (a cursor's `detail`, JSON). */
export interface CursorDetail {
  ino: number;
  anchor: RowAnchor | null;
}

/** One agent database the source follows, and where it stands. */
export interface Follower {
  agentId: string;
  path: string;
  db: AgentDatabase | null;
  ino: number | null;
  position: number;
  anchor: RowAnchor | null;
  /** Reading again from the start after renumbering or replacement. */
  replaying: boolean;
  dataVersion: number | null;
  /** The data version the latest look started from: a commit after it is one no look has covered yet. */
  lookedAtVersion: number | null;
  /** Changes of this database the watcher has reported, counted (see commit-poll-pace.ts). */
  reports: number;
  /** Why this database is not being read (schema), reported once. */
  refused: string | null;
  /** The file's modification stamp when it was refused: a change (an in-place migration) is worth another look. */
  refusedStamp: string | null;
  /** An undecodable row of this database was already logged (one warning per database, not per row). */
  undecodableLogged: boolean;
  /** Failed reads in a row, why, and when the next try is due (see read-backoff.ts). */
  health: ReadHealth;
  retryTimer: NodeJS.Timeout | null;
}

/** A database found at `path`, to be read from its stored position (`cursor`), or from the start. */
export function newFollower(agentId: string, path: string, cursor: Cursor | undefined): Follower {
  const detail = parseDetail(cursor?.detail);
  return {
    agentId,
    path,
    db: null,
    ino: detail?.ino ?? null,
    position: cursor?.position ?? 0,
    anchor: detail?.anchor ?? null,
    replaying: false,
    dataVersion: null,
    lookedAtVersion: null,
    reports: 0,
    refused: null,
    refusedStamp: null,
    undecodableLogged: false,
    health: HEALTHY,
    retryTimer: null,
  };
}

/**
 * A refused database is an error for as long as it is refused, not just
 * until the next message replaces it: its calls are missing meanwhile.
 */
export function refusal(followers: Iterable<Follower>): string | null {
  const refused = [...followers].filter((f) => f.refused !== null);
  if (refused.length === 0) return null;
  const first = (refused[0] as Follower).refused as string;
  return refused.length === 1 ? first : `${first} (and ${refused.length - 1} more database(s) refused)`;
}

/** A database that fails to read is an error until a read succeeds again: its calls are missing meanwhile. */
export function unreadable(followers: Iterable<Follower>): string | null {
  const failing = [...followers].filter((f) => f.health.problem !== null);
  const first = failing[0];
  if (!first) return null;
  const { problem, since, retryAt } = first.health;
  const when = (ms: number | null) => (ms === null ? 'unknown' : new Date(ms).toISOString());
  const more = failing.length > 1 ? ` (and ${failing.length - 1} more unreadable database(s))` : '';
  return `${first.path} is unreadable since ${when(since)} (${problem}); next try at ${when(retryAt)}${more}`;
}

function parseDetail(detail: string | null | undefined): CursorDetail | null {
  if (!detail) return null;
  try {
    const parsed = JSON.parse(detail) as CursorDetail;
    return typeof parsed.ino === 'number' ? parsed : null;
  } catch {
    return null;
  }
}
