/**
 * The watchdog's decisions, and nothing else: no timers, no I/O. Time comes
 * only as the `now` each call is given, on a monotonic clock (the runner
 * converts every wall time it hands in), so a wall-clock step in either
 * direction neither blocks nor multiplies restarts.
 *
 * Every automatic restart rests on one kind of evidence, named in its decision:
 * - dead: `healthFailuresBeforeRestart` dead probes in a row, spanning at least
 *   `deadAfterMs` (OpenClaw's own in-process restart refuses connections for
 *   4–9 s, up to 30 s on a loaded machine; that is not a death). A probe BreakerBar could not run on time is
 *   `unknown` and counts for nothing.
 * - unloaded: the same dead probes while the service manager says the
 *   gateway's service is not loaded or its respawn is parked.
 * - hung: probes answer, but sessions are reported stalled by the gateway and
 *   no upstream attempt has been made for `hungAfterMs`.
 * - storm, only when `restartOnStorm` (off by default): new rate_limited
 *   calls in `threshold` consecutive checks, no fallback answering, and every
 *   Retry-After and OpenClaw cooldown in force for the affected dependencies
 *   over (a restart cannot lift a provider's limit, and OpenClaw's cooldowns
 *   survive restarts). While one holds, the storm is shown with its end and
 *   alerted once; each Retry-After holds at most `maxDeferralMs` from when it
 *   was first seen, and a new one holds again. Off, the storm is judged and
 *   waited out: measured on OpenClaw 2026.9.6, its runs retry through a storm
 *   by themselves (at the provider's Retry-After, then on its own backoff) and
 *   end ok once the provider answers, while a `--safe` restart only takes
 *   effect once they have drained, that is after the storm, and then takes the
 *   gateway down just as the agents come back. A storm that leaves the gateway
 *   stalled is restarted as hung.
 *
 * Nothing is restarted automatically until BreakerBar has seen this gateway
 * healthy since its own start and the restart strategy has been verified
 * runnable; until then it alerts once with why. An answer that is not an
 * OpenClaw gateway is a configuration error, never a dead gateway.
 *
 * A restart in flight (BreakerBar's own, one OpenClaw scheduled for later, or
 * one the gateway did by itself) is a restart, not a death: nothing triggers
 * another until the gateway reports `started` with a process newer than the
 * restart, or its grace has passed (`startupGraceMs`; for a pending restart
 * also as long as OpenClaw may hold it back). Then budget: at most
 * `maxRestartsPerHour` automatic restarts in a rolling hour, spaced
 * `restartSpacingMs` × 2^(n−1) apart; when spent, alert once and wait for the
 * budget to refill or for the user to act. Divergence (probes green while a
 * breaker has been open or throttled for `divergenceMs`) is alarmed once per
 * episode. Pause and dry run hold automatic restarts; a manual restart goes
 * through the same path and ignores them, but never runs while another
 * restart is in flight.
 */

import { formatters } from '../../shared/i18n.js';
import type { RestartOutcome } from '../gateway/control.js';
import type { GatewayOwnership, OwnerBlock } from '../gateway/owner/types.js';

export type RestartTrigger = 'manual' | 'health' | 'storm';

/** Why an automatic restart was ordered (a manual one is the user's call). */
export type Evidence = 'dead' | 'unloaded' | 'hung' | 'storm' | 'manual';

export interface WatchdogSettings {
  /** false: decide nothing automatically (manual restarts still work). */
  enabled: boolean;
  windowMs: number;
  threshold: number;
  healthFailuresBeforeRestart: number;
  /** Least time from the first dead probe of a streak before the gateway counts as dead. */
  deadAfterMs: number;
  /** Stalled sessions and no upstream attempt for this long: the gateway is hung. */
  hungAfterMs: number;
  startupGraceMs: number;
  /** A 429 storm restarts the gateway (watchdog.stormRestart not `off`); false: it is waited out. */
  restartOnStorm: boolean;
  maxRestartsPerHour: number;
  restartSpacingMs: number;
  maxDeferralMs: number;
  divergenceMs: number;
  dryRun: boolean;
}

/** What a check found. Times are on the policy's (monotonic) clock. */
export interface CheckInput {
  /** New rate_limited calls in the window, per dependency. */
  deps: Array<{
    dep: string;
    count: number;
    /** The dependency's Retry-After deadline in force (breaker `retryAfterUntil`), if any. */
    retryAfterUntil: number | null;
    /** OpenClaw's own cooldown of the dependency (per model or auth profile), if any. */
    cooldownUntil?: number | null;
    /** Other dependencies answering successfully for the same agents in the window. */
    workingFallbacks: string[];
  }>;
  /** Sessions the gateway reports stalled while no upstream attempt has been made since `since`. */
  stalled?: { sessions: number; deps: string[]; since: number } | null;
}

export interface ProbeInput {
  /**
   * The probe class: ok, refused, read_timeout, connect_timeout, reset, starting, draining, http_<n>,
   * error; `unknown` (BreakerBar could not run it on time), `not_openclaw` (something else answers).
   */
  class: string;
  dead: boolean;
  /** /startupz: started, starting, draining, unknown (an older gateway without it). */
  startup: 'started' | 'starting' | 'draining' | 'unknown';
  detail: string;
  /** The gateway process's uptime from /readyz, when it says. */
  uptimeMs?: number | null;
}

