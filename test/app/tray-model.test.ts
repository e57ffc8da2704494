/**
 * What the tray shows for each state, decided without Electron: the state
 * (icon), the tooltip's line and the menu's items, on a fixed clock.
 */
import { describe, expect, it } from 'vitest';
import { headline, headlineText } from '../../main/api/headline.js';
import type { ApiStatus } from '../../main/api/types.js';
import {
  assess,
  type CoreView,
  dependencyLine,
  MAX_DEPENDENCY_LINES,
  type MenuItemModel,
  TOOLTIP_MAX,
  type TrayInput,
  trayModel,
} from '../../main/app/tray-model.js';
import { translator } from '../../main/words/messages/index.js';
import { apiStatus, breaker, gateway, MIN, NOW, probe, restartRow, source, watchdog } from './fixtures.js';

const en = translator('en');
const zh = translator('zh-CN');
/** The headline as the tray says it (tooltip and first line), computed with the same functions. */
const tip = (status: ApiStatus, t = en) => headlineText(headline(status, NOW), t);

const CONNECTED: CoreView = { phase: 'connected', mode: 'embedded', url: 'http://127.0.0.1:18820', pid: 99 };

function input(status: ApiStatus | null, overrides: Partial<TrayInput> = {}): TrayInput {
  return { core: CONNECTED, status, confirmRestart: true, launchAtLogin: false, now: NOW, ...overrides };
}

function item(menu: MenuItemModel[], id: string): MenuItemModel | undefined {
  for (const entry of menu) {
    if ('id' in entry && entry.id === id) return entry;
    if (entry.type === 'submenu') {
      const inner = item(entry.items, id);
      if (inner) return inner;
    }
  }
  return undefined;
}

const label = (menu: MenuItemModel[], id: string) => {
  const found = item(menu, id);
  return found && 'label' in found ? found.label : undefined;
};
const enabled = (menu: MenuItemModel[], id: string) => {
  const found = item(menu, id);
  return found && 'enabled' in found ? found.enabled : undefined;
};

