import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Db, migrate, openDatabase } from '../../../main/core/store/database.js';
import { LATEST_VERSION, LEGACY_KEYS_META, MIGRATIONS, TIMED_TABLES } from '../../../main/core/store/migrations.js';
import { StoreError } from '../../../main/core/store/store-error.js';

let tmp: string;
let dbPath: string;
const open: Db[] = [];

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-migrations-'));
  dbPath = join(tmp, 'breakerbar.sqlite');
});

afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  rmSync(tmp, { recursive: true, force: true });
});

function track(db: Db): Db {
  open.push(db);
  return db;
}

/** A raw connection, as an older BreakerBar (or a test) would have opened it. */
function rawDb(path = dbPath): Db {
  return track(new Database(path));
}

const userVersion = (db: Db) => db.pragma('user_version', { simple: true }) as number;

function tablesOf(db: Db): string[] {
  return (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as Array<{
      name: string;
    }>
  ).map((row) => row.name);
}

/** One realistic row per table, as the version that created the table would have written it. */
const SAMPLE_ROWS: Record<string, { sql: string; params: unknown[] }> = {
  meta: { sql: 'INSERT INTO meta (key, value) VALUES (?, ?)', params: ['ingest.backfillCutoff', '1700000000000'] },
  calls: {
    sql: `INSERT INTO calls (event_key, ts, source, agent_id, session_id, dep, provider, model, api, stop_reason,
            outcome, phase, http_status, error_code, retry_after_ms, tokens_input, tokens_output,
            tokens_cache_read, tokens_cache_write, tokens_total, cost)
          VALUES (?, ?, 'jsonl', 'main', 's1', 'zhipu/glm-5.1', 'zhipu', 'glm-5.1', 'openai-completions', 'error',
            'rate_limited', 'before_output', 429, '1305', NULL, 0, 0, 0, 0, 0, 0)`,
    params: ['main/s1/e1', 1_700_000_000_000],
  },
  cursors: {
    sql: 'INSERT INTO cursors (source, key, path, position, updated_at) VALUES (?, ?, ?, ?, ?)',
    params: ['jsonl', '1:2:abc', '/state/agents/main/sessions/s1.jsonl', 1234, 1_700_000_000_000],
  },
  breaker_transitions: {
    sql: 'INSERT INTO breaker_transitions (ts, dep, from_state, to_state, reason) VALUES (?, ?, ?, ?, ?)',
    params: [1_700_000_000_000, 'zhipu/glm-5.1', 'closed', 'open', '5 rate limits in 60 s'],
  },
  health_probes: {
    sql: 'INSERT INTO health_probes (ts, ok, status, latency_ms, detail) VALUES (?, ?, ?, ?, ?)',
    params: [1_700_000_000_000, 1, 'live', 12.5, null],
  },
  restarts: {
    sql: 'INSERT INTO restarts (ts, trigger, reason, result, duration_ms) VALUES (?, ?, ?, ?, ?)',
    params: [1_700_000_000_000, 'watchdog', 'stalled sessions', 'recovered', 95_000],
  },
  notifications: {
    sql: 'INSERT INTO notifications (ts, kind, channel, title, ok, error) VALUES (?, ?, ?, ?, ?, ?)',
    params: [1_700_000_000_000, 'breaker-open', 'native', 'zhipu/glm-5.1 is rate limited', 1, null],
  },
  watchdog_decisions: {
    sql: 'INSERT INTO watchdog_decisions (ts, source, decision, reason, dep) VALUES (?, ?, ?, ?, ?)',
    params: [1_700_000_000_000, 'check', 'count', '12 rate-limited calls in 120 s (check 1 of 3)', 'zhipu/glm-5.1'],
  },
  breaker_controls: {
    sql: 'INSERT INTO breaker_controls (ts, dep, action, reason) VALUES (?, ?, ?, ?)',
    params: [1_700_000_000_000, 'zhipu/glm-5.1', 'force_open', 'provider maintenance'],
  },
  signals: {
    sql: `INSERT INTO signals (signal_key, ts, kind, session_id, session_key, run_id, dep, candidate_dep, decision,
            reason, http_status, final_outcome, lane, duration_ms, classification, detail)
          VALUES (?, ?, 'fallback_decision', NULL, NULL, NULL, 'zhipu/glm-5.1', 'deepseek/deepseek-v4-pro',
            'candidate_failed', 'rate_limit', 429, 'next_fallback', NULL, NULL, NULL, NULL)`,
    params: ['1:2:abc@0', 1_700_000_000_000],
  },
  turns: {
    sql: `INSERT INTO turns (turn_key, ts, source, agent_id, session_id, run_id, dep, outcome, reason, tokens_total, cost)
          VALUES (?, ?, 'gatewaylog', 'main', 's1', 'run-1', 'zhipu', 'refused', 'provider zhipu is in cooldown', 0, 0)`,
    params: ['1:2:abc@512', 1_700_000_000_000],
  },
  incidents: {
    sql: `INSERT INTO incidents (opened_at, closed_at, severity, causes, deps, agents, turns_lost, failed_calls,
            rate_limited_calls, restarts, notifications)
          VALUES (?, NULL, 'warning', '["breaker"]', '["zhipu/glm-5.1"]', '["main"]', 3, 120, 118, 0, 1)`,
    params: [1_700_000_000_000],
  },
  incident_events: {
    sql: `INSERT INTO incident_events (incident_id, ts, kind, dep, text, n, rate_limited)
          VALUES (1, ?, 'call', 'zhipu/glm-5.1', 'failed calls', 40, 38)`,
    params: [1_700_000_040_000],
  },
};

