/**
 * The SQLite transcript source against a real OpenClaw-layout database in WAL
 * mode, written by a separate process while BreakerBar reads it; and against a
 * database OpenClaw 2026.9.6 really wrote (zstd-compressed rows, schema 23).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Outcome } from '../../../main/core/calls/classify.js';
import type { CallEvent } from '../../../main/core/calls/events.js';
import type { CallSummary, TurnSummary } from '../../../main/core/calls/summary.js';
import { type Logger, silentLogger } from '../../../main/core/runtime/log.js';
import { scan } from '../../../main/core/scan/scan.js';
import type { IngestSink } from '../../../main/core/sources/source.js';
import { SqliteTranscriptSource } from '../../../main/core/sources/transcripts-sqlite.js';
import type { CommitResult } from '../../../main/core/store/batch.js';
import { Store } from '../../../main/core/store/db.js';
import { agentDatabasePath, OpenClawAgentDb } from '../../../main/simulator/openclaw-db.js';
import type { DbWriterCommand, DbWriterReply } from '../../../main/simulator/openclaw-db-writer.js';
import { seededRandom } from '../../../main/simulator/records.js';
import { SessionScript } from '../../../main/simulator/workload.js';
import { until } from '../../helpers/transcripts.js';

const WRITER = fileURLToPath(new URL('../../../dist/main/simulator/openclaw-db-writer.js', import.meta.url));
/** Trimmed from a database openclaw@2026.9.6 wrote (see its README): 98 rows, 12 assistant messages, schema 23. */
const FIXTURE = fileURLToPath(new URL('../../fixtures/openclaw-2026.9.6/openclaw-agent.sqlite', import.meta.url));
const FIXTURE_CALLS = 12;
/** The fixture's zstd-compressed row: the `mock/ok_long` answer. */
const COMPRESSED_ROWID = 47;
const OK_LONG_ENTRY = 'cf93d999-788a-4462-a3dd-8d2aa50bdecb';

let root: string;
let stateDir: string;
let store: Store;
let source: SqliteTranscriptSource | null;
const children: ChildProcess[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bb-sqlite-'));
  stateDir = join(root, 'openclaw');
  store = Store.open(join(root, 'breakerbar.sqlite'));
  source = null;
});

afterEach(async () => {
  await source?.stop();
  for (const child of children.splice(0)) child.kill();
  store.close();
  rmSync(root, { recursive: true, force: true });
});

function sinkOf(target: Store): IngestSink {
  return { cursors: (kind) => target.cursors(kind), commit: (batch) => target.commit(batch) };
}

/** A sink that stores each batch 0–4 ms later, in the order given: what the daemon's writer thread does. */
function laterSinkOf(target: Store): IngestSink {
  let previous: Promise<unknown> = Promise.resolve();
  return {
    ...sinkOf(target),
    commitLater: (batch) => {
      const stored = previous.then(
        () =>
          new Promise<CommitResult>((resolve, reject) =>
            setTimeout(() => {
              try {
                resolve(target.commit(batch));
              } catch (error) {
                reject(error);
              }
            }, Math.random() * 4),
          ),
      );
      previous = stored.catch(() => {});
      return stored;
    },
  };
}

interface SourceSpec {
  log?: Logger;
  onStored?: (calls: CallEvent[]) => void;
  watch?: boolean;
  reconcileIntervalMs?: number;
  pollIntervalMs?: number;
  storeLater?: boolean;
}

function startSource(options: SourceSpec = {}) {
  source = new SqliteTranscriptSource({
    stateDir,
    sink: options.storeLater ? laterSinkOf(store) : sinkOf(store),
    cutoff: 0,
    reconcileIntervalMs: options.reconcileIntervalMs ?? 200,
    pollIntervalMs: options.pollIntervalMs,
    watch: options.watch,
    log: options.log ?? silentLogger,
    onStored: options.onStored,
  });
  source.start();
  return source;
}

/** A gateway-like writer in its own process, driven command by command. */
function startWriter() {
  const child = fork(WRITER, [], { stdio: 'inherit' });
  children.push(child);
  return (command: DbWriterCommand) =>
    new Promise<DbWriterReply>((resolve, reject) => {
      child.once('message', (reply: DbWriterReply) => (reply.ok ? resolve(reply) : reject(new Error(reply.error))));
      child.send(command);
    });
}

