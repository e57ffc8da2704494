/**
 * Notices in the daemon's language: the policy hands over facts, notices.ts
 * words them. English stays the default wording; Chinese says the same facts.
 */
import { describe, expect, it } from 'vitest';
import { defaultsOf } from '../../../main/core/config/schema.js';
import { type WatchdogSettings, watchdogConfig, watchdogSettings } from '../../../main/core/watchdog/config.js';
import { WatchdogPolicy } from '../../../main/core/watchdog/policy.js';
import type { Alert } from '../../../main/core/watchdog/policy-decisions.js';
import {
  alertNotice,
  budgetNotice,
  noticeText,
  notRecoveredNotice,
  restartFailedNotice,
  restartStartedNotice,
  restartSucceededNotice,
  transitionNotice,
} from '../../../main/core/watchdog/watchdog-notices.js';
import { translator } from '../../../main/words/messages/index.js';

const SEC = 1000;
const MIN = 60 * SEC;
const en = translator('en');
const zh = translator('zh-CN');

/** The watchdog's defaults, as a config file without a `watchdog` group gives them, with what these tests need. */
const SETTINGS: WatchdogSettings = watchdogSettings({
  ...defaultsOf(watchdogConfig),
  // Storm restarts on (as a user may set them): the rules that hold or allow them are tested here.
  stormRestart: 'safe',
  threshold: 2,
  deadAfterSec: 15,
});

/** A policy that has seen the gateway healthy and knows how to restart it. */
function policy(overrides: Partial<WatchdogSettings> = {}): WatchdogPolicy {
  const p = new WatchdogPolicy({ ...SETTINGS, ...overrides });
  p.strategyChecked({ runnable: true, problem: null, service: 'running' });
  p.probe(0, { class: 'ok', dead: false, startup: 'started', detail: 'ok' });
  return p;
}

const dead = { class: 'refused', dead: true, startup: 'unknown' as const, detail: 'connection refused' };

/** Runs the gateway into a confirmed outage; returns the alerts and the restart order. */
function outage(overrides: Partial<WatchdogSettings> = {}) {
  const p = policy(overrides);
  p.probe(10 * SEC, dead);
  const decision = p.probe(30 * SEC, dead);
  return decision;
}

