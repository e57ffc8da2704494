/**
 * The headline per situation: what it says first, what it says BreakerBar is
 * doing, its tone, in both languages. Times are worded by the same formatters
 * the headline uses, so no expectation depends on the machine's time zone.
 */
import { describe, expect, it } from 'vitest';
import { type Headline, headline, headlineText } from '../../main/api/headline.js';
import type { IncidentSummary } from '../../main/core/incidents/types.js';
import { translator } from '../../main/words/messages/index.js';
import { apiStatus, breaker, gateway, MIN, NOW, probe, source, watchdog } from '../app/fixtures.js';

const en = translator('en');
const zh = translator('zh-CN');
const keys = (h: Headline) => h.parts.map((p) => p.key);

function incident(overrides: Partial<IncidentSummary> = {}): IncidentSummary {
  return {
    id: 3,
    openedAt: NOW - 3 * 86_400_000,
    closedAt: NOW - 3 * 86_400_000 + 7 * MIN,
    severity: 'warning',
    causes: ['breaker'],
    deps: ['zhipu/glm-5.1'],
    agents: ['main'],
    turnsLost: 4,
    failedCalls: 30,
    rateLimitedCalls: 30,
    restarts: 1,
    notifications: 2,
    summary: '429 storm on zhipu/glm-5.1',
    ...overrides,
  };
}

