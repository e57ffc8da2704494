/**
 * Stalled sessions per dependency. Silence is a failure no call-wrapping
 * breaker sees, so the status flags it beside the breaker. Two kinds of
 * evidence, counted once per session:
 * - reported: the gateway log says a session is stalled (work started, no
 *   progress); the session's dependency is the one its last call went to;
 * - silent: the transcripts show a session whose latest call failed (a failure
 *   the breakers count: 429, 5xx, timeout, …) and that has made no call since
 *   for `silentAfterMs`. That is how the storms this project exists for looked
 *   from the transcripts: the 429 ended the run and the agent stayed dead.
 */
import type { GatewaySignal } from '../events.js';

/** A stall report counts for this long after the last line about it. */
const STALL_FRESH_MS = 10 * 60_000;
/**
 * A session silent since a failure counts for this long after the failure: long enough to be seen through a
 * storm and a restart, short enough that an agent its user simply stopped using is not flagged for ever.
 */
export const SILENCE_COUNTS_FOR_MS = 60 * 60_000;
/** Sessions remembered for mapping stalls to dependencies (oldest forgotten first). */
const MAX_SESSIONS = 20_000;

interface LastCall {
  dep: string;
  ts: number;
  failed: boolean;
}

export interface Stalled {
  sessions: number;
  since: number;
}

export class StallTracker {
  private readonly lastCalls = new Map<string, LastCall>();
  /** dep → sessions whose latest call (to that dep) failed: the candidates for silence. */
  private readonly failedLast = new Map<string, Set<string>>();
  /** dep → session → last stall report time. */
  private readonly reports = new Map<string, Map<string, number>>();

  /** `silentAfterMs`: how long a session must stay silent after a failure to count (0: never). */
  constructor(private readonly silentAfterMs = 0) {}

  /**
   * A call of `sessionId` to `dep` at `ts`, `failed` if the breakers count it as a failure. The latest call by
   * event time is the one that matters, so a backfill that reads sessions out of order ends in the same state.
   */
  callSeen(sessionId: string, dep: string, ts: number, failed: boolean): void {
    const previous = this.lastCalls.get(sessionId);
    if (previous && previous.ts > ts) return;
    if (previous) this.forgetFailure(sessionId, previous);
    this.lastCalls.delete(sessionId);
    this.lastCalls.set(sessionId, { dep, ts, failed });
    if (failed) setOf(this.failedLast, dep).add(sessionId);
    if (this.lastCalls.size > MAX_SESSIONS) {
      const [oldest, call] = this.lastCalls.entries().next().value as [string, LastCall];
      this.lastCalls.delete(oldest);
      this.forgetFailure(oldest, call);
    }
  }

  /** Records a stall signal; returns the dependency it was attributed to, or null when unknown. */
  signal(signal: GatewaySignal): string | null {
    if (signal.kind !== 'stall' || !signal.sessionId) return null;
    const dep = this.lastCalls.get(signal.sessionId)?.dep ?? signal.dep;
    if (!dep) return null;
    let sessions = this.reports.get(dep);
    if (!sessions) {
      sessions = new Map();
      this.reports.set(dep, sessions);
    }
    sessions.set(signal.sessionId, Math.max(signal.ts, sessions.get(signal.sessionId) ?? 0));
    return dep;
  }

  /** A session that made a call again (to any dependency: it may have fallen back) is no longer reported stalled. */
  progressed(sessionId: string): void {
    for (const sessions of this.reports.values()) sessions.delete(sessionId);
  }

  stalled(dep: string, now: number): Stalled | null {
    const since = new Map<string, number>();
    for (const [sessionId, ts] of this.reports.get(dep) ?? []) {
      if (ts >= now - STALL_FRESH_MS) since.set(sessionId, ts);
    }
    if (this.silentAfterMs > 0) {
      const candidates = this.failedLast.get(dep) ?? new Set<string>();
      for (const sessionId of candidates) {
        const call = this.lastCalls.get(sessionId) as LastCall;
        const silentFor = now - call.ts;
        // Past counting for good (time only moves on): dropped, so the set holds recent failures only.
        if (silentFor > SILENCE_COUNTS_FOR_MS) candidates.delete(sessionId);
        else if (silentFor >= this.silentAfterMs)
          since.set(sessionId, Math.min(call.ts, since.get(sessionId) ?? call.ts));
      }
    }
    return since.size === 0 ? null : { sessions: since.size, since: Math.min(...since.values()) };
  }

  all(now: number): Array<{ dep: string; sessions: number }> {
    return [...new Set([...this.reports.keys(), ...this.failedLast.keys()])]
      .map((dep) => ({ dep, sessions: this.stalled(dep, now)?.sessions ?? 0 }))
      .filter((entry) => entry.sessions > 0);
  }

  private forgetFailure(sessionId: string, call: LastCall): void {
    if (!call.failed) return;
    const sessions = this.failedLast.get(call.dep);
    sessions?.delete(sessionId);
    if (sessions?.size === 0) this.failedLast.delete(call.dep);
  }
}

function setOf<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  return set;
}
