/**
 * The watchdog as the monitor runs it: feeds the pure policy with checks
 * (new rate_limited calls from the store, stalled sessions), health probes,
 * breaker states and the restart strategy's check, and performs what it
 * decides — stores every decision, runs restarts one at a time, verifies
 * recovery, and hands alerts to the notifier.
 *
 * The policy reasons on a monotonic clock; everything stored or shown is wall
 * time. Wall times handed in (Retry-After deadlines, cooldowns, history, a
 * pause) are converted at the moment they are read, so a wall-clock step moves
 * neither a deadline already held nor the spacing between restarts.
 */
import { EventEmitter } from 'node:events';
import { type Translator, translator } from '../../shared/messages/index.js';
import type { BreakerSnapshot } from '../breaker/types.js';
import type { ProbeResult } from '../gateway/probe.js';
import type { Logger } from '../log.js';
import type { BreakerbarMetrics } from '../metrics/breakerbar-metrics.js';
import type { NoticeInput } from '../notify/notice.js';
import type { Store } from '../store/db.js';
import type { GatewayHistory, RestartRow } from '../store/gateway-history.js';
import { reportWriteFailure, type WriteFailures } from '../store/room.js';
import {
  alertNotice,
  notRecoveredNotice,
  restartFailedNotice,
  restartStartedNotice,
  restartSucceededNotice,
} from './notices.js';
import { WatchdogPolicy } from './policy.js';
import type { Decision, RestartOrder, RestartTrigger } from './policy-decisions.js';
import type { CheckInput, StrategyCheck, WatchdogSettings } from './policy-inputs.js';
import type { Restarter } from './restarter.js';

const HOUR_MS = 3_600_000;
const META_PAUSED = 'watchdog.pausedUntil';
export const META_LAST_CALL = 'watchdog.lastCallId';
/** How long stop() lets a restart command in flight finish before leaving it to itself. */
const STOP_WAIT_MS = 2000;
/** Restart records not final yet: the command was running, or recovery was being verified. */
const UNFINISHED = ['running', 'recovering', 'pending'];

export interface WatchdogRunnerOptions {
  settings: WatchdogSettings;
  checkIntervalMs: number;
  store: Store;
  history: GatewayHistory;
  restarter: Restarter;
  /** Breaker snapshots (Retry-After deadlines, open states). */
  breakers(): BreakerSnapshot[];
  /** The breaker key of a call's dependency (model, provider or credential keyed). */
  breakerKey(dep: string): string;
  /** OpenClaw's own cooldown of a dependency in force at `now` (wall ms), if any. */
  cooldownUntil?(dep: string, now: number): number | null;
  /**
   * Sessions the gateway's log reports stalled, per dependency (null: not known), stuck since when and last
   * reported when (wall ms).
   */
  stalled(): Array<{ dep: string | null; sessions: number; since: number; reportedAt: number }>;
  /** Whether the restart strategy can run here, and how the gateway's service is. */
  verifyStrategy(): Promise<StrategyCheck>;
  notify(notice: NoticeInput): void;
  /** The maintenance window in force, if any (its reason): automatic restarts wait for its end. */
  maintenance?(): string | null;
  /** The words of the notices, in the daemon's language (English when not given). */
  translator?: Translator;
  /** Probe faster while a restart is verified. */
  fastProbes(on: boolean): void;
  metrics: BreakerbarMetrics;
  log: Logger;
  /** Wall clock (stored and shown times). */
  clock: () => number;
  /** Monotonic clock for every duration the policy judges; defaults to `clock`. */
  monotonic?: () => number;
  /** Told of every write that failed for lack of room (the watchdog acts all the same, unrecorded). */
  writes?: WriteFailures;
}

