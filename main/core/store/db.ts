/**
 * The store's typed operations over BreakerBar's database: the writes and reads the rest of the core
 * needs. Every write that records reading progress goes through `commit`, which stores events and the
 * cursor that produced them in one transaction: that is what makes ingestion exactly-once.
 */
import { breakerReasonLine, decodeBreakerReason, encodeBreakerReason } from '../../words/breaker-reasons.js';
import type { OperatorAction, Transition } from '../breaker/types.js';
import type { Outcome, Phase } from '../calls/classify.js';
import type { CallEvent, SourceKind, TurnOutcome } from '../calls/events.js';
import { PAIR_AFTER_MS, PAIR_BEFORE_MS } from '../calls/pairing.js';
import { type CallSummary, CallTally, TurnTally } from '../calls/summary.js';
import { legacyRecordKey } from '../sources/record-key.js';
import type { Batch, CommitResult, Cursor } from './batch.js';
import { type Db, openDatabase } from './database.js';
import { LEGACY_KEYS_META, TIMED_TABLES } from './migrations.js';
import { callValues, INSERT_CALL_SQL, INSERT_TURN_SQL, recordTurnValues, signalValues, whole } from './rows.js';

/** Ends `tryGrowth`'s transaction: thrown to roll it back. */
class GrowthTried extends Error {}

/** What became of one event in a commit. */
type Ingested = 'stored' | 'duplicate' | 'paired' | 'turn_only';

export interface TimeRange {
  since?: number;
  until?: number;
}

export interface StoredControl {
  ts: number;
  dep: string;
  action: OperatorAction;
  reason: string;
}

/** A stored call, as much of it as the breakers need. */
export interface ReplayCall {
  ts: number;
  dep: string;
  provider: string;
  credential: string | null;
  agentId: string;
  sessionId: string;
  outcome: Outcome;
  phase: Phase;
  retryAfterMs: number | null;
}

export interface MinuteCount {
  minute: number;
  dep: string;
  outcome: Outcome;
  count: number;
}

/**
 * The nearest unpaired other half of a failed call, the same run first (failures only: the outcome must
 * match, and a log attempt is always a failure). The role and `outcome != 'ok'` are literals so that the
 * index on unpaired failed calls by role serves the look-up: each look visits only candidates of the other
 * role, however many calls of its own role are waiting.
 */
export const PAIRING_SQL = {
  attemptForRecord: `
    SELECT id FROM calls WHERE role = 'attempt' AND paired_with IS NULL AND outcome != 'ok'
      AND dep = @dep AND outcome = @outcome AND ts BETWEEN @ts - ${PAIR_BEFORE_MS} AND @ts + ${PAIR_AFTER_MS}
    ORDER BY coalesce(run_id = @runId, 0) DESC, abs(ts - @ts) LIMIT 1`,
  recordForAttempt: `
    SELECT id FROM calls WHERE role = 'record' AND paired_with IS NULL AND outcome != 'ok'
      AND dep = @dep AND outcome = @outcome AND ts BETWEEN @ts - ${PAIR_AFTER_MS} AND @ts + ${PAIR_BEFORE_MS}
    ORDER BY coalesce(run_id = @runId, 0) DESC, abs(ts - @ts) LIMIT 1`,
} as const;

/** The store's typed operations over an open database. */
/**
 * A stored transition read back: its `reason` column holds the code and facts (or, in a row from before
 * reasons were codes, an English line), read into `why` and worded as the engine's line into `reason`.
 */
export function storedTransition<T extends Transition>(row: T): T {
  const why = decodeBreakerReason(row.reason);
  return { ...row, why, reason: breakerReasonLine(why) };
}

export class Store {
  private readonly insertCall;
  private readonly insertTurn;
  private readonly knownAttempt;
  private readonly attemptForRecord;
  private readonly recordForAttempt;
  private readonly pair;
  private readonly adoptRun;
  private readonly insertSignal;
  private readonly upsertCursor;
  private readonly deleteCursor;
  private readonly bumpMeta;
  private readonly commitTx;
  private readonly commitAllTx;
  /** Records up to this time may be stored under their old keys (migration 12); null: none can be. */
  private readonly legacyKeysUntil: number | null;
  private readonly knownLegacyRecord;

