/**
 * The breaker for one dependency: a pure state machine driven by observed
 * outcomes at their own event times. No I/O, no timers, no clock: time arrives
 * only as arguments (`obs.ts`, `tick(now)`, `control(…, ts)`), so replaying the
 * same calls always yields the same transitions and snapshots, and a restart
 * rebuilds state by replaying stored history.
 *
 * Choices made here once:
 * - Time: the breaker's clock is the latest of every event time and every
 *   `tick`/`control` time seen. Cooldowns and Retry-After run on that clock.
 * - Window: `(end - windowMs, end]` over event time, where `end` is the latest
 *   event time seen; observations are kept sorted by time, so a late record
 *   lands in its own bucket and drops out when its bucket does. A record older
 *   than the window is ignored for the rate. Neutral calls are kept too (their
 *   sessions count as "seen"), but only successes and failures are calls.
 *   Closing (by trials or by an operator) starts a fresh window.
 * - Consecutive failures: the run is "the newest calls", so only an
 *   observation at or after the latest event time seen extends or breaks it;
 *   a late record never does (it is old news, whatever its outcome).
 * - History: an observation older than the start of the current state
 *   (`since`) happened before the breaker reached it, so it drives nothing in
 *   it (no trip, trial, rejection or window entry); it only moves
 *   `lastEventAt`.
 * - A transition caused by an observation happens at the latest event time
 *   seen (for an in-order record, its own time), so a late record never places
 *   a trip in the past. Leaving open/throttled when its open period runs
 *   out happens at `openUntil`.
 * - Retry-After binds only while it lasts: `rate_limited` with a retry-after
 *   ending after the clock trips at once; one already over is a plain failure.
 * - Open/throttled ends two ways: its open period (cooldown, or Retry-After
 *   if later) runs out, or the dependency answers. The breaker is passive: it
 *   models what a gateway-side breaker would do, but the gateway (OpenClaw)
 *   calls the provider regardless, so BreakerBar keeps seeing real calls while
 *   "open". An observed success is the provider answering: the outage (or the
 *   quota wait, even with a Retry-After still in force) is over by the best
 *   evidence there is, so it moves to half-open at once ("answered while
 *   open"/"answered while throttled") and counts as the first trial, and the
 *   usual trials rule closes it. Waiting out a grown open period (up to
 *   `maxOpenMs`) instead would hide a recovery for minutes, and keep the
 *   incident and the divergence alarm with it. Only a success after the
 *   evidence holding it open counts: after the trip and after every failure
 *   seen since (a success read late, from before the trip or before a newer
 *   failure, is old news), and only while the window's failure rate would not
 *   trip a closed breaker (the window keeps filling while open): the odd
 *   success of a storm still going on (a quota letting one call in ten
 *   through) is not a recovery, and ending the open period on each would flap
 *   the breaker. An operator's force-open is never ended this way.
 *   A failure while open moves no state: a longer Retry-After extends the
 *   wait, nothing else does.
 * - Half-open trials: a success counts if its session differs from the
 *   sessions of the trials counted so far, or if no other session has been
 *   seen in the window (the data allow no better). A success that does not
 *   count is not a failure: the run of trials goes on. Active probes are judged
 *   by the session id the engines give them.
 * - Probes are not gateway traffic: they only ever act as half-open trials
 *   (never window entries, consecutive failures or rejections).
 * - Operator actions always yield a transition, even `open → open`, so each
 *   one is recorded with its reason. `reset` clears what decides (window,
 *   consecutive failures, trials, open duration), not the `rejections` and
 *   `retryAfterSkips` counters: metrics counters never go down.
 */

import { type BreakerReason, breakerReasonLine } from '../../words/breaker-reasons.js';
import { TimeWindow, type WindowCounts } from './time-window.js';
import type {
  BreakerPolicy,
  BreakerSnapshot,
  BreakerState,
  Observation,
  OperatorAction,
  Transition,
  Verdict,
} from './types.js';
import { DEFAULT_POLICY } from './types.js';
import { isQuota, verdictOf } from './verdict.js';

/**
 * Active probes: at least this far apart, so a dependency just back up gets a trickle of trials, not
 * a burst that knocks it over again…
 */