/** Writes sessions in-process (for tests that need no concurrency). */
function writeSessions(agentId: string, sessions: number, turns: number, schemaVersion?: number) {
  const db = new OpenClawAgentDb(agentDatabasePath(stateDir, agentId), { schemaVersion });
  const random = seededRandom(3);
  let calls = 0;
  for (let s = 0; s < sessions; s++) {
    const script = new SessionScript(`${agentId}-${s}`, random, { deps: ['zhipu/glm-5.1'], failureRate: 0.4 });
    db.append(script.sessionId, agentId, [script.header(Date.now())]);
    for (let t = 0; t < turns; t++) {
      const turn = script.turn(Date.now() - 1000 + t);
      calls += turn.calls.length;
      db.append(script.sessionId, agentId, turn.lines);
    }
  }
  return { db, calls };
}

const storedCalls = () => store.summary().calls;

/**
 * The turns a summary of transcript records alone has: every record is a turn, and
 * with no gateway log every record is also a call, so the turns repeat the calls
 * (none refused: only the gateway log reports refused turns).
 */
function recordsAsTurns(calls: Pick<CallSummary, 'calls' | 'outcomes' | 'byDependency' | 'tokens'>): TurnSummary {
  const withRefused = (counts: Record<Outcome, number>) => ({ ...counts, refused: 0 });
  return {
    turns: calls.calls,
    outcomes: withRefused(calls.outcomes),
    byDependency: Object.fromEntries(Object.entries(calls.byDependency).map(([dep, c]) => [dep, withRefused(c)])),
    tokens: calls.tokens,
  };
}

/** The real 2026.9.6 database as agent `agentId`'s, optionally changed first by `alter` (a writable connection). */
function installFixture(agentId = 'main', alter?: (db: Database.Database) => void): string {
  const path = agentDatabasePath(stateDir, agentId);
  mkdirSync(join(path, '..'), { recursive: true });
  copyFileSync(FIXTURE, path);
  if (alter) {
    const db = new Database(path);
    try {
      alter(db);
    } finally {
      db.close();
    }
  }
  return path;
}

/** Logs kept by level, to check what is said and how often. */
function recordingLog() {
  const said = { warn: [] as string[], error: [] as string[] };
  const log: Logger = {
    ...silentLogger,
    warn: (msg) => said.warn.push(msg),
    error: (msg) => said.error.push(msg),
  };
  return { said, log };
}

