/**
 * When an incident opens and when it closes. Pure: the world as it stands (what
 * the breakers, the gateway's probes, the watchdog, the sources, OpenClaw's
 * cooldowns and the quota windows say) and `now` in, the changes to make out.
 *
 * - A condition is one trouble with a key (`breaker:zhipu/glm-5.1`,
 *   `gateway_dead`, …). Troubles that can be a blip (a breaker out of closed,
 *   the gateway dead, a source that cannot read) must hold for the grace
 *   before they open an incident; the others (sessions the gateway reports
 *   stalled — OpenClaw does so after minutes without progress —, the restart
 *   budget spent, a cooldown loop, an exhausted quota) are already judged over
 *   long spans.
 * - While an incident is open every condition joins it at once, without grace:
 *   concurrent troubles are one incident (a 429 storm on two providers is one).
 * - It closes once no condition has held for the settle time; a trouble that
 *   comes back sooner joins it again, so a flapping breaker is one incident.
 *   A restart running or being verified holds the settle time back: the
 *   remedy's outcome is part of the incident's story, so "resolved" never
 *   comes while the gateway is down for its restart (a storm's breaker can
 *   close before a `--safe` restart takes effect).
 * - Its severity is the loudest any of its conditions reached.
 */
import type { BreakerState } from '../breaker/types.js';
import type { Severity } from '../notify/notice.js';
import type { QuotaWindow } from '../spend/types.js';
import type { IncidentSettings } from './config.js';
import { INCIDENT_CAUSES, type IncidentCause } from './types.js';

/** Sessions the gateway reports stalled; `since`: the report's time (the watchdog may act on it at once). */
export interface Stall {
  sessions: number;
  since?: number;
}

/** What the incident rules look at, gathered at one instant. */
export interface IncidentWorld {
  /**
   * The breakers; `live`: its last move out of closed came from recent traffic, not from history read
   * during a backfill (only live ones count), and `outSince` when that move happened. `stalled`: sessions
   * stuck on it now.
   */
  breakers: Array<{
    dep: string;
    state: BreakerState;
    reason: string;
    live: boolean;
    outSince?: number | null;
    stalled: Stall | null;
  }>;
  /**
   * Sessions stalled on no known dependency (stuck in their first call: OpenClaw's stall report names no model),
   * which no breaker carries.
   */
  stalledWithoutDependency?: Stall | null;
  /** The last health probe (null when this instance does not probe, or before the first). */
  gateway: { dead: boolean; detail: string } | null;
  watchdog: {
    enabled: boolean;
    budgetRemaining: number;
    maxRestartsPerHour: number;
    /** A restart is running or being verified: the gateway is expected to be down for a while. */
    restarting?: boolean;
  } | null;
  sources: Array<{ kind: string; lastError: string | null }>;
  /** Dependencies OpenClaw keeps in a cooldown that does not end (a loop was announced and it is still in force). */
  cooldownLoops: string[];
  quota: QuotaWindow[];
}

/** One trouble, as the rules see it. */
export interface Condition {
  key: string;
  cause: IncidentCause;
  dep: string | null;
  severity: Severity;
  /** Needs to hold for the grace before it opens an incident. */
  graced: boolean;
  /**
   * Keeps the open incident it is already part of open, but never opens or joins one: a gateway that is
   * down while it is being restarted (the remedy under way) is no new trouble, yet the trouble that called
   * for the restart is not over before the gateway is back.
   */
  holdsOnly?: boolean;
  /** When the trouble began by its own evidence (a breaker's trip), if earlier than it was first looked at. */
  since?: number;
  /** In English, for the timeline. */
  text: string;
}

const RANK: Record<Severity, number> = { info: 0, warning: 1, critical: 2 };

export function louder(a: Severity, b: Severity): Severity {
  return RANK[b] > RANK[a] ? b : a;
}

/**
 * A stall dates from the gateway's report, not from the look that found it: the watchdog's hung restart is
 * decided on the same report and may come first, and it belongs to the incident.
 */