describe('overall state', () => {
  it('is healthy with the gateway up, every breaker closed and the watchdog active', () => {
    const model = trayModel(input(apiStatus()));
    expect(model.state).toBe('healthy');
    expect(model.reasons).toEqual([]);
    expect(model.tooltip).toBe(tip(apiStatus()));
    expect(model.tooltip).toBe('All well · 2 dependencies answering');
  });

  it.each([
    [
      'a half-open breaker',
      apiStatus({ breakers: [breaker('zhipu/glm-5.1', { state: 'half_open' })] }),
      'zhipu/glm-5.1 half-open',
    ],
    [
      'a throttled breaker',
      apiStatus({ breakers: [breaker('zhipu/glm-5.1', { state: 'throttled', retryAfterUntil: NOW + 4 * MIN })] }),
      'zhipu/glm-5.1 throttled',
    ],
    [
      'a deferred restart',
      apiStatus({
        watchdog: watchdog({
          deferral: { since: NOW - MIN, until: NOW + 5 * MIN, dep: 'zhipu/glm-5.1', cause: 'retry_after' },
        }),
      }),
      'restart deferred for zhipu/glm-5.1 (Retry-After)',
    ],
    ['a paused watchdog', apiStatus({ watchdog: watchdog({ paused: true, pausedUntil: null }) }), 'watchdog paused'],
    ['a dry run', apiStatus({ watchdog: watchdog({ dryRun: true }) }), 'watchdog in dry run'],
    [
      'a restart running',
      apiStatus({ watchdog: watchdog({ restartInFlight: { since: NOW - 10_000, trigger: 'manual' } }) }),
      'gateway restarting',
    ],
    [
      'a gateway still starting',
      apiStatus({ gateway: gateway({ last: probe({ ok: false, class: 'starting', startup: 'starting' }) }) }),
      'gateway starting',
    ],
    ['an unreadable source', apiStatus({ sources: [source({ lastError: 'EACCES' })] }), 'cannot read jsonl'],
  ])('is degraded with %s', (_name, status, reason) => {
    const model = trayModel(input(status));
    expect(model.state).toBe('degraded');
    expect(model.reasons).toEqual([reason]);
    // The headline, and the reason after it when the headline itself finds nothing wrong.
    expect(model.tooltip).toBe(headline(status, NOW).tone === 'ok' ? `${tip(status)} · ${reason}` : tip(status));
    expect(label(model.menu, 'headline')).toBe(model.tooltip);
  });

  it.each([
    [
      'the gateway dead',
      apiStatus({
        gateway: gateway({
          last: probe({ ok: false, dead: true, class: 'refused' }),
          upSince: null,
          downSince: NOW - 2 * MIN,
        }),
      }),
      'gateway down (refused) for 2 min',
    ],
    ['a breaker open', apiStatus({ breakers: [breaker('zhipu/glm-5.1', { state: 'open' })] }), 'zhipu/glm-5.1 open'],
    [
      'the restart budget exhausted',
      apiStatus({ watchdog: watchdog({ budgetRemaining: 0 }) }),
      'restart budget exhausted (4 per hour)',
    ],
  ])('is down with %s', (_name, status, reason) => {
    const model = trayModel(input(status));
    expect(model.state).toBe('down');
    expect(model.reasons[0]).toBe(reason);
  });

  it('puts the reasons for down before those for degraded, and the tooltip says how many more', () => {
    const status = apiStatus({
      breakers: [breaker('a/one', { state: 'throttled' }), breaker('b/two', { state: 'open' })],
      watchdog: watchdog({ paused: true }),
    });
    expect(assess(status, NOW).reasons).toEqual(['b/two open', 'a/one throttled', 'watchdog paused']);
    expect(trayModel(input(status)).tooltip).toBe(tip(status));
  });

  it('does not count a budget spent in dry run or with the watchdog off', () => {
    expect(assess(apiStatus({ watchdog: watchdog({ budgetRemaining: 0, enabled: false }) }), NOW).state).toBe(
      'healthy',
    );
  });

  it('is connecting (no core has answered yet) and down when the core cannot be reached', () => {
    const connecting = trayModel(input(null, { core: { phase: 'connecting', detail: 'starting the core…' } }));
    expect(connecting.state).toBe('connecting');
    expect(connecting.tooltip).toBe('BreakerBar: starting the core…');
    const unreachable = trayModel(
      input(null, { core: { phase: 'unreachable', detail: 'the core exited (code 1)', retryAt: NOW + 8000 } }),
    );
    expect(unreachable.state).toBe('down');
    expect(unreachable.tooltip).toBe('BreakerBar: core not reachable: the core exited (code 1)');
    expect(label(unreachable.menu, 'core')).toBe('Core not reachable: the core exited (code 1)');
    expect(label(unreachable.menu, 'core-retry')).toBe('Trying again in 8 s');
  });

  it('keeps the tooltip within what Windows shows', () => {
    const long = 'x'.repeat(300);
    const model = trayModel(input(null, { core: { phase: 'unreachable', detail: long, retryAt: null } }));
    expect([...model.tooltip].length).toBe(TOOLTIP_MAX);
    expect(model.tooltip.endsWith('…')).toBe(true);
  });
});

