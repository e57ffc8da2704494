/**
 * The watchdog's decisions, and nothing else: no timers, no I/O. Time comes
 * only as the `now` each call is given, on a monotonic clock (the watchdog
 * converts every wall time it hands in), so a wall-clock step in either
 * direction neither blocks nor multiplies restarts.
 *
 * Every automatic restart rests on one kind of evidence, named in its decision:
 * dead, unloaded or hung (health-rules.ts), or a 429 storm (storm-rule.ts). It
 * then passes the restart gate (restart-gate.ts): the gateway seen healthy, a
 * runnable strategy, no restart in flight (recovery-tracking.ts), the budget
 * and its spacing, no pause. This class is the one its callers use: it keeps
 * the state (policy-state.ts) and hands each call to the rules that judge it.
 */

import type { DecisionReason } from '../../words/decision-reasons.js';
import type { RestartOutcome, RestartTrigger } from '../gateway/control.js';
import type { WatchdogSettings } from './config.js';
import { divergenceAlarm, judgeHung, judgeProbe, resetDead } from './health-rules.js';
import { type Decision, decision } from './policy-decisions.js';
import type { BreakerInput, CheckInput, ProbeInput, StrategyCheck } from './policy-inputs.js';
import { initialState, type PolicyContext, type WatchdogState } from './policy-state.js';
import { rememberRecovery, restartFinished, settleRecovery } from './recovery-tracking.js';
import { budgetRemaining, liftedHolds, paused } from './restart-gate.js';
import { askSeenAt, judgeStorm, resetStorm, waitingOut } from './storm-rule.js';

/** The reason a manual restart is stored under when the requester gave none. */
export const DEFAULT_MANUAL_REASON = 'restart requested by the user';

export class WatchdogPolicy {
  private readonly s: WatchdogState;
  /** What the rules are handed: the settings and `s` itself (never replaced, so both always agree). */
  private readonly p: PolicyContext;

  constructor(
    readonly settings: WatchdogSettings,
    state: WatchdogState = initialState(),
  ) {
    this.s = structuredClone(state);
    this.p = { settings, s: this.s };
  }

  /** A copy of the state (for status, metrics and tests). */
  state(): WatchdogState {
    return structuredClone(this.s);
  }

  /** Restarts left in the rolling hour. */
  budgetRemaining(now: number): number {
    return budgetRemaining(this.p, now);
  }

  paused(now: number): boolean {
    return paused(this.p, now);
  }

  /** Seeds the budget with restarts from history (BreakerBar itself restarted). */
  rememberRestart(ts: number, trigger: RestartTrigger): void {
    if (trigger !== 'manual') this.s.restarts.push({ ts, trigger });
  }

  /**
   * A restart from before BreakerBar's own restart (a config reload, a crash)
   * still being verified: its grace holds every trigger as if nothing happened.
   */
  rememberRecovery(since: number, trigger: RestartTrigger): void {
    rememberRecovery(this.p, since, trigger);
  }

  /** The restart strategy was checked (at start, then now and then): whether restarts can run, and how the service is. */
  strategyChecked(check: StrategyCheck): void {
    this.s.strategy = { ...check };
  }

  /**
   * Whether a maintenance window is in force (the watchdog asks its alert windows before every decision):
   * someone is working on the gateway, so a dead or stormy gateway is theirs, not the watchdog's.
   */
  setMaintenance(reason: string | null): void {
    this.s.maintenance = reason;
  }

  pause(now: number, untilMs: number | null): Decision {
    this.s.pausedUntil = untilMs ?? Number.POSITIVE_INFINITY;
    return decision('manual', 'paused', {
      code: 'paused',
      forMs: untilMs === null ? null : untilMs - now,
      another: false,
    });
  }

  /** Resume also counts as the user acting on a spent budget: it starts afresh. */
  resume(_now: number): Decision {
    this.s.pausedUntil = null;
    this.s.restarts = [];
    this.s.budgetAlerted = false;
    resetStorm(this.p);
    resetDead(this.p);
    return decision('manual', 'quiet', { code: 'resumed' });
  }

  /** The dependencies of the storm being counted (none when no count is running). */
  stormDeps(): string[] {
    return this.s.consecutiveChecks > 0 ? (this.s.rateLimited?.deps.map((d) => d.dep) ?? []) : [];
  }