  constructor(readonly db: Db) {
    // The statements run for every call bind their values by position: binding a row object by name (built
    // by spreading the event) cost three times the insert itself (measured: ~30 µs a row against ~10).
    this.insertCall = db.prepare(INSERT_CALL_SQL);
    this.insertTurn = db.prepare(INSERT_TURN_SQL);
    this.knownAttempt = db.prepare('SELECT 1 FROM calls WHERE event_key = ? OR paired_with = ? LIMIT 1').pluck();
    const legacyUntil = this.getMeta(LEGACY_KEYS_META);
    this.legacyKeysUntil = legacyUntil === undefined ? null : Number(legacyUntil);
    this.knownLegacyRecord = db
      .prepare('SELECT 1 FROM turns WHERE turn_key = ? UNION ALL SELECT 1 FROM calls WHERE event_key = ? LIMIT 1')
      .pluck();
    this.attemptForRecord = db.prepare(PAIRING_SQL.attemptForRecord);
    this.recordForAttempt = db.prepare(PAIRING_SQL.recordForAttempt);
    this.pair = db.prepare('UPDATE calls SET paired_with = ? WHERE id = ?');
    // Log lines do not name the agent; the run's transcript record does.
    this.adoptRun = db.prepare(`
      UPDATE calls SET agent_id = @agentId, session_id = @sessionId, run_id = @runId
      WHERE run_id = @runId AND agent_id = 'unknown'`);
    this.insertSignal = db.prepare(`
      INSERT INTO signals (signal_key, ts, kind, session_id, session_key, run_id, dep, candidate_dep, decision,
        reason, http_status, final_outcome, lane, duration_ms, classification, detail)
      VALUES (@key, @ts, @kind, @sessionId, @sessionKey, @runId, @dep, @candidateDep, @decision,
        @reason, @httpStatus, @finalOutcome, @lane, @durationMs, @classification, @detail)
      ON CONFLICT (signal_key) DO NOTHING`);
    this.upsertCursor = db.prepare(`
      INSERT INTO cursors (source, key, path, position, detail, updated_at)
      VALUES (@source, @key, @path, @position, @detail, @now)
      ON CONFLICT (source, key) DO UPDATE SET path = excluded.path, position = excluded.position,
        detail = excluded.detail, updated_at = excluded.updated_at`);
    this.deleteCursor = db.prepare('DELETE FROM cursors WHERE source = ? AND key = ?');
    this.bumpMeta = db.prepare(`
      INSERT INTO meta (key, value) VALUES (?, ?)
      ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + CAST(excluded.value AS INTEGER) AS TEXT)`);
    const commitBatch = (batch: Batch): CommitResult => {
      const stored: CallEvent[] = [];
      let duplicates = 0;
      let turns = 0;
      for (const event of batch.events) {
        const ingested = this.ingest(event);
        if (ingested === 'stored') stored.push(event);
        else if (ingested === 'duplicate') duplicates++;
        if (event.role === 'record' && ingested !== 'duplicate') turns++;
      }
      for (const turn of batch.turns ?? []) {
        const { key, ts, source, agentId, sessionId, runId, dep, outcome, reason } = turn;
        turns += this.insertTurn.run(
          key,
          whole(ts),
          source,
          agentId,
          sessionId,
          runId,
          dep,
          outcome,
          reason,
          0,
          0,
        ).changes;
      }
      const inserted = stored.length;
      if (duplicates > 0 && !batch.replay) this.bumpMeta.run('ingest.duplicates', String(duplicates));
      for (const signal of batch.signals ?? []) this.insertSignal.run(signalValues(signal));
      if (batch.cursor) this.upsertCursor.run({ detail: null, ...batch.cursor, now: Date.now() });
      for (const gone of batch.forget ?? []) this.deleteCursor.run(gone.source, gone.key);
      return { inserted, duplicates, stored, turns };
    };
    this.commitTx = db.transaction(commitBatch);
    // One failing batch rolls the whole transaction back (the caller then tries each on its own), so no batch
    // needs a savepoint of its own: each would copy every page it changes into a sub-journal first.
    this.commitAllTx = db.transaction((batches: readonly Batch[]) => batches.map(commitBatch));
  }

