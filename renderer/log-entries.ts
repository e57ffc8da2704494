/**
 * What the Logs view lists, apart from the DOM (tested in Node): each record's
 * level, runs of records that say the same thing folded into one row (240
 * healthy probes in a row are one line, "healthy ×240"; a change of result
 * starts a new one), and the filter by kind and level. Rows are newest first.
 */
import type { DecisionRow, NotificationRow, ProbeRow, RestartRow, Transition } from '../main/api/types.js';

export const LOG_KINDS = ['restarts', 'decisions', 'notifications', 'transitions', 'probes'] as const;
export type LogKind = (typeof LOG_KINDS)[number];

export type Level = 'info' | 'warn' | 'error';
export const LEVEL_FILTERS = ['all', 'warn', 'error'] as const;
/** `all`; `warn`: warnings and errors; `error`: errors only. */
export type LevelFilter = (typeof LEVEL_FILTERS)[number];

export interface LogFilter {
  kinds: ReadonlySet<LogKind>;
  level: LevelFilter;
}

export const SHOW_ALL: LogFilter = { kinds: new Set(LOG_KINDS), level: 'all' };

export function isDefaultFilter(filter: LogFilter): boolean {
  return filter.level === 'all' && LOG_KINDS.every((kind) => filter.kinds.has(kind));
}

export function passes(level: Level, filter: LevelFilter): boolean {
  if (filter === 'all') return true;
  return filter === 'warn' ? level !== 'info' : level === 'error';
}

/** Consecutive rows of one class, newest first; a row whose class is null stands alone. */
export interface Run<T> {
  cls: string | null;
  rows: T[];
  newest: T;
  oldest: T;
  level: Level;
}

/** Folds consecutive rows (in the order given) that have the same non-null class into one run. */
export function collapseRuns<T>(
  rows: readonly T[],
  classOf: (row: T) => string | null,
  levelOf: (row: T) => Level,
): Run<T>[] {
  const runs: Run<T>[] = [];
  for (const row of rows) {
    const cls = classOf(row);
    const last = runs[runs.length - 1];
    if (last && cls !== null && last.cls === cls) {
      last.rows.push(row);
      last.oldest = row;
      continue;
    }
    runs.push({ cls, rows: [row], newest: row, oldest: row, level: levelOf(row) });
  }
  return runs;
}

const newestFirst = <T extends { ts: number }>(rows: readonly T[]) => [...rows].sort((a, b) => b.ts - a.ts);

// Levels: what deserves a look. An error is something that failed or is down; a warning is the watchdog
// acting or about to; the rest is the record that all was well.

const CALM_PROBES = new Set(['starting', 'draining', 'unknown']);
export function probeLevel(probe: ProbeRow): Level {
  if (probe.ok) return 'info';
  return CALM_PROBES.has(probe.status) ? 'warn' : 'error';
}

export function restartLevel(restart: RestartRow): Level {
  return restart.result === 'failed' || restart.result === 'not_recovered' ? 'error' : 'warn';
}

const GOOD_NEWS = new Set(['breaker_closed', 'gateway_up', 'restart_succeeded']);
export function notificationLevel(notification: NotificationRow): Level {
  if (!notification.ok) return 'error';
  return GOOD_NEWS.has(notification.kind) ? 'info' : 'warn';
}

const DECISION_ERRORS = new Set(['dead', 'budget_exhausted', 'not_recovered', 'not_openclaw']);
const DECISION_INFO = new Set([
  'quiet',
  'healthy',
  'starting',
  'recovering',
  'recovered',
  'gateway_restarted',
  'disabled',
]);
export function decisionLevel(decision: DecisionRow): Level {
  if (DECISION_ERRORS.has(decision.decision)) return 'error';
  return DECISION_INFO.has(decision.decision) ? 'info' : 'warn';
}

export function transitionLevel(transition: Transition): Level {
  if (transition.to === 'open') return 'error';
  return transition.to === 'closed' ? 'info' : 'warn';
}

/** Decisions that record that nothing needed doing: a run of them is one row, so the rest is not buried. */
export const ROUTINE_DECISIONS: ReadonlySet<string> = new Set(['quiet', 'healthy']);

export interface LogSection<T> {
  kind: LogKind;
  /** Every record of the kind in the range. */
  records: number;
  /** The rows after folding, before the level filter. */
  total: number;
  /** The rows the level filter keeps. */
  runs: Run<T>[];
}

function section<T>(
  kind: LogKind,
  records: readonly T[],
  classOf: (row: T) => string | null,
  levelOf: (row: T) => Level,
  level: LevelFilter,
): LogSection<T> {
  const all = collapseRuns(records, classOf, levelOf);
  return { kind, records: records.length, total: all.length, runs: all.filter((run) => passes(run.level, level)) };
}

export interface LogRecords {
  restarts: readonly RestartRow[];
  notifications: readonly NotificationRow[];
  decisions: readonly DecisionRow[];
  probes: readonly ProbeRow[];
  transitions: ReadonlyArray<Transition & { at: number }>;
}

export interface LogSections {
  restarts: LogSection<RestartRow>;
  decisions: LogSection<DecisionRow>;
  notifications: LogSection<NotificationRow>;
  transitions: LogSection<Transition & { at: number }>;
  probes: LogSection<ProbeRow>;
}

/** Every kind's rows, newest first, folded and filtered by level (the kind filter only hides whole sections). */
export function logSections(records: LogRecords, level: LevelFilter): LogSections {
  return {
    restarts: section('restarts', newestFirst(records.restarts), () => null, restartLevel, level),
    decisions: section(
      'decisions',
      newestFirst(records.decisions),
      (d) => (ROUTINE_DECISIONS.has(d.decision) ? d.decision : null),
      decisionLevel,
      level,
    ),
    notifications: section('notifications', newestFirst(records.notifications), () => null, notificationLevel, level),
    transitions: section(
      'transitions',
      [...records.transitions].sort((a, b) => b.at - a.at),
      () => null,
      transitionLevel,
      level,
    ),
    probes: section('probes', newestFirst(records.probes), (p) => p.status, probeLevel, level),
  };
}

/** How many rows the filter shows and how many there are, over the kinds it shows. */
export function filterCounts(sections: LogSections, filter: LogFilter): { shown: number; total: number } {
  let shown = 0;
  let total = 0;
  for (const kind of LOG_KINDS) {
    if (!filter.kinds.has(kind)) continue;
    shown += sections[kind].runs.length;
    total += sections[kind].total;
  }
  return { shown, total };
}