export interface WatchdogStatus {
  enabled: boolean;
  dryRun: boolean;
  paused: boolean;
  /** Epoch ms; null = not paused; Infinity is reported as null with `paused` true (until resumed). */
  pausedUntil: number | null;
  consecutiveChecks: number;
  threshold: number;
  /** A 429 storm restarts the gateway (watchdog.stormRestart not `off`); false: storms are waited out. */
  stormRestart: boolean;
  healthFailures: number;
  healthFailuresBeforeRestart: number;
  budgetRemaining: number;
  maxRestartsPerHour: number;
  restartInFlight: { since: number; trigger: RestartTrigger } | null;
  /** A restart being verified; `gateway`: one the gateway did by itself; `pending`: OpenClaw will do it once drained. */
  recovering: { since: number; trigger: RestartTrigger | 'gateway'; startedAt: number | null; pending: boolean } | null;
  deferral: { since: number; until: number; dep: string; cause: 'retry_after' | 'cooldown' } | null;
  /** The current 429 storm: since when, and the dependencies of the last check that counted. */
  storm: { since: number } | null;
  /** Rate-limited calls in the last checks (storm or not): since when, each dependency and its answering fallbacks. */
  rateLimited: { since: number; deps: Array<{ dep: string; fallbacks: string[] }> } | null;
  /** A healthy probe has been seen since BreakerBar started (no automatic restart before). */
  seenHealthy: boolean;
  /** The last restart strategy check (null until the first has finished). */
  verified: StrategyCheck | null;
  diverging: boolean;
  lastDecision: { ts: number; source: string; decision: string; reason: string; dep: string | null } | null;
  lastRestart: RestartRow | null;
  /** What a restart would run now, or why it cannot. */
  strategy: { description: string | null; argv: string[] | null; problem: string | null };
}

export interface WatchdogEvents {
  decision: [Decision & { ts: number }];
  restart: [RestartRow];
}

export class WatchdogRunner extends EventEmitter<WatchdogEvents> {
  readonly policy: WatchdogPolicy;
  private timer: NodeJS.Timeout | null = null;
  private lastCallId = 0;
  /** Per dependency of the storm being counted, the agents it hit: asked about again in quiet checks. */
  private readonly stormAgents = new Map<string, string[]>();
  private restartId: number | null = null;
  private restartRunning: Promise<void> | null = null;
  private lastDecision: WatchdogStatus['lastDecision'] = null;
  /** The last decision logged, to log a repeated one at debug. */
  private lastLogged = '';
  private readonly mono: () => number;
  private verifying: Promise<void> | null = null;
  private stopped = false;
  /** The last timed check's failure, said once until a check works again. */
  private checkFailure: string | null = null;
  /** Why the storm count's position could not be stored, said once until it can. */
  private lastCallNotKept: string | null = null;

  constructor(private readonly options: WatchdogRunnerOptions) {
    super();
    this.policy = new WatchdogPolicy(options.settings);
    this.mono = options.monotonic ?? options.clock;
  }

  /** A wall time as the policy's monotonic time; never later than now (a past event cannot be in the future). */
  private toMono(wall: number, capAtNow = false): number {
    const m = this.mono() - (this.options.clock() - wall);
    return capAtNow ? Math.min(m, this.mono()) : m;
  }

  private toWall(mono: number): number {
    return this.options.clock() - (this.mono() - mono);
  }

  start(): void {
    const { store, history, clock, checkIntervalMs } = this.options;
    const now = clock();
    this.stopped = false;
    // The budget and a pause outlive BreakerBar's own restarts. A restart stored "in the future" (the wall
    // clock was stepped back since) counts as just now: it spaces the next one, it does not block for hours.
    for (const row of history.restarts(now - HOUR_MS, Number.MAX_SAFE_INTEGER)) {
      if (row.result !== 'dry_run')
        this.policy.rememberRestart(this.toMono(row.ts, true), row.trigger as RestartTrigger);
    }
    const last = history.lastRestart();
    if (last && UNFINISHED.includes(last.result) && Math.abs(now - last.ts) < this.options.settings.startupGraceMs) {
      this.policy.rememberRecovery(this.toMono(last.ts, true), last.trigger as RestartTrigger);
      this.restartId = last.id;
      this.options.fastProbes(true);
    }
    const paused = store.getMeta(META_PAUSED);
    if (paused !== undefined) {
      const until = paused === 'forever' ? null : Number(paused);
      if (until === null || until > now) this.policy.pause(this.mono(), until === null ? null : this.toMono(until));
    }
    // The first check counts calls stored from now on; later starts continue where the last one stopped.
    this.lastCallId = Number(store.getOrInitMeta(META_LAST_CALL, String(history.lastCallId())));
    void this.verify();
    this.timer = setInterval(() => {
      this.timedCheck();
      void this.verify();
    }, checkIntervalMs);
    this.timer.unref?.();
  }

