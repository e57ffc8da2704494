/**
 * The restart gate: whether an automatic restart the evidence calls for may run now, and the order when it
 * may. Every automatic restart passes it, whatever its evidence; a manual one does not (see WatchdogPolicy.manual).
 *
 * Nothing is restarted automatically until BreakerBar has seen this gateway
 * healthy since its own start and the restart strategy has been verified
 * runnable; until then it alerts once with why.
 *
 * A restart in flight holds every other (recovery-tracking.ts says how long).
 * Then budget: at most `maxRestartsPerHour` automatic restarts in a rolling
 * hour, spaced `restartSpacingMs` × 2^(n−1) apart; when spent, alert once and
 * wait for the budget to refill or for the user to act. Pause and dry run hold
 * automatic restarts; a manual restart goes through the same path and ignores
 * them, but never runs while another restart is in flight.
 */

import { type DecisionReason, decisionReasonLine } from '../../words/decision-reasons.js';
import type { RestartTrigger } from '../gateway/control.js';
import {
  type Alert,
  type BlockedFacts,
  type Decision,
  type DecisionKind,
  decision,
  type RestartOrder,
} from './policy-decisions.js';
import { alertOnce, type PolicyContext } from './policy-state.js';

const HOUR_MS = 3_600_000;

/** Restarts left in the rolling hour. */
export function budgetRemaining(p: PolicyContext, now: number): number {
  return Math.max(0, p.settings.maxRestartsPerHour - recentRestarts(p, now).length);
}

/** Whether automatic restarts are paused at `now`. */
export function paused(p: PolicyContext, now: number): boolean {
  return p.s.pausedUntil !== null && now < p.s.pausedUntil;
}

/** Why an automatic restart may not run now, or null when it may. */
export function restartGate(p: PolicyContext, now: number, trigger: 'storm' | 'health'): Decision | null {
  const hold = (kind: DecisionKind, why: DecisionReason, alerts: Alert[] = []) =>
    decision('check', kind, why, null, null, alerts);
  if (paused(p, now)) {
    const until = p.s.pausedUntil ?? 0;
    return hold('paused', { code: 'paused', forMs: Number.isFinite(until) ? until - now : null, another: true });
  }
  if (p.s.maintenance !== null) {
    return hold('maintenance', { code: 'maintenance', note: p.s.maintenance });
  }
  if (p.s.inFlight) return hold('in_flight', { code: 'in-flight', trigger: p.s.inFlight.trigger, sinceMs: null });
  const rec = p.s.recovering;
  if (rec?.pending) {
    return hold('pending', { code: 'pending', agoMs: now - rec.since, manual: false });
  }
  if (p.s.gatewayBusy) return hold('starting', { code: 'busy', state: p.s.gatewayBusy });
  if (rec && rec.startedAt === null && now - rec.since < rec.graceMs) {
    return hold('recovering', {
      code: 'recovering',
      self: rec.trigger === 'gateway',
      agoMs: now - rec.since,
      graceMs: rec.graceMs,
    });
  }
  const blocked = blockedReason(p);
  if (blocked) return blockedHold(p, 'check', blocked.why, 'unverified', blocked.facts);
  p.s.blockedAlerted = false;
  const recent = recentRestarts(p, now);
  if (recent.length >= p.settings.maxRestartsPerHour) {
    const oldest = recent[0]?.ts ?? now;
    const why: DecisionReason = {
      code: 'budget',
      restarts: recent.length,
      max: p.settings.maxRestartsPerHour,
      nextInMs: oldest + HOUR_MS - now,
    };
    const reason = decisionReasonLine(why);
    const alerts = alertOnce(p, 'budgetAlerted', {
      kind: 'restart_budget_exhausted',
      dep: null,
      restarts: recent.length,
      max: p.settings.maxRestartsPerHour,
      nextInMs: oldest + HOUR_MS - now,
      trigger,
      message: `${reason}. The ${trigger === 'storm' ? '429 storm' : 'outage'} needs a human.`,
    });
    return hold('budget_exhausted', why, alerts);
  }
  const last = recent[recent.length - 1];
  if (last) {
    const spacing = p.settings.restartSpacingMs * 2 ** (recent.length - 1);
    // A restart "in the future" cannot happen on a monotonic clock; treat it as just now, never as a block.
    const since = Math.max(0, now - last.ts);
    if (since < spacing) {
      return hold('spacing', { code: 'spacing', sinceMs: since, nth: recent.length + 1, spacingMs: spacing });
    }
  }
  return null;
}

