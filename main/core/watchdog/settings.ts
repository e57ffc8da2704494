/**
 * The watchdog's settings as its parts take them (milliseconds, flavours), derived from the loaded config.
 * Each part's settings come from one function here, so a key is read in one place and a part never keeps a
 * hand copy of one (the daemon, the doctor and the rehearsal build their watchdogs from the same functions).
 */
import type { Config } from '../config/index.js';
import { toMs } from '../config/schema.js';
import type { WatchdogSettings } from './policy-inputs.js';
import type { RestarterSettings } from './restarter.js';

/** The policy's settings: what counts as dead, hung or a storm, and the restart budget. */
export function watchdogSettings(config: Config): WatchdogSettings {
  const w = config.watchdog;
  return {
    enabled: w.enabled,
    windowMs: toMs(w.windowSec, 'sec'),
    threshold: w.threshold,
    healthFailuresBeforeRestart: w.healthFailuresBeforeRestart,
    deadAfterMs: toMs(w.deadAfterSec, 'sec'),
    hungAfterMs: toMs(w.hungAfterSec, 'sec'),
    startupGraceMs: toMs(w.startupGraceSec, 'sec'),
    maxRestartsPerHour: w.maxRestartsPerHour,
    restartSpacingMs: toMs(w.restartSpacingSec, 'sec'),
    restartOnStorm: w.stormRestart !== 'off',
    maxDeferralMs: toMs(w.maxDeferralSec, 'sec'),
    divergenceMs: toMs(w.divergenceSec, 'sec'),
    dryRun: w.dryRun,
  };
}

/** How often the rate-limit check runs. */
export function watchdogCheckIntervalMs(config: Config): number {
  return toMs(config.watchdog.checkIntervalSec, 'sec');
}

/** What a restart runs and how long it may take. */
export function restarterSettings(config: Config): RestarterSettings {
  const w = config.watchdog;
  return {
    restartCommand: w.restartCommand,
    restartTimeoutMs: toMs(w.restartTimeoutSec, 'sec'),
    manualRestart: w.manualRestart,
    healthRestart: w.healthRestart,
    stormRestart: w.stormRestart,
    // The openclaw CLI takes its drain bound in seconds (`--wait <sec>`), so it stays in the config's unit.
    stormWaitSec: w.stormWaitSec,
  };
}
