/**
 * Rule: a rehearsal compresses every duration the config schema declares, unless the rehearsal's own table
 * says why not (or at what wall-clock floor). A duration key added to the schema is compressed without
 * further work, and a stale exception (a key that is no longer a duration) fails here.
 */
import { describe, expect, it } from 'vitest';
import { durationFields, mapDurations } from '../../main/core/config/durations.js';
import { type Config, configSchema } from '../../main/core/config/index.js';
import { parseWith } from '../../main/core/config/schema.js';
import { NOT_SCALED, scaleConfig, WALL_FLOOR_MS } from '../../main/rehearse/time-scale.js';

const SCALE = 60;

/** A config with an entry in every record and list, so that the durations inside them are present. */
const config = parseWith(configSchema, {
  breakers: {
    overrides: { 'zhipu/*': { windowMs: 120_000, cooldownMs: 30_000, maxOpenMs: 600_000, maxRetryAfterMs: 60_000 } },
    probes: { 'zhipu/*': { url: 'https://example.invalid/models', timeoutMs: 2000 } },
  },
  notifications: { webhooks: [{ type: 'generic', url: 'https://example.invalid/hook', timeoutSec: 10 }] },
});

/** Every duration present in `c`, by path, in schema order. */
function durations(c: Config): Array<{ path: string; value: number; unit: 'sec' | 'ms' }> {
  const out: Array<{ path: string; value: number; unit: 'sec' | 'ms' }> = [];
  mapDurations(configSchema, c, (value, unit, path) => {
    out.push({ path, value, unit });
    return value;
  });
  return out;
}

describe('rehearsal time compression', () => {
  const before = durations(config);
  const after = durations(scaleConfig(config, SCALE));

  it('sees every duration the schema declares', () => {
    expect(new Set(before.map((d) => d.path))).toEqual(new Set(durationFields(configSchema).map((d) => d.path)));
  });

  it.each(before.map((d, i) => [d.path, d, after[i]] as const))('classifies %s', (path, original, scaled) => {
    expect(scaled?.path).toBe(path);
    if (Object.hasOwn(NOT_SCALED, path)) {
      expect(scaled?.value).toBe(original.value);
      return;
    }
    const floor = WALL_FLOOR_MS[path];
    const perMs = original.unit === 'ms' ? 1 : 1 / 1000;
    const floorInUnit = floor ? floor.floorMs * perMs : 0;
    const expected = Math.max(original.value / SCALE, Math.min(original.value, floorInUnit));
    expect(Math.abs((scaled?.value ?? Number.NaN) - expected)).toBeLessThanOrEqual(perMs);
    expect(scaled?.value).toBeLessThan(original.value);
  });

  it('names only real duration keys in its exceptions, each with a reason', () => {
    const paths = durationFields(configSchema).map((d) => d.path);
    for (const [path, why] of Object.entries(NOT_SCALED)) {
      expect(paths).toContain(path);
      expect(why.length).toBeGreaterThan(20);
    }
    for (const [path, { why }] of Object.entries(WALL_FLOOR_MS)) {
      expect(paths).toContain(path);
      expect(why.length).toBeGreaterThan(10);
      expect(Object.hasOwn(NOT_SCALED, path)).toBe(false);
    }
  });

  it('compresses the keys a hand list once missed', () => {
    const scaled = scaleConfig(config, SCALE);
    expect(scaled.breakers.stallAfterMs).toBe(3000);
    expect(scaled.fleet.probeLeaseMs).toBe(83);
    expect(scaled.gatewayMetrics.intervalMs).toBe(83);
    expect(scaled.breakers.probes['zhipu/*']?.timeoutMs).toBe(500);
  });

  it('keeps seconds that turn back into whole milliseconds, and leaves the input alone', () => {
    const scaled = scaleConfig(config, 7);
    expect(Number.isInteger(scaled.watchdog.restartSpacingSec * 1000)).toBe(true);
    expect(scaled.watchdog.maxRestartsPerHour).toBe(config.watchdog.maxRestartsPerHour);
    expect(config.watchdog.restartSpacingSec).toBe(60);
    expect(scaled.watchdog.restartCommand).toEqual(config.watchdog.restartCommand);
  });

  it('keeps a configured value below its floor as configured', () => {
    const low = parseWith(configSchema, { health: { connectTimeoutSec: 1 } });
    expect(scaleConfig(low, 1000).health.connectTimeoutSec).toBe(0.5);
    const tiny = parseWith(configSchema, {
      breakers: { probes: { 'a/*': { url: 'https://x.invalid', timeoutMs: 100 } } },
    });
    expect(scaleConfig(tiny, 1000).breakers.probes['a/*']?.timeoutMs).toBe(100);
  });
});
