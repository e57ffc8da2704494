/**
 * Incidents in SQLite (tables `incidents`, `incident_events`, migration 10), on
 * the store's connection: one file holds the incident and the calls, probes,
 * restarts and notifications it is counted from.
 */
import type { Transition } from '../breaker/types.js';
import type { Severity } from '../notify/notice.js';
import { UNKNOWN_AGENT } from '../sources/gateway-attempts.js';
import type { Db } from '../store/database.js';
import { storedTransition } from '../store/db.js';
import { Statements } from '../store/statements.js';
import { lastWeeks, weekStartOf } from './rules.js';
import type {
  IncidentCause,
  IncidentDetail,
  IncidentEvent,
  IncidentList,
  IncidentSummary,
  WeekRecovery,
} from './types.js';

/** What an incident's counters are made of over its time range (recomputed from the stored history). */
export interface IncidentCounts {
  deps: string[];
  agents: string[];
  turnsLost: number;
  failedCalls: number;
  rateLimitedCalls: number;
  restarts: number;
  notifications: number;
}

interface IncidentRow {
  id: number;
  opened_at: number;
  closed_at: number | null;
  severity: string;
  causes: string;
  deps: string;
  agents: string;
  turns_lost: number;
  failed_calls: number;
  rate_limited_calls: number;
  restarts: number;
  notifications: number;
}

interface EventRow {
  ts: number;
  kind: string;
  dep: string | null;
  text: string;
  n: number;
  rate_limited: number;
}

const MINUTE_MS = 60_000;

export class IncidentStore {
  private readonly statements: Statements;

  constructor(private readonly db: Db) {
    this.statements = new Statements(db);
  }

  /** Runs `write` in one transaction: all of it is stored, or none of it (a full disk fails it whole). */
  atomically(write: () => void): void {
    this.db.transaction(write)();
  }

  /** Opens an incident; returns its id. */
  open(openedAt: number, severity: Severity, causes: IncidentCause[], deps: string[]): number {
    const result = this.statements
      .of(
        `INSERT INTO incidents (opened_at, closed_at, severity, causes, deps, agents) VALUES (?, NULL, ?, ?, ?, '[]')`,
      )
      .run(openedAt, severity, JSON.stringify(causes), JSON.stringify(deps));
    return Number(result.lastInsertRowid);
  }

  /** Writes what the incident is now (causes, severity, counters); `closedAt` closes it. */
  update(
    id: number,
    fields: { severity: Severity; causes: IncidentCause[]; counts: IncidentCounts; closedAt?: number },
  ): void {
    const { counts } = fields;
    this.statements
      .of(
        `UPDATE incidents SET severity = ?, causes = ?, deps = ?, agents = ?, turns_lost = ?, failed_calls = ?,
           rate_limited_calls = ?, restarts = ?, notifications = ?, closed_at = coalesce(?, closed_at)
         WHERE id = ?`,
      )
      .run(
        fields.severity,
        JSON.stringify(fields.causes),
        JSON.stringify(counts.deps),
        JSON.stringify(counts.agents),
        counts.turnsLost,
        counts.failedCalls,
        counts.rateLimitedCalls,
        counts.restarts,
        counts.notifications,
        fields.closedAt ?? null,
        id,
      );
  }

  /** One timeline entry (not a failed call: those are counted per minute by `addFailedCalls`). */
  addEvent(id: number, event: Omit<IncidentEvent, 'kind'> & { kind: Exclude<IncidentEvent['kind'], 'call'> }): void {
    this.statements
      .of('INSERT INTO incident_events (incident_id, ts, kind, dep, text) VALUES (?, ?, ?, ?, ?)')
      .run(id, event.ts, event.kind, event.dep, event.text);
  }

  /**
   * Adds failed calls of one dependency to the timeline row of their minute (one row per dependency and
   * minute): `minute` is the row's time, the same for every call of that minute.
   */
  addFailedCalls(id: number, dep: string, minute: number, count: number, rateLimited: number): void {
    if (count <= 0) return;
    this.statements
      .of(
        `INSERT INTO incident_events (incident_id, ts, kind, dep, text, n, rate_limited)
         VALUES (?, ?, 'call', ?, '', ?, ?)
         ON CONFLICT (incident_id, dep, ts) WHERE kind = 'call'
         DO UPDATE SET n = n + excluded.n, rate_limited = rate_limited + excluded.rate_limited`,
      )
      .run(id, minute, dep, count, rateLimited);
  }

