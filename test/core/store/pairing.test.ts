/**
 * Calls and turns in the store: a transcript record is a turn; a successful record
 * is also a call; a failed record and the failed log attempt that reports the same
 * upstream request pair into one call, whichever arrives first. Re-reads are
 * duplicates, records OpenClaw wrote itself are turns only, refused turns are
 * turns only, and a run's record names the agent of its attempts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyOutcomeCounts, type Outcome } from '../../../main/core/calls/classify.js';
import type { CallEvent, TurnEvent, TurnOutcome } from '../../../main/core/calls/events.js';
import { TURN_OUTCOMES } from '../../../main/core/calls/summary.js';
import { Store } from '../../../main/core/store/db.js';
import { callEvent, tokenUsage } from '../../helpers/calls.js';

const T0 = Date.UTC(2026, 11, 1, 14, 42, 21, 358);
const SECOND = 1000;
const DEP = 'mock/alpha';

let tmp: string;
let store: Store;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-pairing-'));
  store = Store.open(join(tmp, 'breakerbar.sqlite'));
});

afterEach(() => {
  store.close();
  rmSync(tmp, { recursive: true, force: true });
});

let offset = 0;

/** A failed upstream attempt as the gateway-log source emits it (agent unknown until the record names it). */
function attempt(over: Partial<CallEvent> = {}): CallEvent {
  offset += 512;
  return callEvent({
    key: `gatewaylog/64769:1234:9f86d081884c7d65@${offset}`,
    ts: T0,
    source: 'gatewaylog',
    agentId: 'unknown',
    sessionId: 'unknown',
    dep: DEP,
    api: 'openai-completions',
    stopReason: null,
    outcome: 'rate_limited',
    phase: 'before_output',
    httpStatus: 429,
    retryAfterMs: 1000,
    role: 'attempt',
    runId: null,
    ...over,
  });
}

let entry = 0;

/** A transcript's assistant record (a failed one unless `outcome` says otherwise). */
function record(over: Partial<CallEvent> = {}): CallEvent {
  const ts = over.ts ?? T0 + SECOND;
  entry++;
  return callEvent({
    key: `main/e${entry}@${ts}`,
    ts,
    source: 'jsonl',
    agentId: 'main',
    sessionId: 's1',
    dep: DEP,
    api: 'openai-completions',
    outcome: 'rate_limited',
    httpStatus: 429,
    retryAfterMs: 2000,
    usage: tokenUsage(0),
    role: 'record',
    runId: null,
    ...over,
  });
}

function refused(over: Partial<TurnEvent> = {}): TurnEvent {
  return {
    key: 'gatewaylog/64769:1234:9f86d081884c7d65@99999',
    ts: T0,
    source: 'gatewaylog',
    agentId: 'main',
    sessionId: 's1',
    runId: null,
    dep: 'mock',
    outcome: 'refused',
    reason: 'Provider "mock" is temporarily disabled',
    ...over,
  };
}

interface CallRow {
  key: string;
  ts: number;
  source: string;
  agentId: string;
  sessionId: string;
  dep: string;
  outcome: string;
  httpStatus: number | null;
  retryAfterMs: number | null;
  tokens: number;
  role: string | null;
  runId: string | null;
  pairedWith: string | null;
}

function calls(): CallRow[] {
  return store.db
    .prepare(
      `SELECT event_key AS key, ts, source, agent_id AS agentId, session_id AS sessionId, dep, outcome,
         http_status AS httpStatus, retry_after_ms AS retryAfterMs, tokens_total AS tokens, role, run_id AS runId,
         paired_with AS pairedWith
       FROM calls ORDER BY id`,
    )
    .all() as CallRow[];
}

function turns(): Array<{ key: string; dep: string; outcome: string; agentId: string; tokens: number }> {
  return store.db
    .prepare('SELECT turn_key AS key, dep, outcome, agent_id AS agentId, tokens_total AS tokens FROM turns ORDER BY id')
    .all() as Array<{ key: string; dep: string; outcome: string; agentId: string; tokens: number }>;
}

const commit = (...events: CallEvent[]) => store.commit({ events });

function outcomes(counts: Partial<Record<Outcome, number>>): Record<Outcome, number> {
  return { ...emptyOutcomeCounts(), ...counts };
}

function turnOutcomes(counts: Partial<Record<TurnOutcome, number>>): Record<TurnOutcome, number> {
  return { ...Object.fromEntries(TURN_OUTCOMES.map((o) => [o, 0])), ...counts } as Record<TurnOutcome, number>;
}