  /** Checks the restart strategy again (at start, every check interval, after each restart). */
  verify(): Promise<void> {
    this.verifying ??= this.options
      .verifyStrategy()
      .catch(
        (error: unknown): StrategyCheck => ({
          runnable: false,
          problem: `could not check the restart strategy: ${(error as Error).message}`,
          service: 'unknown',
        }),
      )
      .then((check) => {
        if (!this.stopped) this.policy.strategyChecked(check);
      })
      .finally(() => {
        this.verifying = null;
      });
    return this.verifying;
  }

  /**
   * Stops checking. A restart command still running is left to finish on its own (it runs in its own
   * process group and may be draining the gateway for minutes): its record stays unfinished and the
   * next start picks the verification up (`rememberRecovery`).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([this.restartRunning, this.verifying]),
      new Promise<void>((resolve) => {
        waited = setTimeout(resolve, STOP_WAIT_MS);
      }),
    ]);
    clearTimeout(waited);
  }

  /**
   * The timer's check. Nothing may escape a timer (it would end the daemon, and under a service manager start a
   * crash loop): a check that fails is said once, with its reason, and tried again at the next interval.
   */
  private timedCheck(): void {
    try {
      this.check();
      if (this.checkFailure !== null) this.options.log.info('watchdog checks work again');
      this.checkFailure = null;
    } catch (error) {
      const message = (error as Error).message;
      if (this.checkFailure !== message) {
        this.options.log.error('watchdog check failed; tried again at the next check', { error: message });
      }
      this.checkFailure = message;
    }
  }

  /**
   * Keeps where the storm count stopped, for the next start. Best effort: a store that cannot be written
   * (a full disk) must not stop the watchdog judging what it already counted; the next start then counts
   * from an older position, which a storm restarts from anyway.
   */
  private rememberLastCall(id: number): void {
    try {
      this.options.store.setMeta(META_LAST_CALL, String(id));
      this.lastCallNotKept = null;
    } catch (error) {
      if (this.options.writes?.failed(error, 'where the storm count stopped')) return;
      const message = (error as Error).message;
      if (this.lastCallNotKept !== message) {
        this.options.log.warn('could not store where the storm count stopped; counting goes on', { error: message });
      }
      this.lastCallNotKept = message;
    }
  }

  /** One rate-limit check (the timer calls it; tests and the rehearsal may too). */
  check(): Decision {
    const { history, settings, clock } = this.options;
    const wall = clock();
    const evidence = history.stormEvidence(this.lastCallId, wall - settings.windowMs);
    this.lastCallId = evidence.lastId;
    this.rememberLastCall(evidence.lastId);
    const mono = (until: number | null) => (until === null ? null : this.toMono(until));
    // The storm's dependencies with no new calls are asked about too: a quiet check while their Retry-After
    // holds the gateway back must not end the storm (the policy's `waitingOut`).
    const quietStormDeps = [...this.stormAgents]
      .filter(([dep]) => !evidence.byDep.some((d) => d.dep === dep))
      .map(([dep, agents]) => ({ dep, count: 0, agents }));
    const input: CheckInput = {
      deps: [...evidence.byDep, ...quietStormDeps].map(({ dep, count, agents }) => ({
        dep,
        count,
        retryAfterUntil: mono(this.retryAfterUntil(dep, wall)),
        cooldownUntil: mono(this.options.cooldownUntil?.(dep, wall) ?? null),
        workingFallbacks: history.workingFallbacks(dep, agents, wall - settings.windowMs),
      })),
      stalled: this.stalled(),
    };
    this.policy.setMaintenance(this.options.maintenance?.() ?? null);
    const decision = this.policy.check(this.mono(), input);
    for (const { dep, count, agents } of evidence.byDep) if (count > 0) this.stormAgents.set(dep, agents);
    const counting = new Set(this.policy.stormDeps());
    for (const dep of this.stormAgents.keys()) if (!counting.has(dep)) this.stormAgents.delete(dep);
    this.perform(decision);
    this.tick();
    return decision;
  }