export const PROBE_SPACING_MS = 250;
/** …plus up to this much jitter, so breakers that open together do not probe in lockstep. */
export const PROBE_JITTER_MS = 50;

export interface BreakerOptions {
  /** A value in [0, 1) per probe; deterministic 0 by default so tests and replays agree. */
  jitter?: () => number;
}

/** Quota tripped it when rate limits are most of the failures that did. */
function quotaMajority(quota: number, failures: number): boolean {
  return quota * 2 > failures;
}

export class Breaker {
  readonly dep: string;
  private readonly policy: BreakerPolicy;
  private readonly jitter: () => number;
  private readonly window: TimeWindow;

  private state: BreakerState = 'closed';
  private forced: 'open' | 'closed' | null = null;
  private why: BreakerReason = { code: 'initial' };
  /** -Infinity until the first transition: nothing is history for a new breaker. */
  private since = Number.NEGATIVE_INFINITY;
  private outSince: number | null = null;
  /** Open/throttled: when the local cooldown ends… */
  private cooldownUntil: number | null = null;
  /** …and when trials may start (the later of the cooldown and the Retry-After). */
  private openUntil: number | null = null;
  private retryAfterUntil: number | null = null;
  private openDurationMs: number;
  /**
   * Open/throttled: event time of the newest evidence holding it open (the trip, then any failure seen since).
   * Only a success after it ends the open period early.
   */
  private openEvidenceAt = Number.NEGATIVE_INFINITY;

  private consecutive = 0;
  private consecutiveQuota = 0;
  /** Half-open: sessions of the successful trials counted so far, in order. */
  private trialSessions: string[] = [];

  private rejections = 0;
  private retryAfterSkips = 0;
  private latestEventTs = Number.NEGATIVE_INFINITY;
  private clock = Number.NEGATIVE_INFINITY;

  private probeInFlight = false;
  private nextProbeAt = Number.NEGATIVE_INFINITY;

  constructor(dep: string, policy: BreakerPolicy = DEFAULT_POLICY, options: BreakerOptions = {}) {
    this.dep = dep;
    this.policy = policy;
    this.jitter = options.jitter ?? (() => 0);
    this.window = new TimeWindow(policy.windowMs);
    this.openDurationMs = policy.cooldownMs;
  }

  observe(obs: Observation): Transition[] {
    const out = this.advance(obs.ts);
    const newest = obs.ts >= this.latestEventTs;
    this.latestEventTs = Math.max(this.latestEventTs, obs.ts);
    if (obs.ts < this.since) return out;
    const verdict = verdictOf(obs);
    if (obs.probe === true) {
      if (this.state === 'half_open') out.push(...this.trial(obs, verdict));
      return out;
    }
    this.record(obs, verdict, newest);
    out.push(...this.decide(obs, verdict));
    return out;
  }

  /** Time passing without events (the engines call it with the wall clock). */
  tick(now: number): Transition[] {
    return this.advance(now);
  }

  control(action: OperatorAction, reason: string, ts: number): Transition[] {
    const out = this.advance(ts);
    const why: BreakerReason = { code: 'operator', note: reason };
    if (action === 'force_open') {
      this.forced = 'open';
      this.clearOpenTimes();
      this.trialSessions = [];
      out.push(this.move('open', why, ts));
    } else {
      this.forced = action === 'force_closed' ? 'closed' : null;
      this.resetToClosed();
      out.push(this.move('closed', why, ts));
    }
    return out;
  }

  /**
   * Another host's breaker for the same dependency tripped (shared over Redis): a closed breaker here trips
   * too, on that evidence, with its own cooldown, and trials decide as usual from then on. A breaker that is
   * not closed, or is held by an operator, is left alone: local evidence and operators come first.
   */
  peerTripped(to: 'open' | 'throttled', why: BreakerReason, ts: number, retryAfterUntil: number | null): Transition[] {
    const out = this.advance(ts);
    if (this.state !== 'closed' || this.forced !== null) return out;
    out.push(this.trip(to, why, ts, retryAfterUntil !== null && retryAfterUntil > ts ? retryAfterUntil : null));
    return out;
  }

