/**
 * Reads OpenClaw's cooldown state where OpenClaw keeps it, read-only, so that
 * BreakerBar can tell when OpenClaw itself will not use a dependency (and a
 * gateway restart could not change that: the state outlives the process).
 *
 * Where (checked against openclaw 2026.7.1 and 2026.9.6):
 *
 * - every agent database, `<stateDir>/agents/<id>/agent/openclaw-agent.sqlite`:
 *   table `auth_profile_state`, row `state_key = 'primary'`, JSON in
 *   `state_json`; the profiles in `auth_profile_store` (row `primary`,
 *   `store_json`). Where 2026.7 keeps all of it, and where 2026.9 keeps an
 *   agent's own profiles and the usage of API keys written inline in
 *   `openclaw.json`.
 * - the shared state database, `<stateDir>/state/openclaw.sqlite` (2026.9):
 *   table `config_machine_state`, rows `authProfiles.state` and
 *   `authProfiles.store` (`value_json`). Where 2026.9 keeps the profiles every
 *   agent shares, which is where a default install's cooldowns land.
 *
 * The profile store holds the credentials themselves: BreakerBar asks SQLite
 * for each profile's id and provider only (`json_each`/`json_extract`), so no
 * key or token is ever read into this process.
 *
 * Polling is cheap: a database is queried again only when it or its `-wal`
 * changed (size, inode or modification time, to the nanosecond), or a minute
 * has passed. Every problem (no table, a locked file, JSON that does not
 * parse) is kept per database and shown in the status; the rest is still
 * read, and nothing here throws at the caller.
 *
 * OpenClaw's legacy `auth-state.json` / `auth-profiles.json` files are not
 * read: both versions above ignore them at run time (`openclaw doctor --fix`
 * imports them), so a cooldown in them holds nothing.
 */