describe('alert notices from the policy facts', () => {
  it('the gateway going down: English by default wording, Chinese in Chinese', () => {
    const alert = outage().alerts.find((a) => a.kind === 'gateway_down') as Alert;
    expect(alertNotice(alert, 5, en)).toEqual({
      kind: 'gateway_down',
      dep: null,
      title: 'OpenClaw gateway is down',
      body: 'The gateway is down: connection refused.',
      ts: 5,
    });
    // The English wording of the catalogue is the sentence the policy logs.
    expect(alertNotice(alert, 5, en).body).toBe(alert.message);
    expect(alertNotice(alert, 5, zh)).toMatchObject({
      title: 'OpenClaw 网关已宕机',
      body: '网关已宕机：connection refused。',
    });
  });

  it('a dry run says why it would restart, from the order facts, in both languages', () => {
    const decision = outage({ dryRun: true });
    const alert = decision.alerts.find((a) => a.kind === 'restart_would_run') as Alert;
    expect(alert).toBeDefined();
    const english = alertNotice(alert, 0, en);
    expect(english.title).toBe('Dry run: the watchdog would restart the gateway');
    expect(english.body).toBe(
      `Dry run: would restart the gateway: Gateway dead for ${en.duration(20 * SEC)}: connection refused.`,
    );
    const chinese = alertNotice(alert, 0, zh);
    expect(chinese.title).toBe('演练模式：看门狗本会重启网关');
    expect(chinese.body).toBe(`演练模式：本会重启网关：网关已宕机 ${zh.duration(20 * SEC)}：connection refused。`);
  });

  it('a spent budget counts restarts and says when the next may run', () => {
    const p = policy({ maxRestartsPerHour: 1 });
    p.probe(10 * SEC, dead);
    const first = p.probe(30 * SEC, dead);
    expect(first.restart).not.toBeNull();
    p.restartFinished(31 * SEC, 'failed');
    p.probe(40 * SEC, dead);
    const spent = p.probe(60 * SEC, dead);
    const alert = spent.alerts.find((a) => a.kind === 'restart_budget_exhausted') as Alert;
    expect(alert).toBeDefined();
    const left = 30 * SEC + 3_600_000 - 60 * SEC;
    expect(noticeText(alert, null, en)).toEqual({
      title: 'Restart budget spent: the watchdog stopped restarting',
      body: `1 restart in the last hour (max 1); the next one in ${en.duration(left)} or when you act. The outage needs a human.`,
    });
    expect(noticeText(alert, null, zh)).toEqual({
      title: '重启次数已用完：看门狗停止自动重启',
      body: `过去一小时已重启 1 次（上限 1 次）；下一次在 ${zh.duration(left)} 后，或由你手动处理。这次故障需要人工介入。`,
    });
  });

  it('a storm the fallbacks absorb and a deferral are worded from their facts', () => {
    const fallback: Alert = {
      kind: 'fallback_answering',
      dep: 'zhipu/glm-5.1',
      deps: [{ dep: 'zhipu/glm-5.1', fallbacks: ['deepseek/deepseek-v4-pro'] }],
      message: 'x',
    };
    expect(noticeText(fallback, fallback.dep, en).title).toBe('zhipu/glm-5.1 is rate limited; fallbacks are answering');
    expect(noticeText(fallback, fallback.dep, zh)).toEqual({
      title: 'zhipu/glm-5.1被限流，备用模型正在应答',
      body: '已被限流，备用模型正在应答：zhipu/glm-5.1 → deepseek/deepseek-v4-pro。不重启。',
    });
    const deferred: Alert = {
      kind: 'restart_deferred',
      dep: 'zhipu/glm-5.1',
      deps: ['zhipu/glm-5.1'],
      cause: 'cooldown',
      askedMs: 4 * MIN,
      heldMs: 4 * MIN,
      message: 'x',
    };
    expect(noticeText(deferred, deferred.dep, en).title).toBe('Restart held: OpenClaw keeps zhipu/glm-5.1 in cooldown');
    expect(noticeText(deferred, deferred.dep, zh).title).toBe('重启已暂缓：OpenClaw 正在冷却 zhipu/glm-5.1');
    expect(noticeText(deferred, deferred.dep, zh).body).toContain(
      `OpenClaw 还会冷却 zhipu/glm-5.1 ${zh.duration(4 * MIN)}`,
    );
  });

  it('a blocked watchdog says what blocks it', () => {
    const p = new WatchdogPolicy(SETTINGS);
    const decision = p.probe(0, {
      class: 'not_openclaw',
      dead: false,
      startup: 'unknown',
      detail: 'HTTP 404 at /healthz',
    });
    const alert = decision.alerts[0] as Alert;
    expect(noticeText(alert, null, en).body).toBe(alert.message);
    expect(noticeText(alert, null, zh)).toEqual({
      title: '看门狗不会重启网关',
      body: '网关地址有应答，但不是 OpenClaw 网关（HTTP 404 at /healthz）；请检查 gatewayUrl。不会因此重启任何东西。',
    });
  });
});