  /** Failed calls stored in [from, to], per dependency and minute (to seed the timeline of an incident that opens). */
  failedCallsPerMinute(from: number, to: number): Array<{ dep: string; ts: number; n: number; rateLimited: number }> {
    return this.statements
      .of(
        `SELECT dep, (ts / ${MINUTE_MS}) * ${MINUTE_MS} AS ts, count(*) AS n,
           sum(outcome = 'rate_limited') AS rateLimited
         FROM calls WHERE ts >= ? AND ts <= ? AND outcome != 'ok' GROUP BY dep, ts / ${MINUTE_MS} ORDER BY 2, 1`,
      )
      .all(from, to) as Array<{ dep: string; ts: number; n: number; rateLimited: number }>;
  }

  /** Breaker transitions stored in [from, to] (to seed the timeline of an incident that opens). */
  transitions(from: number, to: number): Transition[] {
    const rows = this.statements
      .of(
        `SELECT ts, dep, from_state AS "from", to_state AS "to", reason FROM breaker_transitions
         WHERE ts >= ? AND ts <= ? ORDER BY ts, id`,
      )
      .all(from, to) as Transition[];
    return rows.map(storedTransition);
  }

  /** The counters of an incident over [from, to], from the stored calls, turns, restarts and notifications. */
  counts(from: number, to: number, conditionDeps: readonly string[]): IncidentCounts {
    const calls = this.statements
      .of(
        `SELECT dep, count(*) AS n, sum(outcome = 'rate_limited') AS rateLimited FROM calls
         WHERE ts >= ? AND ts <= ? AND outcome != 'ok' GROUP BY dep`,
      )
      .all(from, to) as Array<{ dep: string; n: number; rateLimited: number }>;
    const turns = this.statements
      .of(
        `SELECT agent_id AS agent, dep, count(*) AS n FROM turns
         WHERE ts >= ? AND ts <= ? AND outcome != 'ok' GROUP BY agent_id, dep`,
      )
      .all(from, to) as Array<{ agent: string; dep: string; n: number }>;
    const callAgents = this.statements
      .of(`SELECT DISTINCT agent_id AS agent FROM calls WHERE ts >= ? AND ts <= ? AND outcome != 'ok'`)
      .pluck()
      .all(from, to) as string[];
    const count = (sql: string) => (this.statements.of(sql).pluck().get(from, to) as number | undefined) ?? 0;
    const deps = new Set(conditionDeps);
    for (const row of calls) deps.add(row.dep);
    for (const row of turns) deps.add(row.dep);
    const agents = new Set(callAgents);
    for (const row of turns) agents.add(row.agent);
    // Calls read from the gateway's log carry no agent: "agents unknown" would name one that does not exist.
    agents.delete(UNKNOWN_AGENT);
    return {
      deps: [...deps].sort(),
      agents: [...agents].sort(),
      turnsLost: turns.reduce((sum, row) => sum + row.n, 0),
      failedCalls: calls.reduce((sum, row) => sum + row.n, 0),
      rateLimitedCalls: calls.reduce((sum, row) => sum + row.rateLimited, 0),
      // Restarts that began while it was open (each restart is one row, updated as it goes).
      restarts: count('SELECT count(*) FROM restarts WHERE ts >= ? AND ts <= ?'),
      notifications: count('SELECT count(*) FROM notifications WHERE ts >= ? AND ts <= ? AND ok = 1'),
    };
  }

  get(id: number): IncidentSummary | null {
    const row = this.statements.of('SELECT * FROM incidents WHERE id = ?').get(id) as IncidentRow | undefined;
    return row ? summaryOf(row) : null;
  }

  detail(id: number): IncidentDetail | null {
    const summary = this.get(id);
    if (!summary) return null;
    const rows = this.statements
      .of('SELECT ts, kind, dep, text, n, rate_limited FROM incident_events WHERE incident_id = ? ORDER BY ts, id')
      .all(id) as EventRow[];
    return { ...summary, timeline: rows.map(eventOf) };
  }