describe('menu', () => {
  it('shows the gateway line with uptime and last probe, the watchdog, each dependency, the last restart', () => {
    const status = apiStatus({
      breakers: [
        breaker('deepseek/deepseek-v4-pro'),
        breaker('zhipu/glm-5.1', { state: 'throttled', retryAfterUntil: NOW + 42_000, openUntil: NOW + 42_000 }),
        breaker('openai/gpt-4o', { state: 'open', openUntil: NOW + 3 * MIN }),
      ],
      watchdog: watchdog({ lastRestart: restartRow() }),
    });
    const { menu } = trayModel(input(status));
    expect(label(menu, 'gateway')).toBe('Gateway: up 3 h · probed 12 s ago');
    expect(label(menu, 'watchdog')).toBe('Watchdog: active · 4/4 restarts left this hour');
    // Worst first.
    const deps = menu.filter((m) => 'id' in m && m.id.startsWith('dep:')).map((m) => ('label' in m ? m.label : ''));
    expect(deps).toEqual([
      'openai/gpt-4o: open, next probe in 3 min',
      'zhipu/glm-5.1: throttled, Retry-After ends in 42 s',
      'deepseek/deepseek-v4-pro: closed',
    ]);
    expect(label(menu, 'last-restart')).toBe(
      'Last restart 3 min ago (storm: 3 checks in a row saw new rate_limited calls): recovered in 48 s',
    );
    expect(label(menu, 'core')).toBe('Core: running in this app');
  });

  it('says down and since when for a dead gateway, and whose core it is when attached', () => {
    const status = apiStatus({
      gateway: gateway({
        last: probe({ ok: false, dead: true, class: 'read_timeout', ts: NOW - 5000 }),
        downSince: NOW - 4 * MIN,
      }),
    });
    const { menu } = trayModel(
      input(status, { core: { phase: 'connected', mode: 'attached', url: 'http://127.0.0.1:18820', pid: 321 } }),
    );
    expect(label(menu, 'gateway')).toBe('Gateway: down (read_timeout) for 4 min · probed 5 s ago');
    expect(label(menu, 'core')).toBe('Core: BreakerBar daemon (pid 321)');
  });

  it('has the actions in order: restart, pause, dashboard, logs, metrics, login, confirmation, quit', () => {
    const { menu } = trayModel(input(apiStatus()));
    const actions = menu.filter((m) => m.type !== 'text' && m.type !== 'separator').map((m) => ('id' in m ? m.id : ''));
    expect(actions).toEqual([
      'restart',
      'pause',
      'open-dashboard',
      'open-logs',
      'open-metrics',
      'toggle-launch-at-login',
      'toggle-confirm-restart',
      'quit',
    ]);
    expect(menu[0]?.type).not.toBe('separator');
    expect(menu.at(-1)?.type).not.toBe('separator');
    for (let i = 1; i < menu.length; i++) {
      expect(menu[i]?.type === 'separator' && menu[i - 1]?.type === 'separator').toBe(false);
    }
  });

  it('labels the restart "…" when it will ask first, and not when the confirmation is off', () => {
    expect(label(trayModel(input(apiStatus())).menu, 'restart')).toBe('Restart Gateway…');
    expect(label(trayModel(input(apiStatus(), { confirmRestart: false })).menu, 'restart')).toBe('Restart Gateway');
    const box = item(trayModel(input(apiStatus(), { confirmRestart: false })).menu, 'toggle-confirm-restart');
    expect(box).toMatchObject({ type: 'checkbox', checked: false });
  });

  it('disables restart while one runs, and without a watchdog or a core', () => {
    const running = apiStatus({ watchdog: watchdog({ restartInFlight: { since: NOW - 5000, trigger: 'storm' } }) });
    expect(label(trayModel(input(running)).menu, 'restart')).toBe('Restarting Gateway…');
    expect(enabled(trayModel(input(running)).menu, 'restart')).toBe(false);
    expect(enabled(trayModel(input(apiStatus({ watchdog: null }))).menu, 'restart')).toBe(false);
    const noCore = trayModel(input(apiStatus(), { core: { phase: 'connecting', detail: 'reconnecting…' } }));
    expect(enabled(noCore.menu, 'restart')).toBe(false);
    expect(enabled(noCore.menu, 'open-metrics')).toBe(false);
    expect(enabled(noCore.menu, 'open-dashboard')).toBe(true);
    expect(enabled(noCore.menu, 'quit')).toBe(true);
  });

  it('offers Pause for 15 min, 1 h or until resumed; Resume instead while paused', () => {
    const active = trayModel(input(apiStatus())).menu;
    const pause = item(active, 'pause');
    expect(pause?.type).toBe('submenu');
    expect(pause && pause.type === 'submenu' ? pause.items.map((i) => ('id' in i ? i.id : '')) : []).toEqual([
      'pause-15m',
      'pause-1h',
      'pause-until-resumed',
    ]);
    expect(item(active, 'resume')).toBeUndefined();

    const paused = trayModel(input(apiStatus({ watchdog: watchdog({ paused: true, pausedUntil: NOW + 15 * MIN }) })));
    expect(item(paused.menu, 'pause')).toBeUndefined();
    expect(item(paused.menu, 'resume')).toMatchObject({ type: 'action', label: 'Resume Watchdog', enabled: true });
    expect(label(paused.menu, 'watchdog')).toMatch(/^Watchdog: paused until .+ \(in 15 min\)$/);
  });

  it('shows Launch at Login checked as the OS says, and disabled where it cannot be set', () => {
    expect(item(trayModel(input(apiStatus(), { launchAtLogin: true })).menu, 'toggle-launch-at-login')).toMatchObject({
      checked: true,
      enabled: true,
    });
    expect(item(trayModel(input(apiStatus(), { launchAtLogin: null })).menu, 'toggle-launch-at-login')).toMatchObject({
      checked: false,
      enabled: false,
    });
  });

  it('keeps a long dependency list short, worst first, and points to the dashboard for the rest', () => {
    const breakers = Array.from({ length: 15 }, (_, i) => breaker(`p/m${String(i).padStart(2, '0')}`));
    breakers.push(breaker('z/last', { state: 'open', openUntil: NOW + MIN }));
    const { menu } = trayModel(input(apiStatus({ breakers })));
    const deps = menu.filter((m) => 'id' in m && (m.id.startsWith('dep:') || m.id === 'deps-more'));
    expect(deps).toHaveLength(MAX_DEPENDENCY_LINES);
    expect(label(menu, 'dep:z/last')).toBe(`z/last: open, next probe ${en.relative(NOW + MIN, NOW)}`);
    expect(label(menu, 'dep:z/last')).toBe('z/last: open, next probe in 1 min');
    expect(label(menu, 'deps-more')).toBe('…and 7 more, all closed (Open Dashboard)');
  });

  it('says when no dependency has been seen yet', () => {
    expect(label(trayModel(input(apiStatus({ breakers: [] }))).menu, 'deps-none')).toBe('No dependencies seen yet');
  });
});

