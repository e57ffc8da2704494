/**
 * The cooldown that never ends: OpenClaw putting a profile back into cooldown
 * again and again with no success in between, or holding it for hours. The
 * state is what OpenClaw writes after each failure (its `usageStats` record);
 * time is injected.
 */
import { describe, expect, it } from 'vitest';
import { CooldownLoopDetector } from '../../../main/core/openclaw/cooldown-loop.js';
import { buildSnapshot, type CooldownSnapshot, parseAuthState } from '../../../main/core/openclaw/cooldown-state.js';
import { translator } from '../../../main/words/messages/index.js';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const S = 1000;
const MIN = 60 * S;

function state(records: Record<string, unknown>): CooldownSnapshot {
  return buildSnapshot(parseAuthState(JSON.stringify({ version: 1, usageStats: records })).usage, new Map());
}

/**
 * What OpenClaw 2026.9 writes for the n-th rate-limit failure of `zai:default` on glm-5.1 at `at` with no
 * success in between: the rate-limit counter survives failed probes and the window doubles from 30 s.
 */
function rateLimited(at: number, n: number, lastUsed?: number): CooldownSnapshot {
  return state({
    'zai:default': {
      cooldownUntil: at + 30 * S * 2 ** (n - 1),
      cooldownReason: 'rate_limit',
      cooldownModel: 'glm-5.1',
      errorCount: 1,
      failureCounts: { rate_limit: n },
      lastFailureAt: at,
      ...(lastUsed === undefined ? {} : { lastUsed }),
    },
  });
}