import { type BigIntStats, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import type { Logger } from '../runtime/log.js';
import { findAgentDatabases, isBusy } from '../sources/agent-database.js';
import {
  AuthStateError,
  activeCooldowns,
  buildSnapshot,
  type CooldownSnapshot,
  cooldownUntil,
  type DependencyCooldown,
  dependencyCooldown,
  EMPTY_SNAPSHOT,
  type OpenClawCooldown,
  type ProfileUsage,
  parseAuthState,
} from './cooldown-state.js';

/** The shared state database, relative to the state dir (OpenClaw's `resolveOpenClawStateSqlitePath`). */
export const STATE_DATABASE = join('state', 'openclaw.sqlite');
const PRIMARY_ROW = 'primary';
const SHARED_STATE_KEY = 'authProfiles.state';
const SHARED_STORE_KEY = 'authProfiles.store';
/** Re-read even an unchanged-looking database this often: a write within a timestamp's tick is not missed for long. */
const DEFAULT_MAX_AGE_MS = 60_000;

/** One database the reader looked at, and what came of it. */
export interface CooldownDatabaseStatus {
  /** Relative to the OpenClaw state dir (`agents/main/agent/openclaw-agent.sqlite`, `state/openclaw.sqlite`). */
  path: string;
  /** Profiles with a usage record there. */
  profiles: number;
  /** Why it (or part of it) could not be read; null when it was. */
  error: string | null;
}

/** What `/api/status` shows about OpenClaw's cooldowns. */
export interface OpenClawCooldownsStatus {
  /** The windows in force now, soonest to end first. */
  active: OpenClawCooldown[];
  databases: CooldownDatabaseStatus[];
  /** When the databases were last looked at (epoch ms; null before the first poll). */
  checkedAt: number | null;
}

export interface OpenClawCooldownsOptions {
  stateDir: string;
  log: Logger;
  clock: () => number;
  /** Re-read unchanged databases this often (default one minute). */
  maxAgeMs?: number;
  /** Opens a database read-only (tests count the opens). */
  openDatabase?: (path: string) => Database.Database;
}

interface DatabaseRead {
  /** Size, inode and mtime of the database and its `-wal` when it was read. */
  stamp: string;
  readAt: number;
  usage: ProfileUsage[];
  /** Profile id → provider, from the profile store. */
  providers: Map<string, string>;
  error: string | null;
}

interface Target {
  path: string;
  kind: 'agent' | 'shared';
}

export class OpenClawCooldowns {
  private readonly reads = new Map<string, DatabaseRead>();
  private current: CooldownSnapshot = EMPTY_SNAPSHOT;
  private checkedAt: number | null = null;
  /** The last error logged per database: the same one again is not logged again. */
  private readonly logged = new Map<string, string>();

  constructor(private readonly options: OpenClawCooldownsOptions) {}

  /**
   * Looks at every database; queries the ones that changed. Returns true when
   * the snapshot changed. Never throws: problems are kept in the status.
   */
  poll(): boolean {
    const now = this.options.clock();
    this.checkedAt = now;
    const targets = this.targets();
    let changed = false;
    const seen = new Set<string>();
    for (const target of targets) {
      const stamp = stampOf(target.path);
      if (stamp === null) continue;
      seen.add(target.path);
      const before = this.reads.get(target.path);
      const maxAge = this.options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
      if (before && before.stamp === stamp && now - before.readAt < maxAge) continue;
      const read = this.read(target, stamp, now);
      // A database that was busy keeps what was read before, and is tried again at the next poll.
      if (read === null) continue;
      if (!before || !sameRead(before, read)) changed = true;
      this.reads.set(target.path, read);
      this.report(target.path, read.error);
    }
    // A database that went away takes its cooldowns with it.
    for (const path of [...this.reads.keys()]) {
      if (seen.has(path)) continue;
      this.reads.delete(path);
      this.logged.delete(path);
      changed = true;
    }
    if (changed) this.current = this.merge();
    return changed;
  }

  /** The merged state as last read. */
  snapshot(): CooldownSnapshot {
    return this.current;
  }

  /** Every window in force at `now`, one entry per profile and window, mapped to dependency keys. */
  cooldowns(now: number): OpenClawCooldown[] {
    return activeCooldowns(this.current, now);
  }

  /**
   * Until when OpenClaw will not call `dep` (any BreakerBar dependency key:
   * `provider/model`, `provider`, `provider/model/<credential>`), or null.
   */
  cooldownUntil(dep: string, now: number): number | null {
    return cooldownUntil(this.current, dep, now);
  }

  /** The same, with the reason and the profile whose window ends first. */
  forDependency(dep: string, now: number): DependencyCooldown | null {
    return dependencyCooldown(this.current, dep, now);
  }

  status(now: number): OpenClawCooldownsStatus {
    const { stateDir } = this.options;
    return {
      active: this.cooldowns(now),
      databases: [...this.reads.entries()]
        .map(([path, read]) => ({ path: relative(stateDir, path), profiles: read.usage.length, error: read.error }))
        .sort((a, b) => a.path.localeCompare(b.path)),
      checkedAt: this.checkedAt,
    };
  }

  private targets(): Target[] {
    const { stateDir } = this.options;
    const agents: Target[] = findAgentDatabases(stateDir).map(({ path }) => ({ path, kind: 'agent' }));
    return [...agents, { path: join(stateDir, STATE_DATABASE), kind: 'shared' }];
  }

  /** One database's auth state and profile providers; null when it is busy (try again later). */
  private read(target: Target, stamp: string, now: number): DatabaseRead | null {
    const result: DatabaseRead = { stamp, readAt: now, usage: [], providers: new Map(), error: null };
    let db: Database.Database | null = null;
    try {
      db = (this.options.openDatabase ?? openReadOnly)(target.path);
      // Short: the next poll tries again rather than blocking the event loop.
      db.pragma('busy_timeout = 50');
      const query = target.kind === 'agent' ? AGENT_QUERIES : SHARED_QUERIES;
      const tables = new Set(
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[],
      );
      // No state table, no auth state: a 2026.7 state database, or an agent database of another layout.
      if (!tables.has(query.stateTable)) return result;
      const problems: string[] = [];
      const state = db.prepare(query.state).pluck().get(query.stateKey) as unknown;
      if (typeof state === 'string') {
        try {
          result.usage = parseAuthState(state).usage;
        } catch (error) {
          if (!(error instanceof AuthStateError)) throw error;
          problems.push(`auth state: ${error.message}`);
        }
      } else if (state !== undefined && state !== null) {
        problems.push('auth state: not text');
      }
      try {
        if (!tables.has(query.storeTable)) throw new Error(`no ${query.storeTable} table`);
        const rows = db.prepare(query.providers).all(query.storeKey) as Array<{ profile: unknown; provider: unknown }>;
        for (const { profile, provider } of rows) {
          if (typeof profile === 'string' && typeof provider === 'string' && provider.trim() !== '') {
            result.providers.set(profile, provider);
          }
        }
      } catch (error) {
        if (isBusy(error)) throw error;
        // Providers are then taken from the profile ids; the cooldowns themselves were read.
        problems.push(`profile store: ${(error as Error).message}`);
      }
      result.error = problems.length > 0 ? problems.join('; ') : null;
      return result;
    } catch (error) {
      if (isBusy(error)) return null;
      result.error = (error as Error).message;
      return result;
    } finally {
      db?.close();
    }
  }

  private merge(): CooldownSnapshot {
    const usage: ProfileUsage[] = [];
    const providers = new Map<string, string>();
    for (const read of this.reads.values()) {
      usage.push(...read.usage);
      for (const [profile, provider] of read.providers) providers.set(profile, provider);
    }
    return buildSnapshot(usage, providers);
  }

  private report(path: string, error: string | null): void {
    const before = this.logged.get(path);
    if (error === null) {
      if (before !== undefined) this.options.log.info('OpenClaw cooldown state readable again', { path });
      this.logged.delete(path);
      return;
    }
    if (before === error) return;
    this.logged.set(path, error);
    this.options.log.warn('OpenClaw cooldown state not fully readable', { path, error });
  }
}

/** The queries for one kind of database: where the state row is, and the profiles' providers. */
interface Queries {
  stateTable: string;
  storeTable: string;
  state: string;
  stateKey: string;
  providers: string;
  storeKey: string;
}

const AGENT_QUERIES: Queries = {
  stateTable: 'auth_profile_state',
  storeTable: 'auth_profile_store',
  state: 'SELECT state_json FROM auth_profile_state WHERE state_key = ?',
  stateKey: PRIMARY_ROW,
  // Only each profile's id and provider leave SQLite: the rest of the store is credentials.
  providers: `SELECT profile.key AS profile, json_extract(profile.value, '$.provider') AS provider
    FROM auth_profile_store AS store, json_each(store.store_json, '$.profiles') AS profile
    WHERE store.store_key = ?`,
  storeKey: PRIMARY_ROW,
};

const SHARED_QUERIES: Queries = {
  stateTable: 'config_machine_state',
  storeTable: 'config_machine_state',
  state: 'SELECT value_json FROM config_machine_state WHERE state_key = ?',
  stateKey: SHARED_STATE_KEY,
  providers: `SELECT profile.key AS profile, json_extract(profile.value, '$.provider') AS provider
    FROM config_machine_state AS store, json_each(store.value_json, '$.profiles') AS profile
    WHERE store.state_key = ?`,
  storeKey: SHARED_STORE_KEY,
};

function openReadOnly(path: string): Database.Database {
  return new Database(path, { readonly: true, fileMustExist: true });
}

/** Size, inode and nanosecond mtime of a database and its `-wal` (where WAL commits land); null when it is gone. */
function stampOf(path: string): string | null {
  const main = statOrNull(path);
  if (main === null) return null;
  const wal = statOrNull(`${path}-wal`);
  const part = (s: BigIntStats | null) => (s === null ? '-' : `${s.ino}:${s.size}:${s.mtimeNs}`);
  return `${part(main)}|${part(wal)}`;
}

function statOrNull(path: string): BigIntStats | null {
  try {
    return statSync(path, { bigint: true });
  } catch {
    return null;
  }
}

function sameRead(a: DatabaseRead, b: DatabaseRead): boolean {
  return (
    a.error === b.error &&
    JSON.stringify(a.usage) === JSON.stringify(b.usage) &&
    JSON.stringify([...a.providers]) === JSON.stringify([...b.providers])
  );
}
