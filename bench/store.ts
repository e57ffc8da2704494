/**
 * Store: ingest rate through `Store.commit` (events plus the cursor that
 * produced them, in one transaction, as the sources commit) in batches of the
 * sizes the sources make, against a plain better-sqlite3 insert loop of the
 * same rows into the same schema; and the dashboard's 24 h per-minute history
 * query (`outcomeSteps`, the query behind /api/history) on a store holding
 * 10 M events.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OUTCOMES, type Outcome } from '../main/core/calls/classify.js';
import type { CallEvent } from '../main/core/calls/events.js';
import { openDatabase } from '../main/core/store/database.js';
import { Store } from '../main/core/store/db.js';
import { callValues, INSERT_CALL_SQL } from '../main/core/store/rows.js';
import { seededRandom } from '../main/simulator/records.js';
import { distribution, machine, recordSection, summarize } from './report.js';

const DEPS = 100;
const AGENTS = 10;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The 10 M events span this much history, so a 24 h window holds a seventh of them. */
const SPAN_DAYS = 7;

export interface StoreOptions {
  /** Events stored before the history query is timed. */
  events: number;
  /** Events committed per ingest measurement (each batch size, each way). */
  ingestEvents: number;
  /** Timed runs of each history query. */
  queryRuns: number;
}

/** One realistic call: 100 dependencies over 12 providers, 10 agents, one in five failing. */
function makeEvent(random: () => number, i: number, ts: number): CallEvent {
  const d = Math.floor(random() * DEPS);
  const failed = random() < 0.2;
  const outcome: Outcome = failed ? (OUTCOMES[1 + Math.floor(random() * 5)] as Outcome) : 'ok';
  const provider = `provider${d % 12}`;
  const model = `model-${d}`;
  const agentId = `agent${i % AGENTS}`;
  return {
    key: `${agentId}/${i.toString(16).padStart(8, '0')}@${ts}`,
    ts,
    source: 'jsonl',
    agentId,
    sessionId: `3f2c9a1e-5b7d-4c8e-9f10-${(i % 997).toString().padStart(12, '0')}`,
    dep: `${provider}/${model}`,
    provider,
    model,
    api: 'openai-completions',
    stopReason: failed ? 'error' : 'stop',
    outcome,
    phase: failed ? 'before_output' : 'complete',
    httpStatus: failed ? 429 : null,
    errorCode: null,
    retryAfterMs: null,
    credential: null,
    usage: { input: 1200, output: 350, cacheRead: 800, cacheWrite: 0, totalTokens: 2350, cost: 0.0042 },
  };
}

/** Events/s through `Store.commit`, one transaction per batch with a cursor, into a fresh store. */
function timeCommit(dir: string, events: CallEvent[], batch: number): number {
  const store = Store.open(join(dir, `commit-${batch}.sqlite`));
  try {
    const t0 = performance.now();
    for (let i = 0; i < events.length; i += batch) {
      store.commit({
        events: events.slice(i, i + batch),
        cursor: { source: 'jsonl', key: '2049:1234567:0a1b2c3d4e5f6a7b', path: '/x/sessions/s.jsonl', position: i },
      });
    }
    return events.length / ((performance.now() - t0) / 1000);
  } finally {
    store.close();
  }
}

/** Events/s of a plain prepared INSERT loop of the same rows, one transaction per batch, same schema and pragmas. */
function timePlain(dir: string, events: CallEvent[], batch: number): number {
  const db = openDatabase(join(dir, `plain-${batch}.sqlite`));
  try {
    const insert = db.prepare(INSERT_CALL_SQL);
    const rows = events.map(callValues);
    const tx = db.transaction((from: number) => {
      const to = Math.min(rows.length, from + batch);
      for (let i = from; i < to; i++) insert.run(rows[i]);
    });
    const t0 = performance.now();
    for (let i = 0; i < rows.length; i += batch) tx(i);
    return rows.length / ((performance.now() - t0) / 1000);
  } finally {
    db.close();
  }
}

/** Fills a store with `count` events over the last SPAN_DAYS days: one transaction of prepared inserts. */
function fill(path: string, count: number, now: number): void {
  const db = openDatabase(path);
  try {
    // Generation only: no journal, no syncs, a big cache. The file is an ordinary WAL store again afterwards.
    db.pragma('journal_mode = DELETE');
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -1048576');
    const insert = db.prepare(INSERT_CALL_SQL);
    const random = seededRandom(23);
    const from = now - SPAN_DAYS * DAY_MS;
    const step = (SPAN_DAYS * DAY_MS) / count;
    const t0 = performance.now();
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        insert.run(callValues(makeEvent(random, i, Math.floor(from + i * step))));
        if (i > 0 && i % 2_000_000 === 0) {
          const s = (performance.now() - t0) / 1000;
          process.stdout.write(`  ${i} events stored (${s.toFixed(0)} s)\n`);
        }
      }
    })();
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
}

