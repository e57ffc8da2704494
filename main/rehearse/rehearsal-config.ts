/**
 * The BreakerBar config a rehearsal runs the core with: pointed at the sandbox (its OpenClaw state, its gateway
 * and restart hook), quiet towards the outside world, with the scenario's own config and a test's override
 * merged over it, and every duration compressed by the time scale (see time-scale.ts).
 */
import { join } from 'node:path';
import { type Config, configSchema, type LoadedConfig, resolveDirectories } from '../core/config/index.js';
import { parseWith } from '../core/config/schema.js';
import type { Sandbox } from './sandbox.js';
import { scaleConfig } from './time-scale.js';
import type { RehearsalReport } from './types.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown> | undefined) {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over ?? {})) {
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? deepMerge(out[key], value) : value;
  }
  return out;
}

/**
 * The config in scenario units (`unscaled`, what the report states as the policy) and as the core loads it,
 * compressed by `scale` (`loaded`).
 */
export function rehearsalConfig(
  sandbox: Pick<Sandbox, 'root' | 'openclawDir' | 'logDir' | 'gateway' | 'restartCommand'>,
  scenarioConfig: Record<string, unknown> | undefined,
  configOverride: Record<string, unknown> | undefined,
  scale: number,
): { unscaled: Config; loaded: LoadedConfig } {
  const raw = deepMerge(
    deepMerge(
      {
        openclawDir: sandbox.openclawDir,
        dataDir: join(sandbox.root, 'breakerbar'),
        gatewayLogDir: sandbox.logDir,
        gatewayUrl: sandbox.gateway.baseUrl,
        gatewayMetrics: { enabled: false },
        ingest: { reconcileIntervalMs: 200, backfillDays: 0 },
        notifications: { desktop: false, webhooks: [] },
        server: { port: 0 },
        fleet: { redisUrl: null },
        watchdog: { restartCommand: sandbox.restartCommand },
        // The fake openclaw CLI answers only what a scenario rehearses (and logs every call it gets).
        quota: { enabled: false },
      },
      scenarioConfig,
    ),
    configOverride,
  );
  const unscaled = parseWith(configSchema, raw);
  const loaded = resolveDirectories(scaleConfig(unscaled, scale), null, {
    env: {},
    home: sandbox.root,
    platform: process.platform,
  });
  return { unscaled, loaded };
}

/** The restart policy in force, in scenario units, as the report states it. */
export function policyOf(unscaled: Config): RehearsalReport['policy'] {
  return {
    maxRestartsPerHour: unscaled.watchdog.maxRestartsPerHour,
    restartSpacingSec: unscaled.watchdog.restartSpacingSec,
    startupGraceSec: unscaled.watchdog.startupGraceSec,
    maxDeferralSec: unscaled.watchdog.maxDeferralSec,
    deadAfterSec: unscaled.watchdog.deadAfterSec,
    hungAfterSec: unscaled.watchdog.hungAfterSec,
    healthIntervalSec: unscaled.health.intervalSec,
    breakerCooldownMs: unscaled.breakers.cooldownMs,
  };
}
