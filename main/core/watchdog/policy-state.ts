/**
 * The watchdog policy's memory between calls: one plain object, so that it can be copied out for status and
 * tests and handed back in to a new policy. Every rule reads and updates it through a `PolicyContext`.
 */

import type { RestartTrigger } from '../gateway/control.js';
import type { WatchdogSettings } from './config.js';
import type { Alert } from './policy-decisions.js';
import type { StrategyCheck } from './policy-inputs.js';

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

/**
 * What every rule of the policy works on: the settings, and the one state they share (the rules are functions,
 * not objects, so that the whole of the policy's memory stays in `s`).
 */
export interface PolicyContext {
  readonly settings: WatchdogSettings;
  readonly s: WatchdogState;
}

/**
 * An alert said once per episode: `alert` the first time, nothing again until its flag is cleared (when
 * automatic restarts become possible, the budget refills, the storm ends).
 */
export function alertOnce(
  p: PolicyContext,
  flag: 'blockedAlerted' | 'budgetAlerted' | 'deferralAlerted',
  alert: Alert,
): Alert[] {
  if (p.s[flag]) return [];
  p.s[flag] = true;
  return [alert];
}