export interface BreakerInput {
  dep: string;
  state: 'closed' | 'half_open' | 'open' | 'throttled';
  since: number;
}

/** What the restart strategy check found (see Restarter.verify). */
export interface StrategyCheck {
  runnable: boolean;
  /** Why not runnable, or what is wrong with the service even if it is. */
  problem: string | null;
  /** The service manager's view of the gateway's service, when one owns it. */
  service: 'running' | 'stopped' | 'unloaded' | 'parked' | 'none' | 'unknown';
  /** Who owns the gateway, with the evidence (status, doctor); null or absent when not read. */
  owner?: GatewayOwnership | null;
  /** Why the owner forbids BreakerBar's restart: it holds every automatic restart and is alerted once. */
  ownerBlock?: OwnerBlock | null;
}

export type AlertKind =
  | 'restart_deferred'
  | 'restart_budget_exhausted'
  | 'gateway_down'
  | 'gateway_up'
  | 'divergence'
  | 'fallback_answering'
  | 'restart_would_run'
  | 'watchdog_blocked';

/**
 * What an alert is about, as data: the notice that tells a human is worded from these facts in the
 * daemon's language (notices.ts); `message` is the English sentence kept for logs and tests.
 */
export type AlertFacts =
  | { kind: 'gateway_down'; detail: string }
  | { kind: 'gateway_up' }
  | { kind: 'fallback_answering'; deps: Array<{ dep: string; fallbacks: string[] }> }
  | { kind: 'divergence'; stuck: Array<{ dep: string; state: BreakerInput['state']; forMs: number }> }
  | { kind: 'restart_budget_exhausted'; restarts: number; max: number; nextInMs: number; trigger: 'storm' | 'health' }
  | { kind: 'watchdog_blocked'; blocked: BlockedFacts }
  | {
      kind: 'restart_deferred';
      deps: string[];
      dep: string;
      cause: 'retry_after' | 'cooldown';
      askedMs: number;
      heldMs: number;
    }
  | { kind: 'restart_would_run'; order: RestartFacts };

/** Why automatic restarts cannot run. */
export type BlockedFacts =
  | { cause: 'not_openclaw'; detail: string }
  | { cause: 'never_healthy'; problem: string | null }
  | { cause: 'unchecked' }
  | { cause: 'not_runnable'; problem: string | null }
  /** The gateway's owner forbids it (OpenClaw stopped it on purpose, an external supervisor, the app's gateway). */
  | { cause: 'owner'; rule: OwnerBlock['rule']; who: string };

/** Why a restart was ordered, as data (see AlertFacts). */
export type RestartFacts =
  | {
      evidence: 'storm';
      deps: string[];
      forMs: number;
      upstream: 'held_longest' | 'over' | 'none';
      heldMs: number;
    }
  | { evidence: 'dead'; forMs: number; detail: string }
  | { evidence: 'unloaded'; detail: string; parked: boolean }
  | { evidence: 'hung'; sessions: number; deps: string[]; quietMs: number }
  /** `reason`: what the requester said, null for the default request. */
  | { evidence: 'manual'; reason: string | null };

export type Alert = AlertFacts & {
  dep: string | null;
  message: string;
};

export interface RestartOrder {
  trigger: RestartTrigger;
  evidence: Evidence;
  reason: string;
  /** The dependencies a storm restart is about (empty otherwise). */
  deps: string[];
  /** What the probe saw (a hung gateway wants a forced restart). */
  probeClass: string | null;
  /** Why, as data for the notice's wording; orders made elsewhere (tests, tools) may leave it out. */
  facts?: RestartFacts;
}

/** The words a decision is stored and counted under. */
export type DecisionKind =
  | 'restart'
  | 'dry_run'
  | 'counting'
  | 'quiet'
  | 'healthy'
  | 'dead'
  | 'unknown'
  | 'not_openclaw'
  | 'unverified'
  | 'starting'
  | 'deferred'
  | 'storm_waited'
  | 'fallback_answering'
  | 'budget_exhausted'
  | 'spacing'
  | 'paused'
  | 'maintenance'
  | 'recovering'
  | 'in_flight'
  | 'pending'
  | 'gateway_restarted'
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
  /** A dry run's restart that did not run. */
  wouldRestart?: RestartOrder;
  alerts: Alert[];
}

/** Where a restart stands after its command ran; `pending`: OpenClaw scheduled or deferred it. */
export type { RestartOutcome } from '../gateway/control.js';

export interface Recovery {
  /** When the restart began. */
  since: number;
  trigger: RestartTrigger | 'gateway';
  /** When /startupz said started (or /healthz ok on a gateway without /startupz) after the restart. */
  startedAt: number | null;
  /** The gateway has been seen going down or coming up since the restart began (the old process is gone). */
  seen: boolean;
  /** OpenClaw accepted the restart to do later (`--safe` scheduled/deferred): nothing has happened yet. */
  pending: boolean;
  /** How long after `since` the restart may take before it counts as not recovered. */
  graceMs: number;
}