describe('a failed record and its log attempt pair into one call', () => {
  it('attempt first, then record: one call with the attempt’s fields, one turn', () => {
    const a = attempt({ ts: T0, runId: 'run-1' });
    const r = record({ ts: T0 + SECOND, runId: 'run-1' });

    expect(commit(a)).toEqual({ inserted: 1, duplicates: 0, stored: [a], turns: 0 });
    expect(commit(r)).toEqual({ inserted: 0, duplicates: 0, stored: [], turns: 1 });

    expect(calls()).toEqual([
      {
        key: a.key,
        ts: T0,
        source: 'gatewaylog',
        // Adopted from the run's record.
        agentId: 'main',
        sessionId: 's1',
        dep: DEP,
        outcome: 'rate_limited',
        httpStatus: 429,
        retryAfterMs: 1000,
        tokens: 0,
        role: 'attempt',
        runId: 'run-1',
        pairedWith: r.key,
      },
    ]);
    expect(turns()).toEqual([{ key: r.key, dep: DEP, outcome: 'rate_limited', agentId: 'main', tokens: 0 }]);
    expect(store.counter('ingest.duplicates')).toBe(0);
  });

  it('record first, then attempt: one call (the record’s), the attempt is its other half', () => {
    const r = record({ ts: T0 + SECOND });
    const a = attempt({ ts: T0 });

    expect(commit(r)).toEqual({ inserted: 1, duplicates: 0, stored: [r], turns: 1 });
    expect(commit(a)).toEqual({ inserted: 0, duplicates: 0, stored: [], turns: 0 });

    const rows = calls();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      key: r.key,
      source: 'jsonl',
      role: 'record',
      retryAfterMs: 2000,
      pairedWith: a.key,
    });
    expect(turns()).toHaveLength(1);
  });

  it('attempt and record in the same batch pair too', () => {
    const a = attempt({ ts: T0 });
    const r = record({ ts: T0 + SECOND });
    expect(commit(a, r)).toEqual({ inserted: 1, duplicates: 0, stored: [a], turns: 1 });
    expect(calls().map((row) => [row.key, row.pairedWith])).toEqual([[a.key, r.key]]);
  });

  it('two runs interleaved, same dependency and outcome 30 s apart: exactly two calls, each run paired with its own', () => {
    const a1 = attempt({ ts: T0, runId: 'run-1' });
    const a2 = attempt({ ts: T0 + 30 * SECOND, runId: 'run-2' });
    // Run 1 ends after run 2's attempt: nearest in time is run 2's attempt, the run id says otherwise.
    const r1 = record({ ts: T0 + 31 * SECOND, runId: 'run-1' });
    const r2 = record({ ts: T0 + 32 * SECOND, runId: 'run-2' });

    commit(a1);
    commit(a2);
    commit(r1);
    commit(r2);

    expect(calls().map((row) => [row.key, row.runId, row.pairedWith])).toEqual([
      [a1.key, 'run-1', r1.key],
      [a2.key, 'run-2', r2.key],
    ]);
    expect(turns()).toHaveLength(2);
    expect(store.summary().calls).toBe(2);
  });

  it('two runs interleaved without run ids, records first: exactly two calls', () => {
    const r1 = record({ ts: T0 + SECOND });
    const r2 = record({ ts: T0 + 31 * SECOND });
    const a1 = attempt({ ts: T0 });
    const a2 = attempt({ ts: T0 + 30 * SECOND });

    commit(r1, r2);
    commit(a1);
    commit(a2);

    expect(calls().map((row) => [row.key, row.pairedWith])).toEqual([
      [r1.key, a1.key],
      [r2.key, a2.key],
    ]);
  });

  it('two runs interleaved line by line (attempt, attempt, record, record): exactly two calls', () => {
    const a1 = attempt({ ts: T0 });
    const a2 = attempt({ ts: T0 + 30 * SECOND });
    const r1 = record({ ts: T0 + SECOND });
    const r2 = record({ ts: T0 + 31 * SECOND });
    commit(a1, a2, r1, r2);
    expect(calls().map((row) => [row.key, row.pairedWith])).toEqual([
      [a1.key, r1.key],
      [a2.key, r2.key],
    ]);
  });

  // BUG (main/core/store/db.ts, attemptForRecord / recordForAttempt, `ORDER BY (run_id IS NOT NULL AND
  // run_id = @runId) DESC, abs(ts - @ts)`): when the arriving event has no run id (@runId NULL), the first
  // sort key is NULL for every candidate that has a run id and 0 for every candidate without one; SQLite
  // sorts NULL last in DESC, so any candidate without a run id wins over a nearer one with a run id. Input
  // below: a record without run id at T0+61s, an attempt with run id 'run-1' at T0+60s and one without at
  // T0; the record pairs with the far attempt at T0 instead of the nearest at T0+60s. Should: with no
  // run id to match, the nearest wins (e.g. `coalesce(run_id = @runId, 0) DESC`).
  it('a record without run id pairs with the nearest attempt, whether or not the attempt has a run id', () => {
    const far = attempt({ ts: T0, runId: null });
    const near = attempt({ ts: T0 + 60 * SECOND, runId: 'run-1' });
    const r = record({ ts: T0 + 61 * SECOND, runId: null });
    commit(far, near);
    commit(r);
    expect(calls().map((row) => [row.key, row.pairedWith])).toEqual([
      [far.key, null],
      [near.key, r.key],
    ]);
  });

  // BUG: the same ORDER BY in recordForAttempt. An attempt without run id at T0+5s, a record with run id
  // 'run-1' at T0+6s and one without run id at T0+100s (both in its window): the attempt pairs with the far
  // record at T0+100s; it should pair with the nearest, at T0+6s.
  it('an attempt without run id pairs with the nearest record, whether or not the record has a run id', () => {
    const near = record({ ts: T0 + 6 * SECOND, runId: 'run-1' });
    const far = record({ ts: T0 + 100 * SECOND, runId: null });
    const a = attempt({ ts: T0 + 5 * SECOND, runId: null });
    commit(near, far);
    commit(a);
    expect(calls().map((row) => [row.key, row.pairedWith])).toEqual([
      [near.key, a.key],
      [far.key, null],
    ]);
  });

  it('an attempt and a record with different outcomes never pair', () => {
    const a = attempt({ ts: T0, outcome: 'rate_limited' });
    const r = record({ ts: T0 + SECOND, outcome: 'timeout', httpStatus: null });
    commit(a);
    expect(commit(r).stored).toEqual([r]);
    const r2 = record({ ts: T0 + 2 * SECOND, outcome: 'server_error', httpStatus: 503 });
    const a2 = attempt({ ts: T0 + 2 * SECOND, outcome: 'overloaded', httpStatus: 529 });
    commit(r2);
    expect(commit(a2).stored).toEqual([a2]);
    expect(calls().map((row) => [row.key, row.pairedWith])).toEqual([
      [a.key, null],
      [r.key, null],
      [r2.key, null],
      [a2.key, null],
    ]);
  });

  it('an attempt of another dependency never pairs', () => {
    commit(attempt({ ts: T0, dep: 'mock/beta' }));
    commit(record({ ts: T0 + SECOND }));
    expect(calls().map((row) => row.pairedWith)).toEqual([null, null]);
  });

  it('pairs at the edges of the window [record − 120 s, record + 10 s], never outside it (attempt first)', () => {
    const recordTs = T0 + 200 * SECOND;
    const edgeBefore = attempt({ ts: recordTs - 120_000 });
    const edgeAfter = attempt({ ts: recordTs + 10_000 });
    commit(edgeBefore, edgeAfter);
    const r1 = record({ ts: recordTs });
    const r2 = record({ ts: recordTs });
    commit(r1);
    commit(r2);
    // r1 takes the nearer one (10 s after it), r2 the one 120 s before.
    expect(calls().map((row) => row.pairedWith)).toEqual([r2.key, r1.key]);
  });

  it('outside the window never pairs, attempt first', () => {
    const recordTs = T0 + 200 * SECOND;
    const tooEarly = attempt({ ts: recordTs - 120_001 });
    const tooLate = attempt({ ts: recordTs + 10_001 });
    commit(tooEarly, tooLate);
    const r = record({ ts: recordTs });
    expect(commit(r)).toEqual({ inserted: 1, duplicates: 0, stored: [r], turns: 1 });
    expect(calls().map((row) => row.pairedWith)).toEqual([null, null, null]);
  });

  it('outside the window never pairs, record first', () => {
    const recordTs = T0 + 200 * SECOND;
    commit(record({ ts: recordTs }));
    const tooEarly = attempt({ ts: recordTs - 120_001 });
    const tooLate = attempt({ ts: recordTs + 10_001 });
    expect(commit(tooEarly).stored).toEqual([tooEarly]);
    expect(commit(tooLate).stored).toEqual([tooLate]);
    expect(calls()).toHaveLength(3);
    expect(calls().map((row) => row.pairedWith)).toEqual([null, null, null]);
  });

  it('an attempt pairs once: a second failed record of the same kind is a call of its own', () => {
    const a = attempt({ ts: T0 });
    const r1 = record({ ts: T0 + SECOND });
    const r2 = record({ ts: T0 + 2 * SECOND });
    commit(a);
    expect(commit(r1).stored).toEqual([]);
    expect(commit(r2).stored).toEqual([r2]);
    expect(calls().map((row) => [row.key, row.pairedWith])).toEqual([
      [a.key, r1.key],
      [r2.key, null],
    ]);
  });

  it('a role-less failed call (a fallback decision) never pairs with a record', () => {
    const fallback = callEvent({
      key: 'gatewaylog/x@1',
      ts: T0,
      source: 'gatewaylog',
      dep: DEP,
      outcome: 'rate_limited',
    });
    commit(fallback);
    const r = record({ ts: T0 + SECOND });
    expect(commit(r).stored).toEqual([r]);
    expect(calls()).toHaveLength(2);
  });
});

