/**
 * What the watchdog policy is given: its settings, and what each call hands it (a check's rate-limited
 * calls and stalled sessions, a health probe, the breakers' states, the restart strategy's check). Kept
 * apart from the rules so that the watchdog, the settings and the strategy check can speak of them without
 * the policy itself. The settings are declared with the watchdog's config (config.ts).
 */

import type { ProbeDetail } from '../../words/probe-details.js';
import type { GatewayOwnership, OwnerBlock } from '../gateway/owner/types.js';

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
  /** What the probe found, as the prober's English line. */
  detail: string;
  /** What the probe found, as a code and its facts (absent from inputs made elsewhere: `detail` is read then). */
  found?: ProbeDetail;
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