  /** One check (every `checkIntervalSec`): the rate-limit storm rule, then the hung-gateway rule. */
  check(now: number, input: CheckInput): Decision {
    for (const d of input.deps) if (d.retryAfterUntil !== null) askSeenAt(this.p, d.dep, d.retryAfterUntil, now);
    const affected = input.deps.filter((d) => d.count > 0);
    if (affected.length === 0) {
      const waiting = waitingOut(this.p, now, input.deps);
      if (waiting) return waiting;
    }
    this.s.rateLimited =
      affected.length === 0
        ? null
        : {
            since: this.s.rateLimited?.since ?? now,
            deps: affected.map((d) => ({ dep: d.dep, fallbacks: [...d.workingFallbacks] })),
          };
    if (affected.length === 0) {
      const was = this.s.consecutiveChecks;
      resetStorm(this.p);
      const hung = judgeHung(this.p, now, input.stalled ?? null);
      if (hung) return hung;
      return decision('check', 'quiet', { code: 'no-storm', reset: was > 0 });
    }
    const total = affected.reduce((sum, d) => sum + d.count, 0);
    const top = affected[0]?.dep ?? null;
    if (!this.settings.enabled) return decision('check', 'disabled', { code: 'storm-disabled', total }, top);
    this.s.consecutiveChecks += 1;
    this.s.stormSince ??= now;
    const counted: DecisionReason = {
      code: 'storm-counting',
      deps: affected.map((d) => ({ dep: d.dep, count: d.count })),
      check: this.s.consecutiveChecks,
      threshold: this.settings.threshold,
    };
    if (this.s.consecutiveChecks < this.settings.threshold) return decision('check', 'counting', counted, top);
    return judgeStorm(this.p, now, affected);
  }

  /** One health probe result. */
  probe(now: number, result: ProbeInput): Decision {
    return judgeProbe(this.p, now, result);
  }

  /**
   * The gateway announced a restart of its own (its log says it is restarting, or the operator ran one):
   * a restart in flight, not a death.
   */
  gatewayRestarting(now: number, detail: string): Decision {
    const rec = this.s.recovering;
    if (rec && rec.startedAt === null) {
      rec.seen = true;
      rec.pending = false;
      return decision('probe', 'gateway_restarted', { code: 'gateway-restarting', said: detail, stands: 'counted' });
    }
    if (this.s.inFlight) {
      return decision('probe', 'gateway_restarted', { code: 'gateway-restarting', said: detail, stands: 'running' });
    }
    this.s.recovering = {
      since: now,
      trigger: 'gateway',
      startedAt: null,
      seen: true,
      pending: false,
      graceMs: this.settings.startupGraceMs,
    };
    resetDead(this.p);
    return decision('probe', 'gateway_restarted', { code: 'gateway-restarting', said: detail, stands: 'waiting' });
  }

  /** The user asked for a restart: same path, recorded as manual; only an in-flight restart stops it. */
  manual(now: number, reason = DEFAULT_MANUAL_REASON): Decision {
    const flight = this.s.inFlight;
    if (flight) {
      return decision('manual', 'in_flight', {
        code: 'in-flight',
        trigger: flight.trigger,
        sinceMs: now - flight.since,
      });
    }
    const rec = this.s.recovering;
    if (rec?.pending) {
      return decision('manual', 'pending', { code: 'pending', agoMs: now - rec.since, manual: true });
    }
    // The user acting resets a spent budget: automation starts afresh after their restart.
    this.s.restarts = [];
    this.s.budgetAlerted = false;
    resetStorm(this.p);
    resetDead(this.p);
    this.s.inFlight = { since: now, trigger: 'manual' };
    const why: DecisionReason = { code: 'manual', note: reason === DEFAULT_MANUAL_REASON ? null : reason };
    return decision('manual', 'restart', why, null, {
      trigger: 'manual',
      evidence: 'manual',
      reason,
      why,
      deps: [],
      probeClass: null,
      facts: { evidence: 'manual', reason: reason === DEFAULT_MANUAL_REASON ? null : reason },
    });
  }

  /**
   * The restart command finished. `pendingMaxWaitMs`: how long OpenClaw may hold a pending restart back
   * (it drains work first, then forces it); the wait for it is that plus the startup grace.
   */
  restartFinished(_now: number, outcome: RestartOutcome, pendingMaxWaitMs: number | null = null): void {
    restartFinished(this.p, outcome, pendingMaxWaitMs);
  }

  /** Recovery bookkeeping, pause and budget expiry, and the divergence alarm; call on every probe and check. */
  tick(now: number, breakers: readonly BreakerInput[]): Decision[] {
    return [...settleRecovery(this.p, now), ...liftedHolds(this.p, now), ...divergenceAlarm(this.p, now, breakers)];
  }
}