/**
 * A call as the latest version writes it, with the columns added after `calls` was
 * created: the credential fingerprint (5) and, from 7, a log attempt's role, run
 * id and the key of the record it pairs with.
 */
const LATEST_CALL = {
  sql: `INSERT INTO calls (event_key, ts, source, agent_id, session_id, dep, provider, model, api, stop_reason,
          outcome, phase, http_status, error_code, retry_after_ms, tokens_input, tokens_output,
          tokens_cache_read, tokens_cache_write, tokens_total, cost, credential, role, run_id, paired_with)
        VALUES (?, ?, 'gatewaylog', 'main', 's1', 'zhipu/glm-5.1', 'zhipu', 'glm-5.1', NULL, NULL,
          'rate_limited', 'before_output', 429, NULL, NULL, 0, 0, 0, 0, 0, 0, 'a1b2c3d4e5f6', 'attempt', 'run-1',
          'main/s1/e2@1700000001000')`,
  params: ['gatewaylog/1:2:abc@256', 1_700_000_000_500],
};

/** Every row of every table, for comparing a database before and after a migration. */
function contents(db: Db, tables: string[]): Record<string, unknown[]> {
  return Object.fromEntries(tables.map((table) => [table, db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all()]));
}

describe('MIGRATIONS', () => {
  it('are numbered 1..LATEST_VERSION without gaps, each described', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(Array.from({ length: LATEST_VERSION }, (_, i) => i + 1));
    for (const migration of MIGRATIONS) expect(migration.description).not.toBe('');
  });

  it('the latest schema has every table the core uses, each with a sample row in this test', () => {
    const db = track(openDatabase(dbPath));
    const tables = tablesOf(db);
    for (const table of [
      'calls',
      'cursors',
      'meta',
      'breaker_transitions',
      'health_probes',
      'restarts',
      'notifications',
    ]) {
      expect(tables).toContain(table);
    }
    expect(Object.keys(SAMPLE_ROWS).sort()).toEqual(tables);
    for (const table of TIMED_TABLES) expect(tables).toContain(table);
    for (const sample of [...Object.values(SAMPLE_ROWS), LATEST_CALL]) {
      expect(db.prepare(sample.sql).run(...sample.params).changes).toBe(1);
    }
    const columns = 'event_key AS key, credential, role, run_id AS runId, paired_with AS pairedWith';
    expect(db.prepare(`SELECT ${columns} FROM calls ORDER BY id`).all()).toEqual([
      { key: 'main/s1/e1', credential: null, role: null, runId: null, pairedWith: null },
      {
        key: 'gatewaylog/1:2:abc@256',
        credential: 'a1b2c3d4e5f6',
        role: 'attempt',
        runId: 'run-1',
        pairedWith: 'main/s1/e2@1700000001000',
      },
    ]);
    // A turn's key is unique: a re-read stores it once.
    expect(() => db.prepare(SAMPLE_ROWS.turns!.sql).run(...SAMPLE_ROWS.turns!.params)).toThrow(/UNIQUE/);
  });

  it('stores no message content: calls and turns have metadata columns only', () => {
    const db = track(openDatabase(dbPath));
    for (const table of ['calls', 'turns']) {
      const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
      expect(columns).toContain('dep');
      for (const column of columns) expect(column).not.toMatch(/text|content|message|body|arguments/);
    }
  });
});