  /**
   * Sessions the gateway reports stalled, while no upstream attempt has been made since the first report:
   * the evidence of a hung gateway. Null when any call came after it (the gateway is making progress).
   */
  private stalled(): CheckInput['stalled'] {
    let sessions = 0;
    let since = Number.POSITIVE_INFINITY;
    const deps: string[] = [];
    const processStart = this.policy.state().processStart;
    for (const stall of this.options.stalled()) {
      // Reported by a gateway process that has since been replaced: its runs went with it.
      if (processStart !== null && this.toMono(stall.reportedAt, true) < processStart) continue;
      sessions += stall.sessions;
      since = Math.min(since, stall.since);
      if (stall.dep !== null) deps.push(stall.dep);
    }
    if (sessions === 0) return null;
    const lastCall = this.options.history.lastCallTs();
    if (lastCall !== null && lastCall > since) since = lastCall;
    return { sessions, deps, since: this.toMono(since, true) };
  }

  /** One health probe result (the health monitor's event). */
  probe(result: ProbeResult): Decision {
    this.policy.setMaintenance(this.options.maintenance?.() ?? null);
    const decision = this.policy.probe(this.mono(), {
      class: result.class,
      dead: result.dead,
      startup: result.startup,
      detail: result.detail,
      uptimeMs: result.ready?.uptimeMs ?? null,
    });
    this.perform(decision);
    this.tick();
    return decision;
  }

  /** The gateway says it is restarting by itself (its log, or an operator's restart): not a death. */
  gatewayRestarting(detail: string): Decision {
    const decision = this.policy.gatewayRestarting(this.mono(), detail);
    this.perform(decision);
    if (this.policy.state().recovering) this.options.fastProbes(true);
    return decision;
  }

  /** "Restart now" from the menu, the CLI or the API; `force` skips the drain. */
  restartNow(reason = 'restart requested by the user', force = false): Decision {
    const decision = this.policy.manual(this.mono(), reason);
    this.perform(decision, force);
    return decision;
  }

  pause(durationMs: number | null, reason = 'paused by the user'): Decision {
    const wallUntil = durationMs === null ? null : this.options.clock() + durationMs;
    // Paused all the same when it cannot be kept (a full disk): only a restart of BreakerBar forgets it then.
    this.keep('a watchdog pause', () =>
      this.options.store.setMeta(META_PAUSED, wallUntil === null ? 'forever' : String(wallUntil)),
    );
    const now = this.mono();
    const decision = this.policy.pause(now, durationMs === null ? null : now + durationMs);
    this.perform({ ...decision, reason: `${decision.reason} (${reason})` });
    return decision;
  }

  resume(): Decision {
    this.keep('a watchdog pause', () => this.options.store.setMeta(META_PAUSED, '0'));
    const decision = this.policy.resume(this.mono());
    this.perform(decision);
    return decision;
  }

  /** Resolves when the restart in flight (if any) has finished its command. */
  async settled(): Promise<void> {
    await this.restartRunning;
  }

  status(): WatchdogStatus {
    const { settings, history, restarter } = this.options;
    const now = this.mono();
    const state = this.policy.state();
    const paused = this.policy.paused(now);
    const { plan, problem } = restarter.plan({ trigger: 'manual' });
    const wall = (t: number) => this.toWall(t);
    const rec = state.recovering;
    return {
      enabled: settings.enabled,
      dryRun: settings.dryRun,
      paused,
      pausedUntil:
        paused && state.pausedUntil !== null && Number.isFinite(state.pausedUntil) ? wall(state.pausedUntil) : null,
      consecutiveChecks: state.consecutiveChecks,
      threshold: settings.threshold,
      stormRestart: settings.restartOnStorm,
      healthFailures: state.healthFailures,
      healthFailuresBeforeRestart: settings.healthFailuresBeforeRestart,
      budgetRemaining: this.policy.budgetRemaining(now),
      maxRestartsPerHour: settings.maxRestartsPerHour,
      restartInFlight: state.inFlight && { since: wall(state.inFlight.since), trigger: state.inFlight.trigger },
      recovering: rec && {
        since: wall(rec.since),
        trigger: rec.trigger,
        startedAt: rec.startedAt === null ? null : wall(rec.startedAt),
        pending: rec.pending,
      },
      deferral: state.deferral && {
        ...state.deferral,
        since: wall(state.deferral.since),
        until: wall(state.deferral.until),
      },
      storm: state.stormSince === null ? null : { since: wall(state.stormSince) },
      rateLimited: state.rateLimited && { since: wall(state.rateLimited.since), deps: state.rateLimited.deps },
      seenHealthy: state.seenHealthy,
      verified: state.strategy,
      diverging: state.divergenceAlerted,
      lastDecision: this.lastDecision,
      lastRestart: history.lastRestart(),
      strategy: { description: plan?.description ?? null, argv: plan?.argv ?? null, problem },
    };
  }

