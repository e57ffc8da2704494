/**
 * The shell around the pure breaker engine: one Breaker per dependency key,
 * fed with stored calls as they arrive, ticked by the clock, rebuilt from
 * history at start (so a restart never closes an open breaker by accident),
 * with every transition stored and announced. All decisions stay in engine.ts.
 */
import type { BreakerReason } from '../../words/breaker-reasons.js';
import type { CallEvent } from '../calls/events.js';
import type { Config } from '../config/index.js';
import { mostSpecific } from '../config/patterns.js';
import type { ReplayCall, Store } from '../store/db.js';
import { Breaker } from './engine.js';
import {
  type BreakerPolicy,
  type BreakerSnapshot,
  DEFAULT_POLICY,
  type Observation,
  type OperatorAction,
  type Transition,
} from './types.js';

type BreakersConfig = Config['breakers'];

export interface BreakerEnginesOptions {
  config: BreakersConfig;
  store: Store;
  clock: () => number;
  onTransition: (transition: Transition) => void;
  /** Called after every change with the breaker's snapshot (metrics read counters from it). */
  onSnapshot?: (snapshot: BreakerSnapshot) => void;
  jitter?: () => number;
  /** The dependency a stored call is tracked under (the dependency ceiling); default: its own. */
  dependencyOf?: (call: { dep: string; provider: string }) => string;
  /**
   * A transition or an operator's action that could not be stored (a full disk): it still takes effect and is
   * still announced, only its record is missing. Default: thrown, as any other store failure.
   */
  storeFailed?: (what: string, error: unknown) => void;
}

/**
 * The key a call's breaker is found under: `provider/model` (default), `provider`, or
 * `provider/model/<credential fingerprint>` where the record names an auth profile
 * (so two API keys of one provider do not share a breaker). Never a user or session id.
 */
export function breakerKeyOf(
  call: Pick<CallEvent, 'dep' | 'provider'> & { credential?: string | null },
  key: BreakersConfig['key'],
): string {
  if (key === 'provider') return call.provider;
  if (key === 'credential' && call.credential) return `${call.dep}/${call.credential}`;
  return call.dep;
}

/** Defaults with every matching override applied, least specific first. */
export function policyFor(dep: string, config: BreakersConfig): BreakerPolicy {
  const base: BreakerPolicy = {
    windowMs: config.windowMs,
    minCalls: config.minCalls,
    failureRate: config.failureRate,
    consecutiveFailures: config.consecutiveFailures,
    cooldownMs: config.cooldownMs,
    backoffFactor: config.backoffFactor,
    maxOpenMs: config.maxOpenMs,
    trialsToClose: config.trialsToClose,
    maxRetryAfterMs: config.maxRetryAfterMs,
  };
  for (const pattern of mostSpecific(Object.keys(config.overrides), dep))
    Object.assign(base, config.overrides[pattern]);
  return base;
}

/** How far back history is replayed at start: long enough to rebuild any open breaker's state. */
export function replayWindowMs(config: BreakersConfig): number {
  const policies = [config, ...Object.values(config.overrides)];
  const longest = Math.max(
    ...policies.map((p) => Math.max(p.maxOpenMs ?? DEFAULT_POLICY.maxOpenMs, p.maxRetryAfterMs ?? 0, p.windowMs ?? 0)),
  );
  return Math.min(longest * 2, 24 * 3_600_000);
}

export class BreakerEngines {
  private readonly breakers = new Map<string, Breaker>();
  private replaying = false;
  private probes = 0;

  constructor(private readonly options: BreakerEnginesOptions) {}

  /** Rebuilds every breaker from stored calls and operator controls, silently: those transitions are already stored. */
  replay(): void {
    const { store, config, clock } = this.options;
    const now = clock();
    const since = now - replayWindowMs(config);
    this.replaying = true;
    try {
      const controls = store.controls();
      const calls = store.callsSince(since);
      // Controls older than the replay window still hold (a force-open outlives any window): apply them first.
      let c = 0;
      for (const call of calls) {
        while (c < controls.length && (controls[c]?.ts ?? Infinity) <= call.ts) this.applyControl(controls[c++]!);
        const dep = this.options.dependencyOf?.(call) ?? call.dep;
        this.observeOne(call, breakerKeyOf({ ...call, dep }, config.key));
      }
      while (c < controls.length) this.applyControl(controls[c++]!);
      this.tick(now);
    } finally {
      this.replaying = false;
    }
  }

