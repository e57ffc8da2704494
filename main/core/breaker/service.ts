/**
 * The breaker concern as the monitor runs it: the engines (one engine per
 * dependency), active probes, and what traffic says beside the breakers (token
 * rates and budgets, who depends on what alone, stalled sessions). Fed with the
 * calls and signals the sources store; announces transitions and budget
 * crossings; answers the status the API and the tray show. Its parts are made
 * by the composition root (compose.ts) and handed in.
 */
import { EventEmitter } from 'node:events';
import type { CallEvent, GatewaySignal } from '../calls/events.js';
import type { Config } from '../config/index.js';
import type { BreakerbarMetrics } from '../metrics/breakerbar-metrics.js';
import type { Logger } from '../runtime/log.js';
import type { ReplayCall, Store } from '../store/db.js';
import type { AgentDependencies } from '../traffic/dependents.js';
import { isTrackedSession, STALL_FRESH_MS, type Stalled, type StallTracker } from '../traffic/stalls.js';
import type { TokenRate, TokenRates } from '../traffic/tokens.js';
import type { DependencyCap, DependencyCapStatus } from './dependency-cap.js';
import { type BreakerEngines, breakerKeyOf } from './engines.js';
import type { FleetSharing } from './fleet-sharing.js';
import type { Prober } from './prober.js';
import type { BreakerSnapshot, BreakerState, OperatorAction, Transition } from './types.js';

/** How often breakers are ticked while one waits for time (an open period running out, a probe due). */
const TICK_MS = 250;
/** A transition caused by an event older than this is history being read, not news. */
const LIVE_MS = 5 * 60_000;
const DAY_MS = 24 * 3_600_000;
/** Sessions looked up in the store for a stall report and found without a call, remembered (then forgotten). */
const MAX_LOOKED_UP = 1000;

/** A transition caused by recent traffic (news), not by history read during a backfill. */
/** A breaker as its service shows it: its snapshot, who depends on it, what is stalled on it, the fleet's view. */
export interface BreakerView extends BreakerSnapshot {
  /** Agents whose calls in the data seen go only to this dependency (no fallback): who is stuck while it is down. */
  soleDependents: string[];
  /**
   * Sessions stalled on this dependency now (reported by the gateway log): how many, the oldest and the newest of
   * their latest reports, and since when the longest-stuck one has made no progress.
   */
  stalled: { sessions: number; since: number; latest: number; stuckSince: number } | null;
  /** Other hosts of the fleet whose breaker for this dependency is not closed ("open elsewhere"). */
  elsewhere: Array<{ host: string; state: BreakerState; since: number; reason: string }>;
}

export function isLiveTransition(transition: Pick<Transition, 'ts'>, now: number): boolean {
  return now - transition.ts < LIVE_MS;
}

export interface BreakerServiceEvents {
  transition: [Transition];
  budget: [TokenRate];
}

export interface BreakerServiceOptions {
  config: Config;
  store: Store;
  metrics: BreakerbarMetrics;
  log: Logger;
  clock: () => number;
  /** The engines per dependency; its `onTransition` must call `announce` (the composition root wires it). */
  engines: BreakerEngines;
  /** Active half-open probes over the same engines. */
  prober: Prober;
  /** Token rates and budgets per agent and dependency. */
  tokens: TokenRates;
  /** Sessions stalled on a dependency. */
  stalls: StallTracker;
  /** Which agents depend on which dependency alone. */
  dependents: AgentDependencies;
  /** Breakers shared with other hosts through Redis (null: local only, the default). */
  fleet: FleetSharing | null;
  /** The ceiling on dependencies with their own breaker and metrics; the engines fold by the same one. */
  cap: DependencyCap;
}

export class BreakerService extends EventEmitter<BreakerServiceEvents> {
  readonly engines: BreakerEngines;
  private readonly prober: Prober;
  private readonly tokens: TokenRates;
  private readonly dependents: AgentDependencies;
  private readonly stalls: StallTracker;
  /** Stalled sessions whose last call was looked up in the store (so that a repeated line is not looked up again). */
  private readonly lookedUp = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  /** Breakers shared with other hosts through Redis (null: local only, the default). */
  readonly fleet: FleetSharing | null;
  /** The ceiling on dependencies with their own breaker and metrics (`breakers.maxDependencies`). */
  private readonly cap: DependencyCap;

