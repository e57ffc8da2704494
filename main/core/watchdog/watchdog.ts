/**
 * The watchdog as the monitor runs it: feeds the pure policy with checks
 * (new rate_limited calls from the store, stalled sessions), health probes,
 * breaker states and the restart strategy's check, and performs what it
 * decides — stores every decision, runs restarts one at a time, verifies
 * recovery, and hands alerts to the notifier. What a check gathers is
 * check-evidence.ts, what a decision sets going is decision-performer.ts, and
 * how the two clocks meet is watchdog-clocks.ts.
 */

import { EventEmitter } from 'node:events';
import { type DecisionReason, decisionReasonLine } from '../../words/decision-reasons.js';
import type { RestartTrigger } from '../gateway/control.js';
import type { ProbeResult } from '../gateway/probe.js';
import { CheckEvidence } from './check-evidence.js';
import { DecisionPerformer } from './decision-performer.js';
import { WatchdogPolicy } from './policy.js';
import type { Decision } from './policy-decisions.js';
import type { StrategyCheck } from './policy-inputs.js';
import { WatchdogClocks } from './watchdog-clocks.js';
import type { WatchdogEvents, WatchdogOptions } from './watchdog-options.js';
import { type WatchdogStatus, watchdogStatus } from './watchdog-status.js';

const HOUR_MS = 3_600_000;
const META_PAUSED = 'watchdog.pausedUntil';
/** How long stop() lets a restart command in flight finish before leaving it to itself. */
const STOP_WAIT_MS = 2000;
/** Restart records not final yet: the command was running, or recovery was being verified. */
const UNFINISHED = ['running', 'recovering', 'pending'];

/** What a pause is stored with when the user gave no reason. */
const PAUSED_BY_USER = 'paused by the user';

export class Watchdog extends EventEmitter<WatchdogEvents> {
  readonly policy: WatchdogPolicy;
  private timer: NodeJS.Timeout | null = null;
  private readonly clocks: WatchdogClocks;
  private readonly evidence: CheckEvidence;
  private readonly performer: DecisionPerformer;
  private verifying: Promise<void> | null = null;
  private stopped = false;
  /** The last timed check's failure, said once until a check works again. */
  private checkFailure: string | null = null;

  constructor(private readonly options: WatchdogOptions) {
    super();
    this.policy = new WatchdogPolicy(options.settings);
    this.clocks = new WatchdogClocks(() => options.clock(), options.monotonic ?? options.clock);
    this.evidence = new CheckEvidence(options, this.policy, this.clocks);
    this.performer = new DecisionPerformer(options, this.policy, this.clocks, this, () => this.verify());
  }