/** Why automatic restarts cannot run at all yet, or null. */
function blockedReason(p: PolicyContext): { why: DecisionReason; facts: BlockedFacts } | null {
  const strategy = p.s.strategy;
  // First: the owner's rule is the truest reason, even for a gateway not seen healthy (it stopped itself).
  const owner = strategy?.ownerBlock;
  if (owner) {
    return {
      why: { code: 'blocked', cause: 'owner', rule: owner.rule, who: owner.who, said: owner.reason },
      facts: { cause: 'owner', rule: owner.rule, who: owner.who },
    };
  }
  if (!p.s.seenHealthy) {
    const problem = strategy && !strategy.runnable && strategy.problem ? strategy.problem : null;
    return {
      why: { code: 'blocked', cause: 'never_healthy', problem },
      facts: { cause: 'never_healthy', problem },
    };
  }
  if (strategy === null)
    return {
      why: { code: 'blocked', cause: 'unchecked' },
      facts: { cause: 'unchecked' },
    };
  if (!strategy.runnable)
    return {
      why: { code: 'blocked', cause: 'not_runnable', problem: strategy.problem },
      facts: { cause: 'not_runnable', problem: strategy.problem },
    };
  return null;
}

/** A hold that cannot lift by itself: alerted once until automatic restarts become possible. */
export function blockedHold(
  p: PolicyContext,
  source: Decision['source'],
  why: DecisionReason,
  kind: DecisionKind,
  facts: BlockedFacts,
): Decision {
  const reason = decisionReasonLine(why);
  const alerts = alertOnce(p, 'blockedAlerted', {
    kind: 'watchdog_blocked',
    dep: null,
    blocked: facts,
    message: `${reason[0]?.toUpperCase()}${reason.slice(1)}.`,
  });
  return decision(source, kind, why, null, null, alerts);
}

/** A restart the gate let through: counted against the budget, then ordered (or, in a dry run, only said). */
export function orderRestart(p: PolicyContext, now: number, source: Decision['source'], order: RestartOrder): Decision {
  p.s.restarts.push({ ts: now, trigger: order.trigger });
  if (p.settings.dryRun) {
    const wouldRun = decision(
      source,
      'dry_run',
      { code: 'dry-run', order: order.why ?? { code: 'text', text: order.reason } },
      order.deps[0] ?? null,
      null,
      [
        {
          kind: 'restart_would_run',
          dep: order.deps[0] ?? null,
          order: order.facts ?? { evidence: 'manual', reason: order.reason },
          message: `Dry run: would restart the gateway: ${order.reason}.`,
        },
      ],
    );
    return { ...wouldRun, wouldRestart: order };
  }
  p.s.inFlight = { since: now, trigger: order.trigger };
  return decision(source, 'restart', order.why ?? { code: 'text', text: order.reason }, order.deps[0] ?? null, order);
}

function recentRestarts(p: PolicyContext, now: number): Array<{ ts: number; trigger: RestartTrigger }> {
  p.s.restarts = p.s.restarts.filter((r) => now - r.ts < HOUR_MS);
  return p.s.restarts;
}

/** The holds that lift with time: a pause that has ended, a budget that has refilled (each said once). */
export function liftedHolds(p: PolicyContext, now: number): Decision[] {
  const out: Decision[] = [];
  if (paused(p, now) === false && p.s.pausedUntil !== null && Number.isFinite(p.s.pausedUntil)) {
    p.s.pausedUntil = null;
    out.push(decision('tick', 'quiet', { code: 'pause-ended' }));
  }
  if (p.s.budgetAlerted && budgetRemaining(p, now) > 0) {
    p.s.budgetAlerted = false;
    out.push(decision('tick', 'quiet', { code: 'budget-refilled' }));
  }
  return out;
}