function timeQuery(runs: number, query: () => unknown[]): { ms: number[]; rows: number } {
  let rows = 0;
  for (let i = 0; i < 2; i++) query(); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    rows = query().length;
    ms.push(performance.now() - t0);
  }
  return { ms, rows };
}

export async function storeBench({ events, ingestEvents, queryRuns }: StoreOptions): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bb-store-'));
  try {
    // Ingest: the same rows both ways, batch sizes as the sources make them.
    const random = seededRandom(7);
    const start = Date.now() - DAY_MS;
    const rows = Array.from({ length: ingestEvents }, (_, i) => makeEvent(random, i, start + i * 50));
    const batches = [
      [1, 'live: one call per append'],
      [10, 'live burst'],
      [250, 'backfill: one 4 MB read of a transcript'],
    ] as const;
    const ingestRows: string[] = [];
    for (const [batch, what] of batches) {
      const plain = timePlain(dir, rows, batch);
      const commit = timeCommit(dir, rows, batch);
      const ratio = commit / plain;
      process.stdout.write(
        `batch ${batch}: Store.commit ${commit.toFixed(0)} events/s, plain insert ${plain.toFixed(0)} events/s (${ratio.toFixed(2)})\n`,
      );
      ingestRows.push(`| ${batch} (${what}) | **${commit.toFixed(0)}** | ${plain.toFixed(0)} | ${ratio.toFixed(2)} |`);
      summarize('store', `Store.commit, batches of ${batch}`, `${Math.round(commit)} events/s`, '');
    }

    // History query on a large store.
    const path = join(dir, 'history.sqlite');
    const now = Date.now();
    const f0 = performance.now();
    fill(path, events, now);
    const fillSeconds = (performance.now() - f0) / 1000;
    const sizeMb = statSync(path).size / 2 ** 20;
    process.stdout.write(`store: ${events} events, ${sizeMb.toFixed(0)} MiB, filled in ${fillSeconds.toFixed(0)} s\n`);
    const store = Store.open(path);
    const from = now - DAY_MS;
    const inWindow = (
      store.db.prepare('SELECT count(*) AS n FROM calls WHERE ts >= ? AND ts < ?').get(from, now) as {
        n: number;
      }
    ).n;
    const queries = [
      ['all dependencies', () => store.outcomeSteps(from, now, 60_000)],
      ['one dependency (`provider1/model-1`)', () => store.outcomeSteps(from, now, 60_000, 'provider1/model-1')],
      ['one provider (`provider1`, 8–9 models)', () => store.outcomeSteps(from, now, 60_000, 'provider1')],
    ] as const;
    const queryRows: string[] = [];
    for (const [name, query] of queries) {
      const { ms, rows: n } = timeQuery(queryRuns, query);
      const d = distribution(ms);
      process.stdout.write(`${name}: p50 ${d.p50.toFixed(1)} ms, p99 ${d.p99.toFixed(1)} ms (${n} rows)\n`);
      queryRows.push(`| ${name} | ${d.n} | ${d.p50.toFixed(1)} | ${d.p99.toFixed(1)} | ${d.max.toFixed(1)} | ${n} |`);
      summarize('store', `24 h history, ${name.replace(/ \(.*/, '')}, p99`, `${d.p99.toFixed(0)} ms`, '');
    }
    store.close();

    const markdown = `## Store (\`npm run bench -- store\`)

Measured on ${machine()}; SQLite through better-sqlite3 with the store's own schema and pragmas (WAL,
\`synchronous = NORMAL\`), the database in the OS temp directory.

**Ingest.** ${ingestEvents} realistic calls (100 dependencies, 10 agents, one in five failing) committed into a
fresh store in batches, one transaction per batch: \`Store.commit\` (each event inserted with
\`ON CONFLICT DO NOTHING\` and returned if stored, plus the source's cursor upserted in the same transaction)
against a plain prepared \`INSERT\` loop of the same rows in the same batches (no cursor, no duplicate check;
its parameter arrays are built before the clock starts, while \`Store.commit\` builds its parameters from the events).

| batch size | \`Store.commit\` events/s | plain insert events/s | ratio |
|---|---:|---:|---:|
${ingestRows.join('\n')}

**History query.** \`Store.outcomeSteps\` (behind \`/api/history\`) over the last 24 h in 60 s steps, on a store of
${events} calls spread evenly over ${SPAN_DAYS} days (${inWindow} of them in the window; ${sizeMb.toFixed(0)} MiB;
filled in ${fillSeconds.toFixed(0)} s by one transaction of prepared inserts), on a freshly opened connection,
${queryRuns} runs each after 2 warm-up runs.

| filter | runs | p50 ms | p99 ms | max ms | result rows |
|---|---:|---:|---:|---:|---:|
${queryRows.join('\n')}`;
    process.stdout.write(`\n${markdown}\n`);
    recordSection('store', markdown);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