  start(): void {
    const { store, history, clock, checkIntervalMs } = this.options;
    const now = clock();
    this.stopped = false;
    // The budget and a pause outlive BreakerBar's own restarts. A restart stored "in the future" (the wall
    // clock was stepped back since) counts as just now: it spaces the next one, it does not block for hours.
    for (const row of history.restarts(now - HOUR_MS, Number.MAX_SAFE_INTEGER)) {
      if (row.result !== 'dry_run')
        this.policy.rememberRestart(this.clocks.toMono(row.ts, true), row.trigger as RestartTrigger);
    }
    const last = history.lastRestart();
    if (last && UNFINISHED.includes(last.result) && Math.abs(now - last.ts) < this.options.settings.startupGraceMs) {
      this.policy.rememberRecovery(this.clocks.toMono(last.ts, true), last.trigger as RestartTrigger);
      this.performer.restartId = last.id;
      this.options.fastProbes(true);
    }
    const paused = store.getMeta(META_PAUSED);
    if (paused !== undefined) {
      const until = paused === 'forever' ? null : Number(paused);
      if (until === null || until > now)
        this.policy.pause(this.clocks.mono(), until === null ? null : this.clocks.toMono(until));
    }
    this.evidence.start();
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
      Promise.all([this.performer.restartRunning, this.verifying]),
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

  /** One rate-limit check (the timer calls it; tests and the rehearsal may too). */
  check(): Decision {
    const { input, fresh } = this.evidence.gather();
    this.policy.setMaintenance(this.options.maintenance?.() ?? null);
    const decision = this.policy.check(this.clocks.mono(), input);
    this.evidence.counted(fresh);
    this.performer.perform(decision);
    this.tick();
    return decision;
  }

  /** One health probe result (the health monitor's event). */
  probe(result: ProbeResult): Decision {
    this.policy.setMaintenance(this.options.maintenance?.() ?? null);
    const decision = this.policy.probe(this.clocks.mono(), {
      class: result.class,
      dead: result.dead,
      startup: result.startup,
      detail: result.detail,
      ...(result.found === undefined ? {} : { found: result.found }),
      uptimeMs: result.ready?.uptimeMs ?? null,
    });
    this.performer.perform(decision);
    this.tick();
    return decision;
  }

  /** The gateway says it is restarting by itself (its log, or an operator's restart): not a death. */
  gatewayRestarting(detail: string): Decision {
    const decision = this.policy.gatewayRestarting(this.clocks.mono(), detail);
    this.performer.perform(decision);
    if (this.policy.state().recovering) this.options.fastProbes(true);
    return decision;
  }

  /** "Restart now" from the menu, the CLI or the API; `force` skips the drain. */
  restartNow(reason = 'restart requested by the user', force = false): Decision {
    const decision = this.policy.manual(this.clocks.mono(), reason);
    this.performer.perform(decision, force);
    return decision;
  }

  pause(durationMs: number | null, reason = PAUSED_BY_USER): Decision {
    const wallUntil = durationMs === null ? null : this.options.clock() + durationMs;
    // Paused all the same when it cannot be kept (a full disk): only a restart of BreakerBar forgets it then.
    this.performer.keep('a watchdog pause', () =>
      this.options.store.setMeta(META_PAUSED, wallUntil === null ? 'forever' : String(wallUntil)),
    );
    const now = this.clocks.mono();
    const decision = this.policy.pause(now, durationMs === null ? null : now + durationMs);
    // Stored with what the user said (null: they said nothing, the default words it).
    const note = reason === PAUSED_BY_USER ? null : reason;
    const why: DecisionReason =
      decision.why?.code === 'paused'
        ? { ...decision.why, note }
        : { code: 'text', text: `${decision.reason} (${reason})` };
    // The answer is the decision as stored, the user's note in it.
    const stored = { ...decision, reason: decisionReasonLine(why), why };
    this.performer.perform(stored);
    return stored;
  }

  resume(): Decision {
    this.performer.keep('a watchdog pause', () => this.options.store.setMeta(META_PAUSED, '0'));
    const decision = this.policy.resume(this.clocks.mono());
    this.performer.perform(decision);
    return decision;
  }

  /** Resolves when the restart in flight (if any) has finished its command. */
  async settled(): Promise<void> {
    await this.performer.restartRunning;
  }

  status(): WatchdogStatus {
    return watchdogStatus(this.options, this.policy, this.clocks, this.performer.lastDecision);
  }

  /** Recovery bookkeeping and the divergence alarm. */
  private tick(): void {
    const now = this.clocks.mono();
    const recovering = this.policy.state().recovering;
    const breakers = this.options
      .breakers()
      .map((b) => ({ dep: b.dep, state: b.state, since: this.clocks.toMono(b.since, true) }));
    for (const decision of this.policy.tick(now, breakers)) {
      this.performer.perform(decision);
      if (recovering && recovering.trigger !== 'gateway') {
        if (decision.kind === 'recovered' || decision.kind === 'not_recovered') {
          this.performer.finishRecovery(decision, recovering.trigger, recovering.startedAt ?? now, recovering.since, {
            graceMs: recovering.graceMs,
            pending: recovering.pending,
          });
        }
      } else if (recovering && decision.kind === 'quiet') {
        this.options.fastProbes(false);
      }
    }
  }
}