  constructor(private readonly options: BreakerServiceOptions) {
    super();
    this.engines = options.engines;
    this.prober = options.prober;
    this.tokens = options.tokens;
    this.stalls = options.stalls;
    this.dependents = options.dependents;
    this.fleet = options.fleet;
    this.cap = options.cap;
  }

  /** A transition the engines just stored: counted, logged, shared with the fleet when live, and announced. */
  announce(transition: Transition): void {
    const { metrics, log, clock } = this.options;
    metrics.recordTransition(transition);
    // Transitions of history read during a backfill are stored and counted, not shouted about.
    const live = isLiveTransition(transition, clock());
    (live ? log.info : log.debug)('breaker transition', {
      dep: transition.dep,
      from: transition.from,
      to: transition.to,
      reason: transition.reason,
    });
    if (live) this.fleet?.publish(transition);
    this.emit('transition', transition);
    if (transition.to !== 'closed') this.keepTime();
  }

  /** Rebuilds state from stored history, then keeps time. */
  start(): void {
    const { store, clock, metrics } = this.options;
    for (const { agentId, dep, provider, ts } of store.agentDependencies(clock() - DAY_MS)) {
      const tracked = this.cap.dependencyOf({ dep, provider });
      this.dependents.record(agentId, breakerKeyOf({ dep: tracked, provider }, this.options.config.breakers.key), ts);
    }
    this.rebuildStalls();
    this.engines.replay();
    metrics.baseline(this.engines.snapshots());
    this.fleet?.start();
    this.started = true;
    this.keepTime();
  }

  /**
   * Ticks the breakers while one of them waits for time, and sleeps while none does (all closed: the usual
   * state, where ticking four times a second would only wake an idle daemon). Every transition out
   * of `closed` wakes it; a closed breaker's window is aged when it is read.
   */
  private keepTime(): void {
    if (this.timer || !this.started || this.engines.waitsForNothing()) return;
    const { clock, log } = this.options;
    this.timer = setInterval(() => {
      // A failure here (a store error, say) is reported and retried on the next tick, never fatal.
      try {
        this.engines.tick(clock());
        this.prober.run();
      } catch (error) {
        log.error('breaker tick failed', { error: (error as Error).message });
      }
      if (this.engines.waitsForNothing()) this.sleep();
    }, TICK_MS);
    this.timer.unref?.();
  }

