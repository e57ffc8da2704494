/**
 * A stand-in for the gateway's writer, in its own process: appends sessions to
 * an OpenClaw agent database on command, and can checkpoint, hold a long write
 * transaction, VACUUM, or replace the file. Reports what it wrote (a ledger of
 * calls) and how long its own writes took, so tests can prove that a reader
 * neither missed nor double-counted anything and never made the writer wait.
 */
import { renameSync, rmSync } from 'node:fs';
import { CallTally, TurnTally } from '../core/calls/summary.js';
import { OpenClawAgentDb } from './openclaw-db.js';
import { seededRandom } from './records.js';
import { SessionScript } from './workload.js';

export type DbWriterCommand =
  | { kind: 'open'; path: string; agentId: string; sessions: number; seed?: number }
  | { kind: 'steady'; turns: number; gapMs: number }
  | { kind: 'checkpoint' }
  | { kind: 'hold'; ms: number; turns: number }
  | { kind: 'vacuum'; dropSessions: number }
  | { kind: 'replace'; turns: number }
  | { kind: 'ledger' };

export interface DbWriterReply {
  ok: boolean;
  error?: string;
  /** Slowest write transaction so far, ms: a reader that blocked the writer shows here. */
  maxWriteMs: number;
  checkpoint?: { busy: number; log: number; checkpointed: number };
  ledger?: ReturnType<CallTally['summary']>;
}

const DEPS = ['zhipu/glm-5.1', 'deepseek/deepseek-v4-pro', 'anthropic/claude-sonnet-4-5'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class Writer {
  private db: OpenClawAgentDb | null = null;
  private path = '';
  private agentId = '';
  private random = seededRandom(1);
  private readonly sessions: SessionScript[] = [];
  private readonly ledger = new CallTally();
  /** Every record written is a turn too (no gateway log here: each is also a call). */
  private readonly turnLedger = new TurnTally();
  private clock = Date.now() - 3600_000;
  maxWriteMs = 0;

  open(path: string, agentId: string, sessions: number, seed: number): void {
    this.path = path;
    this.agentId = agentId;
    this.random = seededRandom(seed);
    this.db = new OpenClawAgentDb(path);
    for (let i = 0; i < sessions; i++) {
      const id = `${agentId}-s${i}-0000-4000-8000-000000000000`;
      const script = new SessionScript(id, this.random, { deps: DEPS, failureRate: 0.3, textChars: 800 });
      this.sessions.push(script);
      this.timed(() => this.database.append(id, agentId, [script.header(this.clock)]));
    }
  }

  private get database(): OpenClawAgentDb {
    if (!this.db) throw new Error('open first');
    return this.db;
  }

  /** One user turn appended to a random session, in one transaction. */
  turn(): void {
    const script = this.sessions[Math.floor(this.random() * this.sessions.length)] as SessionScript;
    this.clock += 1000;
    const turn = script.turn(this.clock);
    for (const call of turn.calls) {
      this.ledger.add(call.dep, call.outcome, call.totalTokens);
      this.turnLedger.add(call.dep, call.outcome, call.totalTokens);
    }
    this.timed(() => this.database.append(script.sessionId, this.agentId, turn.lines));
  }

  async steady(turns: number, gapMs: number): Promise<void> {
    for (let i = 0; i < turns; i++) {
      this.turn();
      await sleep(gapMs);
    }
  }

  /** A write transaction held open for `ms`, as a slow gateway write would be. */
  async hold(ms: number, turns: number): Promise<void> {
    const db = this.database.db;
    db.exec('BEGIN IMMEDIATE');
    try {
      for (let i = 0; i < turns; i++) this.turn();
      await sleep(ms);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }

  /** Deletes whole sessions (their calls stay in the ledger: they happened) and VACUUMs, renumbering rows. */
  vacuum(dropSessions: number): void {
    const dropped = this.sessions.splice(0, dropSessions);
    const db = this.database.db;
    for (const script of dropped) db.prepare('DELETE FROM session_windows WHERE session_id = ?').run(script.sessionId);
    db.exec('VACUUM');
  }

  /** Replaces the database file with a compacted copy plus new turns: new inode, new rowids. */
  replace(turns: number): void {
    const copy = `${this.path}.replacement`;
    rmSync(copy, { force: true });
    this.database.db.prepare('VACUUM INTO ?').run(copy);
    this.database.close();
    for (const suffix of ['-wal', '-shm']) rmSync(`${this.path}${suffix}`, { force: true });
    renameSync(copy, this.path);
    this.db = new OpenClawAgentDb(this.path);
    for (let i = 0; i < turns; i++) this.turn();
  }

  checkpoint() {
    return this.database.checkpoint('TRUNCATE');
  }

  summary() {
    return this.ledger.summary(this.turnLedger.summary());
  }

  private timed(write: () => void): void {
    const start = performance.now();
    write();
    this.maxWriteMs = Math.max(this.maxWriteMs, performance.now() - start);
  }
}

const writer = new Writer();

async function run(command: DbWriterCommand): Promise<Partial<DbWriterReply>> {
  switch (command.kind) {
    case 'open':
      writer.open(command.path, command.agentId, command.sessions, command.seed ?? 1);
      return {};
    case 'steady':
      await writer.steady(command.turns, command.gapMs);
      return {};
    case 'checkpoint':
      return { checkpoint: writer.checkpoint() };
    case 'hold':
      await writer.hold(command.ms, command.turns);
      return {};
    case 'vacuum':
      writer.vacuum(command.dropSessions);
      return {};
    case 'replace':
      writer.replace(command.turns);
      return {};
    case 'ledger':
      return { ledger: writer.summary() };
  }
}

process.on('message', (command: DbWriterCommand) => {
  run(command).then(
    (reply) => process.send?.({ ok: true, maxWriteMs: writer.maxWriteMs, ...reply }),
    (error: Error) => process.send?.({ ok: false, error: error.message, maxWriteMs: writer.maxWriteMs }),
  );
});
