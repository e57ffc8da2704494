/**
 * The gateway's health probe config (main/core/gateway/config.ts): the probe's settings come from the `health`
 * group, every duration in milliseconds.
 */
import { describe, expect, it } from 'vitest';
import { defaultsOf, parseWith } from '../../../main/core/config/schema.js';
import { healthConfig, healthSettings } from '../../../main/core/gateway/config.js';

describe('health probe settings', () => {
  it('durations in milliseconds', () => {
    const health = parseWith(healthConfig, { intervalSec: 10, connectTimeoutSec: 4, readTimeoutMaxSec: 20 });
    expect(healthSettings(health)).toEqual({
      intervalMs: 10_000,
      connectTimeoutMs: 4000,
      readTimeoutMinMs: 2000,
      readTimeoutMaxMs: 20_000,
    });
  });

  it('a read-timeout ceiling below its floor is the floor', () => {
    const health = { ...defaultsOf(healthConfig), readTimeoutMinSec: 5, readTimeoutMaxSec: 3 };
    expect(healthSettings(health)).toMatchObject({ readTimeoutMinMs: 5000, readTimeoutMaxMs: 5000 });
  });
});
