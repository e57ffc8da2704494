/**
 * The gateway's side of the history: health probes, restarts, watchdog
 * decisions and notifications. Kept apart from `db.ts` (calls and cursors) but
 * on the same connection, so one file holds the whole story of an incident.
 */
import {
  type DecisionReason,
  decisionReasonLine,
  decodeDecisionReason,
  encodeDecisionReason,
} from '../../words/decision-reasons.js';
import { decodeProbeDetail, encodeProbeDetail, type ProbeDetail, probeDetailLine } from '../../words/probe-details.js';
import type { ProbeStreak } from '../gateway/health.js';
import type { ProbeResult } from '../gateway/probe.js';
import type { Db } from './database.js';
import { Statements } from './statements.js';

export interface ProbeRow {
  ts: number;
  ok: boolean;
  /** The probe class: ok, refused, read_timeout, starting, http_503, … */
  status: string;
  startup: string | null;
  latencyMs: number | null;
  /** What the probe found, as the prober's English line (see ProbeResult). */
  detail: string | null;
  /**
   * What the probe found, as a code and its facts: what is stored, worded in the reader's language when read.
   * Absent from rows made elsewhere (older cores, tests): readers then read `detail` as a line.
   */
  found?: ProbeDetail;
}

/**
 * A stored probe read back: its `detail` column holds the code and facts (or, in a row from before details
 * were codes, the prober's English line), read into `found` and worded as the prober's line into `detail`.
 */
export function storedProbe(row: ProbeRow): ProbeRow {
  if (row.detail === null) return row;
  const found = decodeProbeDetail(row.detail);
  return { ...row, found, detail: probeDetailLine(found) };
}

/** A probe result as it is stored and streamed. */
export function probeRow(result: ProbeResult): ProbeRow {
  return {
    ts: result.ts,
    ok: result.ok,
    status: result.class,
    startup: result.startup,
    latencyMs: result.latencyMs,
    detail: result.detail,
    ...(result.found === undefined ? {} : { found: result.found }),
  };
}

export interface RestartRow {
  id: number;
  ts: number;
  /** manual, health, storm */
  trigger: string;
  /** Why, as the policy's English line (see Decision). */
  reason: string;
  /** Why, as a code and its facts: stored so, worded in the reader's language when read (absent: a line). */
  why?: DecisionReason;
  /** running, pending (OpenClaw will restart once drained), recovering, recovered, started, not_recovered, failed, dry_run */
  result: string;
  /** What justified an automatic restart: dead, unloaded, hung, storm; manual for the user's (null before it was stored). */
  evidence: string | null;
  /** How long the restart command ran. */
  durationMs: number | null;
  strategy: string | null;
  command: string[] | null;
  exitCode: number | null;
  /** Tail of the command's output (the openclaw CLI's JSON, systemctl's complaint, …). */
  output: string | null;
  /** Restart start → the restarted gateway reported started and answered its probes. */
  recoveryMs: number | null;
  /** What became of it: the strategy's message, or the decision that settled it (as a line). */
  detail: string | null;
  /** The decision that settled it (recovered or not), as a code and its facts; absent for any other detail. */
  detailWhy?: DecisionReason;
}

export interface DecisionRow {
  ts: number;
  /** What asked: check, probe, manual, tick, restart, operator. */
  source: string;
  decision: string;
  /** Why, as the policy's English line (see Decision). */
  reason: string;
  /**
   * Why, as a code and its facts: what is stored, worded in the reader's language when read. Absent from
   * rows made elsewhere (older cores, tests): readers then read `reason` as a line.
   */
  why?: DecisionReason;
  dep: string | null;
}

/**
 * A stored decision read back: its `reason` column holds the code and facts (or, in a row from before reasons
 * were codes, the policy's English line), read into `why` and worded as the policy's line into `reason`.
 */
export function storedDecision(row: DecisionRow): DecisionRow {
  const why = decodeDecisionReason(row.reason);
  return { ...row, why, reason: decisionReasonLine(why) };
}

