/**
 * What the watchdog policy says: a decision's kind, reason and dependency, the restart it orders and on what
 * evidence, and the alerts it carries. Alerts and restart reasons are facts, not sentences, so that a notice
 * can be worded in the daemon's language from them; a decision's own reason is English (worded with
 * `seconds`), because it is what is stored and logged. Every rule answers with a `decision` built here.
 */

import { type DecisionReason, decisionReasonLine } from '../../words/decision-reasons.js';
import { formatters } from '../../words/i18n.js';
import type { RestartTrigger } from '../gateway/control.js';
import type { OwnerBlock } from '../gateway/owner/types.js';
import type { BreakerInput } from './policy-inputs.js';

/** Why an automatic restart was ordered (a manual one is the user's call). */
export type Evidence = 'dead' | 'unloaded' | 'hung' | 'storm' | 'manual';

export type AlertKind =
  | 'restart_deferred'
  | 'restart_budget_exhausted'
  | 'gateway_down'
  | 'gateway_up'
  | 'divergence'
  | 'fallback_answering'
  | 'restart_would_run'
  | 'watchdog_blocked';

/**
 * What an alert is about, as data: the notice that tells a human is worded from these facts in the
 * daemon's language (watchdog-notices.ts); `message` is the English sentence kept for logs and tests.
 */
export type AlertFacts =
  | { kind: 'gateway_down'; detail: string }
  | { kind: 'gateway_up' }
  | { kind: 'fallback_answering'; deps: Array<{ dep: string; fallbacks: string[] }> }
  | { kind: 'divergence'; stuck: Array<{ dep: string; state: BreakerInput['state']; forMs: number }> }
  | { kind: 'restart_budget_exhausted'; restarts: number; max: number; nextInMs: number; trigger: 'storm' | 'health' }
  | { kind: 'watchdog_blocked'; blocked: BlockedFacts }
  | {
      kind: 'restart_deferred';
      deps: string[];
      dep: string;
      cause: 'retry_after' | 'cooldown';
      askedMs: number;
      heldMs: number;
    }
  | { kind: 'restart_would_run'; order: RestartFacts };

/** Why automatic restarts cannot run. */
export type BlockedFacts =
  | { cause: 'not_openclaw'; detail: string }
  | { cause: 'never_healthy'; problem: string | null }
  | { cause: 'unchecked' }
  | { cause: 'not_runnable'; problem: string | null }
  /** The gateway's owner forbids it (OpenClaw stopped it on purpose, an external supervisor, the app's gateway). */
  | { cause: 'owner'; rule: OwnerBlock['rule']; who: string };

/** Why a restart was ordered, as data (see AlertFacts). */
export type RestartFacts =
  | {
      evidence: 'storm';
      deps: string[];
      forMs: number;
      upstream: 'held_longest' | 'over' | 'none';
      heldMs: number;
    }
  | { evidence: 'dead'; forMs: number; detail: string }
  | { evidence: 'unloaded'; detail: string; parked: boolean }
  | { evidence: 'hung'; sessions: number; deps: string[]; quietMs: number }
  /** `reason`: what the requester said, null for the default request. */
  | { evidence: 'manual'; reason: string | null };

export type Alert = AlertFacts & {
  dep: string | null;
  message: string;
};

export interface RestartOrder {
  trigger: RestartTrigger;
  evidence: Evidence;
  /** Why, as the policy's English line: `decisionReasonLine(why)` when `why` is given. */
  reason: string;
  /** Why, as a code and its facts (the decision that orders it is stored with it). */
  why?: DecisionReason;
  /** The dependencies a storm restart is about (empty otherwise). */
  deps: string[];
  /** What the probe saw (a hung gateway wants a forced restart). */
  probeClass: string | null;
  /** Why, as data for the notice's wording; orders made elsewhere (tests, tools) may leave it out. */
  facts?: RestartFacts;
}

/** The words a decision is stored and counted under. */
export type DecisionKind =
  | 'restart'
  | 'dry_run'
  | 'counting'
  | 'quiet'
  | 'healthy'
  | 'dead'
  | 'unknown'
  | 'not_openclaw'
  | 'unverified'
  | 'starting'
  | 'deferred'
  | 'storm_waited'
  | 'fallback_answering'
  | 'budget_exhausted'
  | 'spacing'
  | 'paused'
  | 'maintenance'
  | 'recovering'
  | 'in_flight'
  | 'pending'
  | 'gateway_restarted'
  | 'disabled'
  | 'recovered'
  | 'started_unconfirmed'
  | 'not_recovered'
  | 'divergence';

export interface Decision {
  source: 'check' | 'probe' | 'manual' | 'tick';
  kind: DecisionKind;
  /** Why, as the policy's English line, for the log and `breakerbar status`: always `decisionReasonLine(why)`. */
  reason: string;
  /**
   * Why, as a code and its facts: what is stored, and worded in the reader's language when read. Absent only
   * from decisions made elsewhere (tests, older cores): readers then read `reason` as a line.
   */
  why?: DecisionReason;
  dep: string | null;
  restart: RestartOrder | null;
  /** A dry run's restart that did not run. */
  wouldRestart?: RestartOrder;
  alerts: Alert[];
}

/** Where a restart stands after its command ran; `pending`: OpenClaw scheduled or deferred it. */
export type { RestartOutcome } from '../gateway/control.js';

/** Decision reasons are stored and logged in English (notices word them from the catalogue). */
const EN = formatters('en');
export const seconds = (ms: number) => EN.duration(ms);

/** A decision; by default one that orders nothing and alerts no one. */
export function decision(
  source: Decision['source'],
  kind: DecisionKind,
  why: DecisionReason,
  dep: string | null = null,
  restart: RestartOrder | null = null,
  alerts: Alert[] = [],
): Decision {
  return { source, kind, reason: decisionReasonLine(why), why, dep, restart, alerts };
}