  /**
   * One event into the store. A record is a turn first (its key makes a re-read a
   * duplicate); a failed record and a failed log attempt of the same dependency and
   * outcome, close in time, are one upstream request: whichever arrives second pairs
   * with the first instead of becoming a call, so either order counts it once.
   */
  private ingest(event: CallEvent): Ingested {
    const { key, ts, agentId, sessionId, dep, outcome } = event;
    const role = event.role ?? null;
    const runId = event.runId ?? null;
    const pairing = () => ({ dep, outcome, ts, runId });
    if (role === 'record') {
      if (this.storedUnderLegacyKey(event)) return 'duplicate';
      if (this.insertTurn.run(recordTurnValues(event)).changes === 0) return 'duplicate';
      if (runId !== null) this.adoptRun.run({ agentId, sessionId, runId });
      if (event.upstream === false) return 'turn_only';
      if (outcome !== 'ok') {
        const attempt = this.attemptForRecord.get(pairing()) as { id: number } | undefined;
        if (attempt) {
          this.pair.run(key, attempt.id);
          return 'paired';
        }
      }
    } else if (role === 'attempt') {
      if (this.knownAttempt.get(key, key) !== undefined) return 'duplicate';
      const record = this.recordForAttempt.get(pairing()) as { id: number } | undefined;
      if (record) {
        this.pair.run(key, record.id);
        return 'paired';
      }
    }
    return this.insertCall.run(callValues(event)).changes > 0 ? 'stored' : 'duplicate';
  }

  /** A record this store holds under the key it had before keys put time first (record-key.ts). */
  private storedUnderLegacyKey(event: CallEvent): boolean {
    if (this.legacyKeysUntil === null || event.ts > this.legacyKeysUntil) return false;
    const legacy = legacyRecordKey(event.key);
    return legacy !== null && this.knownLegacyRecord.get(legacy, legacy) !== undefined;
  }

  static open(path: string, options: { readonly?: boolean } = {}): Store {
    return new Store(openDatabase(path, options));
  }

  /**
   * Stores events and the cursor that produced them atomically. IMMEDIATE: the write lock is taken (or waited
   * for) before the first read, so another connection writing meanwhile (the ingest writer's thread) makes
   * this wait, never fail.
   */
  commit(batch: Batch): CommitResult {
    return this.commitTx.immediate(batch);
  }

  /** Stores several batches in one transaction (IMMEDIATE, as `commit`): all of them, or none if one fails. */
  commitAll(batches: readonly Batch[]): CommitResult[] {
    return this.commitAllTx.immediate(batches);
  }

  cursors(source: SourceKind): Cursor[] {
    return this.db
      .prepare('SELECT source, key, path, position, detail FROM cursors WHERE source = ? ORDER BY key')
      .all(source) as Cursor[];
  }

  getMeta(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.db
      .prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
      .run(key, value);
  }

  /**
   * Grows the database by `bytes` and takes it back: throws SQLITE_FULL where it cannot grow (the room check of
   * a full store, see room.ts). The row never reaches the file: the transaction is rolled back.
   */
  tryGrowth(bytes = 256 * 1024): void {
    const grow = this.db.transaction(() => {
      // meta is STRICT TEXT: the bytes as text (two hex digits per byte of a zeroed blob).
      this.db.prepare("INSERT INTO meta (key, value) VALUES ('store.roomCheck', hex(zeroblob(?)))").run(bytes / 2);
      throw new GrowthTried();
    });
    try {
      grow();
    } catch (error) {
      if (!(error instanceof GrowthTried)) throw error;
    }
  }

  /** The value stored under `key`, or `value` stored now if there is none (first start). */
  getOrInitMeta(key: string, value: string): string {
    this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING').run(key, value);
    return this.getMeta(key) as string;
  }

