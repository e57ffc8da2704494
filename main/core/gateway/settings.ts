/** The health probe's timings, derived from the loaded config (see watchdog/settings.ts for why one place). */
import type { Config } from '../config/index.js';
import { toMs } from '../config/schema.js';
import type { HealthMonitorOptions } from './health.js';

export type HealthSettings = Pick<
  HealthMonitorOptions,
  'intervalMs' | 'connectTimeoutMs' | 'readTimeoutMinMs' | 'readTimeoutMaxMs'
>;

export function healthSettings(config: Config): HealthSettings {
  const h = config.health;
  return {
    intervalMs: toMs(h.intervalSec, 'sec'),
    connectTimeoutMs: toMs(h.connectTimeoutSec, 'sec'),
    readTimeoutMinMs: toMs(h.readTimeoutMinSec, 'sec'),
    // A ceiling set below the floor is read as the floor: the adaptive timeout then has one value.
    readTimeoutMaxMs: toMs(Math.max(h.readTimeoutMinSec, h.readTimeoutMaxSec), 'sec'),
  };
}