describe('duplicates', () => {
  it('the same record committed twice: the second is a duplicate, its turn stored once', () => {
    const r = record({ outcome: 'ok', httpStatus: null, retryAfterMs: null, usage: tokenUsage(120) });
    expect(commit(r)).toEqual({ inserted: 1, duplicates: 0, stored: [r], turns: 1 });
    expect(commit({ ...r })).toEqual({ inserted: 0, duplicates: 1, stored: [], turns: 0 });
    expect(store.counter('ingest.duplicates')).toBe(1);
    expect(calls()).toHaveLength(1);
    expect(turns()).toEqual([{ key: r.key, dep: DEP, outcome: 'ok', agentId: 'main', tokens: 120 }]);
  });

  it('a paired record committed again is a duplicate, not a call', () => {
    const a = attempt({ ts: T0 });
    const r = record({ ts: T0 + SECOND });
    commit(a);
    commit(r);
    expect(commit(r)).toEqual({ inserted: 0, duplicates: 1, stored: [], turns: 0 });
    expect(store.counter('ingest.duplicates')).toBe(1);
    expect(calls()).toHaveLength(1);
    expect(turns()).toHaveLength(1);
  });

  it('a replayed record is not counted as a duplicate', () => {
    const r = record();
    commit(r);
    expect(store.commit({ events: [r], replay: true })).toEqual({ inserted: 0, duplicates: 1, stored: [], turns: 0 });
    expect(store.counter('ingest.duplicates')).toBe(0);
    expect(turns()).toHaveLength(1);
  });

  it('the same attempt twice: a duplicate', () => {
    const a = attempt();
    commit(a);
    expect(commit({ ...a })).toEqual({ inserted: 0, duplicates: 1, stored: [], turns: 0 });
    expect(store.counter('ingest.duplicates')).toBe(1);
    expect(calls()).toHaveLength(1);
  });

  it('the same attempt again after it was paired (attempt first): a duplicate', () => {
    const a = attempt({ ts: T0 });
    commit(a);
    commit(record({ ts: T0 + SECOND }));
    expect(commit({ ...a })).toEqual({ inserted: 0, duplicates: 1, stored: [], turns: 0 });
    expect(calls()).toHaveLength(1);
  });

  it('the same attempt again after it was paired as the second half (record first): a duplicate, not a new call', () => {
    const r = record({ ts: T0 + SECOND });
    const a = attempt({ ts: T0 });
    commit(r);
    expect(commit(a).duplicates).toBe(0);
    // A second failed record in the window would be a free partner: the re-read must not pair with it either.
    commit(record({ ts: T0 + 2 * SECOND }));
    expect(commit({ ...a })).toEqual({ inserted: 0, duplicates: 1, stored: [], turns: 0 });
    expect(store.counter('ingest.duplicates')).toBe(1);
    expect(calls().map((row) => row.pairedWith)).toEqual([a.key, null]);
  });

  it('a replayed attempt is a duplicate but not counted', () => {
    const a = attempt();
    commit(a);
    expect(store.commit({ events: [a], replay: true }).duplicates).toBe(1);
    expect(store.counter('ingest.duplicates')).toBe(0);
  });
});