  /**
   * Deletes history older than `before` in small batches, so the daemon's ingest
   * transactions never wait long behind a big delete.
   */
  prune(before: number, batchSize = 5000): number {
    let total = 0;
    for (const table of TIMED_TABLES) {
      const del = this.db.prepare(
        `DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE ts < ? ORDER BY ts LIMIT ?)`,
      );
      for (;;) {
        const { changes } = del.run(before, batchSize);
        total += changes;
        if (changes < batchSize) break;
      }
    }
    return total;
  }

  summary(range: TimeRange = {}): CallSummary {
    const calls = new CallTally();
    for (const row of this.countsByOutcome<Outcome>('calls', range)) calls.add(row.dep, row.outcome, row.tokens, row.n);
    const turns = new TurnTally();
    for (const row of this.countsByOutcome<TurnOutcome>('turns', range)) {
      turns.add(row.dep, row.outcome, row.tokens, row.n);
    }
    // Calls carry tokens only where a record is the call; turns carry every record's.
    return calls.summary(turns.summary());
  }

  /** Rows of `table` in the range, per dependency and outcome, with their tokens. */
  private countsByOutcome<O extends string>(
    table: 'calls' | 'turns',
    range: TimeRange,
  ): Array<{ dep: string; outcome: O; n: number; tokens: number }> {
    return this.db
      .prepare(
        `SELECT dep, outcome, count(*) AS n, coalesce(sum(tokens_total), 0) AS tokens FROM ${table}
         WHERE ts >= ? AND ts < ? GROUP BY dep, outcome`,
      )
      .all(range.since ?? Number.MIN_SAFE_INTEGER, range.until ?? Number.MAX_SAFE_INTEGER) as Array<{
      dep: string;
      outcome: O;
      n: number;
      tokens: number;
    }>;
  }

  /** Changes whenever a call or a turn is stored (their newest row ids): a cheap "anything new?". */
  changeStamp(): string {
    return String(
      this.db
        .prepare("SELECT (SELECT coalesce(max(id), 0) FROM calls) || '/' || (SELECT coalesce(max(id), 0) FROM turns)")
        .pluck()
        .get(),
    );
  }

  /** The newest turn's row id (0 when none): turns stored later have larger ids. */
  lastTurnId(): number {
    return (this.db.prepare('SELECT coalesce(max(id), 0) FROM turns').pluck().get() as number) ?? 0;
  }

  /** Turns stored after row `id`, by dependency and outcome (the metrics' since-start count). */
  turnsStoredAfter(id: number): Array<{ dep: string; outcome: TurnOutcome; n: number }> {
    return this.db
      .prepare('SELECT dep, outcome, count(*) AS n FROM turns WHERE id > ? GROUP BY dep, outcome ORDER BY dep, outcome')
      .all(id) as Array<{ dep: string; outcome: TurnOutcome; n: number }>;
  }

  /** Calls per minute, dependency and outcome: the dashboard's timeline. */
  perMinute(range: TimeRange = {}): MinuteCount[] {
    return this.db
      .prepare(
        `SELECT (ts / 60000) * 60000 AS minute, dep, outcome, count(*) AS count FROM calls
         WHERE ts >= ? AND ts < ? GROUP BY minute, dep, outcome ORDER BY minute, dep, outcome`,
      )
      .all(range.since ?? Number.MIN_SAFE_INTEGER, range.until ?? Number.MAX_SAFE_INTEGER) as MinuteCount[];
  }

  /** The newest call time per dependency among calls from `sources` since `since`. */
  recentDependencies(sources: readonly SourceKind[], since: number): Array<{ dep: string; ts: number }> {
    const placeholders = sources.map(() => '?').join(', ');
    return this.db
      .prepare(
        `SELECT dep, max(ts) AS ts FROM calls WHERE ts >= ? AND source IN (${placeholders}) GROUP BY dep ORDER BY dep`,
      )
      .all(since, ...sources) as Array<{ dep: string; ts: number }>;
  }

