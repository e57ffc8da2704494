/**
 * The quota read's config (main/core/openclaw/config.ts): off reads nothing; on, the reader runs the configured
 * command (or OpenClaw's usage command) with its timings in milliseconds.
 */
import { describe, expect, it } from 'vitest';
import { defaultsOf, parseWith } from '../../../main/core/config/schema.js';
import { quotaConfig, quotaSettings } from '../../../main/core/openclaw/config.js';
import { DEFAULT_QUOTA_COMMAND } from '../../../main/core/openclaw/quota.js';

describe('quota settings', () => {
  it('reads nothing when off', () => {
    expect(quotaSettings({ ...defaultsOf(quotaConfig), enabled: false })).toBeNull();
  });

  it("runs OpenClaw's usage command by default, durations in milliseconds", () => {
    expect(quotaSettings(parseWith(quotaConfig, { intervalSec: 120, timeoutSec: 20 }))).toEqual({
      command: DEFAULT_QUOTA_COMMAND,
      intervalMs: 120_000,
      timeoutMs: 20_000,
    });
  });

  it('runs the configured command instead', () => {
    expect(quotaSettings(parseWith(quotaConfig, { command: ['usage', '--json'] }))?.command).toEqual([
      'usage',
      '--json',
    ]);
  });
});
