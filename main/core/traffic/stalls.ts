/**
 * Stalled sessions per dependency. The gateway log reports a session as stalled
 * (work started, no progress); the session's dependency is the one its last
 * call went to. Silence is a failure no call-wrapping breaker sees, so the
 * status flags it beside the breaker.
 */
import type { GatewaySignal } from '../events.js';

/** A stall report counts for this long after the last line about it. */
const STALL_FRESH_MS = 10 * 60_000;
/** Sessions remembered for mapping stalls to dependencies (oldest forgotten first). */
const MAX_SESSIONS = 20_000;

export class StallTracker {
  private readonly sessionDeps = new Map<string, string>();
  /** dep → session → last stall report time. */
  private readonly stalls = new Map<string, Map<string, number>>();

  /** Remembers which dependency a session's latest call went to. */
  callSeen(sessionId: string, dep: string): void {
    this.sessionDeps.delete(sessionId);
    this.sessionDeps.set(sessionId, dep);
    if (this.sessionDeps.size > MAX_SESSIONS) {
      const oldest = this.sessionDeps.keys().next().value;
      if (oldest !== undefined) this.sessionDeps.delete(oldest);
    }
  }

  /** Records a stall signal; returns the dependency it was attributed to, or null when unknown. */
  signal(signal: GatewaySignal): string | null {
    if (signal.kind !== 'stall' || !signal.sessionId) return null;
    const dep = this.sessionDeps.get(signal.sessionId) ?? signal.dep;
    if (!dep) return null;
    let sessions = this.stalls.get(dep);
    if (!sessions) {
      sessions = new Map();
      this.stalls.set(dep, sessions);
    }
    sessions.set(signal.sessionId, Math.max(signal.ts, sessions.get(signal.sessionId) ?? 0));
    return dep;
  }

  /** A session that made a call again (to any dependency: it may have fallen back) is no longer stalled. */
  progressed(sessionId: string): void {
    for (const sessions of this.stalls.values()) sessions.delete(sessionId);
  }

  stalled(dep: string, now: number): { sessions: number; since: number } | null {
    const sessions = this.stalls.get(dep);
    if (!sessions) return null;
    const fresh = [...sessions.values()].filter((ts) => ts >= now - STALL_FRESH_MS);
    return fresh.length === 0 ? null : { sessions: fresh.length, since: Math.min(...fresh) };
  }

  all(now: number): Array<{ dep: string; sessions: number }> {
    return [...this.stalls.keys()]
      .map((dep) => ({ dep, sessions: this.stalled(dep, now)?.sessions ?? 0 }))
      .filter((entry) => entry.sessions > 0);
  }
}