function sinceOf(stall: Stall | null | undefined): { since?: number } {
  return stall?.since === undefined ? {} : { since: stall.since };
}

/** Every trouble the world shows now (at most one per key). */
export function conditionsOf(world: IncidentWorld): Condition[] {
  const out: Condition[] = [];
  for (const breaker of world.breakers) {
    if (breaker.live && breaker.state !== 'closed') {
      out.push({
        key: `breaker:${breaker.dep}`,
        cause: 'breaker',
        dep: breaker.dep,
        severity: 'warning',
        graced: true,
        text: `breaker ${breaker.dep} ${breaker.state.replace('_', '-')}: ${breaker.reason}`,
        ...(breaker.outSince == null ? {} : { since: breaker.outSince }),
      });
    }
    if (breaker.stalled && breaker.stalled.sessions > 0) {
      const n = breaker.stalled.sessions;
      out.push({
        key: `gateway_hung:${breaker.dep}`,
        cause: 'gateway_hung',
        dep: breaker.dep,
        severity: 'warning',
        graced: false,
        text: `${n} session${n === 1 ? '' : 's'} stalled on ${breaker.dep}`,
        ...sinceOf(breaker.stalled),
      });
    }
  }
  const unattributed = world.stalledWithoutDependency?.sessions ?? 0;
  if (unattributed > 0) {
    out.push({
      key: 'gateway_hung',
      cause: 'gateway_hung',
      dep: null,
      severity: 'warning',
      graced: false,
      text: `${unattributed} session${unattributed === 1 ? '' : 's'} stalled (no dependency known)`,
      ...sinceOf(world.stalledWithoutDependency),
    });
  }
  // A gateway down because BreakerBar (or OpenClaw itself) is restarting it is the remedy under way, not a
  // new trouble, but it keeps the incident of a dead gateway open until the gateway is back; a restart that
  // does not bring it back ends its verification, and then it counts.
  if (world.gateway?.dead) {
    out.push({
      key: 'gateway_dead',
      cause: 'gateway_dead',
      dep: null,
      severity: 'critical',
      graced: true,
      ...(world.watchdog?.restarting ? { holdsOnly: true } : {}),
      text: `gateway dead: ${world.gateway.detail}`,
    });
  }
  const watchdog = world.watchdog;
  if (watchdog?.enabled && watchdog.budgetRemaining <= 0) {
    out.push({
      key: 'restart_budget',
      cause: 'restart_budget',
      dep: null,
      severity: 'critical',
      graced: false,
      text: `restart budget spent (${watchdog.maxRestartsPerHour} per hour)`,
    });
  }
  for (const source of world.sources) {
    if (source.lastError === null) continue;
    out.push({
      key: `source_error:${source.kind}`,
      cause: 'source_error',
      dep: null,
      severity: 'warning',
      graced: true,
      text: `source ${source.kind} cannot read: ${source.lastError}`,
    });
  }
  for (const dep of [...new Set(world.cooldownLoops)].sort()) {
    out.push({
      key: `cooldown_loop:${dep}`,
      cause: 'cooldown_loop',
      dep,
      severity: 'warning',
      graced: false,
      text: `OpenClaw keeps ${dep} in a cooldown that does not end`,
    });
  }
  for (const window of world.quota) {
    if (!window.exhausted) continue;
    out.push({
      key: `quota:${window.provider}/${window.window}`,
      cause: 'quota',
      dep: window.provider,
      severity: 'warning',
      graced: false,
      text: `quota of ${window.provider} exhausted (${window.window} window)`,
    });
  }
  return out;
}

/** The open incident as the rules track it. */
export interface OpenIncident {
  openedAt: number;
  severity: Severity;
  causes: IncidentCause[];
  /** Dependencies its conditions named (the store adds those of failed calls). */
  deps: string[];
  /** Keys of the conditions holding at the last step. */
  holding: string[];
  /** Since when no condition has held (null while one does). */
  clearSince: number | null;
}