describe('turns that are not calls, calls that are not turns', () => {
  it('an ok record is a call and a turn', () => {
    const r = record({ outcome: 'ok', httpStatus: null, retryAfterMs: null, usage: tokenUsage(300, 250) });
    expect(commit(r)).toEqual({ inserted: 1, duplicates: 0, stored: [r], turns: 1 });
    expect(calls()).toEqual([
      {
        key: r.key,
        ts: r.ts,
        source: 'jsonl',
        agentId: 'main',
        sessionId: 's1',
        dep: DEP,
        outcome: 'ok',
        httpStatus: null,
        retryAfterMs: null,
        tokens: 300,
        role: 'record',
        runId: null,
        pairedWith: null,
      },
    ]);
    expect(turns()).toEqual([{ key: r.key, dep: DEP, outcome: 'ok', agentId: 'main', tokens: 300 }]);
  });

  it('an ok record never pairs with a failed attempt', () => {
    commit(attempt({ ts: T0 }));
    const r = record({ ts: T0 + SECOND, outcome: 'ok', httpStatus: null });
    expect(commit(r).stored).toEqual([r]);
    expect(calls().map((row) => row.pairedWith)).toEqual([null, null]);
  });

  it('a record with upstream: false is a turn only, and takes no attempt as its pair', () => {
    const a = attempt({ ts: T0, outcome: 'context_overflow', httpStatus: 400 });
    commit(a);
    const notice = record({ ts: T0 + SECOND, outcome: 'context_overflow', httpStatus: null, upstream: false });
    expect(commit(notice)).toEqual({ inserted: 0, duplicates: 0, stored: [], turns: 1 });
    expect(calls().map((row) => [row.key, row.pairedWith])).toEqual([[a.key, null]]);
    expect(turns().map((t) => [t.key, t.outcome])).toEqual([[notice.key, 'context_overflow']]);
    // Read again: a duplicate like any record.
    expect(commit(notice)).toEqual({ inserted: 0, duplicates: 1, stored: [], turns: 0 });
  });

  it('an attempt arriving after an upstream: false record does not pair with it', () => {
    commit(record({ ts: T0 + SECOND, outcome: 'context_overflow', httpStatus: null, upstream: false }));
    const a = attempt({ ts: T0, outcome: 'context_overflow', httpStatus: 400 });
    expect(commit(a).stored).toEqual([a]);
  });

  it('a refused TurnEvent is a turn, never a call; committed again it is stored once', () => {
    const turn = refused();
    expect(store.commit({ events: [], turns: [turn] })).toEqual({ inserted: 0, duplicates: 0, stored: [], turns: 1 });
    expect(store.commit({ events: [], turns: [turn] }).turns).toBe(0);
    expect(calls()).toEqual([]);
    expect(store.db.prepare('SELECT turn_key AS key, dep, outcome, reason, run_id AS runId FROM turns').all()).toEqual([
      { key: turn.key, dep: 'mock', outcome: 'refused', reason: turn.reason, runId: null },
    ]);
  });
});