export interface WatchdogState {
  consecutiveChecks: number;
  /** When the current storm's first counting check ran. */
  stormSince: number | null;
  /**
   * Rate-limited calls seen by the last checks, kept until a check finds none: since when, and per
   * dependency the fallbacks answering for it (a storm the fallbacks absorb resets the count, not this).
   */
  rateLimited: { since: number; deps: Array<{ dep: string; fallbacks: string[] }> } | null;
  healthFailures: number;
  /** When the current streak of dead probes began. */
  deadSince: number | null;
  /** The gateway was reported down (alerted) and has not come back yet. */
  down: boolean;
  lastProbeGreen: boolean | null;
  /** A healthy probe has been seen since BreakerBar started: its dead probes mean something. */
  seenHealthy: boolean;
  /** The last restart strategy check; null until the first. */
  strategy: StrategyCheck | null;
  /** "Will not restart" was alerted; cleared once automatic restarts are possible. */
  blockedAlerted: boolean;
  /** The last probe said starting or draining: the gateway is busy coming up or going down. */
  gatewayBusy: string | null;
  /**
   * When the gateway process seen last started (from /readyz uptime); null when unknown, or when the uptime
   * jumped (the gateway measures it on the wall clock, which was stepped).
   */
  processStart: number | null;
  /** The last uptime reported and when (to tell a restart from a wall-clock step). */
  lastUptime: { at: number; uptimeMs: number } | null;
  /** Automatic restarts (time, trigger) in the last hour, for the budget and spacing. */
  restarts: Array<{ ts: number; trigger: RestartTrigger }>;
  inFlight: { since: number; trigger: RestartTrigger } | null;
  recovering: Recovery | null;
  /** Automatic restarts held until this time; Infinity = until resumed. */
  pausedUntil: number | null;
  /** A maintenance window in force (its reason): automatic restarts are held while it lasts. */
  maintenance: string | null;
  /** A storm restart held for a Retry-After or an OpenClaw cooldown, since when and until when at most. */
  deferral: { since: number; until: number; dep: string; cause: 'retry_after' | 'cooldown' } | null;
  /**
   * Each storm dependency's latest Retry-After deadline and when it was first seen: one ask holds a restart
   * `maxDeferralMs` at most, and a quiet check just after it ended is the retry not read yet.
   */
  asks: Array<{ dep: string; until: number; seenAt: number }>;
  deferralAlerted: boolean;
  budgetAlerted: boolean;
  /** Divergence episode: alerted once until it clears. */
  divergenceSince: number | null;
  divergenceAlerted: boolean;
}

const HOUR_MS = 3_600_000;
/** The reason a manual restart is stored under when the requester gave none. */
export const DEFAULT_MANUAL_REASON = 'restart requested by the user';
/** Retry-After deadlines this close are the same ask (see `askSeenAt`). */
const SAME_ASK_MS = 1000;
/** After a storm's Retry-After ends, how long its retry may take to reach the store (see `retryDue`). */
const RETRY_DUE_GRACE_MS = 15_000;
/** A process start this much older than a restart's beginning cannot be the restarted process. */
const PROCESS_START_SLACK_MS = 2000;

export function initialState(): WatchdogState {
  return {
    consecutiveChecks: 0,
    stormSince: null,
    rateLimited: null,
    healthFailures: 0,
    deadSince: null,
    down: false,
    lastProbeGreen: null,
    seenHealthy: false,
    strategy: null,
    blockedAlerted: false,
    gatewayBusy: null,
    processStart: null,
    lastUptime: null,
    restarts: [],
    inFlight: null,
    recovering: null,
    pausedUntil: null,
    maintenance: null,
    deferral: null,
    asks: [],
    deferralAlerted: false,
    budgetAlerted: false,
    divergenceSince: null,
    divergenceAlerted: false,
  };
}

