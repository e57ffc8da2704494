/**
 * Record keys put the creation time first since schema version 12; a store
 * upgraded from an older version still holds its records under the old keys
 * (`agent/entryId@created`). Reading the same record again after the upgrade,
 * from the same file, a copy of it or its SQLite import, must still find it
 * stored: counted once, not twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallEvent } from '../../../main/core/calls/events.js';
import { fallbackRecordKey, legacyRecordKey, recordKey } from '../../../main/core/sources/record-key.js';
import { migrate } from '../../../main/core/store/database.js';
import { Store } from '../../../main/core/store/db.js';
import { LEGACY_KEYS_META } from '../../../main/core/store/migrations.js';
import { callValues, INSERT_CALL_SQL, INSERT_TURN_SQL, recordTurnValues } from '../../../main/core/store/rows.js';
import { callEvent } from '../../helpers/calls.js';

const T = Date.UTC(2026, 10, 30, 8, 0, 0);

let tmp: string;
let dbPath: string;
let stores: Store[];

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-legacy-keys-'));
  dbPath = join(tmp, 'breakerbar.sqlite');
  stores = [];
});

afterEach(() => {
  for (const store of stores) store.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** A transcript record of agent `main`, entry `entryId`, created at `created` (its time too). */
function record(entryId: string, created: number, over: Partial<CallEvent> = {}): CallEvent {
  return callEvent({ key: recordKey('main', entryId, created), ts: created, role: 'record', ...over });
}

/** A store at schema version 11 holding `records` as that version stored them: under their old keys. */
function storeBeforeUpgrade(records: CallEvent[]): void {
  const db = new Database(dbPath);
  migrate(db, dbPath, 11);
  const turn = db.prepare(INSERT_TURN_SQL);
  const call = db.prepare(INSERT_CALL_SQL);
  for (const event of records) {
    const old = { ...event, key: legacyRecordKey(event.key) as string };
    turn.run(recordTurnValues(old));
    call.run(callValues(old));
  }
  db.close();
}

function openStore(): Store {
  const store = Store.open(dbPath);
  stores.push(store);
  return store;
}

describe('record keys', () => {
  it('put the creation time before the entry id, and map back to the old form', () => {
    expect(recordKey('main', 'e1', T)).toBe(`main/${T}@e1`);
    expect(recordKey('main', 'e1', '2026-11-30T08:00:00.000Z')).toBe('main/2026-11-30T08:00:00.000Z@e1');
    expect(legacyRecordKey(`main/${T}@e1`)).toBe(`main/e1@${T}`);
    expect(legacyRecordKey('main/2026-11-30T08:00:00.000Z@e1')).toBe('main/e1@2026-11-30T08:00:00.000Z');
    // An entry id may hold an @ of its own: the time ends at the first one.
    expect(legacyRecordKey(`main/${T}@e@1`)).toBe(`main/e@1@${T}`);
  });

  it('have no old form when they fall back to the session', () => {
    expect(legacyRecordKey(fallbackRecordKey('main', 's1', 'e1', T))).toBeNull();
    expect(legacyRecordKey(fallbackRecordKey('main', 's1', null, T))).toBeNull();
    // A session id with an @ in it still names a session, not a time.
    expect(legacyRecordKey(fallbackRecordKey('main', 'a/b@c', 'e1', T))).toBeNull();
    expect(legacyRecordKey('gatewaylog')).toBeNull();
  });
});

describe('a store upgraded from old record keys', () => {
  it('counts a record it holds under its old key as a duplicate, and stores every other', () => {
    const kept = [record('e1', T), record('e2', T + 1000)];
    storeBeforeUpgrade(kept);
    const store = openStore();
    expect(store.getMeta(LEGACY_KEYS_META)).toBe(String(T + 1000));

    const again = store.commit({ events: [record('e1', T), record('e2', T + 1000), record('e3', T + 500)] });
    expect(again).toMatchObject({ inserted: 1, duplicates: 2, turns: 1 });
    // Newer than anything stored before the upgrade: no old key to look for, stored once.
    expect(store.commit({ events: [record('e4', T + 2000)] })).toMatchObject({ inserted: 1, duplicates: 0 });
    expect(store.commit({ events: [record('e4', T + 2000)] })).toMatchObject({ inserted: 0, duplicates: 1 });
    expect(store.db.prepare('SELECT count(*) FROM calls').pluck().get()).toBe(4);
    expect(store.db.prepare('SELECT count(*) FROM turns').pluck().get()).toBe(4);
  });

  it('finds a record stored before turns existed, as a call only', () => {
    const db = new Database(dbPath);
    migrate(db, dbPath, 6);
    const old = record('e1', T);
    db.prepare(`
      INSERT INTO calls (event_key, ts, source, agent_id, session_id, dep, provider, model, api, stop_reason,
        outcome, phase, http_status, error_code, retry_after_ms, tokens_input, tokens_output,
        tokens_cache_read, tokens_cache_write, tokens_total, cost, credential)
      VALUES (?, ?, 'jsonl', 'main', 's1', 'zhipu/glm-5.1', 'zhipu', 'glm-5.1', NULL, 'stop', 'ok', 'complete',
        NULL, NULL, NULL, 1, 1, 0, 0, 2, 0, NULL)`).run(legacyRecordKey(old.key), T);
    db.close();
    expect(openStore().commit({ events: [old] })).toMatchObject({ inserted: 0, duplicates: 1 });
  });

  it('a fresh store notes no time, so it never looks for old keys', () => {
    const store = openStore();
    expect(store.getMeta(LEGACY_KEYS_META)).toBeUndefined();
    // A record whose old form is another record's key: in a fresh store, both are calls of their own.
    const first = callEvent({ key: `main/e1@${T}`, ts: T, role: 'record' });
    const second = callEvent({ key: `main/${T}@e1`, ts: T, role: 'record' });
    expect(store.commit({ events: [first, second] })).toMatchObject({ inserted: 2, duplicates: 0 });
  });
});