  /** Recovery bookkeeping and the divergence alarm. */
  private tick(): void {
    const now = this.mono();
    const recovering = this.policy.state().recovering;
    const breakers = this.options
      .breakers()
      .map((b) => ({ dep: b.dep, state: b.state, since: this.toMono(b.since, true) }));
    for (const decision of this.policy.tick(now, breakers)) {
      this.perform(decision);
      if (recovering && recovering.trigger !== 'gateway') {
        if (decision.kind === 'recovered' || decision.kind === 'not_recovered') {
          this.finishRecovery(decision, recovering.trigger, recovering.startedAt ?? now, recovering.since, {
            graceMs: recovering.graceMs,
            pending: recovering.pending,
          });
        }
      } else if (recovering && decision.kind === 'quiet') {
        this.options.fastProbes(false);
      }
    }
  }

  /** A restart's verification ended: recovered (started and answering) or not within the grace. */
  private finishRecovery(
    decision: Decision,
    trigger: RestartTrigger,
    startedAt: number,
    since: number,
    grace: { graceMs: number; pending: boolean },
  ): void {
    this.options.fastProbes(false);
    const recovered = decision.kind === 'recovered';
    const wall = this.options.clock();
    const id = this.restartId;
    if (id !== null) {
      this.keep('a restart', () =>
        this.options.history.updateRestart(id, {
          result: recovered ? 'recovered' : 'not_recovered',
          recoveryMs: recovered ? Math.max(0, Math.round(startedAt - since)) : null,
          detail: decision.reason,
        }),
      );
      this.announceRestart(id);
      this.restartId = null;
    }
    this.options.notify(
      recovered
        ? restartSucceededNotice(trigger, Math.max(0, startedAt - since), wall, this.words())
        : notRecoveredNotice(trigger, grace, wall, this.words()),
    );
  }

  private words(): Translator {
    return this.options.translator ?? translator('en');
  }

  /** Stores, counts and logs a decision; sends its alerts; starts the restart it orders. */
  private perform(decision: Decision, force = false): void {
    const { history, metrics, log } = this.options;
    const now = this.options.clock();
    const routine = (kind: string) => kind === 'quiet' || kind === 'healthy';
    const last = this.lastDecision;
    // A routine decision from another source (a healthy probe every 15 s) does not hide what a check
    // decided about a storm: "healthy: live" is not the watchdog's last word mid-storm.
    if (!last || !routine(decision.kind) || routine(last.decision) || last.source === decision.source) {
      this.lastDecision = {
        ts: now,
        source: decision.source,
        decision: decision.kind,
        reason: decision.reason,
        dep: decision.dep,
      };
    }
    this.keep('a watchdog decision', () =>
      history.recordDecision({
        ts: now,
        source: decision.source,
        decision: decision.kind,
        reason: decision.reason,
        dep: decision.dep,
      }),
    );
    metrics.recordDecision(decision.source, decision.kind);
    if (decision.kind === 'deferred' && decision.dep) metrics.recordDeferral(decision.dep);
    // A decision repeated word for word at every check or probe (a watchdog that cannot restart says why each
    // time) is logged at info once, then at debug until it changes.
    const said = `${decision.kind}\u0000${decision.dep}\u0000${decision.reason}`;
    const quiet = decision.kind === 'quiet' || decision.kind === 'healthy' || said === this.lastLogged;
    this.lastLogged = said;
    (quiet ? log.debug : log.info)('watchdog decision', {
      source: decision.source,
      decision: decision.kind,
      reason: decision.reason,
      dep: decision.dep,
    });
    this.emit('decision', { ...decision, ts: now });
    for (const alert of decision.alerts) this.options.notify(alertNotice(alert, now, this.words()));
    const would = decision.wouldRestart;
    if (would) {
      const id = this.keep('a restart', () =>
        history.startRestart({
          ts: now,
          trigger: would.trigger,
          reason: decision.reason,
          result: 'dry_run',
          evidence: would.evidence,
        }),
      );
      metrics.recordRestart(would.trigger, 'dry_run');
      this.announceRestart(id);
    }
    if (decision.restart) {
      this.restartRunning = this.runRestart(decision.restart, now, force).catch((error: unknown) => {
        // Neither the restart nor its (best-effort) records throw: the last guard, for a store closed under it.
        log.error('gateway restart bookkeeping failed', { error: (error as Error).message });
        this.policy.restartFinished(this.mono(), 'failed');
      });
    }
  }

