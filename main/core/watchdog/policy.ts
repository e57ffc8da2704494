/**
 * The watchdog's decisions, and nothing else: no timers, no I/O, time only as
 * the `now` each call is given. The runner feeds it checks, probes and the
 * outcome of restarts, and performs what it returns.
 *
 * Rules (defaults reproduce the cron watchdog this replaces, made safe):
 * - Storm: every check that finds new rate_limited calls in the window counts
 *   one; a check without them resets the count; at `threshold` the gateway is
 *   restarted and the count reset.
 * - Health: `healthFailuresBeforeRestart` dead probes in a row restart it;
 *   `starting` and `draining` are not dead.
 * - After a restart nothing triggers another until the gateway reports
 *   `started` or `startupGraceMs` has passed (OpenClaw can take minutes).
 * - Budget: at most `maxRestartsPerHour` automatic restarts in a rolling hour,
 *   spaced `restartSpacingMs` × 2^(n−1) apart; when spent, alert once and wait
 *   for the budget to refill or for the user to act (resume or restart).
 * - Retry-After is binding: a storm restart waits while an upstream
 *   Retry-After for an affected dependency is in force, at most
 *   `maxDeferralMs`; where a fallback is answering, it says so instead.
 * - Divergence: probes green while a breaker has been open or throttled for
 *   `divergenceMs` raises an alarm once per episode.
 * - Pause (until a time, or until resumed) and dry run hold automatic
 *   restarts; a manual restart goes through the same path and ignores them,
 *   but never runs while another restart is in flight.
 */

export type RestartTrigger = 'manual' | 'health' | 'storm';

export interface WatchdogSettings {
  /** false: decide nothing automatically (manual restarts still work). */
  enabled: boolean;
  windowMs: number;
  threshold: number;
  healthFailuresBeforeRestart: number;
  startupGraceMs: number;
  maxRestartsPerHour: number;
  restartSpacingMs: number;
  maxDeferralMs: number;
  divergenceMs: number;
  dryRun: boolean;
}

/** What a check found: new rate_limited calls in the window, per dependency. */
export interface CheckInput {
  deps: Array<{
    dep: string;
    count: number;
    /** The dependency's Retry-After deadline in force (breaker `retryAfterUntil`), if any. */
    retryAfterUntil: number | null;
    /** Other dependencies answering successfully for the same agents in the window. */
    workingFallbacks: string[];
  }>;
}

export interface ProbeInput {
  /** The probe class: ok, refused, read_timeout, connect_timeout, reset, starting, draining, http_<n>, error. */
  class: string;
  dead: boolean;
  /** /startupz: started, starting, draining, unknown (an older gateway without it). */
  startup: 'started' | 'starting' | 'draining' | 'unknown';
  detail: string;
}

export interface BreakerInput {
  dep: string;
  state: 'closed' | 'half_open' | 'open' | 'throttled';
  since: number;
}

export type AlertKind =
  | 'restart_deferred'
  | 'restart_budget_exhausted'
  | 'gateway_down'
  | 'gateway_up'
  | 'divergence'
  | 'fallback_answering'
  | 'restart_would_run';

export interface Alert {
  kind: AlertKind;
  dep: string | null;
  message: string;
}

export interface RestartOrder {
  trigger: RestartTrigger;
  reason: string;
  /** The dependencies a storm restart is about (empty for health and manual). */
  deps: string[];
  /** What the probe saw (a hung gateway wants a forced restart). */
  probeClass: string | null;
}

/** The words a decision is stored and counted under. */
export type DecisionKind =
  | 'restart'
  | 'dry_run'
  | 'counting'
  | 'quiet'
  | 'healthy'
  | 'dead'
  | 'starting'
  | 'deferred'
  | 'fallback_answering'
  | 'budget_exhausted'
  | 'spacing'
  | 'paused'
  | 'recovering'
  | 'in_flight'
  | 'disabled'
  | 'recovered'
  | 'started_unconfirmed'
  | 'not_recovered'
  | 'divergence';

export interface Decision {
  source: 'check' | 'probe' | 'manual' | 'tick';
  kind: DecisionKind;
  reason: string;
  dep: string | null;
  restart: RestartOrder | null;
  alerts: Alert[];
}