describe('summary', () => {
  it('counts calls (upstream requests) and turns (run outcomes) separately', () => {
    const a = attempt({ ts: T0 });
    const paired = record({ ts: T0 + SECOND });
    const ok = record({ ts: T0 + 2 * SECOND, outcome: 'ok', httpStatus: null, usage: tokenUsage(500) });
    const notice = record({ ts: T0 + 3 * SECOND, outcome: 'context_overflow', httpStatus: null, upstream: false });
    // A retry the run recovered from: an attempt with no record of its own.
    const retried = attempt({ ts: T0 + 4 * SECOND, outcome: 'timeout', httpStatus: null, retryAfterMs: null });
    store.commit({ events: [a, paired, ok, notice, retried], turns: [refused({ ts: T0 + 5 * SECOND })] });

    const summary = store.summary();
    expect(summary.calls).toBe(3);
    expect(summary.outcomes).toEqual(outcomes({ rate_limited: 1, ok: 1, timeout: 1 }));
    expect(summary.byDependency).toEqual({ [DEP]: outcomes({ rate_limited: 1, ok: 1, timeout: 1 }) });
    expect(summary.tokens).toBe(500);
    expect(summary.turns.turns).toBe(4);
    expect(summary.turns.outcomes).toEqual(turnOutcomes({ rate_limited: 1, ok: 1, context_overflow: 1, refused: 1 }));
    expect(summary.turns.byDependency).toEqual({
      mock: turnOutcomes({ refused: 1 }),
      [DEP]: turnOutcomes({ rate_limited: 1, ok: 1, context_overflow: 1 }),
    });
    expect(Object.keys(summary.turns.byDependency)).toEqual(['mock', DEP]);
    expect(summary.turns.tokens).toBe(500);
  });

  it('counts within the time range only', () => {
    commit(record({ ts: T0, outcome: 'ok', httpStatus: null }));
    commit(record({ ts: T0 + 60 * SECOND, outcome: 'ok', httpStatus: null }));
    const summary = store.summary({ since: T0 + SECOND, until: T0 + 120 * SECOND });
    expect(summary.calls).toBe(1);
    expect(summary.turns.turns).toBe(1);
  });
});

