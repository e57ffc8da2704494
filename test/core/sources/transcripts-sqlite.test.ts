/**
 * The SQLite transcript source against a real OpenClaw-layout database in WAL
 * mode, written by a separate process while BreakerBar reads it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallEvent } from '../../../main/core/events.js';
import { type Logger, silentLogger } from '../../../main/core/log.js';
import { scan } from '../../../main/core/scan.js';
import type { IngestSink } from '../../../main/core/sources/source.js';
import { SqliteTranscriptSource } from '../../../main/core/sources/transcripts-sqlite.js';
import { Store } from '../../../main/core/store/db.js';
import { agentDatabasePath, OpenClawAgentDb } from '../../../main/rehearse/openclaw-db.js';
import type { DbWriterCommand, DbWriterReply } from '../../../main/rehearse/openclaw-db-writer.js';
import { seededRandom } from '../../../main/rehearse/records.js';
import { SessionScript } from '../../../main/rehearse/workload.js';
import { until } from '../../helpers/transcripts.js';

const WRITER = fileURLToPath(new URL('../../../dist/main/rehearse/openclaw-db-writer.js', import.meta.url));

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

function startSource(
  options: { log?: Logger; maxSchemaVersion?: number; onStored?: (calls: CallEvent[]) => void } = {},
) {
  source = new SqliteTranscriptSource({
    stateDir,
    sink: sinkOf(store),
    cutoff: 0,
    reconcileIntervalMs: 200,
    maxSchemaVersion: options.maxSchemaVersion ?? 19,
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

describe('SqliteTranscriptSource', () => {
  it('reads every event exactly once while a separate process writes, checkpoints, holds a long write, VACUUMs and replaces the file', async () => {
    const write = startWriter();
    await write({ kind: 'open', path: agentDatabasePath(stateDir, 'main'), agentId: 'main', sessions: 6 });
    const replays: string[] = [];
    startSource({
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
    expect(store.summary()).toEqual(ledger);
    // Re-reading after the VACUUM and the replacement found only calls already stored, and said so as a replay.
    expect(store.counter('ingest.duplicates')).toBe(0);
    expect(replays).toEqual(expect.arrayContaining([expect.stringMatching(/renumbered|replaced/)]));
    // The writer never waited on BreakerBar: its slowest transaction stayed far below its 5 s busy timeout.
    expect(reply.maxWriteMs).toBeLessThan(1000);
    expect(source?.status().lastError ?? null).toBeNull();
  }, 60_000);

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
    startSource();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const first = writeSessions('first', 1, 5);
    await until(() => storedCalls() === first.calls);
    const second = writeSessions('second', 2, 5);
    await until(() => storedCalls() === first.calls + second.calls);
    first.db.close();
    second.db.close();
  });

  it('reports a newer schema version clearly and reads nothing from it', async () => {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (msg) => warnings.push(msg) };
    const { db } = writeSessions('main', 1, 5, 20);
    db.close();
    startSource({ log });
    await until(() => warnings.length > 0);
    expect(warnings[0]).toMatch(/schema version 20, newer than the newest BreakerBar knows \(19\); not read/);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(storedCalls()).toBe(0);
    expect(warnings).toHaveLength(1);
    expect(source?.databases()[0]?.refused).toMatch(/schema version 20/);
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

  it('agrees with scan on the same databases', async () => {
    writeSessions('a', 2, 10).db.close();
    writeSessions('b', 1, 10).db.close();
    startSource();
    const expected = scan([stateDir]);
    await until(() => storedCalls() === expected.calls);
    const { calls, outcomes, byDependency, tokens } = expected;
    expect(store.summary()).toEqual({ calls, outcomes, byDependency, tokens });
    expect(expected.bySource.sqlite.databases).toBe(2);
  });

  it('a database file that is not SQLite is reported, not fatal', async () => {
    const path = agentDatabasePath(stateDir, 'main');
    writeSessions('main', 1, 1).db.close();
    for (const suffix of ['-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    unlinkSync(path);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, 'this is not a database');
    startSource();
    await until(() => (source?.status().lastError ?? '') !== '');
    expect(source?.status().lastError).toMatch(/not a database/);
  });
});
