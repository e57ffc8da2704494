/**
 * The watchdog as the monitor runs it: feeds the pure policy with checks
 * (new rate_limited calls from the store), health probes and breaker states,
 * and performs what it decides — stores every decision, runs restarts one at a
 * time, verifies recovery, and hands alerts to the notifier.
 */
import { EventEmitter } from 'node:events';
import type { BreakerSnapshot } from '../breaker/types.js';
import type { ProbeResult } from '../gateway/probe.js';
import type { Logger } from '../log.js';
import type { NoticeInput } from '../notify/notifier.js';
import type { BreakerbarMetrics } from '../server/metrics.js';
import type { Store } from '../store/db.js';
import type { GatewayHistory, RestartRow } from '../store/gateway-history.js';
import { alertNotice, restartFailedNotice, restartStartedNotice, restartSucceededNotice } from './notices.js';
import {
  type CheckInput,
  type Decision,
  type RestartOrder,
  type RestartTrigger,
  WatchdogPolicy,
  type WatchdogSettings,
} from './policy.js';
import type { Restarter } from './restarter.js';

const HOUR_MS = 3_600_000;
const META_PAUSED = 'watchdog.pausedUntil';
const META_LAST_CALL = 'watchdog.lastCallId';
/** How long stop() lets a restart command in flight finish before leaving it to itself. */
const STOP_WAIT_MS = 2000;
/** Restart records not final yet: the command was running, or recovery was being verified. */
const UNFINISHED = ['running', 'recovering'];

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
  notify(notice: NoticeInput): void;
  /** Probe faster while a restart is verified. */
  fastProbes(on: boolean): void;
  metrics: BreakerbarMetrics;
  log: Logger;
  clock: () => number;
}

export interface WatchdogStatus {
  enabled: boolean;
  dryRun: boolean;
  paused: boolean;
  /** Epoch ms; null = not paused; Infinity is reported as null with `paused` true (until resumed). */
  pausedUntil: number | null;
  consecutiveChecks: number;
  threshold: number;
  healthFailures: number;
  healthFailuresBeforeRestart: number;
  budgetRemaining: number;
  maxRestartsPerHour: number;
  restartInFlight: { since: number; trigger: RestartTrigger } | null;
  recovering: { since: number; trigger: RestartTrigger; startedAt: number | null } | null;
  deferral: { since: number; until: number; dep: string } | null;
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
  private restartId: number | null = null;
  private restartRunning: Promise<void> | null = null;
  private lastDecision: WatchdogStatus['lastDecision'] = null;

  constructor(private readonly options: WatchdogRunnerOptions) {
    super();
    this.policy = new WatchdogPolicy(options.settings);
  }

  start(): void {
    const { store, history, clock, checkIntervalMs } = this.options;
    const now = clock();
    // The budget and a pause outlive BreakerBar's own restarts.
    for (const row of history.restarts(now - HOUR_MS, now + 1)) {
      if (row.result !== 'dry_run') this.policy.rememberRestart(row.ts, row.trigger as RestartTrigger);
    }
    const last = history.lastRestart();
    if (last && UNFINISHED.includes(last.result) && now - last.ts < this.options.settings.startupGraceMs) {
      this.policy.rememberRecovery(last.ts, last.trigger as RestartTrigger);
      this.restartId = last.id;
      this.options.fastProbes(true);
    }
    const paused = store.getMeta(META_PAUSED);
    if (paused !== undefined) {
      const until = paused === 'forever' ? null : Number(paused);
      if (until === null || until > now) this.policy.pause(now, until);
    }
    // The first check counts calls stored from now on; later starts continue where the last one stopped.
    this.lastCallId = Number(store.getOrInitMeta(META_LAST_CALL, String(history.lastCallId())));
    this.timer = setInterval(() => this.check(), checkIntervalMs);
    this.timer.unref?.();
  }

