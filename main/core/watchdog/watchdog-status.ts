/**
 * The watchdog as it is shown (the API, the app, the CLI, incidents): settings, counts and holds from the
 * policy's state, with every time turned back into wall time, and what a restart would run now.
 */

import type { DecisionReason } from '../../words/decision-reasons.js';
import type { RestartTrigger } from '../gateway/control.js';
import type { RestartRow } from '../store/gateway-history.js';
import type { WatchdogPolicy } from './policy.js';
import type { StrategyCheck } from './policy-inputs.js';
import type { WatchdogClocks } from './watchdog-clocks.js';
import type { WatchdogOptions } from './watchdog-options.js';

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
  /** `why`: the reason as code and facts, worded in the reader's language (see Decision). */
  lastDecision: {
    ts: number;
    source: string;
    decision: string;
    reason: string;
    why?: DecisionReason;
    dep: string | null;
  } | null;
  lastRestart: RestartRow | null;
  /** What a restart would run now, or why it cannot. */
  strategy: { description: string | null; argv: string[] | null; problem: string | null };
}

/** The status now; `lastDecision` is the watchdog's, which the policy does not keep. */
export function watchdogStatus(
  { settings, history, restarter }: Pick<WatchdogOptions, 'settings' | 'history' | 'restarter'>,
  policy: WatchdogPolicy,
  clocks: WatchdogClocks,
  lastDecision: WatchdogStatus['lastDecision'],
): WatchdogStatus {
  const now = clocks.mono();
  const state = policy.state();
  const paused = policy.paused(now);
  const { plan, problem } = restarter.plan({ trigger: 'manual' });
  const wall = (t: number) => clocks.toWall(t);
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
    budgetRemaining: policy.budgetRemaining(now),
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
    lastDecision,
    lastRestart: history.lastRestart(),
    strategy: { description: plan?.description ?? null, argv: plan?.argv ?? null, problem },
  };
}
