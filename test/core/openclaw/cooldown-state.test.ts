/**
 * OpenClaw's auth state as data: the windows OpenClaw writes (its
 * `usageStats` records, field for field), the dependency keys they map to,
 * and "until when will OpenClaw not call this dependency".
 */
import { describe, expect, it } from 'vitest';
import {
  AuthStateError,
  activeCooldowns,
  buildSnapshot,
  type CooldownSnapshot,
  cooldownUntil,
  dependencyCooldown,
  parseAuthState,
  profileLabel,
  providerOf,
} from '../../../main/core/openclaw/cooldown-state.js';
import { credentialOf } from '../../../main/core/sources/transcript-record.js';

const NOW = 1_796_145_470_000;
const MIN = 60_000;

/** A snapshot from one state JSON and a profile store (profile id → provider). */
function snapshotOf(state: unknown, store: Record<string, string> = {}): CooldownSnapshot {
  return buildSnapshot(parseAuthState(JSON.stringify(state)).usage, new Map(Object.entries(store)));
}

describe('parseAuthState', () => {
  it('reads the record OpenClaw 2026.9.6 wrote after a run of 429s (model-scoped rate-limit cooldown)', () => {
    // As found in `config_machine_state.authProfiles.state` after the e2e run.
    const { usage, skipped } = parseAuthState(
      '{"version":1,"usageStats":{"mockrl:manual":{"cooldownUntil":1796145495713,"cooldownReason":"rate_limit","cooldownModel":"storm","errorCount":1,"failureCounts":{"rate_limit":1},"lastFailureAt":1796145465713}}}',
    );
    expect(skipped).toBe(0);
    expect(usage).toEqual([
      {
        profile: 'mockrl:manual',
        provider: null,
        errorCount: 1,
        failureCounts: { rate_limit: 1 },
        lastFailureAt: 1796145465713,
        lastUsed: null,
        windows: [{ kind: 'cooldown', until: 1796145495713, reason: 'rate_limit', model: 'storm' }],
      },
    ]);
  });

  it('reads disables and 2026.9 subscription blocks, scoped as OpenClaw scopes them', () => {
    const { usage } = parseAuthState(
      JSON.stringify({
        usageStats: {
          'openai:me@example.com': {
            disabledUntil: NOW + 10 * MIN,
            disabledReason: 'billing',
            blockedUntil: NOW + 60 * MIN,
            blockedReason: 'subscription_limit',
            blockedModel: 'gpt-5',
            blockedScope: 'model',
            lastUsed: NOW - 60 * MIN,
          },
          'openai:backup': { blockedUntil: NOW + MIN, blockedModel: 'gpt-5' },
        },
      }),
    );
    expect(usage[0]?.windows).toEqual([
      { kind: 'disabled', until: NOW + 10 * MIN, reason: 'billing', model: null },
      { kind: 'blocked', until: NOW + 60 * MIN, reason: 'subscription_limit', model: 'gpt-5' },
    ]);
    expect(usage[0]?.lastUsed).toBe(NOW - 60 * MIN);
    // Without blockedScope "model" a block covers every model.
    expect(usage[1]?.windows).toEqual([{ kind: 'blocked', until: NOW + MIN, reason: null, model: null }]);
  });

  it('scopes a cooldown to its model only for the reasons OpenClaw does', () => {
    const { usage } = parseAuthState(
      JSON.stringify({
        usageStats: {
          a: { cooldownUntil: NOW + MIN, cooldownReason: 'timeout', cooldownModel: 'm1' },
          b: { cooldownUntil: NOW + MIN, cooldownReason: 'model_not_found', cooldownModel: 'm1' },
          c: { cooldownUntil: NOW + MIN, cooldownReason: 'auth', cooldownModel: 'm1' },
          d: { cooldownUntil: NOW + MIN, cooldownReason: 'rate_limit' },
          e: { cooldownUntil: NOW + MIN, cooldownModel: 'm1' },
        },
      }),
    );
    expect(usage.map((u) => u.windows[0]?.model)).toEqual(['m1', 'm1', null, null, null]);
  });

  it('ignores what OpenClaw ignores: timestamps that are not finite positive milliseconds, bad counters', () => {
    const { usage } = parseAuthState(
      JSON.stringify({
        usageStats: {
          p: {
            cooldownUntil: '1796145495713',
            disabledUntil: -5,
            blockedUntil: 9e15,
            errorCount: 'two',
            failureCounts: { rate_limit: 2, auth: 0, billing: 'x', timeout: 1.7 },
            lastFailureAt: null,
          },
        },
      }),
    );
    expect(usage).toEqual([
      {
        profile: 'p',
        provider: null,
        errorCount: null,
        failureCounts: { rate_limit: 2, timeout: 1 },
        lastFailureAt: null,
        lastUsed: null,
        windows: [],
      },
    ]);
  });

  it('skips and counts records that are not objects, and accepts a state with no usage at all', () => {
    expect(parseAuthState('{"usageStats":{"a":7,"b":null,"":{},"c":{"errorCount":1}}}')).toMatchObject({
      skipped: 3,
      usage: [{ profile: 'c', errorCount: 1 }],
    });
    expect(parseAuthState('{"version":1,"order":{"openai":["openai:a"]}}')).toEqual({ usage: [], skipped: 0 });
  });

  it('refuses what is not a state object, with a clear message', () => {
    expect(() => parseAuthState('{"usageStats":')).toThrow(AuthStateError);
    expect(() => parseAuthState('{"usageStats":')).toThrow(/not JSON/);
    expect(() => parseAuthState('[1,2]')).toThrow('expected a JSON object, found an array');
    expect(() => parseAuthState('{"usageStats":[]}')).toThrow('usageStats is an array, not an object');
  });
});

