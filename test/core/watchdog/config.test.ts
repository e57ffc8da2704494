/**
 * The watchdog's config (main/core/watchdog/config.ts): each of its parts' settings is derived from the parsed
 * `watchdog` group by one function, every duration in milliseconds as the schema's declared unit converts it.
 */
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../main/core/config/index.js';
import { parseWith } from '../../../main/core/config/schema.js';
import { restarterSettings, watchdogCheckIntervalMs, watchdogSettings } from '../../../main/core/watchdog/config.js';

const config = parseWith(configSchema, {
  watchdog: {
    windowSec: 90,
    deadAfterSec: 20,
    hungAfterSec: 240,
    startupGraceSec: 200,
    maxRestartsPerHour: 6,
    restartSpacingSec: 45,
    maxDeferralSec: 500,
    divergenceSec: 150,
    checkIntervalSec: 30,
    restartTimeoutSec: 120,
    stormWaitSec: 25,
    stormRestart: 'wait',
    restartCommand: ['systemctl', '--user', 'restart', 'openclaw-gateway'],
  },
});

describe('settings derived from the config', () => {
  it('the watchdog policy: durations in milliseconds, counts as written', () => {
    // toMatchObject: a key added to the group reaches the policy without this list naming it.
    expect(watchdogSettings(config.watchdog)).toMatchObject({
      enabled: true,
      windowMs: 90_000,
      threshold: 3,
      healthFailuresBeforeRestart: 2,
      deadAfterMs: 20_000,
      hungAfterMs: 240_000,
      startupGraceMs: 200_000,
      restartOnStorm: true,
      maxRestartsPerHour: 6,
      restartSpacingMs: 45_000,
      maxDeferralMs: 500_000,
      divergenceMs: 150_000,
      dryRun: false,
    });
    expect(watchdogCheckIntervalMs(config.watchdog)).toBe(30_000);
  });

  it('the restarter keeps the drain bound in seconds, as the openclaw CLI takes it', () => {
    expect(restarterSettings(config.watchdog)).toEqual({
      restartCommand: ['systemctl', '--user', 'restart', 'openclaw-gateway'],
      restartTimeoutMs: 120_000,
      manualRestart: 'safe',
      healthRestart: 'wait',
      stormRestart: 'wait',
      stormWaitSec: 25,
    });
  });

  it('storm restarts are off unless configured: the policy waits storms out, the restarter plans none', () => {
    const defaults = parseWith(configSchema, {});
    expect(watchdogSettings(defaults.watchdog).restartOnStorm).toBe(false);
    expect(restarterSettings(defaults.watchdog).stormRestart).toBe('off');
  });

  it('gives the policy no duration in seconds and none of the restarter keys', () => {
    const keys = Object.keys(watchdogSettings(config.watchdog));
    expect(keys.filter((key) => key.endsWith('Sec'))).toEqual([]);
    expect(keys).not.toContain('restartCommand');
    expect(keys).not.toContain('stormRestart');
    expect(keys).not.toContain('checkIntervalMs');
  });

  it('follows the defaults when the file says nothing', () => {
    const defaults = parseWith(configSchema, {});
    expect(watchdogSettings(defaults.watchdog).maxRestartsPerHour).toBe(defaults.watchdog.maxRestartsPerHour);
  });
});