describe('dependency line', () => {
  it('says a forced breaker is forced and a half-open one is trying', () => {
    expect(dependencyLine(breaker('a/b', { state: 'open', forced: 'open', openUntil: NOW + MIN }), NOW)).toBe(
      'a/b: open (forced)',
    );
    expect(dependencyLine(breaker('a/b', { state: 'half_open', trialSuccesses: 1 }), NOW)).toBe(
      'a/b: half-open, trying (1 ok)',
    );
    expect(dependencyLine(breaker('a/b', { state: 'throttled', retryAfterUntil: NOW - 1000 }), NOW)).toBe(
      'a/b: throttled, Retry-After over, next call is a trial',
    );
  });
});

describe("OpenClaw's own cooldown", () => {
  const held = breaker('zhipu/glm-5.1', {
    openclawCooldown: { until: NOW + 4 * MIN, reason: 'rate_limit', profile: 'zhipu:default', kind: 'cooldown' },
  });

  it('shows on the dependency line with the time left and the reason', () => {
    expect(dependencyLine(held, NOW)).toBe('zhipu/glm-5.1: closed, OpenClaw cooldown: 4 min left (rate_limit)');
    const disabled = breaker('moonshot/kimi', {
      openclawCooldown: { until: NOW + 150 * MIN, reason: 'billing', profile: 'moonshot:default', kind: 'disabled' },
    });
    expect(dependencyLine(disabled, NOW)).toBe('moonshot/kimi: closed, OpenClaw disabled: 2 h 30 min left (billing)');
    // Over (the status is a little old): nothing to say any more.
    expect(dependencyLine(held, NOW + 4 * MIN)).toBe('zhipu/glm-5.1: closed');
  });

  it('makes the state degraded and says why in the tooltip', () => {
    const model = trayModel(input(apiStatus({ breakers: [held, breaker('deepseek/deepseek-v4-pro')] })));
    expect(model.state).toBe('degraded');
    expect(model.reasons).toEqual(['zhipu/glm-5.1 OpenClaw cooldown: 4 min left (rate_limit)']);
    expect(model.tooltip).toBe(tip(apiStatus({ breakers: [held, breaker('deepseek/deepseek-v4-pro')] })));
    expect(model.tooltip).toContain('OpenClaw holds zhipu/glm-5.1 in cooldown until');
    expect(label(model.menu, 'dep:zhipu/glm-5.1')).toBe(
      'zhipu/glm-5.1: closed, OpenClaw cooldown: 4 min left (rate_limit)',
    );
  });
});