describe('providerOf', () => {
  it("takes the profile store's provider first, lower-cased as OpenClaw normalizes it", () => {
    expect(providerOf('personal:owner:1234', new Map([['personal:owner:1234', ' OpenAI ']]))).toBe('openai');
  });

  it('reads the provider from the id otherwise: `<provider>:<name>`, inline keys; never from a locator', () => {
    const none = new Map<string, string>();
    expect(providerOf('anthropic:default', none)).toBe('anthropic');
    expect(providerOf('openai:me@example.com', none)).toBe('openai');
    expect(providerOf('inline-api-key:mockauth', none)).toBe('mockauth');
    expect(providerOf('personal:owner:1234', none)).toBeNull();
    expect(providerOf('no-colon', none)).toBeNull();
  });
});

describe('activeCooldowns', () => {
  const state = {
    usageStats: {
      'mockrl:manual': {
        cooldownUntil: NOW + 25_000,
        cooldownReason: 'rate_limit',
        cooldownModel: 'storm',
        errorCount: 1,
        failureCounts: { rate_limit: 1 },
        lastFailureAt: NOW - 5000,
      },
      'mockbill:manual': { disabledUntil: NOW + 10 * MIN, disabledReason: 'billing', errorCount: 1 },
      'old:one': { cooldownUntil: NOW - 1, cooldownReason: 'overloaded' },
      'openrouter:default': { cooldownUntil: NOW + MIN, cooldownReason: 'rate_limit' },
    },
  };

  it('maps each window in force to a dependency key: provider/model when scoped, provider otherwise', () => {
    expect(activeCooldowns(snapshotOf(state), NOW)).toEqual([
      {
        dep: 'mockrl/storm',
        provider: 'mockrl',
        model: 'storm',
        profile: 'mockrl:manual',
        kind: 'cooldown',
        until: NOW + 25_000,
        reason: 'rate_limit',
        errorCount: 1,
        failures: 1,
        lastFailureAt: NOW - 5000,
      },
      {
        dep: 'mockbill',
        provider: 'mockbill',
        model: null,
        profile: 'mockbill:manual',
        kind: 'disabled',
        until: NOW + 10 * MIN,
        reason: 'billing',
        errorCount: 1,
        failures: null,
        lastFailureAt: null,
      },
    ]);
  });

  it('ends a window at its deadline exactly (OpenClaw: in force while now < until)', () => {
    expect(activeCooldowns(snapshotOf(state), NOW + 25_000).map((c) => c.dep)).toEqual(['mockbill']);
  });

  it('has none for providers whose cooldowns OpenClaw leaves to the provider', () => {
    expect(activeCooldowns(snapshotOf(state), NOW).some((c) => c.provider === 'openrouter')).toBe(false);
  });

  it('leaves out a profile whose provider nobody names', () => {
    const snapshot = snapshotOf({ usageStats: { 'personal:x:y': { cooldownUntil: NOW + MIN } } });
    expect(activeCooldowns(snapshot, NOW)).toEqual([]);
  });
});