  insertTransition(transition: Transition, at: number): void {
    this.db
      .prepare('INSERT INTO breaker_transitions (ts, dep, from_state, to_state, reason, at) VALUES (?, ?, ?, ?, ?, ?)')
      // Times are whole milliseconds in the store; a policy with fractional durations must not break it.
      .run(
        Math.round(transition.ts),
        transition.dep,
        transition.from,
        transition.to,
        // The code and facts, worded when read; a transition from elsewhere without them keeps its line.
        transition.why === undefined ? transition.reason : encodeBreakerReason(transition.why),
        Math.round(at),
      );
  }

  insertControl(control: StoredControl): void {
    this.db
      .prepare('INSERT INTO breaker_controls (ts, dep, action, reason) VALUES (?, ?, ?, ?)')
      .run(control.ts, control.dep, control.action, control.reason);
  }

  /** Every operator control, oldest first (replayed when BreakerBar starts). */
  controls(): StoredControl[] {
    return this.db
      .prepare('SELECT ts, dep, action, reason FROM breaker_controls ORDER BY ts, id')
      .all() as StoredControl[];
  }

  /** Calls since `since` in event-time order: the history breakers are rebuilt from. */
  callsSince(since: number): ReplayCall[] {
    return this.db
      .prepare(
        `SELECT ts, dep, provider, credential, agent_id AS agentId, session_id AS sessionId, outcome, phase,
           retry_after_ms AS retryAfterMs
         FROM calls WHERE ts >= ? ORDER BY ts, id`,
      )
      .all(since) as ReplayCall[];
  }

  /** Which dependencies each agent called since `since`, and when last. */
  agentDependencies(since: number): Array<{ agentId: string; dep: string; provider: string; ts: number }> {
    return this.db
      .prepare(
        'SELECT agent_id AS agentId, dep, provider, max(ts) AS ts FROM calls WHERE ts >= ? GROUP BY agent_id, dep',
      )
      .all(since) as Array<{ agentId: string; dep: string; provider: string; ts: number }>;
  }

  /**
   * Counts by outcome per step of `stepMs` in [from, to), optionally for one dependency (model or provider).
   * (JS numbers bind as REAL, so the step index is cast back to an integer.)
   */
  outcomeSteps(
    from: number,
    to: number,
    stepMs: number,
    dep?: string,
  ): Array<{ step: number; outcome: Outcome; n: number }> {
    // `provider/model` uses the (dep, ts) index; a bare provider (breakers keyed by provider) filters on it.
    const filter = dep === undefined ? '' : dep.includes('/') ? 'AND dep = @dep' : 'AND provider = @dep';
    return this.db
      .prepare(
        `SELECT CAST((ts - @from) / @step AS INTEGER) AS step, outcome, count(*) AS n FROM calls
         WHERE ts >= @from AND ts < @to ${filter} GROUP BY step, outcome ORDER BY step`,
      )
      .all({ from, to, step: stepMs, dep }) as Array<{ step: number; outcome: Outcome; n: number }>;
  }

  transitionsBetween(from: number, to: number, dep?: string): Array<Transition & { at: number }> {
    const filter = dep === undefined ? '' : 'AND dep = @dep';
    const rows = this.db
      .prepare(
        `SELECT ts, dep, from_state AS "from", to_state AS "to", reason, coalesce(at, ts) AS at FROM breaker_transitions
         WHERE ts >= @from AND ts < @to ${filter} ORDER BY ts, id`,
      )
      .all({ from, to, dep }) as Array<Transition & { at: number }>;
    return rows.map(storedTransition);
  }

  restartsBetween(from: number, to: number): Array<{ ts: number; trigger: string; reason: string; result: string }> {
    return this.db
      .prepare('SELECT ts, trigger, reason, result FROM restarts WHERE ts >= ? AND ts < ? ORDER BY ts, id')
      .all(from, to) as Array<{ ts: number; trigger: string; reason: string; result: string }>;
  }

  counter(key: string): number {
    return Number(this.getMeta(key) ?? 0);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
