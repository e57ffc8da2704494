/**
 * The rehearsal's time compression of the config: every duration the schema declares is divided by the time
 * scale, so that the core takes in seconds the decisions it takes in minutes. The schema lists its durations
 * (`durationFields`), so a duration key added to it is compressed without being named here; the two tables
 * below are the only exceptions, each with its reason.
 */

import { mapDurations } from '../core/config/durations.js';
import { type Config, configSchema } from '../core/config/index.js';
import { type DurationUnit, toMs } from '../core/config/schema.js';

/** Durations left as configured, and why. */
export const NOT_SCALED: Readonly<Record<string, string>> = {
  'ingest.reconcileIntervalMs':
    'how soon a missed file change is noticed is file-system time, which does not compress; the rehearsal sets its own short interval',
};

/**
 * Durations compressed, but never below a wall-clock floor (ms), because they bound real work whose speed the
 * time scale does not change. A configured value below its floor is kept as configured.
 */
export const WALL_FLOOR_MS: Readonly<Record<string, { floorMs: number; why: string }>> = {
  'health.connectTimeoutSec': { floorMs: 500, why: 'loopback latency on a busy machine does not compress' },
  'health.readTimeoutMinSec': { floorMs: 500, why: 'loopback latency on a busy machine does not compress' },
  'health.readTimeoutMaxSec': { floorMs: 500, why: 'loopback latency on a busy machine does not compress' },
  'breakers.probes.*.timeoutMs': { floorMs: 500, why: 'an HTTP round trip does not compress' },
  'notifications.webhooks[].timeoutSec': { floorMs: 1000, why: 'an HTTP delivery does not compress' },
  'heartbeat.timeoutSec': { floorMs: 1000, why: 'an HTTP push does not compress' },
  'watchdog.restartTimeoutSec': { floorMs: 10_000, why: 'a restart command starts a Node process' },
  'quota.timeoutSec': { floorMs: 10_000, why: 'the usage command starts a Node process' },
};

/** Whole milliseconds (the store keeps times derived from them in INTEGER columns), at least 1. */
function scaledMs(ms: number, scale: number): number {
  return Math.max(1, Math.round(ms / scale));
}

/** Seconds that `toMs` turns back into whole milliseconds exactly (0.007 × 1000 is not 7). */
function scaledSec(sec: number, scale: number): number {
  for (let ms = Math.max(1, Math.round(toMs(sec, 'sec') / scale)); ; ms++) {
    if (toMs(ms / 1000, 'sec') === ms) return ms / 1000;
  }
}

/** One duration compressed `scale`-fold, in its own unit, kept above its wall floor if it has one. */
export function scaleDuration(value: number, unit: DurationUnit, path: string, scale: number): number {
  if (Object.hasOwn(NOT_SCALED, path)) return value;
  const scaled = unit === 'ms' ? scaledMs(value, scale) : scaledSec(value, scale);
  const floor = WALL_FLOOR_MS[path];
  if (!floor) return scaled;
  const floorInUnit = unit === 'ms' ? floor.floorMs : floor.floorMs / 1000;
  return Math.max(scaled, Math.min(value, floorInUnit));
}

/** `config` with every duration compressed `scale`-fold (fractional seconds are fine: consumers use toMs). */
export function scaleConfig(config: Config, scale: number): Config {
  return mapDurations(configSchema, structuredClone(config), (value, unit, path) =>
    scaleDuration(value, unit, path, scale),
  );
}
