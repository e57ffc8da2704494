/** `breakerbar status` as text: OpenClaw's own cooldowns beside the breakers. */
import { describe, expect, it } from 'vitest';
import { cooldownLines, renderStatus } from '../../main/cli/status.js';
import type { OpenClawCooldownsStatus } from '../../main/core/openclaw/cooldowns.js';
import { apiStatus, breaker, MIN, NOW } from '../app/fixtures.js';

const COOLDOWNS: OpenClawCooldownsStatus = {
  active: [
    {
      dep: 'zhipu/glm-5.1',
      provider: 'zhipu',
      model: 'glm-5.1',
      profile: 'zhipu:default',
      kind: 'cooldown',
      until: NOW + 4 * MIN,
      reason: 'rate_limit',
      errorCount: 3,
      failures: 3,
      lastFailureAt: NOW - MIN,
    },
    {
      dep: 'moonshot',
      provider: 'moonshot',
      model: null,
      profile: 'moonshot:default',
      kind: 'disabled',
      until: NOW + 150 * MIN,
      reason: 'billing',
      errorCount: 1,
      failures: 1,
      lastFailureAt: NOW,
    },
  ],
  databases: [
    { path: 'state/openclaw.sqlite', profiles: 2, error: null },
    { path: 'agents/ops/agent/openclaw-agent.sqlite', profiles: 0, error: 'auth state: not JSON (Unexpected end)' },
  ],
  checkedAt: NOW,
};

describe('breakerbar status', () => {
  it('adds an OpenClaw cooldown column to the breakers, and a line per cooldown and unreadable database', () => {
    const text = renderStatus(
      apiStatus({
        breakers: [
          breaker('zhipu/glm-5.1', {
            openclawCooldown: {
              until: NOW + 4 * MIN,
              reason: 'rate_limit',
              profile: 'zhipu:default',
              kind: 'cooldown',
            },
          }),
          breaker('deepseek/deepseek-v4-pro'),
        ],
        openclawCooldowns: COOLDOWNS,
      }),
      NOW,
    );
    expect(text).toContain('OpenClaw cooldown');
    expect(text).toMatch(/zhipu\/glm-5\.1\s+closed\s+10\s+0%\s+4 min left \(rate_limit\)/);
    expect(text).toContain('OpenClaw cooldown zhipu/glm-5.1: 4 min left (rate_limit), profile zhipu:default, 3 errors');
    expect(text).toContain('OpenClaw disabled moonshot: 2 h 30 min left (billing), profile moonshot:default, 1 error');
    expect(text).toContain(
      'OpenClaw cooldown state agents/ops/agent/openclaw-agent.sqlite not fully read: auth state: not JSON (Unexpected end)',
    );
  });

  it('says nothing about OpenClaw cooldowns when there are none', () => {
    const text = renderStatus(apiStatus({ openclawCooldowns: { active: [], databases: [], checkedAt: NOW } }), NOW);
    expect(text).not.toContain('OpenClaw');
    expect(cooldownLines(apiStatus(), NOW)).toEqual([]);
  });
});