describe('the headline opens the tray', () => {
  it('is the first menu line, and the tooltip cut to what Windows shows', () => {
    const many = Array.from({ length: 8 }, (_, i) =>
      breaker(`provider-${i}/a-rather-long-model-name-${i}`, { state: 'open', reason: 'server errors' }),
    );
    const status = apiStatus({ breakers: many });
    const model = trayModel(input(status));
    const full = tip(status);
    expect(full.length).toBeGreaterThan(TOOLTIP_MAX);
    expect([...model.tooltip].length).toBe(TOOLTIP_MAX);
    expect(model.tooltip).toBe(`${[...full].slice(0, TOOLTIP_MAX - 1).join('')}…`);
    expect(model.menu[0]).toMatchObject({ type: 'text', id: 'headline' });
    expect(label(model.menu, 'headline')?.startsWith([...full].slice(0, 60).join(''))).toBe(true);
  });

  it('has no headline line before a core has answered', () => {
    const model = trayModel(input(null, { core: { phase: 'connecting', detail: 'starting the core…' } }));
    expect(item(model.menu, 'headline')).toBeUndefined();
  });
});

describe('the tray in Chinese', () => {
  const zhInput = (status: ApiStatus | null, overrides: Partial<TrayInput> = {}) =>
    input(status, { translator: zh, ...overrides });

  it('says the headline, the lines and the actions in Chinese', () => {
    const status = apiStatus({
      breakers: [
        breaker('deepseek/deepseek-v4-pro'),
        breaker('zhipu/glm-5.1', { state: 'throttled', retryAfterUntil: NOW + 42_000, openUntil: NOW + 42_000 }),
      ],
      watchdog: watchdog({ lastRestart: restartRow() }),
    });
    const model = trayModel(zhInput(status));
    expect(model.tooltip).toBe(tip(status, zh));
    expect(label(model.menu, 'headline')).toBe(tip(status, zh));
    expect(model.reasons).toEqual(['zhipu/glm-5.1 限流']);
    expect(label(model.menu, 'gateway')).toBe(
      `网关：运行中 ${zh.duration(3 * 3_600_000)} · ${zh.relative(NOW - 12_000, NOW)}探测`,
    );
    expect(label(model.menu, 'watchdog')).toBe('看门狗：运行中 · 本小时剩余 4/4 次重启');
    expect(label(model.menu, 'dep:zhipu/glm-5.1')).toBe(
      `zhipu/glm-5.1：限流，Retry-After ${zh.relative(NOW + 42_000, NOW)}结束`,
    );
    expect(label(model.menu, 'dep:deepseek/deepseek-v4-pro')).toBe('deepseek/deepseek-v4-pro：闭合');
    expect(label(model.menu, 'last-restart')).toMatch(/^上次重启 .+（429 风暴：.+）：已恢复，用时 48 秒$/);
    expect(label(model.menu, 'core')).toBe('核心：运行在本应用内');
    expect(label(model.menu, 'restart')).toBe('重启网关…');
    expect(label(model.menu, 'pause-15m')).toBe('15 分钟');
    expect(label(model.menu, 'quit')).toBe('退出 BreakerBar');
  });

  it('says down reasons, an unreachable core and OpenClaw cooldowns in Chinese', () => {
    const dead = apiStatus({
      gateway: gateway({
        last: probe({ ok: false, dead: true, class: 'refused' }),
        upSince: null,
        downSince: NOW - 2 * MIN,
      }),
    });
    expect(assess(dead, NOW, zh).reasons[0]).toBe(`网关宕机（refused）已 ${zh.duration(2 * MIN)}`);
    const unreachable = trayModel(
      zhInput(null, { core: { phase: 'unreachable', detail: 'the core exited (code 1)', retryAt: NOW + 8000 } }),
    );
    expect(unreachable.tooltip).toBe('BreakerBar：无法连接核心：the core exited (code 1)');
    expect(label(unreachable.menu, 'core-retry')).toBe(`${zh.relative(NOW + 8000, NOW)}重试`);
    const held = breaker('zhipu/glm-5.1', {
      openclawCooldown: { until: NOW + 4 * MIN, reason: 'rate_limit', profile: 'zhipu:default', kind: 'cooldown' },
    });
    expect(dependencyLine(held, NOW, zh)).toBe(
      `zhipu/glm-5.1：闭合，OpenClaw 冷却：剩余 ${zh.duration(4 * MIN)}（rate_limit）`,
    );
  });
});
