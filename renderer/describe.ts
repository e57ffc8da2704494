/**
 * The words the overview uses for the core's state, decided in one place and
 * without the DOM (tested in Node): the watchdog's mode, what a breaker waits
 * for, how many restarts happened lately.
 */
import type { ApiBreaker, TokenRate } from '../main/core/server/api-types.js';
import type { RestartRow } from '../main/core/store/gateway-history.js';
import type { WatchdogStatus } from '../main/core/watchdog/runner.js';

const HOUR_MS = 3_600_000;

export type WatchdogMode =
  | { kind: 'disabled'; text: string }
  | { kind: 'paused'; text: string; until: number | null }
  | { kind: 'dry_run'; text: string }
  | { kind: 'active'; text: string };

export function watchdogMode(status: WatchdogStatus): WatchdogMode {
  if (!status.enabled) return { kind: 'disabled', text: 'Watch only: watchdog.enabled is false' };
  if (status.paused) {
    return status.pausedUntil === null
      ? { kind: 'paused', text: 'Paused until resumed', until: null }
      : { kind: 'paused', text: 'Paused', until: status.pausedUntil };
  }
  if (status.dryRun) return { kind: 'dry_run', text: 'Dry run: decides and notifies, never restarts' };
  return { kind: 'active', text: 'Active' };
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
): { label: string; until: number; reason: string; profile: string } | null {
  const cooldown = breaker.openclawCooldown;
  if (!cooldown || cooldown.until <= now) return null;
  return {
    label: `OpenClaw ${cooldown.kind}`,
    until: cooldown.until,
    reason: cooldown.reason ?? 'no reason given',
    profile: cooldown.profile,
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