export interface TrackerState {
  /** When each condition present now was first seen (it holds continuously since). */
  seen: Record<string, number>;
  open: OpenIncident | null;
}

export const EMPTY_TRACKER: TrackerState = { seen: {}, open: null };

export type IncidentChange =
  /** An incident opens at `at` (the first sighting of its oldest ripe condition) with these conditions. */
  | { kind: 'open'; at: number; conditions: Condition[] }
  /** A condition started to hold in the open incident (a new one, or one that had stopped). */
  | { kind: 'join'; at: number; condition: Condition }
  /** The open incident is over: no condition held since `at`. */
  | { kind: 'close'; at: number };

/**
 * One step of the rules: the state after `now` and what changed. `restarting`: a restart is running or being
 * verified (`IncidentWorld.watchdog.restarting`), which keeps an open incident from settling.
 */
export function step(
  state: TrackerState,
  all: readonly Condition[],
  now: number,
  settings: IncidentSettings,
  restarting = false,
): { state: TrackerState; changes: IncidentChange[] } {
  const conditions = all.filter((c) => !c.holdsOnly || (state.open?.holding.includes(c.key) ?? false));
  const seen: Record<string, number> = {};
  for (const condition of conditions) {
    seen[condition.key] = state.seen[condition.key] ?? Math.min(now, condition.since ?? now);
  }
  const changes: IncidentChange[] = [];
  let open = state.open;

  if (open === null) {
    const ripe = conditions.filter((c) => !c.graced || now - (seen[c.key] ?? now) >= settings.graceMs);
    if (ripe.length === 0) return { state: { seen, open: null }, changes };
    const at = Math.min(...ripe.map((c) => seen[c.key] ?? now));
    open = absorb({ openedAt: at, severity: 'info', causes: [], deps: [], holding: [], clearSince: null }, conditions);
    changes.push({ kind: 'open', at, conditions: [...conditions] });
    return { state: { seen, open }, changes };
  }

  if (conditions.length > 0) {
    for (const condition of conditions) {
      if (!open.holding.includes(condition.key)) changes.push({ kind: 'join', at: now, condition });
    }
    return { state: { seen, open: absorb({ ...open, clearSince: null }, conditions) }, changes };
  }

  if (restarting) return { state: { seen, open: { ...open, holding: [], clearSince: null } }, changes };
  const clearSince = open.clearSince ?? now;
  if (now - clearSince >= settings.settleMs) {
    changes.push({ kind: 'close', at: clearSince });
    return { state: { seen, open: null }, changes };
  }
  return { state: { seen, open: { ...open, holding: [], clearSince } }, changes };
}

/** The open incident with these conditions holding: causes and dependencies accumulate, severity only rises. */
function absorb(open: OpenIncident, conditions: readonly Condition[]): OpenIncident {
  const causes = new Set(open.causes);
  const deps = new Set(open.deps);
  let severity = open.severity;
  for (const condition of conditions) {
    causes.add(condition.cause);
    if (condition.dep) deps.add(condition.dep);
    severity = louder(severity, condition.severity);
  }
  return {
    ...open,
    severity,
    causes: INCIDENT_CAUSES.filter((cause) => causes.has(cause)),
    deps: [...deps].sort(),
    holding: conditions.map((c) => c.key),
  };
}

/** Monday 00:00 (local time) of the week holding `ts`. */
export function weekStartOf(ts: number): number {
  const day = new Date(ts);
  day.setHours(0, 0, 0, 0);
  const sinceMonday = (day.getDay() + 6) % 7;
  day.setDate(day.getDate() - sinceMonday);
  return day.getTime();
}

/** The `count` weeks ending with the one holding `now`, newest first (Monday 00:00 local time each). */
export function lastWeeks(now: number, count: number): number[] {
  const weeks: number[] = [];
  let start = weekStartOf(now);
  for (let i = 0; i < count; i++) {
    weeks.push(start);
    // A day before this Monday is in the previous week, whatever the daylight-saving shift.
    start = weekStartOf(start - 12 * 3_600_000);
  }
  return weeks;
}
