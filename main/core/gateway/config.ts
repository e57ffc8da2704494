/**
 * The gateway's health probe config, declared once: the `health` group of config.json (keys, defaults, docs,
 * units) and the probe's settings derived from it, every duration in milliseconds by its declared unit.
 */

import { type InMs, inMs } from '../config/durations.js';
import { DAY_SEC, group, type Infer, seconds } from '../config/schema.js';

export const healthConfig = group({
  intervalSec: seconds(15, 1, DAY_SEC, "How often the gateway's /healthz, /startupz and /readyz are probed."),
  connectTimeoutSec: seconds(3, 1, 600, 'A probe that cannot connect within this is a connect timeout.'),
  readTimeoutMinSec: seconds(
    2,
    1,
    3600,
    "Floor of the probe's read timeout, which follows the gateway's own recent p99 latency plus 40 %.",
  ),
  readTimeoutMaxSec: seconds(
    30,
    1,
    3600,
    'Ceiling of the read timeout (and the timeout used until enough probes have been measured).',
  ),
});

export type HealthConfig = Infer<typeof healthConfig>;
export type HealthSettings = InMs<HealthConfig>;

export function healthSettings(config: HealthConfig): HealthSettings {
  const settings = inMs(healthConfig, config);
  // A ceiling set below the floor is read as the floor: the adaptive timeout then has one value.
  return { ...settings, readTimeoutMaxMs: Math.max(settings.readTimeoutMinMs, settings.readTimeoutMaxMs) };
}
