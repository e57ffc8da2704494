/**
 * The words the overview uses for the core's state, decided in one place and
 * without the DOM (tested in Node): the watchdog's mode, what a breaker waits
 * for, how many restarts happened lately.
 */

import type {
  ApiBreaker,
  ApiStatus,
  IncidentSummary,
  RestartRow,
  SpendReport,
  TokenRate,
  WatchdogStatus,
} from '../main/api/types.js';
import {
  type BreakerReason,
  decodeBreakerReason,
  outcomeWords,
  wordBreakerReason,
} from '../main/words/breaker-reasons.js';
import { type DecisionReason, decodeDecisionReason, wordDecisionReason } from '../main/words/decision-reasons.js';
import type { Translator } from '../main/words/messages/index.js';
import { decodeProbeDetail, type ProbeDetail, wordProbeDetail } from '../main/words/probe-details.js';

const HOUR_MS = 3_600_000;

export type WatchdogMode =
  | { kind: 'disabled'; text: string }
  | { kind: 'paused'; text: string; until: number | null }
  | { kind: 'dry_run'; text: string }
  | { kind: 'active'; text: string };

export function watchdogMode(status: WatchdogStatus, t: Translator): WatchdogMode {
  if (!status.enabled) return { kind: 'disabled', text: t.t('dashboard.watchdog.disabled') };
  if (status.paused) {
    return status.pausedUntil === null
      ? { kind: 'paused', text: t.t('dashboard.watchdog.pausedForever'), until: null }
      : { kind: 'paused', text: t.t('dashboard.watchdog.paused'), until: status.pausedUntil };
  }
  if (status.dryRun) return { kind: 'dry_run', text: t.t('dashboard.watchdog.dryRun') };
  return { kind: 'active', text: t.t('dashboard.watchdog.active') };
}

export { outcomeWords };

/**
 * Why a breaker is where it is, or why it moved, in the reader's words: from its code and facts, or, from an
 * older core or a row stored before reasons were codes, from its English line (the engine's known forms are
 * worded again; any other text is shown as it was said).
 */
export function whyOf(x: { reason: string; why?: BreakerReason }, t: Translator): string {
  return wordBreakerReason(x.why ?? decodeBreakerReason(x.reason), t);
}

/**
 * What a probe found, in the reader's words: from its code and facts, or, from an older core or a row stored
 * before details were codes, from the prober's English line (its known forms are worded again). Null: none.
 */
export function probeDetailOf(x: { detail: string | null; found?: ProbeDetail }, t: Translator): string | null {
  if (x.found !== undefined) return wordProbeDetail(x.found, t);
  return x.detail === null ? null : wordProbeDetail(decodeProbeDetail(x.detail), t);
}

/**
 * Why the watchdog decided what it did, in the reader's words: from its code and facts, or, from an older core
 * or a row stored before reasons were codes, from the policy's English line (shown as it is, but for a probe's
 * detail alone, which is worded as one).
 */
export function decisionWhyOf(x: { reason: string; why?: DecisionReason }, t: Translator): string {
  return wordDecisionReason(x.why ?? decodeDecisionReason(x.reason), t);
}

/** A reason line alone (an older core's, a stored row's): worded as `whyOf` words it. */
export function whyText(reason: string, t: Translator): string {
  return whyOf({ reason }, t);
}

/** A dependency's calls, failures, tokens and cost today (or the last 24 h when spend is not reported). */
export interface DayFigures {
  /** `today`: since local midnight (the spend report); `lastDay`: the status's rolling 24 h. */
  span: 'today' | 'lastDay';
  calls: number;
  failures: number;
  /** Unknown without the spend report (the 24 h summary counts tokens for all dependencies together). */
  tokens: number | null;
  cost: number | null;
}

export function dayFigures(dep: string, status: ApiStatus, spend: SpendReport | null): DayFigures {
  if (spend !== null) {
    const row = spend.today.byModel.find((r) => r.key === dep);
    return {
      span: 'today',
      calls: row?.calls ?? 0,
      failures: row?.failures ?? 0,
      tokens: row?.tokens ?? 0,
      cost: row?.cost ?? 0,
    };
  }
  const outcomes: Partial<Record<string, number>> = status.lastDay.byDependency[dep] ?? {};
  let calls = 0;
  for (const n of Object.values(outcomes)) calls += n ?? 0;
  return { span: 'lastDay', calls, failures: calls - (outcomes.ok ?? 0), tokens: null, cost: null };
}

/** The open incident that touches `dep` (its dependencies include it), the most severe, then the oldest. */
export function incidentTouching(dep: string, status: ApiStatus): IncidentSummary | null {
  const rank: Record<string, number> = { critical: 0, warning: 1, info: 2 };
  const open = (status.incidents?.open ?? []).filter((i) => i.deps.includes(dep));
  open.sort((a, b) => (rank[a.severity] ?? 3) - (rank[b.severity] ?? 3) || a.openedAt - b.openedAt);
  return open[0] ?? null;
}

/** Restarts that ran (dry runs excluded) in the hour before `now`. */
export function restartsInLastHour(restarts: readonly RestartRow[], now: number): number {
  return restarts.filter((row) => row.result !== 'dry_run' && row.ts > now - HOUR_MS && row.ts <= now).length;
}

/** Open and throttled breakers wait: for the cooldown (next trial) and maybe for a provider's Retry-After. */
export function breakerWaits(breaker: ApiBreaker): { nextProbe: number | null; retryAfter: number | null } {
  const waiting = breaker.state === 'open' || breaker.state === 'throttled';
  return {
    nextProbe: waiting ? breaker.openUntil : null,
    retryAfter: breaker.retryAfterUntil,
  };
}

/**
 * OpenClaw's own cooldown on a dependency, as the card shows it ("OpenClaw cooldown: 4 min left
 * (rate_limit)"), or null when there is none in force at `now`.
 */
export function openclawCooldownOf(
  breaker: ApiBreaker,
  now: number,
  t: Translator,
): { label: string; until: number; detail: string } | null {
  const cooldown = breaker.openclawCooldown;
  if (!cooldown || cooldown.until <= now) return null;
  return {
    label: t.t('dashboard.card.openclawCooldown', { kind: cooldown.kind }),
    until: cooldown.until,
    detail: t.t('dashboard.card.cooldownDetail', { reason: cooldown.reason, profile: cooldown.profile }),
  };
}

/** Token rates for one dependency, busiest agent first. */
export function tokensOf(tokens: readonly TokenRate[], dep: string): TokenRate[] {
  return tokens.filter((rate) => rate.dep === dep).sort((a, b) => b.tokensPerMinute - a.tokensPerMinute);
}

/** Worst first: what needs attention is at the top (open, throttled, half-open, closed), then by name. */
export function byAttention(breakers: readonly ApiBreaker[]): ApiBreaker[] {
  const rank: Record<string, number> = { open: 0, throttled: 1, half_open: 2, closed: 3 };
  return [...breakers].sort((a, b) => (rank[a.state] ?? 4) - (rank[b.state] ?? 4) || a.dep.localeCompare(b.dep));
}
