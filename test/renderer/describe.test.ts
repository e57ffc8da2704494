/** The words the overview uses for the watchdog, breakers and restarts. */
import { describe, expect, it } from 'vitest';
import type { ApiBreaker, ApiStatus } from '../../main/api/types.js';
import type { IncidentSummary } from '../../main/core/incidents/types.js';
import type { SpendReport } from '../../main/core/spend/types.js';
import type { RestartRow } from '../../main/core/store/gateway-history.js';
import { translator } from '../../main/words/messages/index.js';
import {
  breakerWaits,
  byAttention,
  dayFigures,
  incidentTouching,
  openclawCooldownOf,
  restartsInLastHour,
  watchdogMode,
  whyText,
} from '../../renderer/describe.js';
import { watchdog } from '../app/fixtures.js';
import { breakerSnapshot } from '../helpers/fake-backend.js';

const NOW = 1_750_000_000_000;
const en = translator('en');
const zh = translator('zh-CN');

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
    expect(watchdogMode(watchdog({}), en).kind).toBe('active');
    expect(watchdogMode(watchdog({ dryRun: true }), en).kind).toBe('dry_run');
    expect(watchdogMode(watchdog({ paused: true, pausedUntil: NOW + 1 }), en)).toEqual({
      kind: 'paused',
      text: 'Paused',
      until: NOW + 1,
    });
    expect(watchdogMode(watchdog({ paused: true, pausedUntil: null }), en).text).toBe('Paused until resumed');
    expect(watchdogMode(watchdog({ paused: true, pausedUntil: null }), zh).text).toBe('已暂停，直到手动恢复');
    expect(watchdogMode(watchdog({ enabled: false, paused: true }), en).kind).toBe('disabled');
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
    expect(openclawCooldownOf(held, NOW, en)).toEqual({
      label: 'OpenClaw cooldown',
      until: NOW + 240_000,
      detail: ' (rate_limit) · profile zhipu:default',
    });
    expect(openclawCooldownOf(held, NOW, zh)).toMatchObject({ label: 'OpenClaw 冷却' });
    expect(openclawCooldownOf(held, NOW + 240_000, en)).toBeNull();
    expect(openclawCooldownOf(breaker('a'), NOW, en)).toBeNull();
    const disabled = breaker('m', {
      openclawCooldown: { until: NOW + 1, reason: null, profile: 'm:default', kind: 'disabled' },
    });
    expect(openclawCooldownOf(disabled, NOW, en)).toMatchObject({
      label: 'OpenClaw disabled',
      detail: ' (no reason given) · profile m:default',
    });
  });

  it("words the engine's reasons for a breaker in the reader's language, and keeps unknown ones as said", () => {
    expect(whyText('6 consecutive failures', en)).toBe('6 failures in a row');
    expect(whyText('6 consecutive failures', zh)).toBe('连续失败 6 次');
    expect(whyText('3 of 4 calls failed (75%) in 60 s', en)).toBe('3 of 4 calls failed (75%) in 1 min');
    expect(whyText('3 of 4 calls failed (75%) in 60 s', zh)).toBe('1 分钟内 4 次调用失败 3 次（75%）');
    expect(whyText('rate limited, Retry-After 90 s (capped at 60 s)', en)).toBe(
      'The provider rate-limited it and asked to wait 1 min 30 s',
    );
    expect(whyText('trial failed: rate_limited, Retry-After 5 s', zh)).toBe('试探调用失败（限流）');
    expect(whyText('2 successful trials', en)).toBe('Recovered: 2 trial calls succeeded');
    expect(whyText('answered while throttled', en)).toBe(
      'The provider answered while the breaker was open: trial calls decide',
    );
    expect(whyText('answered while open', zh)).toBe('断路器打开期间服务商已有应答：由试探调用决定');
    expect(whyText('operator: maintenance', en)).toBe('Set by hand: maintenance');
    expect(whyText('initial state', zh)).toBe('没有失败：调用正常通过');
    expect(whyText('peer host-b tripped it', en)).toBe('peer host-b tripped it');
  });

  it("takes a card's day from the spend report (today), else from the status's last 24 hours", () => {
    const status = {
      lastDay: { byDependency: { 'a/m': { ok: 8, rate_limited: 3 } } },
    } as unknown as ApiStatus;
    expect(dayFigures('a/m', status, null)).toEqual({
      span: 'lastDay',
      calls: 11,
      failures: 3,
      tokens: null,
      cost: null,
    });
    expect(dayFigures('b/m', status, null)).toMatchObject({ calls: 0, failures: 0 });
    const spend = {
      today: { byModel: [{ key: 'a/m', calls: 5, failures: 1, tokens: 1200, cost: 0.25 }] },
    } as unknown as SpendReport;
    expect(dayFigures('a/m', status, spend)).toEqual({
      span: 'today',
      calls: 5,
      failures: 1,
      tokens: 1200,
      cost: 0.25,
    });
    expect(dayFigures('b/m', status, spend)).toEqual({ span: 'today', calls: 0, failures: 0, tokens: 0, cost: 0 });
  });

  it('finds the open incident touching a dependency, the most severe first', () => {
    const incident = (id: number, severity: IncidentSummary['severity'], deps: string[], openedAt: number) =>
      ({ id, severity, deps, openedAt }) as IncidentSummary;
    const status = {
      incidents: {
        open: [incident(1, 'warning', ['a/m'], NOW - 10), incident(2, 'critical', ['a/m', 'b/m'], NOW - 5)],
        lastClosed: null,
        mttrByWeek: [],
      },
    } as unknown as ApiStatus;
    expect(incidentTouching('a/m', status)?.id).toBe(2);
    expect(incidentTouching('c/m', status)).toBeNull();
    expect(incidentTouching('a/m', { incidents: null } as unknown as ApiStatus)).toBeNull();
  });
});
