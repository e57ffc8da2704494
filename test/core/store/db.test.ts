import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyOutcomeCounts, type Outcome } from '../../../main/core/calls/classify.js';
import type { CallEvent } from '../../../main/core/calls/events.js';
import type { Cursor } from '../../../main/core/store/batch.js';
import { PAIRING_SQL, Store } from '../../../main/core/store/db.js';
import { StoreError } from '../../../main/core/store/store-error.js';
import { callEvent } from '../../helpers/calls.js';
import { expectSignal } from '../../helpers/gateway-log.js';

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const MINUTE = 60_000;

let tmp: string;
let dbPath: string;
let stores: Store[];

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-store-'));
  dbPath = join(tmp, 'data', 'breakerbar.sqlite');
  stores = [];
});

afterEach(() => {
  for (const store of stores) store.close();
  rmSync(tmp, { recursive: true, force: true });
});

function openStore(options: { readonly?: boolean } = {}): Store {
  const store = Store.open(dbPath, options);
  stores.push(store);
  return store;
}

let nextId = 0;

/** A call event with plausible defaults; `key` is unique unless given. */
function call(over: Partial<CallEvent> & { tokens?: number } = {}): CallEvent {
  const { tokens = 100, ...rest } = over;
  const dep = rest.dep ?? 'zhipu/glm-5.1';
  const [provider = 'zhipu', model = 'glm-5.1'] = dep.split('/');
  return callEvent({
    key: `main/s1/e${nextId++}`,
    ts: T0,
    dep,
    provider,
    model,
    usage: { input: 60, output: 40, cacheRead: 0, cacheWrite: 0, totalTokens: tokens, cost: 0.01 },
    ...rest,
  });
}

function cursor(over: Partial<Cursor> = {}): Cursor {
  return {
    source: 'jsonl',
    key: '1:2:abc',
    path: '/state/agents/main/sessions/s1.jsonl',
    position: 100,
    detail: null,
    ...over,
  };
}