describe('a run’s record names the agent of its attempts', () => {
  it('attempts of the run with agent "unknown" take the record’s agent and session', () => {
    const a = attempt({ ts: T0, runId: 'R' });
    const retry = attempt({ ts: T0 + 5 * SECOND, runId: 'R', outcome: 'timeout', httpStatus: null });
    const other = attempt({ ts: T0, runId: 'other-run' });
    commit(a, retry, other);
    // A different outcome: the record pairs with neither attempt of its run, and still names their agent.
    commit(record({ ts: T0 + 10 * SECOND, runId: 'R', agentId: 'main', sessionId: 's1', outcome: 'server_error' }));

    const byKey = (key: string) =>
      store.db
        .prepare('SELECT agent_id AS agentId, session_id AS sessionId, run_id AS runId FROM calls WHERE event_key = ?')
        .get(key);
    expect(byKey(a.key)).toEqual({ agentId: 'main', sessionId: 's1', runId: 'R' });
    expect(byKey(retry.key)).toEqual({ agentId: 'main', sessionId: 's1', runId: 'R' });
    expect(byKey(other.key)).toEqual({ agentId: 'unknown', sessionId: 'unknown', runId: 'other-run' });
  });

  it('an attempt that already names its agent keeps it', () => {
    const a = attempt({ ts: T0, runId: 'R', agentId: 'ops', sessionId: 'ops-1' });
    commit(a);
    commit(record({ ts: T0 + SECOND, runId: 'R', outcome: 'ok', httpStatus: null }));
    expect(
      store.db.prepare('SELECT agent_id AS agentId, session_id AS sessionId FROM calls WHERE event_key = ?').get(a.key),
    ).toEqual({ agentId: 'ops', sessionId: 'ops-1' });
  });

  it('a record without run id adopts nothing', () => {
    const a = attempt({ ts: T0, runId: null });
    commit(a);
    commit(record({ ts: T0 + SECOND, runId: null, outcome: 'ok', httpStatus: null }));
    expect(store.db.prepare('SELECT agent_id AS agentId FROM calls WHERE event_key = ?').get(a.key)).toEqual({
      agentId: 'unknown',
    });
  });
});

describe('CommitResult.stored: what breakers see', () => {
  it('holds exactly the new calls, in batch order: not duplicates, not second halves, not turn-only records', () => {
    const earlier = attempt({ ts: T0 - 500 * SECOND });
    commit(earlier);

    const a = attempt({ ts: T0, runId: 'R' });
    const secondHalf = record({ ts: T0 + SECOND, runId: 'R' });
    const ok = record({ ts: T0 + 2 * SECOND, outcome: 'ok', httpStatus: null });
    const notice = record({ ts: T0 + 3 * SECOND, outcome: 'context_overflow', httpStatus: null, upstream: false });
    const lonelyRecord = record({ ts: T0 + 4 * SECOND, outcome: 'billing', httpStatus: 402 });
    const result = store.commit({
      events: [a, secondHalf, { ...earlier }, ok, notice, lonelyRecord],
      turns: [refused()],
    });

    expect(result.stored).toEqual([a, ok, lonelyRecord]);
    expect(result.stored[0]).toBe(a);
    expect(result.inserted).toBe(3);
    expect(result.duplicates).toBe(1);
    // secondHalf, ok, notice, lonelyRecord, and the refused turn.
    expect(result.turns).toBe(5);
    expect(calls().map((row) => row.key)).toEqual([earlier.key, a.key, ok.key, lonelyRecord.key]);
  });
});