  /** Whether an active probe may start now: a trial is allowed, none is in flight, and the spacing has passed. */
  wantsProbe(now: number): boolean {
    if (this.probeInFlight || now < this.nextProbeAt || this.forced !== null) return false;
    if (this.state === 'half_open') return true;
    return this.state !== 'closed' && this.openUntil !== null && Math.max(now, this.clock) >= this.openUntil;
  }

  /** Records a probe start; refused (false) unless `wantsProbe(now)`, so at most one is ever in flight. */
  probeStarted(now: number): boolean {
    if (!this.wantsProbe(now)) return false;
    this.probeInFlight = true;
    this.nextProbeAt = now + PROBE_SPACING_MS + this.jitterFraction() * PROBE_JITTER_MS;
    return true;
  }

  probeFinished(obs: Observation): Transition[] {
    this.probeInFlight = false;
    return this.observe({ ...obs, probe: true });
  }

  /** Window entries looked at so far (see TimeWindow.entriesVisited): how tests bound the bookkeeping's cost. */
  windowEntriesVisited(): number {
    return this.window.entriesVisited;
  }

  /**
   * Nothing of this breaker waits for time: it is closed (it leaves closed only on a call, a peer's trip or an
   * operator) and no probe of it is in flight. Half-open waits for probes, open for its period to run out.
   */
  get waitsForNothing(): boolean {
    return this.state === 'closed' && !this.probeInFlight;
  }

  /**
   * The breaker as of `now` (default: its clock), its window aged to then. The clock is moved here only where
   * time brings no transition (not open): an open breaker's time moves by `tick`, which reports what it brings.
   */
  snapshot(now?: number): BreakerSnapshot {
    if (now !== undefined && !this.isOpen()) this.clock = Math.max(this.clock, now);
    const w = this.window.at(this.clock);
    return {
      dep: this.dep,
      state: this.state,
      forced: this.forced,
      reason: breakerReasonLine(this.why),
      why: this.why,
      since: Number.isFinite(this.since) ? this.since : 0,
      outSince: this.outSince,
      openUntil: this.openUntil,
      retryAfterUntil: this.retryAfterUntil,
      openDurationMs: this.openDurationMs,
      window: {
        calls: w.calls,
        failures: w.failures,
        successes: w.calls - w.failures,
        failureRate: w.calls === 0 ? 0 : w.failures / w.calls,
      },
      consecutiveFailures: this.consecutive,
      trialSuccesses: this.trialSessions.length,
      rejections: this.rejections,
      retryAfterSkips: this.retryAfterSkips,
      lastEventAt: Number.isFinite(this.latestEventTs) ? this.latestEventTs : null,
    };
  }

  // ── time ────────────────────────────────────────────────────────────────

  /** Moves the clock to `now` (never back) and lets an expired open period become half-open. */
  private advance(now: number): Transition[] {
    this.clock = Math.max(this.clock, now);
    if (!this.isOpen() || this.forced !== null || this.cooldownUntil === null) return [];
    if (this.clock < this.cooldownUntil) return [];
    if (this.retryAfterUntil !== null && this.clock < this.retryAfterUntil) {
      // The local cooldown would try now; the provider said not yet.
      this.retryAfterSkips++;
      return [];
    }
    return [this.halfOpen()];
  }

  private halfOpen(): Transition {
    const at = this.openUntil ?? this.clock;
    const byRetryAfter = this.retryAfterUntil !== null && this.retryAfterUntil > (this.cooldownUntil ?? at);
    this.clearCooldown();
    this.trialSessions = [];
    return this.move('half_open', { code: byRetryAfter ? 'retry-after-over' : 'cooldown-over' }, at);
  }

  // ── observations ────────────────────────────────────────────────────────

  private record(obs: Observation, verdict: Verdict, newest: boolean): void {
    const quota = isQuota(obs);
    this.window.add({ ts: obs.ts, verdict, quota, sessionId: obs.sessionId }, this.latestEventTs);
    if (!newest || verdict === 'neutral') return;
    if (verdict === 'success') {
      this.consecutive = 0;
      this.consecutiveQuota = 0;
      return;
    }
    this.consecutive++;
    if (quota) this.consecutiveQuota++;
  }

