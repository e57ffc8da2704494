/**
 * Stalled sessions per dependency. Silence is a failure no call-wrapping
 * breaker sees, so the status flags it beside the breaker.
 *
 * The only evidence is OpenClaw's own: the gateway log's `stalled session` /
 * `stuck session` lines (`diagnostic` subsystem: a run in progress that stopped
 * making progress). Transcripts cannot tell a stalled run from an idle session:
 * their records are written when a run ends, so a session whose last turn
 * failed and that has gone quiet since is idle (its user has not written
 * again), not stalled, however long the quiet lasts.
 *
 * A reported session is stalled on the dependency of its latest call (else the
 * one the line names) until it makes a call after the line (any source, any
 * outcome: a failed attempt while a run retries is progress too, provided the
 * call names the session), or until ten minutes after the last line about it.
 * No other inference is made. Everything is judged by event time, so calls and
 * lines read in any order (a backfill, a restart's rebuild from the store) end
 * in the same state.
 */
import type { GatewaySignal } from '../calls/events.js';

/** A stall report counts for this long after the last line about it. */
export const STALL_FRESH_MS = 10 * 60_000;
/** Sessions remembered for mapping stalls to dependencies, and reports kept (oldest forgotten first). */
const MAX_SESSIONS = 20_000;
/**
 * The session id of a call whose source could not tell the session (the gateway log's per-attempt calls name
 * only the run): not a session, so such a call proves nothing about any session and no stall is put on it.
 */
const NO_SESSION = 'unknown';

/** Whether `sessionId` names a session the tracker can follow. */
export function isTrackedSession(sessionId: string | null | undefined): sessionId is string {
  return typeof sessionId === 'string' && sessionId !== '' && sessionId !== NO_SESSION;
}

interface LastCall {
  dep: string;
  ts: number;
}

interface Report {
  /** Time of the latest line about the session. */
  ts: number;
  /** When the session last made progress, by the lines' own ages (the earliest any line implies). */
  stuckSince: number;
  /** The dependency a line named, used only when no call of the session is known. */
  dep: string | null;
}

export interface Stalled {
  sessions: number;
  /** The oldest of the sessions' latest reports. */
  since: number;
  /** The newest of the sessions' latest reports. */
  latest: number;
  /** Since when the longest-stuck session has made no progress (its first report's time minus its age). */
  stuckSince: number;
}

export class StallTracker {
  private readonly lastCalls = new Map<string, LastCall>();
  /** session → its stall report, while no call after it was seen. */
  private readonly reports = new Map<string, Report>();

  /**
   * A call of `sessionId` to `dep` that ended at `ts`. The latest call by event time is the one that matters (a
   * backfill may read sessions out of order), and any call after a stall report ends that stall.
   */
  callSeen(sessionId: string, dep: string, ts: number): void {
    if (!isTrackedSession(sessionId)) return;
    const report = this.reports.get(sessionId);
    if (report && ts > report.ts) this.reports.delete(sessionId);
    const previous = this.lastCalls.get(sessionId);
    if (previous && previous.ts > ts) return;
    this.lastCalls.delete(sessionId);
    this.lastCalls.set(sessionId, { dep, ts });
    if (this.lastCalls.size > MAX_SESSIONS) this.lastCalls.delete(this.lastCalls.keys().next().value as string);
  }

  /** Whether a call of `sessionId` is known (else its last call may be worth looking up). */
  knows(sessionId: string): boolean {
    return this.lastCalls.has(sessionId);
  }

  /**
   * Records a gateway-log signal (only `stall` ones matter); returns the dependency the session is now stalled
   * on, or null (not a stall, no session, no dependency known for it, or a call already seen after the line).
   */
  signal(signal: GatewaySignal): string | null {
    if (signal.kind === 'gateway_restart') this.restarted(signal.ts);
    if (signal.kind !== 'stall') return null;
    return this.reported(signal.sessionId, signal.ts, signal.dep, signal.durationMs);
  }

  /**
   * The gateway began an in-process restart at `ts`: the runs reported stalled until then are aborted (OpenClaw
   * resumes them in the new process, which reports them afresh if they stall again).
   */
  private restarted(ts: number): void {
    for (const [sessionId, report] of this.reports) if (report.ts <= ts) this.reports.delete(sessionId);
  }

  /**
   * A stall line about `sessionId` at `ts` (`dep`: the dependency the line names, if any; `ageMs`: how long the
   * line says the session has been without progress); as `signal`.
   */
  reported(sessionId: string | null, ts: number, dep: string | null, ageMs: number | null = null): string | null {
    if (!isTrackedSession(sessionId)) return null;
    const call = this.lastCalls.get(sessionId);
    // A line older than the session's latest call is already answered: the session made progress after it.
    if (!call || call.ts <= ts) {
      const previous = this.reports.get(sessionId);
      this.reports.delete(sessionId);
      const stuckSince = Math.min(ts - Math.max(0, ageMs ?? 0), previous?.stuckSince ?? Number.POSITIVE_INFINITY);
      this.reports.set(sessionId, {
        ts: Math.max(ts, previous?.ts ?? ts),
        stuckSince,
        dep: dep ?? previous?.dep ?? null,
      });
      if (this.reports.size > MAX_SESSIONS) this.reports.delete(this.reports.keys().next().value as string);
    }
    return this.reports.has(sessionId) ? this.depOf(sessionId) : null;
  }

  stalled(dep: string, now: number): Stalled | null {
    return this.byDep(now).get(dep) ?? null;
  }

  all(now: number): Array<{ dep: string; sessions: number }> {
    return [...this.byDep(now)].flatMap(([dep, { sessions }]) => (dep === null ? [] : [{ dep, sessions }]));
  }

  /**
   * Fresh reports of sessions whose dependency is unknown: a session stuck in its first call (no call of it
   * stored yet, and OpenClaw's stall line names no model). No breaker can show them, but they are as stalled
   * as any: the hung-gateway rule counts them.
   */
  withoutDependency(now: number): Stalled | null {
    return this.byDep(now).get(null) ?? null;
  }

  /** Fresh reports per dependency (null: not known): each session once, dated by the oldest of their latest reports. */
  private byDep(now: number): Map<string | null, Stalled> {
    const result = new Map<string | null, Stalled>();
    for (const [sessionId, report] of this.reports) {
      // Past counting for good (time only moves on): dropped, so the map holds fresh reports only.
      if (report.ts < now - STALL_FRESH_MS) {
        this.reports.delete(sessionId);
        continue;
      }
      const dep = this.depOf(sessionId);
      const entry = result.get(dep);
      if (entry) {
        entry.sessions += 1;
        entry.since = Math.min(entry.since, report.ts);
        entry.latest = Math.max(entry.latest, report.ts);
        entry.stuckSince = Math.min(entry.stuckSince, report.stuckSince);
      } else result.set(dep, { sessions: 1, since: report.ts, latest: report.ts, stuckSince: report.stuckSince });
    }
    return result;
  }

  /** A reported session's dependency: that of its latest call (all before the report), else the line's. */
  private depOf(sessionId: string): string | null {
    return this.lastCalls.get(sessionId)?.dep ?? this.reports.get(sessionId)?.dep ?? null;
  }
}