describe('migrate', () => {
  it.each(Array.from({ length: LATEST_VERSION }, (_, v) => v))(
    'a database created at version %i migrates to the latest, keeping its rows',
    (version) => {
      const old = rawDb();
      expect(migrate(old, dbPath, version)).toBe(version);
      const tables = tablesOf(old);
      for (const table of tables) {
        const sample = SAMPLE_ROWS[table];
        if (!sample) throw new Error(`no sample row for table ${table}: add one to SAMPLE_ROWS`);
        old.prepare(sample.sql).run(...sample.params);
      }
      const before = contents(old, tables);
      old.close();

      const db = track(openDatabase(dbPath));
      expect(userVersion(db)).toBe(LATEST_VERSION);
      const after = contents(db, tables) as Record<string, Array<{ key?: string; ts?: number }>>;
      // Migration 12 notes the newest time a record stored until then can have (its key is the old form).
      if (tables.includes('calls')) {
        const times = [...(before.calls ?? []), ...(before.turns ?? [])].map((row) => (row as { ts: number }).ts);
        expect(after.meta).toContainEqual({ key: LEGACY_KEYS_META, value: String(Math.max(...times)) });
        after.meta = (after.meta ?? []).filter((row) => row.key !== LEGACY_KEYS_META);
      }
      // Every row kept with its values; columns added later may appear beside them.
      expect(after).toMatchObject(before);
      // A call stored before calls and turns were told apart stays a plain call: no role, no run, no pair.
      if (tables.includes('calls')) {
        expect(db.prepare('SELECT role, run_id AS runId, paired_with AS pairedWith FROM calls').all()).toEqual([
          { role: null, runId: null, pairedWith: null },
        ]);
      }
      // The new tables are usable.
      for (const table of tablesOf(db).filter((t) => !tables.includes(t))) {
        const sample = SAMPLE_ROWS[table]!;
        expect(db.prepare(sample.sql).run(...sample.params).changes).toBe(1);
      }
    },
  );

  it('migrates one version at a time up to the version asked for', () => {
    const db = rawDb();
    for (let version = 1; version <= LATEST_VERSION; version++) {
      expect(migrate(db, dbPath, version)).toBe(version);
      expect(userVersion(db)).toBe(version);
    }
  });

  it('running it twice is a no-op', () => {
    const db = track(openDatabase(dbPath));
    const sample = SAMPLE_ROWS.calls!;
    db.prepare(sample.sql).run(...sample.params);
    const schema = () => db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all();
    const before = { schema: schema(), rows: contents(db, tablesOf(db)) };
    expect(migrate(db, dbPath)).toBe(LATEST_VERSION);
    expect(migrate(db, dbPath)).toBe(LATEST_VERSION);
    expect({ schema: schema(), rows: contents(db, tablesOf(db)) }).toEqual(before);
    db.close();
    // Reopening (which migrates again) changes nothing either.
    const again = track(openDatabase(dbPath));
    expect(userVersion(again)).toBe(LATEST_VERSION);
    expect(contents(again, ['calls'])).toEqual({ calls: before.rows.calls });
  });

  it('a migration that fails half-way leaves the previous version intact', () => {
    if (LATEST_VERSION < 2) return;
    const db = rawDb();
    migrate(db, dbPath, 1);
    // Make migration 2 fail at its last statement, after creating its first tables.
    db.exec('CREATE TABLE notifications (x INTEGER)');
    expect(() => migrate(db, dbPath)).toThrow(/notifications/);
    expect(userVersion(db)).toBe(1);
    expect(tablesOf(db)).not.toContain('breaker_transitions');
  });
});