const count = (store: Store, table: string) =>
  (store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

/** The outcome counts with only the given outcomes non-zero. */
function outcomes(counts: Partial<Record<Outcome, number>>): Record<Outcome, number> {
  return { ...emptyOutcomeCounts(), ...counts };
}

/** The turns of a store holding no transcript record and no refused turn: calls without a role are not turns. */
const noTurns = () => ({ turns: 0, outcomes: { ...emptyOutcomeCounts(), refused: 0 }, byDependency: {}, tokens: 0 });

describe('Store.commit', () => {
  it('stores the events and the cursor, mapping every field to its column', () => {
    const store = openStore();
    const failed = call({
      key: 'main/s1/x',
      stopReason: 'error',
      outcome: 'rate_limited',
      phase: 'before_output',
      httpStatus: 429,
      errorCode: '1305',
      retryAfterMs: 30_000,
      tokens: 0,
    });
    expect(store.commit({ events: [call(), failed], cursor: cursor() })).toMatchObject({ inserted: 2, duplicates: 0 });
    expect(count(store, 'calls')).toBe(2);
    expect(store.db.prepare('SELECT * FROM calls WHERE event_key = ?').get('main/s1/x')).toMatchObject({
      ts: T0,
      source: 'jsonl',
      agent_id: 'main',
      session_id: 's1',
      dep: 'zhipu/glm-5.1',
      provider: 'zhipu',
      model: 'glm-5.1',
      api: 'openai-completions',
      stop_reason: 'error',
      outcome: 'rate_limited',
      phase: 'before_output',
      http_status: 429,
      error_code: '1305',
      retry_after_ms: 30_000,
      tokens_input: 60,
      tokens_output: 40,
      tokens_cache_read: 0,
      tokens_cache_write: 0,
      tokens_total: 0,
      cost: 0.01,
      // A call without a role (neither a log attempt nor a transcript record) pairs with nothing.
      role: null,
      run_id: null,
      paired_with: null,
    });
    expect(store.cursors('jsonl')).toEqual([cursor()]);
  });

  it('stores events and cursor in one transaction: a bad event stores neither', () => {
    const store = openStore();
    const invalid = { ...call(), outcome: null } as unknown as CallEvent;
    expect(() => store.commit({ events: [call(), invalid], cursor: cursor({ position: 500 }) })).toThrow(/NOT NULL/);
    expect(count(store, 'calls')).toBe(0);
    expect(store.cursors('jsonl')).toEqual([]);
    expect(store.counter('ingest.duplicates')).toBe(0);
  });

  it('a failed commit leaves the previous cursor where it was', () => {
    const store = openStore();
    store.commit({ events: [call()], cursor: cursor({ position: 100 }) });
    const invalid = { ...call(), dep: null } as unknown as CallEvent;
    expect(() => store.commit({ events: [invalid], cursor: cursor({ position: 200 }) })).toThrow();
    expect(store.cursors('jsonl')).toEqual([cursor({ position: 100 })]);
    expect(count(store, 'calls')).toBe(1);
  });

  it('stores a batch whatever numbers a source let through: a fraction rounded, one past 2^53 dropped', () => {
    const store = openStore();
    const odd = {
      ...call(),
      ts: T0 + 0.5,
      retryAfterMs: 1e300,
      usage: { input: 1.5, output: 2 ** 60, cacheRead: 0, cacheWrite: 0, totalTokens: 3.2, cost: 0.1 },
    };
    const stall = { key: 'log:1:0', ...expectSignal('stall', T0 + 0.25, { sessionId: 's1', durationMs: 1e300 }) };
    const result = store.commit({ events: [call(), odd, call()], signals: [stall], cursor: cursor({ position: 300 }) });
    expect(result.inserted).toBe(3);
    expect(store.cursors('jsonl')).toEqual([cursor({ position: 300 })]);
    expect(
      store.db
        .prepare('SELECT ts, retry_after_ms, tokens_input, tokens_output, tokens_total FROM calls WHERE event_key = ?')
        .get(odd.key),
    ).toEqual({ ts: T0 + 1, retry_after_ms: null, tokens_input: 2, tokens_output: 0, tokens_total: 3 });
    expect(store.db.prepare('SELECT ts, duration_ms FROM signals').get()).toEqual({ ts: T0, duration_ms: null });
  });

  it('counts duplicate event keys in ingest.duplicates and never stores them twice', () => {
    const store = openStore();
    const [a, b, c] = [call(), call(), call()];
    store.commit({ events: [a!, b!] });
    expect(store.commit({ events: [a!, b!, c!] })).toMatchObject({ inserted: 1, duplicates: 2 });
    expect(store.commit({ events: [{ ...a!, outcome: 'timeout' }] })).toMatchObject({ inserted: 0, duplicates: 1 });
    expect(count(store, 'calls')).toBe(3);
    expect(store.getMeta('ingest.duplicates')).toBe('3');
    expect(store.counter('ingest.duplicates')).toBe(3);
    // The first version of a call wins.
    expect(store.summary().outcomes.timeout).toBe(0);
  });

  it('counts a key repeated inside one batch as a duplicate', () => {
    const store = openStore();
    const a = call();
    expect(store.commit({ events: [a, a] })).toEqual({ inserted: 1, duplicates: 1, stored: [a], turns: 0 });
    expect(store.counter('ingest.duplicates')).toBe(1);
  });

  it('commits a cursor with no events (a file with nothing but user text)', () => {
    const store = openStore();
    expect(store.commit({ events: [], cursor: cursor({ position: 42 }) })).toMatchObject({
      inserted: 0,
      duplicates: 0,
    });
    expect(store.cursors('jsonl')).toEqual([cursor({ position: 42 })]);
  });
});

describe('cursors', () => {
  it('round-trip, update in place, sort by key and stay per source', () => {
    const store = openStore();
    store.commit({ events: [], cursor: cursor({ key: 'b', position: 1 }) });
    store.commit({ events: [], cursor: cursor({ key: 'a', position: 2 }) });
    store.commit({ events: [], cursor: cursor({ key: 'b', path: '/moved.jsonl', position: 3 }) });
    store.commit({ events: [], cursor: cursor({ source: 'sqlite', key: 'a', position: 9 }) });
    expect(store.cursors('jsonl')).toEqual([
      cursor({ key: 'a', position: 2 }),
      cursor({ key: 'b', path: '/moved.jsonl', position: 3 }),
    ]);
    expect(store.cursors('sqlite')).toEqual([cursor({ source: 'sqlite', key: 'a', position: 9 })]);
    expect(store.cursors('gatewaylog')).toEqual([]);
  });

  it('survive closing and reopening the database', () => {
    const store = openStore();
    store.commit({ events: [call()], cursor: cursor({ position: 777 }) });
    store.close();
    expect(openStore().cursors('jsonl')).toEqual([cursor({ position: 777 })]);
  });

  it('forget deletes a cursor of that source only', () => {
    const store = openStore();
    store.commit({ events: [], cursor: cursor({ key: 'gone' }) });
    store.commit({ events: [], cursor: cursor({ key: 'kept' }) });
    store.commit({ events: [], cursor: cursor({ source: 'sqlite', key: 'gone' }) });
    store.commit({ events: [], forget: [{ source: 'jsonl', key: 'gone' }] });
    expect(store.cursors('jsonl').map((c) => c.key)).toEqual(['kept']);
    expect(store.cursors('sqlite').map((c) => c.key)).toEqual(['gone']);
  });
});

describe('meta', () => {
  it('setMeta overwrites, getOrInitMeta keeps the first value', () => {
    const store = openStore();
    expect(store.getMeta('x')).toBeUndefined();
    expect(store.getOrInitMeta('x', '1')).toBe('1');
    expect(store.getOrInitMeta('x', '2')).toBe('1');
    store.setMeta('x', '3');
    expect(store.getMeta('x')).toBe('3');
    expect(store.counter('never-set')).toBe(0);
  });
});

describe('prune', () => {
  /** Rows at T0 + i minutes, i = 0 .. n-1, in calls and in each history table. */
  function fill(store: Store, n: number): void {
    store.commit({ events: Array.from({ length: n }, (_, i) => call({ ts: T0 + i * MINUTE })) });
    for (let i = 0; i < n; i++) {
      const ts = T0 + i * MINUTE;
      store.db.prepare("INSERT INTO restarts (ts, trigger, reason, result) VALUES (?, 'watchdog', 'r', 'ok')").run(ts);
      store.db.prepare("INSERT INTO health_probes (ts, ok, status) VALUES (?, 1, 'live')").run(ts);
    }
  }

  const times = (store: Store, table: string) =>
    (store.db.prepare(`SELECT ts FROM ${table} ORDER BY ts`).all() as Array<{ ts: number }>).map((r) => r.ts - T0);

  it('removes only rows older than the cutoff, in batches, from every history table', () => {
    const store = openStore();
    fill(store, 8);
    // 5 rows per table are older than T0 + 5 min; batches of 2 need three rounds per table.
    expect(store.prune(T0 + 5 * MINUTE, 2)).toBe(15);
    for (const table of ['calls', 'restarts', 'health_probes']) {
      expect(times(store, table)).toEqual([5 * MINUTE, 6 * MINUTE, 7 * MINUTE]);
    }
  });

  it('stops cleanly when the old rows are an exact multiple of the batch size', () => {
    const store = openStore();
    fill(store, 6);
    expect(store.prune(T0 + 4 * MINUTE, 2)).toBe(12);
    expect(times(store, 'calls')).toEqual([4 * MINUTE, 5 * MINUTE]);
  });

  it('keeps a row exactly at the cutoff and removes nothing when all is recent', () => {
    const store = openStore();
    fill(store, 3);
    expect(store.prune(T0, 2)).toBe(0);
    expect(count(store, 'calls')).toBe(3);
  });

  it('leaves cursors and meta alone', () => {
    const store = openStore();
    store.commit({ events: [call({ ts: T0 })], cursor: cursor() });
    store.setMeta('ingest.backfillCutoff', String(T0));
    store.prune(T0 + 365 * 24 * 60 * MINUTE);
    expect(count(store, 'calls')).toBe(0);
    expect(store.cursors('jsonl')).toEqual([cursor()]);
    expect(store.getMeta('ingest.backfillCutoff')).toBe(String(T0));
  });
});

describe('summary', () => {
  function seed(store: Store): void {
    store.commit({
      events: [
        call({ ts: T0, tokens: 100 }),
        call({ ts: T0 + MINUTE, outcome: 'rate_limited', tokens: 0 }),
        call({ ts: T0 + 2 * MINUTE, dep: 'deepseek/deepseek-v4-pro', tokens: 250 }),
        call({ ts: T0 + 3 * MINUTE, dep: 'deepseek/deepseek-v4-pro', outcome: 'timeout', tokens: 5 }),
      ],
    });
  }

  it('counts calls, outcomes, tokens and every dependency with all eleven outcomes', () => {
    const store = openStore();
    seed(store);
    expect(store.summary()).toEqual({
      calls: 4,
      outcomes: outcomes({ ok: 2, rate_limited: 1, timeout: 1 }),
      byDependency: {
        'deepseek/deepseek-v4-pro': outcomes({ ok: 1, timeout: 1 }),
        'zhipu/glm-5.1': outcomes({ ok: 1, rate_limited: 1 }),
      },
      tokens: 355,
      turns: noTurns(),
    });
  });

  it('since is inclusive, until exclusive', () => {
    const store = openStore();
    seed(store);
    const range = store.summary({ since: T0 + MINUTE, until: T0 + 3 * MINUTE });
    expect(range.calls).toBe(2);
    expect(range.tokens).toBe(250);
    expect(range.outcomes).toEqual(outcomes({ ok: 1, rate_limited: 1 }));
    expect(store.summary({ since: T0 + 3 * MINUTE }).calls).toBe(1);
    expect(store.summary({ until: T0 + MINUTE }).calls).toBe(1);
  });

  it('is empty, with zeros for every outcome, on an empty store', () => {
    expect(openStore().summary()).toEqual({
      calls: 0,
      outcomes: emptyOutcomeCounts(),
      byDependency: {},
      tokens: 0,
      turns: noTurns(),
    });
  });
});

describe('perMinute', () => {
  it('buckets calls by minute, dependency and outcome, in order', () => {
    const store = openStore();
    store.commit({
      events: [
        call({ ts: T0 + 5_000 }),
        call({ ts: T0 + 59_999 }),
        call({ ts: T0 + 30_000, outcome: 'rate_limited' }),
        call({ ts: T0 + MINUTE, dep: 'deepseek/deepseek-v4-pro' }),
        call({ ts: T0 + 3 * MINUTE + 1 }),
      ],
    });
    expect(store.perMinute()).toEqual([
      { minute: T0, dep: 'zhipu/glm-5.1', outcome: 'ok', count: 2 },
      { minute: T0, dep: 'zhipu/glm-5.1', outcome: 'rate_limited', count: 1 },
      { minute: T0 + MINUTE, dep: 'deepseek/deepseek-v4-pro', outcome: 'ok', count: 1 },
      { minute: T0 + 3 * MINUTE, dep: 'zhipu/glm-5.1', outcome: 'ok', count: 1 },
    ]);
    expect(store.perMinute({ since: T0 + MINUTE, until: T0 + 2 * MINUTE })).toEqual([
      { minute: T0 + MINUTE, dep: 'deepseek/deepseek-v4-pro', outcome: 'ok', count: 1 },
    ]);
  });

  it('uses the calls_by_time index for a time range', () => {
    const store = openStore();
    const plan = store.db
      .prepare(
        'EXPLAIN QUERY PLAN SELECT (ts / 60000) * 60000 AS minute, dep, outcome, count(*) FROM calls WHERE ts >= ? AND ts < ? GROUP BY minute, dep, outcome',
      )
      .all(T0, T0 + MINUTE) as Array<{ detail: string }>;
    expect(plan.map((row) => row.detail).join('\n')).toMatch(/calls_by_time/);
  });
});

describe('readers and a writer at once (WAL)', () => {
  it('a read-only Store reads while a writer Store holds its connection and writes', () => {
    const writer = openStore();
    writer.commit({ events: [call()], cursor: cursor({ position: 1 }) });
    const reader = openStore({ readonly: true });
    expect(reader.summary().calls).toBe(1);

    // A reader inside a read transaction keeps its snapshot while the writer commits.
    const snapshot = reader.db.transaction(() => {
      const before = reader.summary().calls;
      writer.commit({ events: [call(), call()], cursor: cursor({ position: 2 }) });
      return { before, during: reader.summary().calls };
    });
    expect(snapshot()).toEqual({ before: 1, during: 1 });
    // Afterwards the reader sees the writer's commits.
    expect(reader.summary().calls).toBe(3);
    expect(reader.cursors('jsonl')).toEqual([cursor({ position: 2 })]);
    // And the writer keeps writing while the reader is open.
    writer.commit({ events: [call()] });
    expect(reader.summary().calls).toBe(4);
  });

  it('a read-only Store cannot write', () => {
    openStore().close();
    const reader = openStore({ readonly: true });
    expect(() => reader.commit({ events: [call()] })).toThrow(/readonly/i);
  });

  it('a read-only Store of a missing database fails with a StoreError that says what to do', () => {
    expect(() => openStore({ readonly: true })).toThrow(StoreError);
    expect(() => openStore({ readonly: true })).toThrow(/run `breakerbar daemon` first/);
  });
});

describe('pairing look-ups', () => {
  it('search the unpaired calls of the other role by index, never those of their own role', () => {
    const store = openStore();
    const plan = (sql: string) =>
      (
        store.db
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all({ dep: 'p/m', outcome: 'timeout', ts: 1, runId: null }) as Array<{
          detail: string;
        }>
      ).map((row) => row.detail);
    for (const sql of [PAIRING_SQL.attemptForRecord, PAIRING_SQL.recordForAttempt]) {
      expect(plan(sql)[0]).toBe(
        'SEARCH calls USING INDEX calls_unpaired_by_role (role=? AND dep=? AND outcome=? AND ts>? AND ts<?)',
      );
    }
  });
});