describe('CooldownLoopDetector', () => {
  it('says nothing about one ordinary cooldown', () => {
    const detector = new CooldownLoopDetector();
    expect(detector.observe(rateLimited(T0, 1), T0 + S)).toEqual([]);
    expect(detector.observe(rateLimited(T0, 1), T0 + 20 * S)).toEqual([]);
    expect(detector.observe(state({}), T0 + 40 * S)).toEqual([]);
  });

  it('alerts once when the same profile re-enters cooldown three times within 30 min, counts escalating', () => {
    const detector = new CooldownLoopDetector();
    // Each window ends, the next probe fails, OpenClaw opens a longer one: 30 s, 1 min, 2 min.
    expect(detector.observe(rateLimited(T0, 1), T0 + S)).toEqual([]);
    expect(detector.observe(rateLimited(T0 + 31 * S, 2), T0 + 32 * S)).toEqual([]);
    const notices = detector.observe(rateLimited(T0 + 92 * S, 3), T0 + 93 * S);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      kind: 'openclaw_cooldown_loop',
      dep: 'zai/glm-5.1',
      title: 'OpenClaw keeps zai/glm-5.1 in cooldown',
      ts: T0 + 93 * S,
    });
    expect(notices[0]?.severity).toBeUndefined();
    expect(notices[0]?.body).toContain(
      "Profile zai:default went back into OpenClaw's rate_limit cooldown 3 times in 1 min 33 s",
    );
    expect(notices[0]?.body).toContain('(failure count 1 → 2 → 3)');
    expect(notices[0]?.body).toContain('A gateway restart does not lift it');
    // The loop goes on: no second alert for the same episode.
    expect(detector.observe(rateLimited(T0 + 213 * S, 4), T0 + 214 * S)).toEqual([]);
  });

  it('counts a deadline that moves while the window is in force as the same window', () => {
    const detector = new CooldownLoopDetector();
    const extended = (until: number, at: number) =>
      state({ 'p:1': { blockedUntil: until, blockedReason: 'subscription_limit', lastFailureAt: at } });
    expect(detector.observe(extended(T0 + 5 * MIN, T0), T0 + S)).toEqual([]);
    expect(detector.observe(extended(T0 + 6 * MIN, T0 + 2 * MIN), T0 + 2 * MIN)).toEqual([]);
    expect(detector.observe(extended(T0 + 7 * MIN, T0 + 4 * MIN), T0 + 4 * MIN)).toEqual([]);
  });

  it('does not count entries a success came after: the loop was broken', () => {
    const detector = new CooldownLoopDetector();
    detector.observe(rateLimited(T0, 1), T0 + S);
    detector.observe(rateLimited(T0 + 31 * S, 2), T0 + 32 * S);
    // A call succeeded at +60 s (OpenClaw records lastUsed), then the provider limited it again.
    expect(detector.observe(rateLimited(T0 + 92 * S, 1, T0 + 60 * S), T0 + 93 * S)).toEqual([]);
  });

  it('forgets entries older than the window: three cooldowns in three hours are not a loop', () => {
    const detector = new CooldownLoopDetector();
    for (const hour of [0, 1, 2]) {
      const at = T0 + hour * 60 * MIN;
      expect(detector.observe(rateLimited(at, 1), at + S)).toEqual([]);
      expect(detector.observe(state({}), at + MIN)).toEqual([]);
    }
    // Out of cooldown, and the last entry older than the window: nothing is kept.
    expect(detector.tracked()).toBe(1);
    expect(detector.observe(state({}), T0 + 2 * 60 * MIN + 31 * MIN)).toEqual([]);
    expect(detector.tracked()).toBe(0);
  });

  it('alerts on one window of an hour or more, critical when the profile is disabled', () => {
    const detector = new CooldownLoopDetector();
    const disabled = state({
      'openai:someone@example.com': {
        disabledUntil: T0 + 160 * MIN,
        disabledReason: 'billing',
        errorCount: 5,
        failureCounts: { billing: 5 },
        lastFailureAt: T0,
      },
    });
    const [notice, ...rest] = detector.observe(disabled, T0 + 10 * S);
    expect(rest).toEqual([]);
    expect(notice).toMatchObject({
      kind: 'openclaw_cooldown_loop',
      dep: 'openai',
      severity: 'critical',
      title: 'OpenClaw disabled openai for 2 h 40 min',
    });
    // The e-mail in the profile id does not leave the machine.
    expect(notice?.body).toContain('Profile openai:s…@example.com is disabled until 2026-12-01T14:40:00.000Z');
    expect(notice?.body).not.toContain('someone');
    expect(notice?.body).toContain('Check the provider account: credits, plan or payment method.');
    expect(detector.observe(disabled, T0 + 20 * MIN)).toEqual([]);
  });

  it('measures a long window from its start, also when first seen half-way through', () => {
    const detector = new CooldownLoopDetector();
    // 2026.9 after eight failed probes: a 64 min rate-limit window that began 40 min before BreakerBar looked.
    const notices = detector.observe(rateLimited(T0, 8), T0 + 40 * MIN);
    expect(notices.map((n) => n.title)).toEqual(['OpenClaw holds back zai/glm-5.1 for 1 h 4 min']);
  });

  it('alerts again for a new episode once the key was out of cooldown for the whole window', () => {
    const detector = new CooldownLoopDetector({ reentries: 2, windowMs: 10 * MIN, longMs: 60 * MIN });
    detector.observe(rateLimited(T0, 1), T0 + S);
    expect(detector.observe(rateLimited(T0 + 31 * S, 2), T0 + 32 * S)).toHaveLength(1);
    expect(detector.observe(state({}), T0 + 5 * MIN)).toEqual([]);
    expect(detector.observe(state({}), T0 + 11 * MIN)).toEqual([]);
    const later = T0 + 20 * MIN;
    detector.observe(rateLimited(later, 1), later + S);
    expect(detector.observe(rateLimited(later + 31 * S, 2), later + 32 * S)).toHaveLength(1);
  });

  it('takes the settings it is given', () => {
    const detector = new CooldownLoopDetector({ reentries: 99, windowMs: 30 * MIN, longMs: 20 * S });
    expect(detector.observe(rateLimited(T0, 1), T0 + S).map((n) => n.title)).toEqual([
      'OpenClaw holds back zai/glm-5.1 for 30 s',
    ]);
  });
});

describe('CooldownLoopDetector in Chinese', () => {
  it('words a loop and a long window in the daemon language', () => {
    const zh = translator('zh-CN');
    const detector = new CooldownLoopDetector(undefined, zh);
    detector.observe(rateLimited(T0, 1), T0 + S);
    detector.observe(rateLimited(T0 + 31 * S, 2), T0 + 32 * S);
    const [loop] = detector.observe(rateLimited(T0 + 92 * S, 3), T0 + 93 * S);
    expect(loop?.title).toBe('OpenClaw 反复冷却 zai/glm-5.1');
    expect(loop?.body).toContain(`配置档 zai:default 在 ${zh.duration(93 * S)} 内 3 次重新进入 OpenClaw 的冷却中状态`);
    expect(loop?.body).toContain('（失败计数 1 → 2 → 3）');
    expect(loop?.body).toContain('重启网关无法解除');
    expect(loop?.body).toContain('服务商持续限流');
    expect(loop?.body).not.toMatch(/Profile|restart|cooldown /);

    const long = new CooldownLoopDetector(undefined, zh).observe(rateLimited(T0, 8), T0 + 40 * MIN);
    expect(long.map((n) => n.title)).toEqual([`OpenClaw 暂停使用 zai/glm-5.1，长达 ${zh.duration(64 * MIN)}`]);
  });
});