describe('restart, transition and budget notices', () => {
  it('a restart starting says why and what runs', () => {
    const order = outage().restart;
    expect(order?.facts).toEqual({ evidence: 'dead', forMs: 20 * SEC, detail: 'connection refused' });
    if (!order?.facts) throw new Error('no facts');
    expect(restartStartedNotice(order.evidence, order.facts, 'openclaw gateway restart', 1, en)).toMatchObject({
      kind: 'restart_started',
      title: 'Restarting the OpenClaw gateway because it stopped answering',
      body: `Gateway dead for ${en.duration(20 * SEC)}: connection refused. Running: openclaw gateway restart.`,
    });
    expect(restartStartedNotice(order.evidence, order.facts, null, 1, zh)).toMatchObject({
      title: '正在重启 OpenClaw 网关：它不再应答',
      body: `网关已宕机 ${zh.duration(20 * SEC)}：connection refused。执行：（没有重启方式）。`,
    });
  });

  it('recovery, a failed command and a restart that never started', () => {
    expect(restartSucceededNotice('storm', 42 * SEC, 1, en)).toMatchObject({
      title: 'Gateway recovered after a restart after a 429 storm',
      body: 'The gateway started and answers its probes 42 s after the restart.',
    });
    expect(restartSucceededNotice('storm', 42 * SEC, 1, zh)).toMatchObject({
      title: '网关重启后已恢复（因 429 风暴）',
      body: '网关在重启后 42 秒 完成启动并通过探测。',
    });
    expect(restartFailedNotice('manual', 'exit code 1', 1, en).body).toBe('exit code 1');
    expect(restartFailedNotice('manual', 'exit code 1', 1, zh)).toMatchObject({
      title: '网关重启失败（应请求）',
      body: '重启命令失败：exit code 1',
    });
    expect(notRecoveredNotice('health', { graceMs: 5 * MIN, pending: false }, 1, zh).body).toBe(
      `重启后 ${zh.duration(5 * MIN)} 内网关没有报告启动完成。请查看网关日志，并运行 \`breakerbar doctor\`。`,
    );
    expect(notRecoveredNotice('health', { graceMs: 5 * MIN, pending: true }, 1, en).body).toBe(
      `OpenClaw accepted the restart but had not done it ${en.duration(5 * MIN)} later. Check the gateway's logs; run \`breakerbar doctor\`.`,
    );
  });

  it('breaker transitions and token budgets', () => {
    const opened = { dep: 'zhipu/glm-5.1', from: 'closed', to: 'open', reason: '5 failures in 60 s', ts: 0 } as const;
    expect(transitionNotice(opened as never, 1, en)).toMatchObject({
      kind: 'breaker_opened',
      title: 'zhipu/glm-5.1 breaker opened',
      body: '5 failures in 60 s.',
    });
    expect(transitionNotice(opened as never, 1, zh)).toMatchObject({
      title: 'zhipu/glm-5.1 熔断器已断开',
      body: '原因：5 failures in 60 s。',
    });
    const closed = { ...opened, from: 'half_open', to: 'closed', reason: '3 trial calls ok' };
    expect(transitionNotice(closed as never, 1, zh)?.title).toBe('zhipu/glm-5.1 已恢复');
    const rate = { dep: 'a/b', agentId: 'ops', tokensPerMinute: 123456, budget: 100000 };
    expect(budgetNotice(rate as never, 1, en)).toMatchObject({
      title: 'Token budget crossed: ops on a/b',
      body: '123,456 tokens in the last minute (budget 100,000).',
    });
    expect(budgetNotice(rate as never, 1, zh).body).toBe('过去一分钟使用了 123,456 个 token（预算 100,000）。');
  });
});

describe("the gateway's owner holds a restart", () => {
  it('is worded in English and Chinese, naming the supervisor', () => {
    const alert: Alert = {
      kind: 'watchdog_blocked',
      dep: null,
      blocked: { cause: 'owner', rule: 'external_supervisor', who: 'supervisord (pid 812)' },
      message: 'Not restarting: the gateway runs under an external supervisor.',
    };
    expect(alertNotice(alert, 0, en).body).toContain(
      'external supervisor (supervisord (pid 812); OPENCLAW_SUPERVISOR_MODE=external)',
    );
    expect(alertNotice(alert, 0, zh).body).toContain('外部守护进程管理（supervisord (pid 812)');
    const stopped: Alert = {
      ...alert,
      blocked: { cause: 'owner', rule: 'stopped_itself', who: 'LaunchAgent ai.openclaw.gateway' },
    };
    expect(alertNotice(stopped, 0, en).body).toContain(
      'OpenClaw stopped itself: its database schema is newer than this gateway (exit 78). Upgrade OpenClaw',
    );
    expect(alertNotice(stopped, 0, zh).body).toContain('请升级 OpenClaw');
  });
});
