/**
 * Carries out what the watchdog policy decided: stores, counts and logs every decision, hands its alerts to
 * the notifier, runs the restart it orders (one at a time) and keeps the restart's record from its command
 * to its recovery. Records are best effort: the watchdog acts all the same when the disk is full.
 */
import type { EventEmitter } from 'node:events';
import { type Translator, translator } from '../../words/messages/index.js';
import type { RestartTrigger } from '../gateway/control.js';
import { reportWriteFailure } from '../store/room.js';
import type { WatchdogPolicy } from './policy.js';
import type { Decision, RestartOrder } from './policy-decisions.js';
import type { WatchdogClocks } from './watchdog-clocks.js';
import {
  alertNotice,
  notRecoveredNotice,
  restartFailedNotice,
  restartStartedNotice,
  restartSucceededNotice,
} from './watchdog-notices.js';
import type { WatchdogEvents, WatchdogOptions } from './watchdog-options.js';
import type { WatchdogStatus } from './watchdog-status.js';

export class DecisionPerformer {
  /** The restart whose record is kept (its command, then its recovery); null when there is none. */
  restartId: number | null = null;
  /** The restart command in flight, if any. */
  restartRunning: Promise<void> | null = null;
  /** What status shows as the watchdog's last word. */
  lastDecision: WatchdogStatus['lastDecision'] = null;
  /** The last decision logged, to log a repeated one at debug. */
  private lastLogged = '';

  constructor(
    private readonly options: WatchdogOptions,
    private readonly policy: WatchdogPolicy,
    private readonly clocks: WatchdogClocks,
    /** The watchdog, whose listeners hear of every decision and restart record. */
    private readonly events: EventEmitter<WatchdogEvents>,
    /** Checks the restart strategy again (after each restart). */
    private readonly verify: () => Promise<void>,
  ) {}

  /** Stores, counts and logs a decision; sends its alerts; starts the restart it orders. */
  perform(decision: Decision, force = false): void {
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
        ...(decision.why === undefined ? {} : { why: decision.why }),
        dep: decision.dep,
      };
    }
    this.keep('a watchdog decision', () =>
      history.recordDecision({
        ts: now,
        source: decision.source,
        decision: decision.kind,
        reason: decision.reason,
        ...(decision.why === undefined ? {} : { why: decision.why }),
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
    this.events.emit('decision', { ...decision, ts: now });
    for (const alert of decision.alerts) this.options.notify(alertNotice(alert, now, this.words()));
    const would = decision.wouldRestart;
    if (would) {
      const id = this.keep('a restart', () =>
        history.startRestart({
          ts: now,
          trigger: would.trigger,
          reason: decision.reason,
          ...(decision.why === undefined ? {} : { why: decision.why }),
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
        this.policy.restartFinished(this.clocks.mono(), 'failed');
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
        ...(order.why === undefined ? {} : { why: order.why }),
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
    this.policy.restartFinished(this.clocks.mono(), execution.outcome, execution.pending?.maxWaitMs ?? null);
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

  /** A restart's verification ended: recovered (started and answering) or not within the grace. */
  finishRecovery(
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
        this.options.history.updateRestart(
          id,
          {
            result: recovered ? 'recovered' : 'not_recovered',
            recoveryMs: recovered ? Math.max(0, Math.round(startedAt - since)) : null,
            detail: decision.reason,
          },
          decision.why,
        ),
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

  /** Tells the listeners (incidents, the API's events) about a restart's record; none when it was not stored. */
  private announceRestart(id: number | null): void {
    if (id === null) return;
    const row = this.options.history.restart(id);
    if (row) this.events.emit('restart', row);
  }

  /** A write that must not stop what it records: a failure (a full disk) is reported and the watchdog goes on. */
  keep<T>(what: string, write: () => T): T | null {
    try {
      return write();
    } catch (error) {
      reportWriteFailure(this.options.writes, this.options.log, what, error);
      return null;
    }
  }
}