describe('the headline', () => {
  it('says all is well with the last incident, its age and length', () => {
    const status = apiStatus({ incidents: { open: [], lastClosed: incident(), mttrByWeek: [] } });
    const h = headline(status, NOW);
    expect(h.tone).toBe('ok');
    expect(headlineText(h, en)).toBe(
      `All well · 2 dependencies answering · last incident ended ${en.relative(NOW - 3 * 86_400_000 + 7 * MIN, NOW)} (lasted 7 min)`,
    );
    expect(headlineText(h, zh)).toBe(
      `一切正常 · 2 个依赖正常应答 · 上次事件${zh.relative(NOW - 3 * 86_400_000 + 7 * MIN, NOW)}结束（持续 7 分钟）`,
    );
  });

  it('says there has been no incident yet when the history holds none', () => {
    const h = headline(apiStatus({ incidents: { open: [], lastClosed: null, mttrByWeek: [] } }), NOW);
    expect(keys(h)).toEqual(['headline.allWell', 'headline.answering', 'headline.noIncidents']);
  });

  it('waits for the first call on a first run, and for the first probe before that', () => {
    const first = apiStatus({ breakers: [], sources: [source({ calls: 0, stored: 0 })] });
    expect(keys(headline(first, NOW))).toEqual(['headline.firstRun']);
    const unprobed = { ...first, gateway: gateway({ last: null, upSince: null }) };
    expect(keys(headline(unprobed, NOW))).toEqual(['headline.notProbed']);
    expect(headline(unprobed, NOW).tone).toBe('ok');
  });

  it('names a 429 storm on two dependencies, the fallback answering and the deferred restart with its end', () => {
    const since = NOW - 3 * MIN;
    const until = NOW + 2 * MIN;
    const status = apiStatus({
      breakers: [
        breaker('zhipu/glm-5.1', { state: 'throttled', since, reason: 'Retry-After 300 s', retryAfterUntil: until }),
        breaker('anthropic/claude-sonnet-4-5', {
          state: 'open',
          since: since + MIN,
          reason: '5 rate_limited in a row',
        }),
        breaker('deepseek/deepseek-v4-pro'),
      ],
      watchdog: watchdog({
        consecutiveChecks: 3,
        storm: { since },
        rateLimited: {
          since,
          deps: [
            { dep: 'zhipu/glm-5.1', fallbacks: ['deepseek/deepseek-v4-pro'] },
            { dep: 'anthropic/claude-sonnet-4-5', fallbacks: ['deepseek/deepseek-v4-pro'] },
          ],
        },
        deferral: { since, until, dep: 'zhipu/glm-5.1', cause: 'retry_after' },
      }),
    });
    const h = headline(status, NOW);
    expect(h.tone).toBe('warning');
    expect(headlineText(h, en)).toBe(
      `429 storm on anthropic/claude-sonnet-4-5 and zhipu/glm-5.1 since ${en.clock(since)} · fallback deepseek/deepseek-v4-pro answering · restart deferred: Retry-After ends ${en.clock(until)}`,
    );
    expect(headlineText(h, zh)).toBe(
      `anthropic/claude-sonnet-4-5和zhipu/glm-5.1 自 ${zh.clock(since)} 起遭遇 429 风暴 · 备用模型 deepseek/deepseek-v4-pro 正在应答 · 重启已推迟：Retry-After 于 ${zh.clock(until)} 结束`,
    );
  });

  it('counts the checks left before a storm restart when no fallback answers', () => {
    const status = apiStatus({
      watchdog: watchdog({
        consecutiveChecks: 1,
        storm: { since: NOW - MIN },
        rateLimited: { since: NOW - MIN, deps: [{ dep: 'zhipu/glm-5.1', fallbacks: [] }] },
      }),
    });
    expect(keys(headline(status, NOW))).toEqual(['headline.storm', 'headline.stormCounting']);
    expect(headlineText(headline(status, NOW), en)).toContain('restart after 2 more checks of 429s');
  });

  it('with storm restarts off (the default), says the storm is waited out, and counts toward no restart', () => {
    for (const consecutiveChecks of [1, 5]) {
      const status = apiStatus({
        watchdog: watchdog({
          stormRestart: false,
          consecutiveChecks,
          storm: { since: NOW - MIN },
          rateLimited: { since: NOW - MIN, deps: [{ dep: 'zhipu/glm-5.1', fallbacks: [] }] },
        }),
      });
      expect(keys(headline(status, NOW))).toEqual(['headline.storm', 'headline.stormWaited']);
      expect(headlineText(headline(status, NOW), en)).toBe(
        `429 storm on zhipu/glm-5.1 since ${en.clock(NOW - MIN)} · waiting it out: OpenClaw retries, storm restarts are off`,
      );
    }
  });

  it("dates a storm from when its breaker left closed, not its latest round of trials, and never says 'storm' and 'recovering' of one dependency", () => {
    // Found trying it as a new user would: "since" moved 13:41 → 13:43 → 13:45 with each trial, and a breaker
    // trying again was named in the storm and as recovering at once.
    const rateLimited = { since: NOW - 10 * MIN, deps: [{ dep: 'zhipu/glm-5.1', fallbacks: [] }] };
    const throttledAgain = apiStatus({
      breakers: [
        breaker('zhipu/glm-5.1', {
          state: 'throttled',
          reason: '429 rate_limited, Retry-After 60 s',
          since: NOW - MIN,
          outSince: NOW - 12 * MIN,
        }),
      ],
      watchdog: watchdog({ stormRestart: false, consecutiveChecks: 2, rateLimited }),
    });
    expect(headlineText(headline(throttledAgain, NOW), en)).toMatch(
      new RegExp(`^429 storm on zhipu/glm-5\\.1 since ${en.clock(NOW - 12 * MIN)} `),
    );
    const trying = apiStatus({
      breakers: [breaker('zhipu/glm-5.1', { state: 'half_open', since: NOW - 10_000, outSince: NOW - 12 * MIN })],
      watchdog: watchdog({ stormRestart: false, consecutiveChecks: 2, rateLimited }),
    });
    expect(keys(headline(trying, NOW))).not.toContain('headline.storm');
    expect(keys(headline(trying, NOW))).toContain('headline.recovering');
  });

  it('says a quota window is exhausted until it resets instead of calling the 429s a storm', () => {
    const resetsAt = NOW + 95 * MIN;
    const status = apiStatus({
      breakers: [breaker('zhipu/glm-5.1', { state: 'open', reason: '429 rate_limited', since: NOW - MIN })],
      quota: [{ provider: 'zhipu', window: '5h', usedShare: 1, resetsAt, exhausted: true, readAt: NOW }],
    });
    const h = headline(status, NOW);
    expect(keys(h)).toEqual(['headline.quotaExhausted']);
    expect(headlineText(h, en)).toBe(`zhipu quota exhausted until ${en.clock(resetsAt)} (5h window)`);
  });

  it('puts a dead gateway first, critical, with the dead probes left before a restart', () => {
    const downSince = NOW - 40_000;
    const status = apiStatus({
      gateway: gateway({ last: probe({ ok: false, dead: true, class: 'refused' }), downSince, upSince: null }),
      watchdog: watchdog({ healthFailures: 1, healthFailuresBeforeRestart: 3 }),
    });
    const h = headline(status, NOW);
    expect(h.tone).toBe('critical');
    expect(headlineText(h, en)).toBe(`Gateway down since ${en.clock(downSince)} · restart after 2 more failed probes`);
  });

  it('says an unloaded service rather than a plain death', () => {
    const status = apiStatus({
      gateway: gateway({ last: probe({ ok: false, dead: true, class: 'refused' }), downSince: NOW - MIN }),
      watchdog: watchdog({ verified: { runnable: true, problem: null, service: 'unloaded' } }),
    });
    expect(keys(headline(status, NOW))[0]).toBe('headline.gatewayUnloaded');
  });

  it('says why it will not restart: never seen healthy, or a strategy that cannot run', () => {
    const dead = gateway({ last: probe({ ok: false, dead: true, class: 'refused' }), downSince: NOW - MIN });
    const never = apiStatus({ gateway: dead, watchdog: watchdog({ seenHealthy: false }) });
    expect(keys(headline(never, NOW))).toEqual(['headline.gatewayDown', 'headline.blockedNeverHealthy']);
    const cannot = apiStatus({
      gateway: dead,
      watchdog: watchdog({ verified: { runnable: false, problem: 'openclaw is not on PATH', service: 'none' } }),
    });
    expect(headlineText(headline(cannot, NOW), en)).toContain('no automatic restart: openclaw is not on PATH');
  });

  it('says the gateway is restarting, or that a safe restart waits for the work to drain', () => {
    const running = apiStatus({ watchdog: watchdog({ restartInFlight: { since: NOW - 5000, trigger: 'storm' } }) });
    const dead = { ...running, gateway: gateway({ last: probe({ ok: false, dead: true, class: 'refused' }) }) };
    expect(keys(headline(dead, NOW))).toEqual(['headline.gatewayDown', 'headline.restarting']);
    const pending = apiStatus({
      breakers: [breaker('zhipu/glm-5.1', { state: 'open', reason: 'rate_limited', since: NOW - MIN })],
      watchdog: watchdog({ recovering: { since: NOW - 5000, trigger: 'storm', startedAt: null, pending: true } }),
    });
    expect(keys(headline(pending, NOW))).toEqual(['headline.storm', 'headline.restartPending']);
  });

  it('names stuck sessions as a hung gateway', () => {
    const stuckSince = NOW - 6 * MIN;
    const status = apiStatus({
      breakers: [breaker('zhipu/glm-5.1', { stalled: { sessions: 2, since: stuckSince, latest: NOW, stuckSince } })],
    });
    expect(headlineText(headline(status, NOW), en)).toBe(
      `2 sessions stuck since ${en.clock(stuckSince)}, no upstream call`,
    );
  });

  it('is critical when the restart budget is spent', () => {
    const status = apiStatus({
      gateway: gateway({ last: probe({ ok: false, dead: true, class: 'refused' }) }),
      watchdog: watchdog({ budgetRemaining: 0, maxRestartsPerHour: 4 }),
    });
    const h = headline(status, NOW);
    expect(h.tone).toBe('critical');
    expect(headlineText(h, en)).toContain('Restart budget spent (4 restarts per hour)');
  });

  it("says OpenClaw's own cooldown with its end and reason", () => {
    const until = NOW + 30 * MIN;
    const status = apiStatus({
      breakers: [
        breaker('anthropic/claude-sonnet-4-5', {
          openclawCooldown: { until, kind: 'cooldown', reason: 'rate_limit', profile: 'anthropic:default' },
        }),
      ],
    });
    expect(headlineText(headline(status, NOW), en)).toBe(
      `OpenClaw holds anthropic/claude-sonnet-4-5 in cooldown until ${en.clock(until)} (rate_limit)`,
    );
  });

  it("is critical when BreakerBar's own database was deleted or replaced under it", () => {
    const status = apiStatus({ store: { ok: false, problem: 'deleted', since: NOW - MIN } });
    const h = headline(status, NOW);
    expect(h.tone).toBe('critical');
    expect(headlineText(h, en)).toContain(
      "BreakerBar's database was deleted while it ran: nothing new is kept until BreakerBar restarts",
    );
    expect(headlineText(headline(apiStatus({ store: { ok: false, problem: 'replaced' } }), NOW), zh)).toContain(
      'BreakerBar 运行期间其数据库被替换',
    );
    expect(keys(headline(apiStatus({ store: { ok: true } }), NOW))).not.toContain('headline.storeLost');
  });

  it('names a source that cannot read', () => {
    const status = apiStatus({ sources: [source({ lastError: 'EACCES: permission denied' })] });
    expect(headlineText(headline(status, NOW), en)).toBe('Cannot read jsonl: EACCES: permission denied');
  });

  it('says when maintenance mutes it, and when the watchdog is paused', () => {
    const until = NOW + 60 * MIN;
    const status = apiStatus({
      quiet: { until, reason: 'macOS update', kind: 'maintenance' },
      incidents: { open: [], lastClosed: null, mttrByWeek: [] },
    });
    expect(headlineText(headline(status, NOW), en)).toBe(
      `All well · 2 dependencies answering · no incidents yet · maintenance until ${en.clock(until)}: no alerts, no automatic restarts`,
    );
    const paused = apiStatus({
      gateway: gateway({ last: probe({ ok: false, dead: true, class: 'refused' }), downSince: null }),
      watchdog: watchdog({ paused: true, pausedUntil: null }),
    });
    expect(headlineText(headline(paused, NOW), en)).toBe('Gateway down · watchdog paused until resumed');
  });

  it('keeps an open incident in view while its cause settles', () => {
    const status = apiStatus({
      incidents: {
        open: [incident({ closedAt: null, openedAt: NOW - 4 * MIN, severity: 'critical' })],
        lastClosed: null,
        mttrByWeek: [],
      },
    });
    const h = headline(status, NOW);
    expect(h.tone).toBe('critical');
    expect(keys(h)).toEqual(['headline.incidentOpen']);
  });
});