  private decide(obs: Observation, verdict: Verdict): Transition[] {
    switch (this.state) {
      case 'closed':
        return this.forced === 'closed' || verdict === 'neutral' ? [] : this.whileClosed(obs, verdict);
      case 'half_open':
        return this.trial(obs, verdict);
      default:
        return this.whileOpen(obs, verdict);
    }
  }

  private whileClosed(obs: Observation, verdict: Verdict): Transition[] {
    const at = this.latestEventTs;
    const retryAfterUntil = verdict === 'failure' ? this.retryAfterEnd(obs) : null;
    if (retryAfterUntil !== null)
      return [this.trip('throttled', { code: 'retry-after', ...this.retryAfterAsked(obs) }, at, retryAfterUntil)];
    if (this.consecutive >= this.policy.consecutiveFailures) {
      const quota = quotaMajority(this.consecutiveQuota, this.consecutive);
      return [this.trip(quota ? 'throttled' : 'open', { code: 'consecutive-failures', n: this.consecutive }, at, null)];
    }
    const w = this.window.current();
    if (this.rateTrips(w)) {
      const quota = quotaMajority(w.quotaFailures, w.failures);
      return [this.trip(quota ? 'throttled' : 'open', this.rateReason(w), at, null)];
    }
    return [];
  }

  /**
   * Open or throttled: every call is one a gateway-side breaker would have failed fast, so each counts as a
   * rejection, the success that ends the open period too: `breaker_rejections_total` counts the calls observed
   * while open or throttled, and when this one was made the breaker was still open (a real one would have
   * refused it; only BreakerBar, watching the gateway call the provider anyway, learns from its answer).
   */
  private whileOpen(obs: Observation, verdict: Verdict): Transition[] {
    this.rejections++;
    if (this.forced !== null || verdict === 'neutral') return [];
    if (verdict === 'success') return this.isAnswer(obs) ? this.answered(obs) : [];
    this.openEvidenceAt = Math.max(this.openEvidenceAt, obs.ts);
    const until = this.retryAfterEnd(obs);
    if (until === null || (this.retryAfterUntil !== null && until <= this.retryAfterUntil)) return [];
    this.retryAfterUntil = until;
    this.openUntil = Math.max(this.openUntil ?? until, until);
    return [];
  }

  /**
   * A success proves the dependency answers again only if it is newer than the evidence holding the breaker open
   * (so not a record read late from before the trip or a newer failure), and if the window no longer shows the
   * failure rate that trips a closed breaker: a partial storm (a quota letting one call in ten through) answers
   * now and then without being over, and ending the open period on each such success would flap the breaker
   * (open, half-open, open, a transition and a grown open period per success), drop a Retry-After still being
   * asked for, and restart the "open for how long" the watchdog's divergence alarm reads.
   */
  private isAnswer(obs: Observation): boolean {
    return obs.ts > this.openEvidenceAt && !this.rateTrips(this.window.current());
  }

  /**
   * The dependency answered while open: the provider is back (or its quota is), whatever the open period or a
   * Retry-After still said, so the wait ends now and the success is the first half-open trial (enough trials
   * close it at once). The Retry-After is cleared with it: it no longer holds anyone back.
   */
  private answered(obs: Observation): Transition[] {
    const from = this.state;
    this.clearOpenTimes();
    this.trialSessions = [];
    const out = [
      this.move(
        'half_open',
        { code: 'answered', while: from === 'throttled' ? 'throttled' : 'open' },
        this.latestEventTs,
      ),
    ];
    out.push(...this.trial(obs, 'success'));
    return out;
  }

  private trial(obs: Observation, verdict: Verdict): Transition[] {
    if (verdict === 'neutral') return [];
    if (verdict === 'failure') return [this.trialFailed(obs)];
    if (!this.countsAsTrial(obs.sessionId)) return [];
    this.trialSessions.push(obs.sessionId);
    const n = this.trialSessions.length;
    if (n < this.policy.trialsToClose) return [];
    this.resetToClosed();
    return [this.move('closed', { code: 'trials-passed', n }, this.latestEventTs)];
  }