/** Where a restart stands after its command ran. */
export type RestartOutcome = 'done' | 'still_starting' | 'failed';

export interface Recovery {
  /** When the restart began. */
  since: number;
  trigger: RestartTrigger;
  /** When /startupz said started (or /healthz ok on a gateway without /startupz). */
  startedAt: number | null;
}

export interface WatchdogState {
  consecutiveChecks: number;
  healthFailures: number;
  /** The gateway was reported down (alerted) and has not come back yet. */
  down: boolean;
  lastProbeGreen: boolean | null;
  /** The last probe said starting or draining: the gateway is busy coming up or going down. */
  gatewayBusy: string | null;
  /** Automatic restarts (time, trigger) in the last hour, for the budget and spacing. */
  restarts: Array<{ ts: number; trigger: RestartTrigger }>;
  inFlight: { since: number; trigger: RestartTrigger } | null;
  recovering: Recovery | null;
  /** Automatic restarts held until this time; Infinity = until resumed. */
  pausedUntil: number | null;
  /** A storm restart waiting for a Retry-After, since when and until when at most. */
  deferral: { since: number; until: number; dep: string } | null;
  budgetAlerted: boolean;
  /** Divergence episode: alerted once until it clears. */
  divergenceSince: number | null;
  divergenceAlerted: boolean;
}

const HOUR_MS = 3_600_000;

export function initialState(): WatchdogState {
  return {
    consecutiveChecks: 0,
    healthFailures: 0,
    down: false,
    lastProbeGreen: null,
    gatewayBusy: null,
    restarts: [],
    inFlight: null,
    recovering: null,
    pausedUntil: null,
    deferral: null,
    budgetAlerted: false,
    divergenceSince: null,
    divergenceAlerted: false,
  };
}

