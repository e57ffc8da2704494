/**
 * Recovery tracking: a restart from the moment it is ordered (or announced) until the gateway has come back
 * or its grace has passed, and the gateway process's start time that tells a restarted gateway from the old
 * one still answering.
 *
 * A restart in flight (BreakerBar's own, one OpenClaw scheduled for later, or
 * one the gateway did by itself) is a restart, not a death: nothing triggers
 * another until the gateway reports `started` with a process newer than the
 * restart, or its grace has passed (`startupGraceMs`; for a pending restart
 * also as long as OpenClaw may hold it back).
 */

import type { RestartOutcome, RestartTrigger } from '../gateway/control.js';
import { type Decision, decision } from './policy-decisions.js';
import type { ProbeInput } from './policy-inputs.js';
import type { PolicyContext } from './policy-state.js';

/** A process start this much older than a restart's beginning cannot be the restarted process. */
const PROCESS_START_SLACK_MS = 2000;

/** A restart from before BreakerBar's own restart, verified as if BreakerBar had never stopped. */
export function rememberRecovery(p: PolicyContext, since: number, trigger: RestartTrigger): void {
  p.s.recovering = {
    since,
    trigger,
    startedAt: null,
    seen: false,
    pending: false,
    graceMs: p.settings.startupGraceMs,
  };
}

/** The restart command finished: a failed one is forgotten, any other is verified from now on. */
export function restartFinished(p: PolicyContext, outcome: RestartOutcome, pendingMaxWaitMs: number | null): void {
  const flight = p.s.inFlight;
  p.s.inFlight = null;
  if (!flight || outcome === 'failed') {
    p.s.recovering = null;
    return;
  }
  // Only probes after the command count: one taken while it ran may have met the old gateway. A command that
  // returned `done` or `still starting` has restarted it; a pending one has only been accepted.
  p.s.recovering = {
    since: flight.since,
    trigger: flight.trigger,
    startedAt: null,
    seen: outcome !== 'pending',
    pending: outcome === 'pending',
    graceMs: p.settings.startupGraceMs + (outcome === 'pending' ? Math.max(0, pendingMaxWaitMs ?? 0) : 0),
  };
}

/** What a probe says about the restart being verified: the old process gone, or the new one started. */
export function recoverySeen(p: PolicyContext, now: number, green: boolean, startup: ProbeInput['startup']): void {
  const rec = p.s.recovering;
  if (rec && !green) rec.seen = true;
  if (rec && rec.startedAt === null && green && (startup === 'started' || startup === 'unknown')) {
    // A green answer from the process that was to be restarted is not a recovery.
    const newer = processNewerThan(p, rec.since);
    if (newer ?? rec.seen) {
      rec.seen = true;
      rec.startedAt = now;
    }
  }
}

/** The restart being verified, once it has ended: started and answering, or not within its grace. */
export function settleRecovery(p: PolicyContext, now: number): Decision[] {
  const rec = p.s.recovering;
  if (!rec) return [];
  if (rec.startedAt !== null) {
    p.s.recovering = null;
    return [
      decision('tick', rec.trigger === 'gateway' ? 'quiet' : 'recovered', {
        code: 'recovered',
        self: rec.trigger === 'gateway',
        afterMs: rec.startedAt - rec.since,
      }),
    ];
  }
  if (now - rec.since >= rec.graceMs) {
    p.s.recovering = null;
    const graceMs = rec.graceMs;
    return [
      rec.trigger === 'gateway'
        ? decision('tick', 'quiet', { code: 'not-recovered', how: 'own', graceMs })
        : decision('tick', 'not_recovered', {
            code: 'not-recovered',
            how: rec.pending ? 'pending' : 'restart',
            graceMs,
          }),
    ];
  }
  return [];
}

/**
 * Follows the gateway process's start time (from /readyz uptime). An uptime that went back to less than the
 * time since the previous probe means the gateway restarted meanwhile; returns the decision saying so when
 * nobody announced it. OpenClaw measures uptime on the wall clock, so any other jump is a clock step: the
 * process is the same, and its start is unknown from then on rather than wrong.
 */
export function noticeProcessStart(p: PolicyContext, now: number, result: ProbeInput): Decision | null {
  const uptime = result.uptimeMs;
  if (uptime === null || uptime === undefined || uptime < 0) return null;
  const last = p.s.lastUptime;
  p.s.lastUptime = { at: now, uptimeMs: uptime };
  if (last === null) {
    p.s.processStart = now - uptime;
    return null;
  }
  const elapsed = now - last.at;
  const drift = uptime - (last.uptimeMs + elapsed);
  if (Math.abs(drift) <= PROCESS_START_SLACK_MS) return null;
  if (drift > 0 || uptime > elapsed + PROCESS_START_SLACK_MS) {
    p.s.processStart = null;
    return null;
  }
  p.s.processStart = now - uptime;
  const rec = p.s.recovering;
  if (rec) {
    rec.seen = true;
    rec.pending = false;
    return null;
  }
  if (p.s.inFlight) return null;
  return decision('probe', 'gateway_restarted', { code: 'restarted-itself', uptimeMs: uptime });
}

/** Whether the gateway process seen last started after `since`; null when its uptime is not known. */
function processNewerThan(p: PolicyContext, since: number): boolean | null {
  return p.s.processStart === null ? null : p.s.processStart >= since - PROCESS_START_SLACK_MS;
}

/** A restart is under way: its command is running, or the gateway has not started since. */
export function restarting(p: PolicyContext): boolean {
  const rec = p.s.recovering;
  return p.s.inFlight !== null || (rec !== null && rec.startedAt === null);
}
