/** The words the overview uses for the watchdog, breakers and restarts. */
import { describe, expect, it } from 'vitest';
import type { ApiBreaker } from '../../main/core/server/api-types.js';
import type { RestartRow } from '../../main/core/store/gateway-history.js';
import {
  breakerWaits,
  byAttention,
  openclawCooldownOf,
  restartsInLastHour,
  watchdogMode,
} from '../../renderer/describe.js';
import { watchdog } from '../app/fixtures.js';
import { breakerSnapshot } from '../helpers/fake-backend.js';

const NOW = 1_750_000_000_000;

const breaker = (dep: string, overrides: Partial<ApiBreaker> = {}): ApiBreaker => ({
  ...breakerSnapshot(dep),
  soleDependents: [],
  stalled: null,
  elsewhere: [],
  openclawCooldown: null,
  ...overrides,
});

const restart = (ts: number, result: string) => ({ ts, result }) as RestartRow;

describe('overview words', () => {
  it('names the watchdog mode, disabled and paused first', () => {
    expect(watchdogMode(watchdog({})).kind).toBe('active');
    expect(watchdogMode(watchdog({ dryRun: true })).kind).toBe('dry_run');
    expect(watchdogMode(watchdog({ paused: true, pausedUntil: NOW + 1 }))).toEqual({
      kind: 'paused',
      text: 'Paused',
      until: NOW + 1,
    });
    expect(watchdogMode(watchdog({ paused: true, pausedUntil: null })).text).toBe('Paused until resumed');
    expect(watchdogMode(watchdog({ enabled: false, paused: true })).kind).toBe('disabled');
  });

  it('counts the restarts that ran in the last hour, dry runs excluded', () => {
    const rows = [
      restart(NOW - 60_000, 'recovered'),
      restart(NOW - 120_000, 'dry_run'),
      restart(NOW - 3_700_000, 'failed'),
      restart(NOW - 10, 'failed'),
    ];
    expect(restartsInLastHour(rows, NOW)).toBe(2);
  });

  it('shows a next probe only while open or throttled, and any Retry-After', () => {
    expect(breakerWaits(breaker('a', { state: 'open', openUntil: NOW + 5 }))).toEqual({
      nextProbe: NOW + 5,
      retryAfter: null,
    });
    expect(breakerWaits(breaker('a', { state: 'closed', openUntil: NOW + 5, retryAfterUntil: NOW + 9 }))).toEqual({
      nextProbe: null,
      retryAfter: NOW + 9,
    });
  });

  it('puts what needs attention first: open, throttled, half-open, closed', () => {
    const order = byAttention([
      breaker('z', { state: 'closed' }),
      breaker('b', { state: 'half_open' }),
      breaker('c', { state: 'throttled' }),
      breaker('a', { state: 'closed' }),
      breaker('d', { state: 'open' }),
    ]).map((b) => b.dep);
    expect(order).toEqual(['d', 'c', 'b', 'a', 'z']);
  });

  it("words OpenClaw's own cooldown for the card while it is in force", () => {
    const held = breaker('zhipu/glm-5.1', {
      openclawCooldown: { until: NOW + 240_000, reason: 'rate_limit', profile: 'zhipu:default', kind: 'cooldown' },
    });
    expect(openclawCooldownOf(held, NOW)).toEqual({
      label: 'OpenClaw cooldown',
      until: NOW + 240_000,
      reason: 'rate_limit',
      profile: 'zhipu:default',
    });
    expect(openclawCooldownOf(held, NOW + 240_000)).toBeNull();
    expect(openclawCooldownOf(breaker('a'), NOW)).toBeNull();
    const disabled = breaker('m', {
      openclawCooldown: { until: NOW + 1, reason: null, profile: 'm:default', kind: 'disabled' },
    });
    expect(openclawCooldownOf(disabled, NOW)).toMatchObject({ label: 'OpenClaw disabled', reason: 'no reason given' });
  });
});