  private sleep(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  stop(): void {
    this.started = false;
    this.sleep();
    this.prober.stop();
    this.fleet?.stop();
  }

  /** Calls just stored by a source (past the dependency ceiling, counted under their provider's bucket). */
  observe(stored: readonly CallEvent[]): void {
    const calls = stored.map((call) => this.cap.fold(call));
    const key = this.options.config.breakers.key;
    for (const call of calls) {
      const dep = breakerKeyOf(call, key);
      this.dependents.record(call.agentId, dep, call.ts);
      this.seenForStalls(call);
      this.options.metrics.declareDependency(call.dep);
    }
    this.options.metrics.recordCalls(calls, this.options.clock());
    this.engines.observe(calls);
    for (const crossed of this.tokens.record(calls)) {
      this.options.metrics.recordBudgetExceeded(crossed.dep, crossed.agentId);
      this.options.log.warn('token budget crossed', {
        agent: crossed.agentId,
        dep: crossed.dep,
        tokensPerMinute: crossed.tokensPerMinute,
        budget: crossed.budget,
      });
      this.emit('budget', crossed);
    }
  }

  /**
   * Each call is the session's latest until a later one comes (the dependency a stall report is put on), and
   * any call, failed or not, after a stall report is progress that ends the stall. A failed call followed by
   * silence is not a stall: transcripts are written when a run ends, so that session is idle.
   */
  private seenForStalls(call: Pick<ReplayCall, 'sessionId' | 'dep' | 'provider' | 'credential' | 'ts'>): void {
    const dep = breakerKeyOf(call, this.options.config.breakers.key);
    this.stalls.callSeen(call.sessionId, dep, call.ts);
  }

  /** Gateway log signals just stored. */
  signal(signals: readonly GatewaySignal[]): void {
    for (const signal of signals) {
      this.options.metrics.recordSignal(signal.kind);
      if (signal.kind !== 'stall') continue;
      if (isTrackedSession(signal.sessionId)) this.lookUpLastCall(signal.sessionId);
      this.stalls.signal(signal);
    }
  }

  /**
   * After a restart the sources resume where they stopped, so the stall lines of the last minutes and the
   * sessions' last calls are read back from the store: the same rules then give the same answer.
   */
  private rebuildStalls(): void {
    const { store, clock } = this.options;
    const lines = store.db
      .prepare(
        `SELECT ts, session_id AS sessionId, dep, duration_ms AS ageMs FROM signals
         WHERE kind = 'stall' AND ts >= ? ORDER BY ts, id`,
      )
      .all(clock() - STALL_FRESH_MS) as Array<{
      ts: number;
      sessionId: string | null;
      dep: string | null;
      ageMs: number | null;
    }>;
    for (const { sessionId } of lines) if (isTrackedSession(sessionId)) this.lookUpLastCall(sessionId);
    for (const line of lines) this.stalls.reported(line.sessionId, line.ts, line.dep, line.ageMs);
  }

  /**
   * A stall report about a session whose calls this service has not seen (they came before it started, or it
   * forgot them): its last call of the past day, from the store, says which dependency it stalled on.
   * (A query of the store's tables: `Store` has no per-session look-up yet.)
   */
  private lookUpLastCall(sessionId: string): void {
    if (this.stalls.knows(sessionId) || this.lookedUp.has(sessionId)) return;
    if (this.lookedUp.size >= MAX_LOOKED_UP) this.lookedUp.clear();
    this.lookedUp.add(sessionId);
    const last = this.options.store.db
      .prepare(
        `SELECT ts, dep, provider, credential, session_id AS sessionId FROM calls
         WHERE ts >= ? AND session_id = ? ORDER BY ts DESC, id DESC LIMIT 1`,
      )
      .get(this.options.clock() - DAY_MS, sessionId) as
      | Pick<ReplayCall, 'sessionId' | 'dep' | 'provider' | 'credential' | 'ts'>
      | undefined;
    if (last) this.seenForStalls(last);
  }

  control(dep: string, action: OperatorAction, reason: string): Transition[] {
    return this.engines.control(dep, action, reason);
  }

  snapshots(): BreakerSnapshot[] {
    return this.engines.snapshots();
  }

  /** The breakers as this service sees them (the API adds OpenClaw's cooldown). */
  breakers(): BreakerView[] {
    const now = this.options.clock();
    return this.engines.snapshots().map((snapshot) => ({
      ...snapshot,
      soleDependents: snapshot.state === 'closed' ? [] : this.dependents.soleDependents(snapshot.dep, now),
      stalled: this.stalls.stalled(snapshot.dep, now),
      elsewhere: (this.fleet?.elsewhere(snapshot.dep) ?? []).map(({ host, state, since, reason }) => ({
        host,
        state,
        since,
        reason,
      })),
    }));
  }

  /** How many dependencies are tracked, the ceiling, and how many were folded past it. */
  dependencies(): DependencyCapStatus {
    return this.cap.status();
  }

  tokenRates(): TokenRate[] {
    return this.tokens.rates(this.options.clock());
  }

  stalledSessions(): Array<{ dep: string; sessions: number }> {
    return this.stalls.all(this.options.clock());
  }

  /** Stalled sessions whose dependency is not known (stuck in their first call), or null. */
  stalledWithoutDependency(): Stalled | null {
    return this.stalls.withoutDependency(this.options.clock());
  }
}