  /** A repeat session proves little when others exist: then wait for one of them. */
  private countsAsTrial(sessionId: string): boolean {
    return !this.trialSessions.includes(sessionId) || !this.window.hasSessionOutside(this.trialSessions);
  }

  private trialFailed(obs: Observation): Transition {
    const { backoffFactor, maxOpenMs } = this.policy;
    // Never shrinks, even with a factor below 1 or a cooldown above the cap.
    this.openDurationMs = Math.max(this.openDurationMs, Math.min(this.openDurationMs * backoffFactor, maxOpenMs));
    const retryAfterUntil = this.retryAfterEnd(obs);
    const asked = retryAfterUntil === null ? { askedMs: null, cappedMs: null } : this.retryAfterAsked(obs);
    const to = isQuota(obs) ? 'throttled' : 'open';
    return this.trip(to, { code: 'trial-failed', outcome: obs.outcome, ...asked }, this.latestEventTs, retryAfterUntil);
  }

  // ── transitions ─────────────────────────────────────────────────────────

  private trip(
    to: 'open' | 'throttled',
    reason: BreakerReason,
    at: number,
    retryAfterUntil: number | null,
  ): Transition {
    this.cooldownUntil = at + this.openDurationMs;
    this.retryAfterUntil = retryAfterUntil;
    this.openUntil = Math.max(this.cooldownUntil, retryAfterUntil ?? this.cooldownUntil);
    this.openEvidenceAt = at;
    this.trialSessions = [];
    return this.move(to, reason, at);
  }

  /** Closing proves health: earlier evidence must not re-trip it, and the next outage starts at the cooldown. */
  private resetToClosed(): void {
    this.window.clear();
    this.consecutive = 0;
    this.consecutiveQuota = 0;
    this.trialSessions = [];
    this.openDurationMs = this.policy.cooldownMs;
    this.clearOpenTimes();
  }

  private clearOpenTimes(): void {
    this.clearCooldown();
    this.retryAfterUntil = null;
  }

  private clearCooldown(): void {
    this.cooldownUntil = null;
    this.openUntil = null;
  }

  private move(to: BreakerState, why: BreakerReason, ts: number): Transition {
    const from = this.state;
    this.state = to;
    this.why = why;
    this.since = ts;
    if (to === 'closed') this.outSince = null;
    else if (from === 'closed') this.outSince = ts;
    return { dep: this.dep, from, to, reason: breakerReasonLine(why), why, ts };
  }

  // ── helpers ─────────────────────────────────────────────────────────────

  /** The window's failure rate trips a closed breaker (once it holds enough calls to count). */
  private rateTrips(w: Readonly<WindowCounts>): boolean {
    return w.calls >= this.policy.minCalls && w.failures / w.calls > this.policy.failureRate;
  }

  private isOpen(): boolean {
    return this.state === 'open' || this.state === 'throttled';
  }

  /** When a rate limit's Retry-After (capped) ends, if it is still in force on the clock. */
  private retryAfterEnd(obs: Observation): number | null {
    if (!isQuota(obs) || obs.retryAfterMs === null || !Number.isFinite(obs.retryAfterMs)) return null;
    const end = obs.ts + this.cappedRetryAfter(obs.retryAfterMs);
    return end > this.clock ? end : null;
  }

  private cappedRetryAfter(ms: number): number {
    return Math.min(Math.max(0, ms), this.policy.maxRetryAfterMs);
  }

  /** The wait a rate limit asked for, and the capped one honoured when the cap cut it short. */
  private retryAfterAsked(obs: Observation): { askedMs: number; cappedMs: number | null } {
    const asked = Math.max(0, obs.retryAfterMs ?? 0);
    const capped = this.cappedRetryAfter(asked);
    return { askedMs: asked, cappedMs: capped < asked ? capped : null };
  }

  private rateReason(w: Readonly<WindowCounts>): BreakerReason {
    return { code: 'failure-rate', failures: w.failures, calls: w.calls, windowMs: this.policy.windowMs };
  }

  private jitterFraction(): number {
    const j = this.jitter();
    // A misbehaving source must not stretch or collapse the spacing.
    return Number.isFinite(j) ? Math.min(Math.max(j, 0), 1) : 0;
  }
}