  /** Incidents opened at or after `since` (all when null), newest first. */
  list(limit: number, since: number | null): IncidentList {
    const rows = this.statements
      .of('SELECT * FROM incidents WHERE opened_at >= ? ORDER BY opened_at DESC, id DESC LIMIT ?')
      .all(since ?? Number.MIN_SAFE_INTEGER, limit) as IncidentRow[];
    return { incidents: rows.map(summaryOf) };
  }

  /** Incidents still open (normally one; left open by a daemon that stopped, they are resumed). */
  openIncidents(): IncidentSummary[] {
    const rows = this.statements
      .of('SELECT * FROM incidents WHERE closed_at IS NULL ORDER BY opened_at, id')
      .all() as IncidentRow[];
    return rows.map(summaryOf);
  }

  lastClosed(): IncidentSummary | null {
    const row = this.statements
      .of('SELECT * FROM incidents WHERE closed_at IS NOT NULL ORDER BY closed_at DESC, id DESC LIMIT 1')
      .get() as IncidentRow | undefined;
    return row ? summaryOf(row) : null;
  }

  /** Recovery per calendar week (Monday 00:00 local time), the `weeks` weeks ending with the one holding `now`, newest first. */
  mttrByWeek(now: number, weeks: number): WeekRecovery[] {
    const starts = lastWeeks(now, weeks);
    const oldest = starts[starts.length - 1] ?? weekStartOf(now);
    const rows = this.statements
      .of('SELECT opened_at AS openedAt, closed_at AS closedAt FROM incidents WHERE opened_at >= ?')
      .all(oldest) as Array<{ openedAt: number; closedAt: number | null }>;
    return starts.map((weekStart) => {
      const week = rows.filter((row) => weekStartOf(row.openedAt) === weekStart);
      const closed = week.filter((row) => row.closedAt !== null);
      const total = closed.reduce((sum, row) => sum + ((row.closedAt ?? row.openedAt) - row.openedAt), 0);
      return { weekStart, incidents: week.length, mttrMs: closed.length === 0 ? null : total / closed.length };
    });
  }

  /** Deletes incidents closed before `before` and their timelines (retention); returns how many rows went. */
  prune(before: number): number {
    const events = this.statements
      .of(
        'DELETE FROM incident_events WHERE incident_id IN (SELECT id FROM incidents WHERE closed_at IS NOT NULL AND closed_at < ?)',
      )
      .run(before).changes;
    const incidents = this.statements
      .of('DELETE FROM incidents WHERE closed_at IS NOT NULL AND closed_at < ?')
      .run(before).changes;
    return events + incidents;
  }
}

function parseList(text: string): string[] {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

function summaryOf(row: IncidentRow): IncidentSummary {
  const summary: Omit<IncidentSummary, 'summary'> = {
    id: row.id,
    openedAt: row.opened_at,
    closedAt: row.closed_at,
    severity: row.severity as Severity,
    causes: parseList(row.causes) as IncidentCause[],
    deps: parseList(row.deps),
    agents: parseList(row.agents),
    turnsLost: row.turns_lost,
    failedCalls: row.failed_calls,
    rateLimitedCalls: row.rate_limited_calls,
    restarts: row.restarts,
    notifications: row.notifications,
  };
  return { ...summary, summary: summaryLine(summary) };
}

/** One English line: what it was and what it cost (logs, the CLI's table). */
export function summaryLine(incident: Omit<IncidentSummary, 'summary'>): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const what = incident.causes.map((cause) => cause.replace(/_/g, ' ')).join(', ') || 'incident';
  const where = incident.deps.length > 0 ? ` on ${incident.deps.join(', ')}` : '';
  const cost = [
    plural(incident.failedCalls, 'failed call'),
    `${plural(incident.turnsLost, 'turn')} lost`,
    plural(incident.restarts, 'restart'),
  ];
  return `${what}${where}: ${cost.join(', ')}`;
}

function eventOf(row: EventRow): IncidentEvent {
  const kind = row.kind as IncidentEvent['kind'];
  if (kind !== 'call') return { ts: row.ts, kind, dep: row.dep, text: row.text };
  const limited = row.rate_limited > 0 ? ` (${row.rate_limited} rate limited)` : '';
  return {
    ts: row.ts,
    kind,
    dep: row.dep,
    text: `${row.n} failed call${row.n === 1 ? '' : 's'}${limited}`,
    count: row.n,
    rateLimited: row.rate_limited,
  };
}