export interface NotificationRow {
  ts: number;
  kind: string;
  channel: string;
  title: string;
  ok: boolean;
  error: string | null;
  dep: string | null;
}

/** What a watchdog check learns from the calls stored since the previous check. */
export interface StormEvidence {
  /** rate_limited calls stored after `afterId` whose own time is in the window. */
  count: number;
  /** Highest call id seen: the next check starts after it, so a call counts in one check only. */
  lastId: number;
  byDep: Array<{ dep: string; count: number; agents: string[] }>;
}

export type RestartUpdate = Partial<Omit<RestartRow, 'id' | 'ts' | 'trigger' | 'evidence' | 'why' | 'detailWhy'>>;

const RESTART_COLUMNS: Record<keyof RestartUpdate, string> = {
  reason: 'reason',
  result: 'result',
  durationMs: 'duration_ms',
  strategy: 'strategy',
  command: 'command',
  exitCode: 'exit_code',
  output: 'output',
  recoveryMs: 'recovery_ms',
  detail: 'detail',
};

interface RawRestart {
  id: number;
  ts: number;
  trigger: string;
  reason: string;
  result: string;
  duration_ms: number | null;
  strategy: string | null;
  command: string | null;
  exit_code: number | null;
  output: string | null;
  recovery_ms: number | null;
  detail: string | null;
  evidence: string | null;
}

/**
 * A restart read back. Its reason, and a detail that is the decision that settled it, are stored as code and
 * facts (rows from before hold lines): read into `why` / `detailWhy` and worded as the policy's lines.
 */
function restartFrom(raw: RawRestart): RestartRow {
  const why = decodeDecisionReason(raw.reason);
  const settled = raw.detail === null ? null : decodeDecisionReason(raw.detail);
  return {
    id: raw.id,
    ts: raw.ts,
    trigger: raw.trigger,
    reason: decisionReasonLine(why),
    why,
    ...(settled === null || settled.code === 'text' ? {} : { detailWhy: settled }),
    result: raw.result,
    durationMs: raw.duration_ms,
    strategy: raw.strategy,
    command: raw.command === null ? null : (JSON.parse(raw.command) as string[]),
    exitCode: raw.exit_code,
    output: raw.output,
    recoveryMs: raw.recovery_ms,
    detail: settled === null ? null : decisionReasonLine(settled),
    evidence: raw.evidence,
  };
}

export class GatewayHistory {
  private readonly insertProbe;
  private readonly insertDecision;
  private readonly insertNotification;

  private readonly statements: Statements;