  observe(calls: readonly CallEvent[]): void {
    for (const call of calls) this.observeOne(call, breakerKeyOf(call, this.options.config.key));
  }

  tick(now = this.options.clock()): void {
    for (const breaker of this.breakers.values()) this.emit(breaker, breaker.tick(now));
  }

  control(dep: string, action: OperatorAction, reason: string): Transition[] {
    const known = this.breakers.has(dep);
    if (!known && action !== 'force_open') {
      throw new Error(
        `no breaker for "${dep}" yet: BreakerBar has not seen a call to it (only force_open may create one)`,
      );
    }
    const control = { ts: this.options.clock(), dep, action, reason };
    this.store('an operator action', () => this.options.store.insertControl(control));
    return this.applyControl(control);
  }

  /** A peer host's breaker for `dep` tripped: ours trips too if it is closed (see Breaker.peerTripped). */
  peerTripped(dep: string, to: 'open' | 'throttled', why: BreakerReason, retryAfterUntil: number | null): Transition[] {
    const breaker = this.breakerFor(dep);
    const transitions = breaker.peerTripped(to, why, this.options.clock(), retryAfterUntil);
    this.emit(breaker, transitions);
    return transitions;
  }

  /** Every breaker as of now (a breaker nobody ticks, see `waitsForNothing`, is brought up to now here). */
  snapshots(): BreakerSnapshot[] {
    const now = this.options.clock();
    return [...this.breakers.values()]
      .map((breaker) => breaker.snapshot(now))
      .sort((a, b) => a.dep.localeCompare(b.dep));
  }

  /** No breaker waits for time (all closed, no probe in flight): ticking would change nothing. */
  waitsForNothing(): boolean {
    for (const breaker of this.breakers.values()) if (!breaker.waitsForNothing) return false;
    return true;
  }

  /** Dependencies whose breaker allows an active probe now (the prober decides which have a probe configured). */
  probesWanted(now: number): string[] {
    return [...this.breakers].filter(([, breaker]) => breaker.wantsProbe(now)).map(([dep]) => dep);
  }

  /** Claims the probe slot of `dep`; false when it is not free (at most one probe in flight per dependency). */
  probeStarted(dep: string, now: number): boolean {
    return this.breakers.get(dep)?.probeStarted(now) ?? false;
  }

  probeFinished(dep: string, outcome: Pick<Observation, 'ts' | 'outcome' | 'retryAfterMs'>): void {
    const breaker = this.breakers.get(dep);
    if (!breaker) return;
    // Each probe is its own trial: independent evidence, like calls from different sessions.
    const sessionId = `breakerbar-probe-${++this.probes}`;
    this.emit(breaker, breaker.probeFinished({ ...outcome, phase: 'before_output', sessionId, probe: true }));
  }

  has(dep: string): boolean {
    return this.breakers.has(dep);
  }

  private applyControl(control: { ts: number; dep: string; action: OperatorAction; reason: string }): Transition[] {
    const breaker = this.breakerFor(control.dep);
    const transitions = breaker.control(control.action, control.reason, control.ts);
    this.emit(breaker, transitions);
    return transitions;
  }

  private observeOne(
    call: Pick<ReplayCall, 'ts' | 'outcome' | 'phase' | 'retryAfterMs' | 'sessionId'>,
    key: string,
  ): void {
    const breaker = this.breakerFor(key);
    const transitions = breaker.observe({
      ts: call.ts,
      outcome: call.outcome,
      phase: call.phase,
      retryAfterMs: call.retryAfterMs,
      sessionId: call.sessionId,
    });
    this.emit(breaker, transitions);
  }

  private breakerFor(key: string): Breaker {
    let breaker = this.breakers.get(key);
    if (!breaker) {
      breaker = new Breaker(key, policyFor(key, this.options.config), { jitter: this.options.jitter });
      this.breakers.set(key, breaker);
    }
    return breaker;
  }

  private emit(breaker: Breaker, transitions: readonly Transition[]): void {
    if (this.replaying) return;
    const at = this.options.clock();
    for (const transition of transitions) {
      this.store('a breaker transition', () => this.options.store.insertTransition(transition, at));
      this.options.onTransition(transition);
    }
    this.options.onSnapshot?.(breaker.snapshot());
  }

  private store(what: string, write: () => void): void {
    try {
      write();
    } catch (error) {
      const failed = this.options.storeFailed;
      if (!failed) throw error;
      failed(what, error);
    }
  }
}