function seconds(ms: number): string {
  if (ms >= 90 * 60_000) return `${Math.round(ms / 3_600_000)} h`;
  if (ms >= 120_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.max(0, Math.round(ms / 1000))} s`;
}

export class WatchdogPolicy {
  private s: WatchdogState;

  constructor(
    readonly settings: WatchdogSettings,
    state: WatchdogState = initialState(),
  ) {
    this.s = structuredClone(state);
  }

  /** A copy of the state (for status, metrics and tests). */
  state(): WatchdogState {
    return structuredClone(this.s);
  }

  /** Restarts left in the rolling hour. */
  budgetRemaining(now: number): number {
    return Math.max(0, this.settings.maxRestartsPerHour - this.recentRestarts(now).length);
  }

  paused(now: number): boolean {
    return this.s.pausedUntil !== null && now < this.s.pausedUntil;
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
    this.s.recovering = { since, trigger, startedAt: null };
  }

  pause(now: number, untilMs: number | null): Decision {
    this.s.pausedUntil = untilMs ?? Number.POSITIVE_INFINITY;
    const reason = untilMs === null ? 'watchdog paused until resumed' : `watchdog paused for ${seconds(untilMs - now)}`;
    return this.decision('manual', 'paused', reason);
  }

  /** Resume also counts as the user acting on a spent budget: it starts afresh. */
  resume(_now: number): Decision {
    this.s.pausedUntil = null;
    this.s.restarts = [];
    this.s.budgetAlerted = false;
    this.s.consecutiveChecks = 0;
    this.s.healthFailures = 0;
    this.s.deferral = null;
    return this.decision('manual', 'quiet', 'watchdog resumed; restart budget reset');
  }

  /** One rate-limit check (every `checkIntervalSec`). */
  check(now: number, input: CheckInput): Decision {
    const affected = input.deps.filter((d) => d.count > 0);
    const total = affected.reduce((sum, d) => sum + d.count, 0);
    if (total === 0) {
      const was = this.s.consecutiveChecks;
      this.s.consecutiveChecks = 0;
      this.s.deferral = null;
      return this.decision(
        'check',
        'quiet',
        was > 0 ? 'no new rate-limited calls: count reset' : 'no new rate-limited calls',
      );
    }
    const top = affected[0]?.dep ?? null;
    if (!this.settings.enabled)
      return this.decision('check', 'disabled', `${total} new rate-limited calls; watchdog disabled`, top);
    this.s.consecutiveChecks += 1;
    const counted = `${total} new rate-limited call${total === 1 ? '' : 's'} (${affected.map((d) => `${d.dep} ${d.count}`).join(', ')}), check ${this.s.consecutiveChecks} of ${this.settings.threshold}`;
    if (this.s.consecutiveChecks < this.settings.threshold) return this.decision('check', 'counting', counted, top);

    // Threshold reached. A storm the gateway's fallbacks are absorbing is not a stalled gateway.
    if (affected.every((d) => d.workingFallbacks.length > 0)) {
      this.s.consecutiveChecks = 0;
      const detail = affected.map((d) => `${d.dep} → ${d.workingFallbacks.join(', ')}`).join('; ');
      return this.decision(
        'check',
        'fallback_answering',
        `rate limited, but fallbacks are answering (${detail}); not restarting`,
        top,
        null,
        [
          {
            kind: 'fallback_answering',
            dep: top,
            message: `Rate limited, fallbacks answering: ${detail}. No restart.`,
          },
        ],
      );
    }
    const gate = this.gate(now, 'storm');
    if (gate) return { ...gate, source: 'check', dep: top };

    const waiting = this.retryAfterHold(now, affected);
    if (waiting) return waiting;

    this.s.consecutiveChecks = 0;
    this.s.deferral = null;
    const reason = `429 storm: new rate-limited calls in ${this.settings.threshold} consecutive checks (${affected
      .map((d) => d.dep)
      .join(', ')})`;
    return this.order(now, 'check', { trigger: 'storm', reason, deps: affected.map((d) => d.dep), probeClass: null });
  }

  /** One health probe result. */
  probe(now: number, result: ProbeInput): Decision {
    const alerts: Alert[] = [];
    const green = !result.dead && result.class === 'ok';
    this.s.lastProbeGreen = green;
    this.s.gatewayBusy = !result.dead && !green ? result.class : null;
    const rec = this.s.recovering;
    if (rec && rec.startedAt === null && green && (result.startup === 'started' || result.startup === 'unknown')) {
      rec.startedAt = now;
    }
    if (green) {
      this.s.healthFailures = 0;
      if (this.s.down) {
        this.s.down = false;
        alerts.push({ kind: 'gateway_up', dep: null, message: 'The gateway answers its health probes again.' });
      }
      return this.decision('probe', 'healthy', result.detail, null, null, alerts);
    }
    if (!result.dead) {
      // starting / draining: alive and busy; never a reason to restart, and not a failure streak either.
      this.s.healthFailures = 0;
      return this.decision('probe', 'starting', result.detail);
    }
    this.s.healthFailures += 1;
    const streak = `${result.detail} (dead probe ${this.s.healthFailures} of ${this.settings.healthFailuresBeforeRestart})`;
    if (this.s.healthFailures < this.settings.healthFailuresBeforeRestart)
      return this.decision('probe', 'dead', streak);
    // Down during a restart of our own is expected, not news: the restart's own notices say it.
    const restarting = this.s.inFlight !== null || (rec !== null && rec.startedAt === null);
    if (!this.s.down && !restarting) {
      this.s.down = true;
      alerts.push({ kind: 'gateway_down', dep: null, message: `The gateway is down: ${result.detail}.` });
    }
    if (!this.settings.enabled)
      return this.decision('probe', 'disabled', `${streak}; watchdog disabled`, null, null, alerts);
    const gate = this.gate(now, 'health');
    if (gate) return { ...gate, source: 'probe', alerts: [...alerts, ...gate.alerts] };
    this.s.healthFailures = 0;
    const order = this.order(now, 'probe', {
      trigger: 'health',
      reason: `gateway dead: ${result.detail}`,
      deps: [],
      probeClass: result.class,
    });
    return { ...order, alerts: [...alerts, ...order.alerts] };
  }

  /** The user asked for a restart: same path, recorded as manual; only an in-flight restart stops it. */
  manual(now: number, reason = 'restart requested by the user'): Decision {
    if (this.s.inFlight) {
      return this.decision(
        'manual',
        'in_flight',
        `a ${this.s.inFlight.trigger} restart is already running (since ${seconds(now - this.s.inFlight.since)})`,
      );
    }
    // The user acting resets a spent budget: automation starts afresh after their restart.
    this.s.restarts = [];
    this.s.budgetAlerted = false;
    this.s.consecutiveChecks = 0;
    this.s.healthFailures = 0;
    this.s.deferral = null;
    this.s.inFlight = { since: now, trigger: 'manual' };
    return this.decision('manual', 'restart', reason, null, { trigger: 'manual', reason, deps: [], probeClass: null });
  }

  /** The restart command finished. */
  restartFinished(now: number, outcome: RestartOutcome): void {
    const flight = this.s.inFlight;
    this.s.inFlight = null;
    if (!flight || outcome === 'failed') {
      this.s.recovering = null;
      return;
    }
    // Only probes after the command count: one taken while it ran may have met the old gateway.
    this.s.recovering = { since: flight.since, trigger: flight.trigger, startedAt: null };
    void now;
  }

  /**
   * Recovery bookkeeping and the divergence alarm; call on every probe and
   * check. `succeededAt`: the first successful call since the restart began.
   */
  tick(now: number, breakers: readonly BreakerInput[], succeededAt: number | null): Decision[] {
    const out: Decision[] = [];
    const rec = this.s.recovering;
    if (rec) {
      if (rec.startedAt !== null && succeededAt !== null && succeededAt >= rec.startedAt) {
        this.s.recovering = null;
        out.push(
          this.decision(
            'tick',
            'recovered',
            `gateway started and calls succeed again after ${seconds(succeededAt - rec.since)}`,
          ),
        );
      } else if (now - rec.since >= this.settings.startupGraceMs) {
        this.s.recovering = null;
        out.push(
          rec.startedAt === null
            ? this.decision(
                'tick',
                'not_recovered',
                `the gateway did not report started within ${seconds(this.settings.startupGraceMs)} of the restart`,
              )
            : this.decision('tick', 'started_unconfirmed', 'gateway started; no successful call since to confirm it'),
        );
      }
    }
    if (this.paused(now) === false && this.s.pausedUntil !== null && Number.isFinite(this.s.pausedUntil)) {
      this.s.pausedUntil = null;
      out.push(this.decision('tick', 'quiet', 'pause ended; watchdog active again'));
    }
    if (this.s.budgetAlerted && this.budgetRemaining(now) > 0) {
      this.s.budgetAlerted = false;
      out.push(this.decision('tick', 'quiet', 'restart budget refilled'));
    }
    const stuck = breakers
      .filter((b) => (b.state === 'open' || b.state === 'throttled') && now - b.since >= this.settings.divergenceMs)
      .sort((a, b) => a.since - b.since);
    const oldest = stuck[0];
    if (this.s.lastProbeGreen === true && oldest) {
      this.s.divergenceSince ??= now;
      if (!this.s.divergenceAlerted) {
        this.s.divergenceAlerted = true;
        const message = `Health probes are green while ${stuck.map((b) => `${b.dep} has been ${b.state} for ${seconds(now - b.since)}`).join(', ')}: health checks alone are lying.`;
        out.push(
          this.decision('tick', 'divergence', message, oldest.dep, null, [
            { kind: 'divergence', dep: oldest.dep, message },
          ]),
        );
      }
    } else {
      this.s.divergenceSince = null;
      this.s.divergenceAlerted = false;
    }
    return out;
  }

  /** Why an automatic restart may not run now, or null when it may. */
  private gate(now: number, trigger: 'storm' | 'health'): Decision | null {
    const hold = (kind: DecisionKind, reason: string, alerts: Alert[] = []) =>
      this.decision('check', kind, reason, null, null, alerts);
    if (this.paused(now)) {
      const until = this.s.pausedUntil ?? 0;
      return hold(
        'paused',
        Number.isFinite(until)
          ? `watchdog paused for another ${seconds(until - now)}`
          : 'watchdog paused until resumed',
      );
    }
    if (this.s.inFlight) return hold('in_flight', `a ${this.s.inFlight.trigger} restart is already running`);
    if (this.s.gatewayBusy)
      return hold('starting', `the gateway reports ${this.s.gatewayBusy}; never restarted while it is`);
    const rec = this.s.recovering;
    if (rec && rec.startedAt === null && now - rec.since < this.settings.startupGraceMs) {
      return hold(
        'recovering',
        `restarted ${seconds(now - rec.since)} ago; waiting for started (grace ${seconds(this.settings.startupGraceMs)})`,
      );
    }
    const recent = this.recentRestarts(now);
    if (recent.length >= this.settings.maxRestartsPerHour) {
      const oldest = recent[0]?.ts ?? now;
      const reason = `restart budget spent: ${recent.length} restarts in the last hour (max ${this.settings.maxRestartsPerHour}); next in ${seconds(oldest + HOUR_MS - now)} or when you act`;
      const alerts: Alert[] = [];
      if (!this.s.budgetAlerted) {
        this.s.budgetAlerted = true;
        alerts.push({
          kind: 'restart_budget_exhausted',
          dep: null,
          message: `${reason}. The ${trigger === 'storm' ? '429 storm' : 'outage'} needs a human.`,
        });
      }
      return hold('budget_exhausted', reason, alerts);
    }
    const last = recent[recent.length - 1];
    if (last) {
      const spacing = this.settings.restartSpacingMs * 2 ** (recent.length - 1);
      if (now - last.ts < spacing) {
        return hold(
          'spacing',
          `last restart ${seconds(now - last.ts)} ago; restart ${recent.length + 1} this hour waits ${seconds(spacing)} after it`,
        );
      }
    }
    return null;
  }

  /** Holds a storm restart while an upstream Retry-After is in force, at most `maxDeferralMs`. */
  private retryAfterHold(now: number, affected: CheckInput['deps']): Decision | null {
    const binding = affected
      .filter((d) => d.retryAfterUntil !== null && d.retryAfterUntil > now)
      .sort((a, b) => (b.retryAfterUntil ?? 0) - (a.retryAfterUntil ?? 0))[0];
    if (!binding || binding.retryAfterUntil === null) {
      this.s.deferral = null;
      return null;
    }
    const first = this.s.deferral === null;
    const since = this.s.deferral?.since ?? now;
    const until = Math.min(binding.retryAfterUntil, since + this.settings.maxDeferralMs);
    if (now >= until) {
      this.s.deferral = null;
      return null; // deferred as long as allowed: restart now
    }
    this.s.deferral = { since, until, dep: binding.dep };
    const reason = `${binding.dep} asked to retry after ${seconds(binding.retryAfterUntil - now)}; restart deferred ${seconds(until - now)} (a restart cannot lift a provider's limit)`;
    return this.decision(
      'check',
      'deferred',
      reason,
      binding.dep,
      null,
      first ? [{ kind: 'restart_deferred', dep: binding.dep, message: reason }] : [],
    );
  }

  private order(now: number, source: Decision['source'], order: RestartOrder): Decision {
    this.s.restarts.push({ ts: now, trigger: order.trigger });
    if (this.settings.dryRun) {
      return this.decision(source, 'dry_run', `dry run: would restart (${order.reason})`, order.deps[0] ?? null, null, [
        {
          kind: 'restart_would_run',
          dep: order.deps[0] ?? null,
          message: `Dry run: would restart the gateway: ${order.reason}.`,
        },
      ]);
    }
    this.s.inFlight = { since: now, trigger: order.trigger };
    return this.decision(source, 'restart', order.reason, order.deps[0] ?? null, order);
  }

  private recentRestarts(now: number): Array<{ ts: number; trigger: RestartTrigger }> {
    this.s.restarts = this.s.restarts.filter((r) => now - r.ts < HOUR_MS);
    return this.s.restarts;
  }

  private decision(
    source: Decision['source'],
    kind: DecisionKind,
    reason: string,
    dep: string | null = null,
    restart: RestartOrder | null = null,
    alerts: Alert[] = [],
  ): Decision {
    return { source, kind, reason, dep, restart, alerts };
  }
}