/** Decision reasons are stored and logged in English (notices word them from the catalogue). */
const EN = formatters('en');
const seconds = (ms: number) => EN.duration(ms);

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
    this.s.recovering = {
      since,
      trigger,
      startedAt: null,
      seen: false,
      pending: false,
      graceMs: this.settings.startupGraceMs,
    };
  }

  /** The restart strategy was checked (at start, then now and then): whether restarts can run, and how the service is. */
  strategyChecked(check: StrategyCheck): void {
    this.s.strategy = { ...check };
  }

  /**
   * Whether a maintenance window is in force (the runner asks its alert windows before every decision):
   * someone is working on the gateway, so a dead or stormy gateway is theirs, not the watchdog's.
   */
  setMaintenance(reason: string | null): void {
    this.s.maintenance = reason;
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
    this.resetStorm();
    this.resetDead();
    return this.decision('manual', 'quiet', 'watchdog resumed; restart budget reset');
  }

  /** The dependencies of the storm being counted (none when no count is running). */
  stormDeps(): string[] {
    return this.s.consecutiveChecks > 0 ? (this.s.rateLimited?.deps.map((d) => d.dep) ?? []) : [];
  }

  /** One check (every `checkIntervalSec`): the rate-limit storm rule, then the hung-gateway rule. */
  check(now: number, input: CheckInput): Decision {
    for (const d of input.deps) if (d.retryAfterUntil !== null) this.askSeenAt(d.dep, d.retryAfterUntil, now);
    const affected = input.deps.filter((d) => d.count > 0);
    if (affected.length === 0) {
      const waiting = this.waitingOut(now, input.deps);
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
      this.resetStorm();
      const hung = this.hung(now, input.stalled ?? null);
      if (hung) return hung;
      return this.decision(
        'check',
        'quiet',
        was > 0 ? 'no new rate-limited calls: count reset' : 'no new rate-limited calls',
      );
    }
    const total = affected.reduce((sum, d) => sum + d.count, 0);
    const top = affected[0]?.dep ?? null;
    if (!this.settings.enabled)
      return this.decision('check', 'disabled', `${total} new rate-limited calls; watchdog disabled`, top);
    this.s.consecutiveChecks += 1;
    this.s.stormSince ??= now;
    const counted = `${total} new rate-limited call${total === 1 ? '' : 's'} (${affected.map((d) => `${d.dep} ${d.count}`).join(', ')}), check ${this.s.consecutiveChecks} of ${this.settings.threshold}`;
    if (this.s.consecutiveChecks < this.settings.threshold) return this.decision('check', 'counting', counted, top);
    return this.judgeStorm(now, affected);
  }

  /**
   * A check without new rate-limited calls while a dependency of the storm being counted is still held by
   * its Retry-After or OpenClaw's cooldown: the gateway is waiting as it was asked to, so the quiet is no
   * sign that the storm is over. Resetting the count then would hide every storm whose Retry-After is
   * longer than the check interval (a provider asking for 120 s against 60 s checks), and with it every
   * restart it needs once the hold is over. The count is held instead; a storm already judged is judged
   * again on the dependencies it stood on (the hold may have reached its longest allowed time meanwhile).
   * Null when nothing holds a dependency of the storm.
   */
  private waitingOut(now: number, deps: CheckInput['deps']): Decision | null {
    const storm = this.s.rateLimited;
    if (storm === null || this.s.consecutiveChecks === 0) return null;
    const counted = new Set(storm.deps.map((d) => d.dep));
    const held = deps.filter(
      (d) => counted.has(d.dep) && ((d.retryAfterUntil ?? 0) > now || (d.cooldownUntil ?? 0) > now),
    );
    const first = held[0];
    if (!this.settings.enabled) return null;
    if (first === undefined) return this.retryDue(now, counted);
    if (this.s.consecutiveChecks >= this.settings.threshold) return this.judgeStorm(now, held);
    const until = Math.max(first.retryAfterUntil ?? 0, first.cooldownUntil ?? 0);
    const what = (first.retryAfterUntil ?? 0) >= (first.cooldownUntil ?? 0) ? 'its Retry-After' : "OpenClaw's cooldown";
    return this.decision(
      'check',
      'counting',
      `no new rate-limited calls while ${first.dep} waits out ${what} (${seconds(until - now)} left): count held at ${this.s.consecutiveChecks} of ${this.settings.threshold}`,
      first.dep,
    );
  }

  /**
   * A quiet check just after a Retry-After of the storm ended: OpenClaw retries at the deadline plus a little
   * (its own pacing), and the retry's 429 reaches the store a moment later, so a check falling in between has
   * not seen it yet. The count is held, never judged: the storm may also have ended. Null once
   * `RETRY_DUE_GRACE_MS` has passed since every such deadline.
   */
  private retryDue(now: number, counted: ReadonlySet<string>): Decision | null {
    const due = this.s.asks.find((a) => counted.has(a.dep) && a.until <= now && now - a.until < RETRY_DUE_GRACE_MS);
    if (due === undefined) return null;
    const { consecutiveChecks: count } = this.s;
    const { threshold } = this.settings;
    const held = count >= threshold ? 'the storm stays judged' : `count held at ${count} of ${threshold}`;
    return this.decision(
      'check',
      'counting',
      `no new rate-limited calls yet, but the retry of ${due.dep} is due (its Retry-After ended ${seconds(now - due.until)} ago): ${held}`,
      due.dep,
    );
  }

  /**
   * The storm has lasted `threshold` checks: a fallback answering, storm restarts off, an upstream hold, the
   * gates, or a restart.
   */
  private judgeStorm(now: number, affected: CheckInput['deps']): Decision {
    const top = affected[0]?.dep ?? null;
    const stormMs = now - (this.s.stormSince ?? now);
    const stormFor = seconds(stormMs);
    // A storm the gateway's fallbacks are absorbing is not a stalled gateway.
    if (affected.every((d) => d.workingFallbacks.length > 0)) {
      this.resetStorm();
      const detail = affected.map((d) => `${d.dep} → ${d.workingFallbacks.join(', ')}`).join('; ');
      const deps = affected.map((d) => ({ dep: d.dep, fallbacks: d.workingFallbacks }));
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
            deps,
            message: `Rate limited, fallbacks answering: ${detail}. No restart.`,
          },
        ],
      );
    }
    if (!this.settings.restartOnStorm) {
      // The count stays: the storm is judged once, then each check says it goes on (no recount, no reset).
      return this.decision(
        'check',
        'storm_waited',
        `429 storm on ${affected.map((d) => d.dep).join(', ')} for ${stormFor}, no fallback answering: waited out, not restarted (watchdog.stormRestart is off: OpenClaw retries its runs through a storm, and a restart cannot lift a provider's limit)`,
        top,
      );
    }
    const hold = this.upstreamHold(now, affected);
    if (hold) return hold;
    const gate = this.gate(now, 'storm');
    if (gate) return { ...gate, source: 'check', dep: top };

    const stillHeld = affected.some((d) => (d.retryAfterUntil ?? 0) > now || (d.cooldownUntil ?? 0) > now);
    const facts: RestartFacts = {
      evidence: 'storm',
      deps: affected.map((d) => d.dep),
      forMs: stormMs,
      upstream: stillHeld ? 'held_longest' : this.s.deferral !== null ? 'over' : 'none',
      heldMs: this.settings.maxDeferralMs,
    };
    const upstream = stillHeld
      ? `held the longest allowed (${seconds(this.settings.maxDeferralMs)}) for Retry-After or cooldown`
      : this.s.deferral !== null
        ? 'Retry-After and cooldowns over'
        : 'no Retry-After or cooldown in force';
    const reason = `429 storm on ${affected.map((d) => d.dep).join(', ')} for ${stormFor}, ${upstream}, no fallback answering: restarting`;
    this.resetStorm();
    return this.order(now, 'check', {
      trigger: 'storm',
      evidence: 'storm',
      reason,
      deps: affected.map((d) => d.dep),
      probeClass: null,
      facts,
    });
  }

  /** One health probe result. */
  probe(now: number, result: ProbeInput): Decision {
    if (result.class === 'unknown') {
      // BreakerBar's own event loop was too late to judge: neither a failure nor a success.
      return this.decision('probe', 'unknown', result.detail);
    }
    if (result.class === 'not_openclaw') {
      this.resetDead();
      this.s.lastProbeGreen = null;
      return this.blocked(
        'probe',
        `the gateway address answers, but not as an OpenClaw gateway (${result.detail}); check gatewayUrl. Nothing is restarted for it`,
        'not_openclaw',
        { cause: 'not_openclaw', detail: result.detail },
      );
    }
    const alerts: Alert[] = [];
    const green = !result.dead && result.class === 'ok';
    this.s.lastProbeGreen = green;
    this.s.gatewayBusy = !result.dead && !green ? result.class : null;
    const restartedItself = this.noticeProcessStart(now, result);
    const rec = this.s.recovering;
    if (rec && !green) rec.seen = true;
    if (rec && rec.startedAt === null && green && (result.startup === 'started' || result.startup === 'unknown')) {
      // A green answer from the process that was to be restarted is not a recovery.
      const newer = this.processNewerThan(rec.since);
      if (newer ?? rec.seen) {
        rec.seen = true;
        rec.startedAt = now;
      }
    }
    if (green) {
      this.s.seenHealthy = true;
      this.resetDead();
      if (this.s.down) {
        this.s.down = false;
        alerts.push({ kind: 'gateway_up', dep: null, message: 'The gateway answers its health probes again.' });
      }
      if (restartedItself) return { ...restartedItself, alerts };
      return this.decision('probe', 'healthy', result.detail, null, null, alerts);
    }
    if (!result.dead) {
      // starting / draining: alive and busy; never a reason to restart, and not a failure streak either.
      this.resetDead();
      return restartedItself ?? this.decision('probe', 'starting', result.detail);
    }
    this.s.healthFailures += 1;
    this.s.deadSince ??= now;
    const deadFor = now - this.s.deadSince;
    // Past the count, only the time is still to come: "dead probe 5 (2 needed)", never "5 of 2".
    const needed = this.settings.healthFailuresBeforeRestart;
    const count =
      this.s.healthFailures <= needed
        ? `dead probe ${this.s.healthFailures} of ${needed}`
        : `dead probe ${this.s.healthFailures} (${needed} needed)`;
    const streak = `${result.detail} (${count}, for ${seconds(deadFor)} of ${seconds(this.settings.deadAfterMs)})`;
    if (this.s.healthFailures < this.settings.healthFailuresBeforeRestart || deadFor < this.settings.deadAfterMs)
      return this.decision('probe', 'dead', streak);
    // Down during a restart in flight is expected, not news: the restart's own notices say it.
    if (!this.s.down && !this.restarting() && this.s.seenHealthy) {
      this.s.down = true;
      alerts.push({
        kind: 'gateway_down',
        dep: null,
        detail: result.detail,
        message: `The gateway is down: ${result.detail}.`,
      });
    }
    if (!this.settings.enabled)
      return this.decision('probe', 'disabled', `${streak}; watchdog disabled`, null, null, alerts);
    const gate = this.gate(now, 'health');
    if (gate) return { ...gate, source: 'probe', alerts: [...alerts, ...gate.alerts] };
    const service = this.s.strategy?.service;
    const unloaded = service === 'unloaded' || service === 'parked';
    this.resetDead();
    const order = this.order(now, 'probe', {
      trigger: 'health',
      evidence: unloaded ? 'unloaded' : 'dead',
      reason: unloaded
        ? `gateway dead (${result.detail}) and its service is ${service === 'parked' ? 'parked: the service manager stopped respawning it' : 'not loaded'}`
        : `gateway dead for ${seconds(deadFor)}: ${result.detail}`,
      deps: [],
      probeClass: result.class,
      facts: unloaded
        ? { evidence: 'unloaded', detail: result.detail, parked: service === 'parked' }
        : { evidence: 'dead', forMs: deadFor, detail: result.detail },
    });
    return { ...order, alerts: [...alerts, ...order.alerts] };
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
      return this.decision('probe', 'gateway_restarted', `${detail}; counted toward the restart in progress`);
    }
    if (this.s.inFlight) {
      return this.decision('probe', 'gateway_restarted', `${detail}; the restart command is still running`);
    }
    this.s.recovering = {
      since: now,
      trigger: 'gateway',
      startedAt: null,
      seen: true,
      pending: false,
      graceMs: this.settings.startupGraceMs,
    };
    this.resetDead();
    return this.decision('probe', 'gateway_restarted', `${detail}; waiting for it to start`);
  }

  /** The user asked for a restart: same path, recorded as manual; only an in-flight restart stops it. */
  manual(now: number, reason = DEFAULT_MANUAL_REASON): Decision {
    const flight = this.s.inFlight;
    if (flight) {
      return this.decision(
        'manual',
        'in_flight',
        `a ${flight.trigger} restart is already running (since ${seconds(now - flight.since)})`,
      );
    }
    const rec = this.s.recovering;
    if (rec?.pending) {
      return this.decision(
        'manual',
        'pending',
        `the gateway has a restart pending since ${seconds(now - rec.since)} ago (OpenClaw is draining work first)`,
      );
    }
    // The user acting resets a spent budget: automation starts afresh after their restart.
    this.s.restarts = [];
    this.s.budgetAlerted = false;
    this.resetStorm();
    this.resetDead();
    this.s.inFlight = { since: now, trigger: 'manual' };
    return this.decision('manual', 'restart', reason, null, {
      trigger: 'manual',
      evidence: 'manual',
      reason,
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
    const flight = this.s.inFlight;
    this.s.inFlight = null;
    if (!flight || outcome === 'failed') {
      this.s.recovering = null;
      return;
    }
    // Only probes after the command count: one taken while it ran may have met the old gateway. A command that
    // returned `done` or `still starting` has restarted it; a pending one has only been accepted.
    this.s.recovering = {
      since: flight.since,
      trigger: flight.trigger,
      startedAt: null,
      seen: outcome !== 'pending',
      pending: outcome === 'pending',
      graceMs: this.settings.startupGraceMs + (outcome === 'pending' ? Math.max(0, pendingMaxWaitMs ?? 0) : 0),
    };
  }

  /** Recovery bookkeeping, pause and budget expiry, and the divergence alarm; call on every probe and check. */
  tick(now: number, breakers: readonly BreakerInput[]): Decision[] {
    const out: Decision[] = [];
    const rec = this.s.recovering;
    if (rec) {
      if (rec.startedAt !== null) {
        this.s.recovering = null;
        out.push(
          this.decision(
            'tick',
            rec.trigger === 'gateway' ? 'quiet' : 'recovered',
            `gateway started and answers its probes ${seconds(rec.startedAt - rec.since)} after ${rec.trigger === 'gateway' ? 'its own restart' : 'the restart'}`,
          ),
        );
      } else if (now - rec.since >= rec.graceMs) {
        this.s.recovering = null;
        const grace = seconds(rec.graceMs);
        out.push(
          rec.trigger === 'gateway'
            ? this.decision('tick', 'quiet', `the gateway's own restart did not finish within ${grace}`)
            : this.decision(
                'tick',
                'not_recovered',
                rec.pending
                  ? `OpenClaw accepted the restart but had not done it ${grace} later`
                  : `the gateway did not report started within ${grace} of the restart`,
              ),
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
            {
              kind: 'divergence',
              dep: oldest.dep,
              stuck: stuck.map((b) => ({ dep: b.dep, state: b.state, forMs: now - b.since })),
              message,
            },
          ]),
        );
      }
    } else {
      this.s.divergenceSince = null;
      this.s.divergenceAlerted = false;
    }
    return out;
  }

  /** Live, but sessions stalled and no upstream attempt for `hungAfterMs`: restart (its stuck runs will not drain). */
  private hung(now: number, stalled: CheckInput['stalled']): Decision | null {
    if (!stalled || stalled.sessions === 0 || this.s.lastProbeGreen !== true) return null;
    const quietFor = now - stalled.since;
    const what = `${stalled.sessions} session${stalled.sessions === 1 ? '' : 's'} stalled (${stalled.deps.join(', ') || 'no dependency named'}) and no upstream attempt for ${seconds(quietFor)}`;
    if (quietFor < this.settings.hungAfterMs)
      return this.decision('check', 'counting', `${what} (hung after ${seconds(this.settings.hungAfterMs)})`);
    if (!this.settings.enabled) return this.decision('check', 'disabled', `${what}; watchdog disabled`);
    const gate = this.gate(now, 'health');
    if (gate) return { ...gate, source: 'check' };
    return this.order(now, 'check', {
      trigger: 'health',
      evidence: 'hung',
      reason: `gateway hung: it answers its probes, but ${what}`,
      deps: stalled.deps,
      probeClass: 'hung',
      facts: { evidence: 'hung', sessions: stalled.sessions, deps: stalled.deps, quietMs: quietFor },
    });
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
    if (this.s.maintenance !== null) {
      return hold('maintenance', `maintenance window (${this.s.maintenance}): no automatic restart`);
    }
    if (this.s.inFlight) return hold('in_flight', `a ${this.s.inFlight.trigger} restart is already running`);
    const rec = this.s.recovering;
    if (rec?.pending) {
      return hold(
        'pending',
        `OpenClaw accepted a restart ${seconds(now - rec.since)} ago and will do it once work has drained; not issuing another`,
      );
    }
    if (this.s.gatewayBusy)
      return hold('starting', `the gateway reports ${this.s.gatewayBusy}; never restarted while it is`);
    if (rec && rec.startedAt === null && now - rec.since < rec.graceMs) {
      const whose = rec.trigger === 'gateway' ? 'the gateway restarted itself' : 'restarted';
      return hold(
        'recovering',
        `${whose} ${seconds(now - rec.since)} ago; waiting for started (grace ${seconds(rec.graceMs)})`,
      );
    }
    const blocked = this.blockedReason();
    if (blocked) return this.blocked('check', blocked.reason, 'unverified', blocked.facts);
    this.s.blockedAlerted = false;
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
          restarts: recent.length,
          max: this.settings.maxRestartsPerHour,
          nextInMs: oldest + HOUR_MS - now,
          trigger,
          message: `${reason}. The ${trigger === 'storm' ? '429 storm' : 'outage'} needs a human.`,
        });
      }
      return hold('budget_exhausted', reason, alerts);
    }
    const last = recent[recent.length - 1];
    if (last) {
      const spacing = this.settings.restartSpacingMs * 2 ** (recent.length - 1);
      // A restart "in the future" cannot happen on a monotonic clock; treat it as just now, never as a block.
      const since = Math.max(0, now - last.ts);
      if (since < spacing) {
        return hold(
          'spacing',
          `last restart ${seconds(since)} ago; restart ${recent.length + 1} this hour waits ${seconds(spacing)} after it`,
        );
      }
    }
    return null;
  }

  /** Why automatic restarts cannot run at all yet, or null. */
  private blockedReason(): { reason: string; facts: BlockedFacts } | null {
    const strategy = this.s.strategy;
    // First: the owner's rule is the truest reason, even for a gateway not seen healthy (it stopped itself).
    const owner = strategy?.ownerBlock;
    if (owner) {
      return {
        reason: `not restarting: ${owner.reason}`,
        facts: { cause: 'owner', rule: owner.rule, who: owner.who },
      };
    }
    if (!this.s.seenHealthy) {
      const problem = strategy && !strategy.runnable && strategy.problem ? strategy.problem : null;
      const how = problem ? `; and ${problem}` : '';
      return {
        reason: `not restarting: BreakerBar has not seen this gateway healthy since it started, so its failures may be BreakerBar's own wrong address or a gateway that was never installed${how}. Run \`breakerbar doctor\``,
        facts: { cause: 'never_healthy', problem },
      };
    }
    if (strategy === null)
      return {
        reason: 'not restarting: the restart strategy has not been checked yet',
        facts: { cause: 'unchecked' },
      };
    if (!strategy.runnable)
      return {
        reason: `not restarting: ${strategy.problem ?? 'no way to restart the gateway here'}`,
        facts: { cause: 'not_runnable', problem: strategy.problem },
      };
    return null;
  }

  /** A hold that cannot lift by itself: alerted once until automatic restarts become possible. */
  private blocked(source: Decision['source'], reason: string, kind: DecisionKind, facts: BlockedFacts): Decision {
    const alerts: Alert[] = [];
    if (!this.s.blockedAlerted) {
      this.s.blockedAlerted = true;
      alerts.push({
        kind: 'watchdog_blocked',
        dep: null,
        blocked: facts,
        message: `${reason[0]?.toUpperCase()}${reason.slice(1)}.`,
      });
    }
    return this.decision(source, kind, reason, null, null, alerts);
  }

  /**
   * Holds a storm restart while a Retry-After or an OpenClaw cooldown is in force for an affected dependency.
   * One Retry-After holds at most `maxDeferralMs` from when it was first seen (a provider may ask for anything),
   * and each new one holds again: a provider that keeps asking is being waited out by OpenClaw, whose turns
   * wait instead of failing, so a restart cannot shorten the storm and would cost the turns waiting in it.
   * OpenClaw's cooldown holds as long as it lasts: it is OpenClaw's own state, which a restart keeps, and a
   * long one is alerted on by itself. Alerted once per storm.
   */
  private upstreamHold(now: number, affected: CheckInput['deps']): Decision | null {
    const since = this.s.deferral?.since ?? now;
    let binding: { dep: string; until: number; asked: number; cause: 'retry_after' | 'cooldown' } | null = null;
    for (const d of affected) {
      const retryAfter =
        d.retryAfterUntil === null
          ? null
          : Math.min(d.retryAfterUntil, this.askSeenAt(d.dep, d.retryAfterUntil, now) + this.settings.maxDeferralMs);
      for (const [until, asked, cause] of [
        [retryAfter, d.retryAfterUntil, 'retry_after'],
        [d.cooldownUntil ?? null, d.cooldownUntil ?? null, 'cooldown'],
      ] as const) {
        if (until !== null && asked !== null && until > now && (binding === null || until > binding.until))
          binding = { dep: d.dep, until, asked, cause };
      }
    }
    if (binding === null) return null;
    this.s.deferral = { since, until: binding.until, dep: binding.dep, cause: binding.cause };
    const what =
      binding.cause === 'retry_after'
        ? `${binding.dep} asked to retry after ${seconds(binding.asked - now)}`
        : `OpenClaw holds ${binding.dep} in cooldown for another ${seconds(binding.until - now)}`;
    const reason = `429 storm on ${affected.map((d) => d.dep).join(', ')}: ${what}; restart held ${seconds(binding.until - now)} (a restart cannot lift a provider's limit, and OpenClaw keeps its cooldowns across restarts)`;
    const alerts: Alert[] = [];
    if (!this.s.deferralAlerted) {
      this.s.deferralAlerted = true;
      alerts.push({
        kind: 'restart_deferred',
        dep: binding.dep,
        deps: affected.map((d) => d.dep),
        cause: binding.cause,
        askedMs: binding.asked - now,
        heldMs: binding.until - now,
        message: reason,
      });
    }
    return this.decision('check', 'deferred', reason, binding.dep, null, alerts);
  }

  /**
   * When the dependency's Retry-After deadline `until` was first seen (now, if it is a new one). Deadlines
   * within `SAME_ASK_MS` of each other are one ask: the runner converts each wall-clock deadline to the steady
   * clock anew, which moves it by a few milliseconds.
   */
  private askSeenAt(dep: string, until: number, now: number): number {
    const known = this.s.asks.find((a) => a.dep === dep);
    if (known && Math.abs(known.until - until) < SAME_ASK_MS) return known.seenAt;
    this.s.asks = [...this.s.asks.filter((a) => a.dep !== dep), { dep, until, seenAt: now }];
    return now;
  }

  /**
   * Follows the gateway process's start time (from /readyz uptime). An uptime that went back to less than the
   * time since the previous probe means the gateway restarted meanwhile; returns the decision saying so when
   * nobody announced it. OpenClaw measures uptime on the wall clock, so any other jump is a clock step: the
   * process is the same, and its start is unknown from then on rather than wrong.
   */
  private noticeProcessStart(now: number, result: ProbeInput): Decision | null {
    const uptime = result.uptimeMs;
    if (uptime === null || uptime === undefined || uptime < 0) return null;
    const last = this.s.lastUptime;
    this.s.lastUptime = { at: now, uptimeMs: uptime };
    if (last === null) {
      this.s.processStart = now - uptime;
      return null;
    }
    const elapsed = now - last.at;
    const drift = uptime - (last.uptimeMs + elapsed);
    if (Math.abs(drift) <= PROCESS_START_SLACK_MS) return null;
    if (drift > 0 || uptime > elapsed + PROCESS_START_SLACK_MS) {
      this.s.processStart = null;
      return null;
    }
    this.s.processStart = now - uptime;
    const rec = this.s.recovering;
    if (rec) {
      rec.seen = true;
      rec.pending = false;
      return null;
    }
    if (this.s.inFlight) return null;
    return this.decision(
      'probe',
      'gateway_restarted',
      `the gateway restarted by itself ${seconds(uptime)} ago (its uptime went back); not counted as an outage`,
    );
  }

  /** Whether the gateway process seen last started after `since`; null when its uptime is not known. */
  private processNewerThan(since: number): boolean | null {
    return this.s.processStart === null ? null : this.s.processStart >= since - PROCESS_START_SLACK_MS;
  }

  private restarting(): boolean {
    const rec = this.s.recovering;
    return this.s.inFlight !== null || (rec !== null && rec.startedAt === null);
  }

  private resetStorm(): void {
    this.s.consecutiveChecks = 0;
    this.s.stormSince = null;
    this.s.deferral = null;
    this.s.asks = [];
    this.s.deferralAlerted = false;
  }

  private resetDead(): void {
    this.s.healthFailures = 0;
    this.s.deadSince = null;
  }

  private order(now: number, source: Decision['source'], order: RestartOrder): Decision {
    this.s.restarts.push({ ts: now, trigger: order.trigger });
    if (this.settings.dryRun) {
      const decision = this.decision(
        source,
        'dry_run',
        `dry run: would restart (${order.reason})`,
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
      return { ...decision, wouldRestart: order };
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