describe('SqliteTranscriptSource', () => {
  it.each([
    ['stored at once', false],
    ['stored later, as through the writer thread', true],
  ])(
    'reads every event exactly once while a separate process writes, checkpoints, holds a long write, VACUUMs and replaces the file (%s)',
    async (_how, storeLater) => {
      const write = startWriter();
      await write({ kind: 'open', path: agentDatabasePath(stateDir, 'main'), agentId: 'main', sessions: 6 });
      const replays: string[] = [];
      startSource({
        storeLater,
        log: {
          ...silentLogger,
          info: (msg, fields) => msg.startsWith('re-reading') && replays.push(String(fields?.why)),
        },
      });

      await write({ kind: 'steady', turns: 150, gapMs: 5 });
      // A TRUNCATE checkpoint completes only if no reader holds a snapshot: BreakerBar must not.
      const checkpoint = (await write({ kind: 'checkpoint' })).checkpoint;
      expect(checkpoint?.busy).toBe(0);
      await write({ kind: 'hold', ms: 1500, turns: 20 });
      await write({ kind: 'steady', turns: 100, gapMs: 5 });
      await write({ kind: 'vacuum', dropSessions: 2 });
      await write({ kind: 'steady', turns: 50, gapMs: 5 });
      await write({ kind: 'replace', turns: 30 });
      await write({ kind: 'steady', turns: 50, gapMs: 5 });
      const reply = await write({ kind: 'ledger' });
      const ledger = reply.ledger as NonNullable<DbWriterReply['ledger']>;

      await until(() => storedCalls() === ledger.calls, 15_000);
      // The writer's ledger counts the calls it wrote; each of its records is a turn as well.
      expect(ledger.calls).toBeGreaterThan(0);
      expect(store.summary()).toEqual({ ...ledger, turns: recordsAsTurns(ledger) });
      // Re-reading after the VACUUM and the replacement found only calls already stored, and said so as a replay.
      expect(store.counter('ingest.duplicates')).toBe(0);
      expect(replays).toEqual(expect.arrayContaining([expect.stringMatching(/renumbered|replaced/)]));
      // The writer never waited on BreakerBar: its slowest transaction stayed far below its 5 s busy timeout.
      expect(reply.maxWriteMs).toBeLessThan(1000);
      expect(source?.status().lastError ?? null).toBeNull();
    },
    60_000,
  );

  it('continues from its committed position after a restart, reading nothing twice', async () => {
    const { db, calls } = writeSessions('main', 3, 20);
    startSource();
    await until(() => storedCalls() === calls);
    await source?.stop();

    const random = seededRandom(9);
    const script = new SessionScript('late', random, { deps: ['deepseek/deepseek-v4-pro'], failureRate: 0 });
    const turn = script.turn(Date.now());
    db.append('late', 'main', [script.header(Date.now()), ...turn.lines]);
    db.close();

    const stored: CallEvent[] = [];
    startSource({ onStored: (batch) => stored.push(...batch) });
    await until(() => storedCalls() === calls + turn.calls.length);
    expect(stored.map((call) => call.sessionId)).toEqual(turn.calls.map(() => 'late'));
    expect(store.counter('ingest.duplicates')).toBe(0);
  });

  it('finds agents created while it runs, and the state directory appearing late', async () => {
    const running = startSource();
    // A look with the state directory still missing.
    running.reconcile();
    await until(() => running.caughtUp);
    const first = writeSessions('first', 1, 5);
    await until(() => storedCalls() === first.calls);
    const second = writeSessions('second', 2, 5);
    await until(() => storedCalls() === first.calls + second.calls);
    first.db.close();
    second.db.close();
  });

  it('notices a commit and a new agent database through its file watcher alone', async () => {
    // Polls and reconciles an hour apart: only the watcher can tell the source in time.
    const first = writeSessions('first', 1, 3);
    const running = startSource({ reconcileIntervalMs: 3_600_000, pollIntervalMs: 3_600_000 });
    await until(() => storedCalls() === first.calls && running.caughtUp);
    const script = new SessionScript('first-later', seededRandom(9), { deps: ['zhipu/glm-5.1'], failureRate: 0 });
    const turn = script.turn(Date.now());
    first.db.append(script.sessionId, 'first', [script.header(Date.now()), ...turn.lines]);
    await until(() => storedCalls() === first.calls + turn.calls.length, 5000, 'the commit to be read');
    // An agent created while it runs; its sessions directory (JSONL transcripts) is no business of this source.
    mkdirSync(join(stateDir, 'agents', 'second', 'sessions'), { recursive: true });
    const second = writeSessions('second', 1, 3);
    await until(() => storedCalls() === first.calls + turn.calls.length + second.calls, 5000, 'the new database');
    first.db.close();
    second.db.close();
  });

  it('reads any schema version whose transcript_events it knows: the version number sets no limit', async () => {
    const { db, calls } = writeSessions('main', 1, 5, 57);
    db.close();
    startSource();
    await until(() => storedCalls() === calls);
    expect(source?.databases()[0]).toMatchObject({ schemaVersion: 57, refused: null });
    expect(source?.status().lastError).toBeNull();
  });

  it('refuses a layout without created_at as an error naming its version, and reads it once migrated', async () => {
    const path = agentDatabasePath(stateDir, 'main');
    mkdirSync(join(path, '..'), { recursive: true });
    const db = new Database(path);
    db.exec('CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT)');
    db.pragma('user_version = 31');
    const script = new SessionScript('s1', seededRandom(5), { deps: ['zhipu/glm-5.1'], failureRate: 0 });
    const turn = script.turn(Date.now());
    const insert = db.prepare('INSERT INTO transcript_events (session_id, seq, event_json) VALUES (?, ?, ?)');
    for (const [seq, line] of [script.header(Date.now()), ...turn.lines].entries()) insert.run('s1', seq, line);
    db.close();

    const { said, log } = recordingLog();
    // No file watcher: the reconcile tick alone must notice the migration below.
    startSource({ log, watch: false });
    await until(() => said.error.length > 0);
    expect(said.error[0]).toMatch(/schema version 31\): transcript_events lacks created_at/);
    expect(source?.status().lastError).toMatch(/schema version 31\): transcript_events lacks created_at/);
    expect(source?.databases()[0]?.refused).toMatch(/schema version 31/);
    // Reported once, not on every look; nothing read meanwhile.
    for (let look = 0; look < 3; look++) {
      source?.reconcile();
      await until(() => source?.caughtUp === true);
    }
    expect(said.error).toHaveLength(1);
    expect(storedCalls()).toBe(0);

    // OpenClaw migrates in place (same file, same inode): the change is noticed and the rows are read.
    const migrate = new Database(path);
    migrate.exec('ALTER TABLE transcript_events ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0');
    migrate.close();
    await until(() => storedCalls() === turn.calls.length);
    expect(source?.databases()[0]?.refused).toBeNull();
    expect(source?.status().lastError).toBeNull();
  });

  it('takes a deleted database in its stride and forgets its position', async () => {
    const { db, calls } = writeSessions('main', 1, 5);
    db.close();
    startSource();
    await until(() => storedCalls() === calls);
    const path = agentDatabasePath(stateDir, 'main');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    await until(() => store.cursors('sqlite').length === 0);
    expect(source?.status().inputs).toBe(0);
    expect(storedCalls()).toBe(calls);
  });

  it('forgets the position of a database deleted while its rows were being stored', async () => {
    const { db, calls } = writeSessions('main', 1, 5);
    db.close();
    // Every batch waits until the test lets it be stored.
    const waiting: Array<() => void> = [];
    const sink: IngestSink = {
      ...sinkOf(store),
      commitLater: (batch) => new Promise<CommitResult>((resolve) => waiting.push(() => resolve(store.commit(batch)))),
    };
    source = new SqliteTranscriptSource({
      stateDir,
      sink,
      cutoff: 0,
      reconcileIntervalMs: 3_600_000,
      log: silentLogger,
    });
    source.start();
    await until(() => waiting.length === 1, 5000, 'a batch to be handed over');
    const path = agentDatabasePath(stateDir, 'main');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    source.reconcile();
    expect(source.status().inputs).toBe(0);
    waiting.shift()?.();
    await until(() => source?.caughtUp === true, 5000, 'the batch to be stored');
    // Its calls were read before the file went, so they stay; its position goes with the file.
    expect(storedCalls()).toBe(calls);
    expect(store.cursors('sqlite')).toEqual([]);
  });

  it('agrees with scan on the same databases', async () => {
    writeSessions('a', 2, 10).db.close();
    writeSessions('b', 1, 10).db.close();
    startSource();
    const expected = scan([stateDir]);
    await until(() => storedCalls() === expected.calls);
    const { calls, outcomes, byDependency, tokens, turns } = expected;
    expect(store.summary()).toEqual({ calls, outcomes, byDependency, tokens, turns });
    expect(turns).toEqual(recordsAsTurns(expected));
    expect(expected.bySource.sqlite.databases).toBe(2);
  });

  it('a database file that is not SQLite is reported, not fatal', async () => {
    const path = agentDatabasePath(stateDir, 'main');
    writeSessions('main', 1, 1).db.close();
    for (const suffix of ['-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    unlinkSync(path);
    writeFileSync(path, 'this is not a database');
    startSource();
    await until(() => (source?.status().lastError ?? '') !== '');
    expect(source?.status().lastError).toMatch(/not a database/);
  });

  it('retries a database that stays unreadable ever more slowly, warns once, and says when it reads again', async () => {
    const path = agentDatabasePath(stateDir, 'main');
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, 'this is not a database either');
    const warnings: string[] = [];
    const retries: Array<number | string | boolean | null | undefined> = [];
    const infos: string[] = [];
    const now = Date.parse('2026-07-01T08:00:00.000Z');
    source = new SqliteTranscriptSource({
      stateDir,
      sink: sinkOf(store),
      cutoff: 0,
      reconcileIntervalMs: 50,
      watch: false,
      clock: () => now,
      failureBackoff: { initialMs: 20, factor: 2, maxMs: 80 },
      log: {
        ...silentLogger,
        info: (msg) => infos.push(msg),
        warn: (msg) => warnings.push(msg),
        debug: (msg, fields) => {
          if (msg === 'agent database still unreadable') retries.push(fields?.nextTry);
        },
      },
    });
    source.start();
    const current = source;
    await until(() => retries.length >= 4, 10_000, 'four quiet retries');
    expect(warnings).toEqual(['agent database unreadable; retrying with backoff']);
    // 20, 40, 80, 80 ms after the (frozen) clock: doubling, then capped.
    expect(retries.slice(0, 4)).toEqual([40, 80, 80, 80].map((ms) => new Date(now + ms).toISOString()));
    expect(current.status().lastError).toMatch(
      new RegExp(`${path} is unreadable since ${new Date(now).toISOString()} \\(.*not a database.*\\); next try at`),
    );
    expect(current.caughtUp).toBe(true);

    rmSync(path);
    writeSessions('main', 1, 2).db.close();
    await until(() => storedCalls() > 0 && current.status().lastError === null, 10_000, 'the database to be read');
    expect(infos).toContain('agent database readable again');
    expect(warnings).toHaveLength(1);
  });
});

