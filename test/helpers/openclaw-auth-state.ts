/**
 * OpenClaw's auth state databases for tests, laid out as OpenClaw lays them
 * out: the tables with the `CREATE TABLE` statements openclaw 2026.9.6 left in
 * `sqlite_master`, the rows under the keys it uses, WAL mode, and a writer
 * connection kept open as the gateway keeps one (so a reader sees commits land
 * in the `-wal`, as it does in production).
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';

const AGENT_TABLES = [
  `CREATE TABLE auth_profile_store (
  store_key TEXT NOT NULL PRIMARY KEY,
  store_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT`,
  `CREATE TABLE auth_profile_state (
  state_key TEXT NOT NULL PRIMARY KEY,
  state_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT`,
];

const SHARED_TABLES = [
  `CREATE TABLE config_machine_state (
      state_key TEXT NOT NULL PRIMARY KEY,
      value_json TEXT NOT NULL,
      updated_at_ms INTEGER NOT NULL
    ) STRICT`,
];

export interface AuthStateWriter {
  readonly path: string;
  /** The auth state: an object is written as JSON, a string as it is (to write a broken one). */
  setState(state: unknown): void;
  /** The profile store (`{version, profiles: {id: {type, provider, key}}}`), same rule. */
  setStore(store: unknown): void;
  close(): void;
}

/** `agents/<agentId>/agent/openclaw-agent.sqlite`: `auth_profile_state` / `auth_profile_store`, row `primary`. */
export function agentAuthDatabase(stateDir: string, agentId = 'main'): AuthStateWriter {
  const path = join(stateDir, 'agents', agentId, 'agent', 'openclaw-agent.sqlite');
  const db = open(path, AGENT_TABLES);
  const put = (table: string, key: string, column: string, value: unknown) =>
    db
      .prepare(
        `INSERT INTO ${table} (${key}, ${column}, updated_at) VALUES ('primary', ?, ?)
         ON CONFLICT(${key}) DO UPDATE SET ${column} = excluded.${column}, updated_at = excluded.updated_at`,
      )
      .run(text(value), Date.now());
  return {
    path,
    setState: (state) => put('auth_profile_state', 'state_key', 'state_json', state),
    setStore: (store) => put('auth_profile_store', 'store_key', 'store_json', store),
    close: () => db.close(),
  };
}

/** `state/openclaw.sqlite` (2026.9): `config_machine_state`, rows `authProfiles.state` / `authProfiles.store`. */
export function sharedAuthDatabase(stateDir: string): AuthStateWriter {
  const path = join(stateDir, 'state', 'openclaw.sqlite');
  const db = open(path, SHARED_TABLES);
  const put = (key: string, value: unknown) =>
    db
      .prepare(
        `INSERT INTO config_machine_state (state_key, value_json, updated_at_ms) VALUES (?, ?, ?)
         ON CONFLICT(state_key) DO UPDATE SET value_json = excluded.value_json, updated_at_ms = excluded.updated_at_ms`,
      )
      .run(key, text(value), Date.now());
  put('auth.sharedStore', { location: 'state-db' });
  return {
    path,
    setState: (state) => put('authProfiles.state', state),
    setStore: (store) => put('authProfiles.store', store),
    close: () => db.close(),
  };
}

/** A profile store as OpenClaw writes it, with a dummy key per profile. */
export function profileStore(profiles: Record<string, string>): unknown {
  return {
    version: 1,
    profiles: Object.fromEntries(
      Object.entries(profiles).map(([id, provider]) => [id, { type: 'api_key', provider, key: `sk-test-${id}` }]),
    ),
  };
}

function open(path: string, tables: readonly string[]): Database.Database {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  for (const sql of tables) db.exec(sql);
  return db;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