describe('dependencyCooldown / cooldownUntil', () => {
  it("holds a model while its only profile's model-scoped cooldown is in force, and not its sibling", () => {
    const snapshot = snapshotOf(
      {
        usageStats: {
          'mockrl:manual': { cooldownUntil: NOW + 25_000, cooldownReason: 'rate_limit', cooldownModel: 'storm' },
        },
      },
      { 'mockrl:manual': 'mockrl' },
    );
    expect(dependencyCooldown(snapshot, 'mockrl/storm', NOW)).toEqual({
      until: NOW + 25_000,
      reason: 'rate_limit',
      profile: 'mockrl:manual',
      kind: 'cooldown',
    });
    expect(cooldownUntil(snapshot, 'mockrl/calm', NOW)).toBeNull();
    // A breaker keyed by provider stands for every model: the scoped window shows there.
    expect(cooldownUntil(snapshot, 'mockrl', NOW)).toBe(NOW + 25_000);
    expect(cooldownUntil(snapshot, 'mockrl/storm', NOW + 25_000)).toBeNull();
  });

  it('holds every model of a provider whose only profile is disabled', () => {
    const snapshot = snapshotOf({
      usageStats: { 'mockbill:manual': { disabledUntil: NOW + 10 * MIN, disabledReason: 'billing' } },
    });
    expect(cooldownUntil(snapshot, 'mockbill/payment_required', NOW)).toBe(NOW + 10 * MIN);
    expect(cooldownUntil(snapshot, 'MockBill/any', NOW)).toBe(NOW + 10 * MIN);
  });

  it('does not hold a dependency while another profile of its provider is usable: OpenClaw rotates to it', () => {
    const state = { usageStats: { 'zai:a': { cooldownUntil: NOW + 5 * MIN, cooldownReason: 'overloaded' } } };
    expect(cooldownUntil(snapshotOf(state, { 'zai:a': 'zai', 'zai:b': 'zai' }), 'zai/glm-5.1', NOW)).toBeNull();
    expect(cooldownUntil(snapshotOf(state, { 'zai:a': 'zai' }), 'zai/glm-5.1', NOW)).toBe(NOW + 5 * MIN);
  });

  it('once every profile is out, holds until the first of them is back, and names that one', () => {
    const snapshot = snapshotOf(
      {
        usageStats: {
          'zai:a': {
            cooldownUntil: NOW + 5 * MIN,
            cooldownReason: 'overloaded',
            disabledUntil: NOW + 9 * MIN,
            disabledReason: 'billing',
          },
          'zai:b': { cooldownUntil: NOW + 2 * MIN, cooldownReason: 'rate_limit', cooldownModel: 'glm-5.1' },
        },
      },
      { 'zai:a': 'zai', 'zai:b': 'zai' },
    );
    // zai:a is out until its latest window ends (9 min); zai:b is back first, at 2 min.
    expect(dependencyCooldown(snapshot, 'zai/glm-5.1', NOW)).toEqual({
      until: NOW + 2 * MIN,
      reason: 'rate_limit',
      profile: 'zai:b',
      kind: 'cooldown',
    });
    // zai:b's window is scoped to glm-5.1: another model has zai:b.
    expect(cooldownUntil(snapshot, 'zai/glm-4.6', NOW)).toBeNull();
  });

  it('answers for a credential-keyed breaker about the one profile its fingerprint names', () => {
    const snapshot = snapshotOf(
      { usageStats: { 'zai:a': { cooldownUntil: NOW + 5 * MIN, cooldownReason: 'overloaded' } } },
      { 'zai:a': 'zai', 'zai:b': 'zai' },
    );
    expect(cooldownUntil(snapshot, `zai/glm-5.1/${credentialOf('zai:a')}`, NOW)).toBe(NOW + 5 * MIN);
    expect(cooldownUntil(snapshot, `zai/glm-5.1/${credentialOf('zai:b')}`, NOW)).toBeNull();
  });

  it('knows nothing about providers it has no record of, or that OpenClaw never cools down', () => {
    const snapshot = snapshotOf({ usageStats: { 'openrouter:default': { cooldownUntil: NOW + MIN } } });
    expect(cooldownUntil(snapshot, 'deepseek/deepseek-v4-pro', NOW)).toBeNull();
    expect(cooldownUntil(snapshot, 'openrouter/anthropic/claude', NOW)).toBeNull();
    expect(cooldownUntil(snapshot, '', NOW)).toBeNull();
  });
});

describe('buildSnapshot', () => {
  it('merges a profile recorded in two databases: every window, the larger counters', () => {
    const a = parseAuthState(
      JSON.stringify({
        usageStats: { 'x:1': { cooldownUntil: NOW + MIN, errorCount: 1, failureCounts: { rate_limit: 1 } } },
      }),
    ).usage;
    const b = parseAuthState(
      JSON.stringify({
        usageStats: { 'x:1': { disabledUntil: NOW + 3 * MIN, errorCount: 4, failureCounts: { billing: 2 } } },
      }),
    ).usage;
    const snapshot = buildSnapshot([...a, ...b], new Map());
    expect(snapshot.usage).toHaveLength(1);
    expect(snapshot.usage[0]).toMatchObject({ errorCount: 4, failureCounts: { rate_limit: 1, billing: 2 } });
    expect(cooldownUntil(snapshot, 'x/m', NOW)).toBe(NOW + 3 * MIN);
    expect(snapshot.profilesByProvider.get('x')).toEqual(['x:1']);
  });
});

describe('profileLabel', () => {
  it('keeps an e-mail out of messages that leave the machine, and other ids as they are', () => {
    expect(profileLabel('openai:someone@example.com')).toBe('openai:s…@example.com');
    expect(profileLabel('mockrl:manual')).toBe('mockrl:manual');
  });
});