  constructor(db: Db) {
    this.statements = new Statements(db);
    this.insertProbe = db.prepare(
      'INSERT INTO health_probes (ts, ok, status, startup, latency_ms, detail) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.insertDecision = db.prepare(
      'INSERT INTO watchdog_decisions (ts, source, decision, reason, dep) VALUES (?, ?, ?, ?, ?)',
    );
    this.insertNotification = db.prepare(
      'INSERT INTO notifications (ts, kind, channel, title, ok, error, dep) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
  }

  recordProbe(row: ProbeRow): void {
    // The code and facts, worded when read; a row from elsewhere without them keeps its line.
    const detail = row.found === undefined ? row.detail : encodeProbeDetail(row.found);
    this.insertProbe.run(row.ts, row.ok ? 1 : 0, row.status, row.startup, row.latencyMs, detail);
  }

  probes(from: number, to: number, limit = 10_000): ProbeRow[] {
    const rows = this.statements
      .of(
        `SELECT ts, ok, status, startup, latency_ms AS latencyMs, detail FROM health_probes
         WHERE ts >= ? AND ts < ? ORDER BY ts DESC, id DESC LIMIT ?`,
      )
      .all(from, to, limit) as Array<Omit<ProbeRow, 'ok'> & { ok: number }>;
    return rows.reverse().map((row) => storedProbe({ ...row, ok: row.ok === 1 }));
  }

  /**
   * The run of probes with one verdict that the history ends with: whether the gateway was last seen up or
   * down, since when, and when it was last probed. Probes BreakerBar could not run on time (`unknown`) count
   * for neither, as in the live health. Null before any probe.
   */
  lastStreak(): ProbeStreak | null {
    const last = this.statements
      .of(`SELECT ts, ok FROM health_probes WHERE status != 'unknown' ORDER BY ts DESC, id DESC LIMIT 1`)
      .get() as { ts: number; ok: number } | undefined;
    if (!last) return null;
    const other = this.statements
      .of(`SELECT ts FROM health_probes WHERE status != 'unknown' AND ok != ? ORDER BY ts DESC, id DESC LIMIT 1`)
      .get(last.ok) as { ts: number } | undefined;
    const first = this.statements
      .of(`SELECT min(ts) AS ts FROM health_probes WHERE status != 'unknown' AND ok = ? AND ts > ?`)
      .get(last.ok, other?.ts ?? Number.NEGATIVE_INFINITY) as { ts: number | null };
    // Null only when the other verdict shares the last probe's millisecond: the streak is that probe alone.
    return { ok: last.ok === 1, since: first.ts ?? last.ts, lastTs: last.ts };
  }

  /** Opens a restart record (result `running`); returns its id for `updateRestart`. */
  startRestart(row: {
    ts: number;
    trigger: string;
    reason: string;
    why?: DecisionReason;
    result?: string;
    evidence?: string;
  }): number {
    // The code and facts, worded when read; a restart from elsewhere without them keeps its line.
    const reason = row.why === undefined ? row.reason : encodeDecisionReason(row.why);
    const info = this.statements
      .of('INSERT INTO restarts (ts, trigger, reason, result, evidence) VALUES (?, ?, ?, ?, ?)')
      .run(row.ts, row.trigger, reason, row.result ?? 'running', row.evidence ?? null);
    return Number(info.lastInsertRowid);
  }

  /** `settledBy`: the decision that settled the restart, stored as its code and facts in the detail column. */
  updateRestart(id: number, update: RestartUpdate, settledBy?: DecisionReason): void {
    if (settledBy !== undefined) update = { ...update, detail: encodeDecisionReason(settledBy) };
    const entries = Object.entries(update).filter(([, value]) => value !== undefined) as Array<
      [keyof RestartUpdate, unknown]
    >;
    if (entries.length === 0) return;
    const sets = entries.map(([key]) => `${RESTART_COLUMNS[key]} = ?`).join(', ');
    const values = entries.map(([key, value]) => (key === 'command' && value !== null ? JSON.stringify(value) : value));
    this.statements.of(`UPDATE restarts SET ${sets} WHERE id = ?`).run(...values, id);
  }

  restarts(from: number, to: number, limit = 1000): RestartRow[] {
    const rows = this.statements
      .of('SELECT * FROM restarts WHERE ts >= ? AND ts < ? ORDER BY ts DESC, id DESC LIMIT ?')
      .all(from, to, limit) as RawRestart[];
    return rows.reverse().map(restartFrom);
  }

  restart(id: number): RestartRow | null {
    const raw = this.statements.of('SELECT * FROM restarts WHERE id = ?').get(id) as RawRestart | undefined;
    return raw ? restartFrom(raw) : null;
  }

  /** The newest restart by insertion: a wall clock stepped back must not make an older one look newer. */
  lastRestart(): RestartRow | null {
    const raw = this.statements.of('SELECT * FROM restarts ORDER BY id DESC LIMIT 1').get() as RawRestart | undefined;
    return raw ? restartFrom(raw) : null;
  }

  recordDecision(row: DecisionRow): void {
    // The code and facts, worded when read; a row from elsewhere without them keeps its line.
    const reason = row.why === undefined ? row.reason : encodeDecisionReason(row.why);
    this.insertDecision.run(row.ts, row.source, row.decision, reason, row.dep);
  }

  decisions(from: number, to: number, limit = 1000): DecisionRow[] {
    const rows = this.statements
      .of(
        `SELECT ts, source, decision, reason, dep FROM watchdog_decisions
         WHERE ts >= ? AND ts < ? ORDER BY ts DESC, id DESC LIMIT ?`,
      )
      .all(from, to, limit) as DecisionRow[];
    return rows.reverse().map(storedDecision);
  }

  /** The newest stored call's id (0 for none): where the watchdog's first check starts counting. */
  lastCallId(): number {
    return (this.statements.of('SELECT max(id) AS id FROM calls').get() as { id: number | null }).id ?? 0;
  }

  /**
   * rate_limited calls stored after call id `afterId` with a record time at or
   * after `since`: "new 429s in the window", by ingestion order, so a late-read
   * record still counts once and an old one read again never does.
   */
  stormEvidence(afterId: number, since: number): StormEvidence {
    const lastId = Math.max(this.lastCallId(), afterId);
    const rows = this.statements
      .of(
        `SELECT dep, agent_id AS agent, count(*) AS n FROM calls
         WHERE id > ? AND id <= ? AND ts >= ? AND outcome = 'rate_limited' GROUP BY dep, agent_id`,
      )
      .all(afterId, lastId, since) as Array<{ dep: string; agent: string; n: number }>;
    const byDep = new Map<string, { dep: string; count: number; agents: string[] }>();
    for (const row of rows) {
      const entry = byDep.get(row.dep) ?? { dep: row.dep, count: 0, agents: [] };
      entry.count += row.n;
      entry.agents.push(row.agent);
      byDep.set(row.dep, entry);
    }
    const deps = [...byDep.values()].sort((a, b) => b.count - a.count || a.dep.localeCompare(b.dep));
    return { count: deps.reduce((sum, d) => sum + d.count, 0), lastId, byDep: deps };
  }

  /**
   * Dependencies other than `dep` that answered successfully for any of
   * `agents` since `since`: the fallbacks that are carrying the load.
   */
  workingFallbacks(dep: string, agents: readonly string[], since: number): string[] {
    if (agents.length === 0) return [];
    const marks = agents.map(() => '?').join(', ');
    // Dependency by dependency (few, each found by one step of the (dep, ts) index), each asked whether one
    // success since `since` came from one of the agents: not a pass over every call of the window, which at
    // thousands of calls a second kept the event loop for hundreds of milliseconds.
    const rows = this.statements
      .of(
        `WITH RECURSIVE deps(dep) AS (
           SELECT min(dep) FROM calls
           UNION ALL
           SELECT (SELECT min(dep) FROM calls WHERE dep > deps.dep) FROM deps WHERE deps.dep IS NOT NULL
         )
         SELECT dep FROM deps WHERE dep IS NOT NULL AND dep != ? AND EXISTS (
           SELECT 1 FROM calls c WHERE c.dep = deps.dep AND c.ts >= ? AND c.outcome = 'ok'
             AND c.agent_id IN (${marks}))
         ORDER BY dep`,
      )
      .all(dep, since, ...agents) as Array<{ dep: string }>;
    return rows.map((row) => row.dep);
  }

  /** The time of the newest upstream attempt stored (any outcome): the gateway's last sign of progress. */
  lastCallTs(): number | null {
    return (this.statements.of('SELECT max(ts) AS ts FROM calls').get() as { ts: number | null }).ts;
  }

  recordNotification(row: NotificationRow): void {
    this.insertNotification.run(row.ts, row.kind, row.channel, row.title, row.ok ? 1 : 0, row.error, row.dep);
  }

  notifications(from: number, to: number, limit = 1000): NotificationRow[] {
    const rows = this.statements
      .of(
        `SELECT ts, kind, channel, title, ok, error, dep FROM notifications
         WHERE ts >= ? AND ts < ? ORDER BY ts DESC, id DESC LIMIT ?`,
      )
      .all(from, to, limit) as Array<Omit<NotificationRow, 'ok'> & { ok: number }>;
    return rows.reverse().map((row) => ({ ...row, ok: row.ok === 1 }));
  }
}