describe('a database written by OpenClaw 2026.9.6', () => {
  it('is read with the default configuration: every assistant record is a call, the zstd-compressed one too', async () => {
    installFixture();
    const stored: CallEvent[] = [];
    startSource({ onStored: (batch) => stored.push(...batch) });
    await until(() => storedCalls() === FIXTURE_CALLS);
    expect(new Set(stored.map((call) => call.key)).size).toBe(FIXTURE_CALLS);
    const okLong = stored.find((call) => call.dep === 'mock/ok_long');
    expect(okLong?.key).toContain(OK_LONG_ENTRY);
    expect(okLong?.outcome).toBe('ok');
    expect(okLong?.usage.totalTokens).toBe(1208);
    expect(source?.databases()[0]).toMatchObject({ schemaVersion: 23, refused: null, position: 98 });
    expect(source?.status()).toMatchObject({ lines: 98, undecodable: 0, lastError: null });
  });

  it('stores every call of a database in which one record holds a value SQLite cannot keep as written', async () => {
    // Found in hardening: a fraction in `usage` stopped the whole database ("agent database unreadable", 0 of
    // 15 calls stored). The real 2026.9.6 database, one assistant record's token count made a fraction.
    installFixture('main', (db) => {
      const rowid = db
        .prepare(
          `SELECT rowid FROM transcript_events WHERE event_json IS NOT NULL
             AND json_extract(event_json, '$.message.role') = 'assistant' ORDER BY rowid LIMIT 1`,
        )
        .pluck()
        .get();
      db.prepare(
        `UPDATE transcript_events SET event_json = json_set(event_json, '$.message.usage.input', 1.5) WHERE rowid = ?`,
      ).run(rowid);
    });
    const { said, log } = recordingLog();
    startSource({ log });
    await until(() => storedCalls() === FIXTURE_CALLS);
    await until(() => store.cursors('sqlite')[0]?.position === 98);
    expect(source?.status()).toMatchObject({ lines: 98, repaired: 1, malformed: 0, lastError: null });
    expect(said.warn.filter((message) => /cannot be stored as written/.test(message))).toHaveLength(1);
  });

  it('counts an undecodable row, warns once for the database, and reads the rows after it', async () => {
    installFixture('main', (db) => {
      db.prepare('UPDATE transcript_events SET event_zstd = ? WHERE rowid = ?').run(
        Buffer.from('definitely not a zstd frame'),
        COMPRESSED_ROWID,
      );
      // A row with no event at all: OpenClaw's CHECK forbids it, so write past the check.
      db.pragma('ignore_check_constraints = ON');
      db.prepare('UPDATE transcript_events SET event_json = NULL WHERE rowid = ?').run(COMPRESSED_ROWID + 1);
    });
    const { said, log } = recordingLog();
    startSource({ log });
    // Rows 47 (ok_long) and 48 (an assistant record) are lost; the ten calls after them are not.
    await until(() => storedCalls() === FIXTURE_CALLS - 2);
    await until(() => store.cursors('sqlite')[0]?.position === 98);
    const status = source?.status();
    expect(status).toMatchObject({ lines: 98, undecodable: 2 });
    expect(status?.lastError).toMatch(
      /row 47 \(session s-ok_long-0, seq 5\) cannot be decoded \(event_zstd: not a zstd frame/,
    );
    expect(said.warn).toEqual(['agent database row cannot be decoded; skipped (further ones are counted, not logged)']);
    expect(store.summary().byDependency['mock/ok_long']).toBeUndefined();

    // scan decodes rows the same way and says what it skipped.
    const scanned = scan([stateDir]);
    expect(scanned).toMatchObject({ calls: FIXTURE_CALLS - 2, lines: 98, undecodable: 2 });
    expect(scanned.warnings).toEqual([
      { path: agentDatabasePath(stateDir, 'main'), warning: expect.stringMatching(/^2 row\(s\) cannot be decoded/) },
    ]);
  });

  it('scan reads it like the daemon, and refuses what the daemon refuses, naming the version', () => {
    installFixture('main');
    installFixture('old', (db) => {
      db.exec('ALTER TABLE transcript_events DROP COLUMN created_at');
    });
    const scanned = scan([stateDir]);
    expect(scanned).toMatchObject({ calls: FIXTURE_CALLS, undecodable: 0, warnings: [] });
    expect(scanned.byDependency['mock/ok_long']?.ok).toBe(1);
    expect(scanned.errors).toEqual([
      {
        path: agentDatabasePath(stateDir, 'old'),
        error: expect.stringMatching(/schema version 23\): transcript_events lacks created_at/),
      },
    ]);
  });
});