describe('a database from a newer BreakerBar', () => {
  const newer = LATEST_VERSION + 1;

  beforeEach(() => {
    const db = rawDb();
    migrate(db, dbPath);
    db.pragma(`user_version = ${newer}`);
    db.close();
  });

  const refusal = new RegExp(
    `schema version ${newer}, newer than this BreakerBar understands \\(${LATEST_VERSION}\\); upgrade BreakerBar`,
  );

  it('is refused by a read-write open with a clear message', () => {
    expect(() => openDatabase(dbPath)).toThrow(StoreError);
    expect(() => openDatabase(dbPath)).toThrow(refusal);
    expect(() => openDatabase(dbPath)).toThrow(dbPath);
  });

  it('is refused by a read-only open with the same message', () => {
    expect(() => openDatabase(dbPath, { readonly: true })).toThrow(StoreError);
    expect(() => openDatabase(dbPath, { readonly: true })).toThrow(refusal);
  });

  it('is refused by migrate, and left untouched', () => {
    const db = rawDb();
    expect(() => migrate(db, dbPath)).toThrow(refusal);
    expect(userVersion(db)).toBe(newer);
  });
});

describe('openDatabase', () => {
  it('creates the data directory and the database in WAL mode', () => {
    const nested = join(tmp, 'a', 'b', 'breakerbar.sqlite');
    const db = track(openDatabase(nested));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(userVersion(db)).toBe(LATEST_VERSION);
    expect(existsSync(nested)).toBe(true);
  });

  it('the database stays in WAL mode for later connections, read-only ones included', () => {
    track(openDatabase(dbPath)).close();
    expect(rawDb().pragma('journal_mode', { simple: true })).toBe('wal');
    expect(track(openDatabase(dbPath, { readonly: true })).pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('a read-only open of a missing database tells the user to run the daemon', () => {
    expect(() => openDatabase(dbPath, { readonly: true })).toThrow(StoreError);
    expect(() => openDatabase(dbPath, { readonly: true })).toThrow(
      `no BreakerBar database at ${dbPath} yet (run \`breakerbar daemon\` first)`,
    );
    expect(existsSync(dbPath)).toBe(false);
  });

  it("a read-only open of a database without BreakerBar's schema is a StoreError", () => {
    rawDb().close(); // creates an empty database file, user_version 0
    expect(() => openDatabase(dbPath, { readonly: true })).toThrow(StoreError);
  });

  it('a file that is not a database is a StoreError naming the path', () => {
    writeFileSync(dbPath, 'this is not a SQLite database, just text that is long enough to be read\n');
    expect(() => openDatabase(dbPath)).toThrow(StoreError);
    expect(() => openDatabase(dbPath, { readonly: true })).toThrow(dbPath);
  });

  it('a read-only open of a database in a missing directory says the same', () => {
    const missing = join(tmp, 'nope', 'breakerbar.sqlite');
    expect(() => openDatabase(missing, { readonly: true })).toThrow(/no BreakerBar database at .* yet/);
    expect(existsSync(join(tmp, 'nope'))).toBe(false);
  });
});