  private async runRestart(order: RestartOrder, now: number, force: boolean): Promise<void> {
    const { history, restarter, metrics, log, clock } = this.options;
    // The restart runs whether or not it can be recorded: the gateway's recovery never waits for disk space.
    const id = this.keep('a restart', () =>
      history.startRestart({
        ts: now,
        trigger: order.trigger,
        reason: order.reason,
        evidence: order.evidence,
      }),
    );
    this.restartId = id;
    // A gateway that does not answer or makes no progress will not drain: skip the drain.
    force ||= order.probeClass === 'read_timeout' || order.evidence === 'hung';
    const { plan } = restarter.plan(order, force);
    this.options.notify(
      restartStartedNotice(
        order.evidence,
        order.facts ?? order.reason,
        plan ? plan.argv.join(' ') : null,
        now,
        this.words(),
      ),
    );
    this.announceRestart(id);
    this.options.fastProbes(true);
    const execution = await restarter.execute(order, force);
    const finished = clock();
    const result = execution.result;
    const output = result ? `${result.stdout}${result.stderr ? `\n${result.stderr}` : ''}`.trim().slice(-4000) : null;
    this.keep('a restart', () => {
      if (id === null) return;
      history.updateRestart(id, {
        result: execution.outcome === 'failed' ? 'failed' : execution.outcome === 'pending' ? 'pending' : 'recovering',
        durationMs: execution.durationMs,
        strategy: execution.plan?.strategy ?? null,
        command: execution.plan?.argv ?? null,
        exitCode: result?.exitCode ?? null,
        output: output || null,
        detail: execution.message,
      });
    });
    metrics.recordRestart(order.trigger, execution.outcome);
    this.policy.restartFinished(this.mono(), execution.outcome, execution.pending?.maxWaitMs ?? null);
    void this.verify();
    (execution.outcome === 'failed' ? log.error : log.info)('gateway restart command finished', {
      trigger: order.trigger,
      outcome: execution.outcome,
      strategy: execution.plan?.strategy ?? 'none',
      exitCode: result?.exitCode ?? null,
      message: execution.message,
    });
    if (execution.outcome === 'failed') {
      this.restartId = null;
      this.options.fastProbes(false);
      this.options.notify(restartFailedNotice(order.trigger, execution.message, finished, this.words()));
    }
    this.announceRestart(id);
  }

  /** Tells the listeners (incidents, the API's events) about a restart's record; none when it was not stored. */
  private announceRestart(id: number | null): void {
    if (id === null) return;
    const row = this.options.history.restart(id);
    if (row) this.emit('restart', row);
  }

  /** A write that must not stop what it records: a failure (a full disk) is reported and the watchdog goes on. */
  private keep<T>(what: string, write: () => T): T | null {
    try {
      return write();
    } catch (error) {
      reportWriteFailure(this.options.writes, this.options.log, what, error);
      return null;
    }
  }

  /** The latest Retry-After deadline in force for a dependency's breaker(s). */
  private retryAfterUntil(dep: string, now: number): number | null {
    const key = this.options.breakerKey(dep);
    let until: number | null = null;
    for (const snapshot of this.options.breakers()) {
      const matches = snapshot.dep === key || snapshot.dep.startsWith(`${key}/`);
      if (matches && snapshot.retryAfterUntil !== null && snapshot.retryAfterUntil > now) {
        until = Math.max(until ?? 0, snapshot.retryAfterUntil);
      }
    }
    return until;
  }
}