  /**
   * Stops checking. A restart command still running is left to finish on its own (it runs in its own
   * process group and may be draining the gateway for minutes): its record stays unfinished and the
   * next start picks the verification up (`rememberRecovery`).
   */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      this.restartRunning,
      new Promise<void>((resolve) => {
        waited = setTimeout(resolve, STOP_WAIT_MS);
      }),
    ]);
    clearTimeout(waited);
  }

  /** One rate-limit check (the timer calls it; tests and the rehearsal may too). */
  check(): Decision {
    const { history, settings, clock, store } = this.options;
    const now = clock();
    const evidence = history.stormEvidence(this.lastCallId, now - settings.windowMs);
    this.lastCallId = evidence.lastId;
    store.setMeta(META_LAST_CALL, String(evidence.lastId));
    const input: CheckInput = {
      deps: evidence.byDep.map(({ dep, count, agents }) => ({
        dep,
        count,
        retryAfterUntil: this.retryAfterUntil(dep, now),
        workingFallbacks: history.workingFallbacks(dep, agents, now - settings.windowMs),
      })),
    };
    const decision = this.policy.check(now, input);
    this.perform(decision, now);
    this.tick(now);
    return decision;
  }

  /** One health probe result (the health monitor's event). */
  probe(result: ProbeResult): Decision {
    const now = this.options.clock();
    const decision = this.policy.probe(now, {
      class: result.class,
      dead: result.dead,
      startup: result.startup,
      detail: result.detail,
    });
    this.perform(decision, now);
    this.tick(now);
    return decision;
  }

  /** "Restart now" from the menu, the CLI or the API; `force` skips the drain. */
  restartNow(reason = 'restart requested by the user', force = false): Decision {
    const now = this.options.clock();
    const decision = this.policy.manual(now, reason);
    this.perform(decision, now, force);
    return decision;
  }

  pause(durationMs: number | null, reason = 'paused by the user'): Decision {
    const now = this.options.clock();
    const until = durationMs === null ? null : now + durationMs;
    this.options.store.setMeta(META_PAUSED, until === null ? 'forever' : String(until));
    const decision = this.policy.pause(now, until);
    this.perform({ ...decision, reason: `${decision.reason} (${reason})` }, now);
    return decision;
  }

  resume(): Decision {
    const now = this.options.clock();
    this.options.store.setMeta(META_PAUSED, '0');
    const decision = this.policy.resume(now);
    this.perform(decision, now);
    return decision;
  }

  /** Resolves when the restart in flight (if any) has finished its command. */
  async settled(): Promise<void> {
    await this.restartRunning;
  }

  status(): WatchdogStatus {
    const { settings, history, clock, restarter } = this.options;
    const now = clock();
    const state = this.policy.state();
    const paused = this.policy.paused(now);
    const { plan, problem } = restarter.plan({ trigger: 'manual' });
    return {
      enabled: settings.enabled,
      dryRun: settings.dryRun,
      paused,
      pausedUntil: paused && Number.isFinite(state.pausedUntil) ? state.pausedUntil : null,
      consecutiveChecks: state.consecutiveChecks,
      threshold: settings.threshold,
      healthFailures: state.healthFailures,
      healthFailuresBeforeRestart: settings.healthFailuresBeforeRestart,
      budgetRemaining: this.policy.budgetRemaining(now),
      maxRestartsPerHour: settings.maxRestartsPerHour,
      restartInFlight: state.inFlight,
      recovering: state.recovering,
      deferral: state.deferral,
      diverging: state.divergenceAlerted,
      lastDecision: this.lastDecision,
      lastRestart: history.lastRestart(),
      strategy: { description: plan?.description ?? null, argv: plan?.argv ?? null, problem },
    };
  }

  /** Recovery bookkeeping and the divergence alarm. */
  private tick(now: number): void {
    const recovering = this.policy.state().recovering;
    const succeededAt = recovering?.startedAt != null ? this.options.history.successSince(recovering.startedAt) : null;
    const breakers = this.options.breakers().map((b) => ({ dep: b.dep, state: b.state, since: b.since }));
    for (const decision of this.policy.tick(now, breakers, succeededAt)) {
      this.perform(decision, now);
      if (['recovered', 'started_unconfirmed', 'not_recovered'].includes(decision.kind)) {
        this.finishRecovery(decision, now, recovering?.trigger ?? 'manual', recovering?.since ?? now, succeededAt);
      }
    }
  }

  private finishRecovery(
    decision: Decision,
    now: number,
    trigger: RestartTrigger,
    since: number,
    succeededAt: number | null,
  ): void {
    this.options.fastProbes(false);
    const recovered = decision.kind !== 'not_recovered';
    const recoveryMs = decision.kind === 'recovered' && succeededAt !== null ? succeededAt - since : null;
    if (this.restartId !== null) {
      this.options.history.updateRestart(this.restartId, {
        result:
          decision.kind === 'recovered'
            ? 'recovered'
            : decision.kind === 'started_unconfirmed'
              ? 'started'
              : 'not_recovered',
        recoveryMs,
        detail: decision.reason,
      });
      this.announceRestart(this.restartId);
      this.restartId = null;
    }
    this.options.notify(
      recovered
        ? restartSucceededNotice(trigger, `${decision.reason}.`, now)
        : restartFailedNotice(trigger, `${decision.reason}. Check the gateway's logs; run \`breakerbar doctor\`.`, now),
    );
  }

  /** Stores, counts and logs a decision; sends its alerts; starts the restart it orders. */
  private perform(decision: Decision, now: number, force = false): void {
    const { history, metrics, log } = this.options;
    this.lastDecision = {
      ts: now,
      source: decision.source,
      decision: decision.kind,
      reason: decision.reason,
      dep: decision.dep,
    };
    try {
      history.recordDecision({
        ts: now,
        source: decision.source,
        decision: decision.kind,
        reason: decision.reason,
        dep: decision.dep,
      });
    } catch (error) {
      log.warn('could not store a watchdog decision', { error: (error as Error).message });
    }
    metrics.recordDecision(decision.source, decision.kind);
    if (decision.kind === 'deferred' && decision.dep) metrics.recordDeferral(decision.dep);
    const quiet = decision.kind === 'quiet' || decision.kind === 'healthy';
    (quiet ? log.debug : log.info)('watchdog decision', {
      source: decision.source,
      decision: decision.kind,
      reason: decision.reason,
      dep: decision.dep,
    });
    this.emit('decision', { ...decision, ts: now });
    for (const alert of decision.alerts) this.options.notify(alertNotice(alert, now));
    if (decision.kind === 'dry_run') {
      const id = history.startRestart({
        ts: now,
        trigger: triggerOf(decision),
        reason: decision.reason,
        result: 'dry_run',
      });
      metrics.recordRestart(triggerOf(decision), 'dry_run');
      this.announceRestart(id);
    }
    if (decision.restart) {
      this.restartRunning = this.runRestart(decision.restart, now, force).catch((error: unknown) => {
        // Only the store can throw here (closed during shutdown); the restart itself never does.
        log.error('gateway restart bookkeeping failed', { error: (error as Error).message });
        this.policy.restartFinished(this.options.clock(), 'failed');
      });
    }
  }

  private async runRestart(order: RestartOrder, now: number, force: boolean): Promise<void> {
    const { history, restarter, metrics, log, clock } = this.options;
    const id = history.startRestart({ ts: now, trigger: order.trigger, reason: order.reason });
    this.restartId = id;
    const { plan } = restarter.plan(order, force || order.probeClass === 'read_timeout');
    this.options.notify(
      restartStartedNotice(order.trigger, order.reason, plan ? plan.argv.join(' ') : '(no restart strategy)', now),
    );
    this.announceRestart(id);
    this.options.fastProbes(true);
    const execution = await restarter.restart(order, force || order.probeClass === 'read_timeout');
    const finished = clock();
    const result = execution.result;
    const output = result ? `${result.stdout}${result.stderr ? `\n${result.stderr}` : ''}`.trim().slice(-4000) : null;
    history.updateRestart(id, {
      result: execution.outcome === 'failed' ? 'failed' : 'recovering',
      durationMs: execution.durationMs,
      strategy: execution.plan?.strategy ?? null,
      command: execution.plan?.argv ?? null,
      exitCode: result?.exitCode ?? null,
      output: output || null,
      detail: execution.message,
    });
    metrics.recordRestart(order.trigger, execution.outcome);
    this.policy.restartFinished(finished, execution.outcome);
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
      this.options.notify(restartFailedNotice(order.trigger, execution.message, finished));
    }
    this.announceRestart(id);
  }

  private announceRestart(id: number): void {
    const row = this.options.history.restart(id);
    if (row) this.emit('restart', row);
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

function triggerOf(decision: Decision): RestartTrigger {
  return decision.source === 'probe' ? 'health' : decision.source === 'manual' ? 'manual' : 'storm';
}
