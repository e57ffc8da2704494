/**
 * The watchdog's config, declared once: its keys with their defaults, docs and units (the `watchdog` group of
 * config.json), and the settings its parts take, derived from them with every duration in milliseconds. A key
 * added here reaches the policy without further copying: the policy's settings are every key but the
 * restarter's, converted by the schema's declared units.
 */

import { type InMs, inMs } from '../config/durations.js';
import { bool, DAY_SEC, group, type Infer, int, oneOf, optionalArgv, seconds } from '../config/schema.js';

/** The openclaw CLI's restart flavours (`--safe`, `--force`, `--wait`, none). */
export const RESTART_FLAVOURS = ['safe', 'force', 'wait', 'plain'] as const;
/** What a 429 storm makes the watchdog do: nothing but alert (`off`), or restart with a flavour. */
export const STORM_RESTARTS = ['off', ...RESTART_FLAVOURS] as const;

export const watchdogConfig = group({
  enabled: bool(true, 'Restart the gateway when a 429 storm or dead health probes stall it (false: watch only).'),
  checkIntervalSec: seconds(60, 1, DAY_SEC, 'How often the rate-limit check runs.'),
  windowSec: seconds(120, 1, DAY_SEC, 'Each check counts rate_limited calls (by their own time) in this window.'),
  threshold: int(3, 1, 1000, 'Consecutive checks with new rate_limited calls that restart the gateway.'),
  healthFailuresBeforeRestart: int(
    2,
    1,
    1000,
    'Consecutive dead probes (refused, timeouts, reset, 5xx) that restart the gateway; starting and draining never count.',
  ),
  deadAfterSec: seconds(
    30,
    0,
    DAY_SEC,
    "Least time the dead probes must span before the gateway counts as dead (OpenClaw's own in-process restart refuses connections for 5–10 s).",
  ),
  hungAfterSec: seconds(
    300,
    1,
    DAY_SEC,
    'The gateway answers its probes, but its log reports stalled sessions and no upstream attempt has been made for this long: it is hung.',
  ),
  startupGraceSec: seconds(
    300,
    1,
    DAY_SEC,
    'After a restart nothing triggers another until /startupz says started or this has passed (OpenClaw can take minutes to start).',
  ),
  maxRestartsPerHour: int(4, 1, 1000, 'Restart budget per rolling hour; when spent, the watchdog alerts and waits.'),
  restartSpacingSec: seconds(
    60,
    1,
    DAY_SEC,
    'Least time between two automatic restarts; doubles with each further restart in the hour.',
  ),
  restartCommand: optionalArgv(
    'Command that restarts the gateway (argv, no shell; exit 0 = done); null picks the openclaw CLI, then launchd (macOS) or systemd (Linux).',
  ),
  restartTimeoutSec: seconds(
    360,
    1,
    DAY_SEC,
    'A restart command still running after this is killed and the restart counts as failed (safe restarts drain up to 5 min).',
  ),
  dryRun: bool(false, 'Decide and notify, never restart.'),
  maxDeferralSec: seconds(
    600,
    1,
    DAY_SEC,
    "With stormRestart on: the longest one upstream Retry-After holds a 429-triggered restart (a restart cannot clear a provider's limit); a new Retry-After holds it again, so no storm restart runs while the provider keeps asking for a wait. OpenClaw's own cooldown holds it as long as it lasts.",
  ),
  divergenceSec: seconds(
    180,
    1,
    DAY_SEC,
    'Alarm when health probes are green while a breaker has been open or throttled this long.',
  ),
  manualRestart: oneOf(
    'safe',
    RESTART_FLAVOURS,
    'openclaw CLI restart flavour for a manual restart (drains work first).',
  ),
  healthRestart: oneOf(
    'wait',
    RESTART_FLAVOURS,
    'openclaw CLI restart flavour when the gateway is dead or hung (wait: stuck runs are cut short after stormWaitSec, and OpenClaw resumes them after the restart; force drains them for up to 5 min first).',
  ),
  stormRestart: oneOf(
    'off',
    STORM_RESTARTS,
    'Whether a 429 storm restarts the gateway, and with which openclaw CLI flavour. off: the storm is alerted and waited out, never restarted: OpenClaw retries its runs through a storm by itself and keeps its cooldowns across restarts, so a restart cannot end one (measured on OpenClaw 2026.9.6), and a gateway a storm leaves stalled is restarted as hung. safe (drains work first), wait, force, plain: restart once no Retry-After or cooldown holds, as cron watchdogs do.',
  ),
  stormWaitSec: seconds(30, 1, 3600, 'Drain bound of the wait flavour (openclaw gateway restart --wait).'),
});

export type WatchdogConfig = Infer<typeof watchdogConfig>;
type WatchdogInMs = InMs<WatchdogConfig>;

/** The keys the restarter takes (what a restart runs, with which flavour, for how long), not the policy. */
const RESTARTER_KEYS = [
  'restartCommand',
  'restartTimeoutMs',
  'manualRestart',
  'healthRestart',
  'stormRestart',
  'stormWaitMs',
] as const;

/**
 * The policy's settings: what counts as dead, hung or a storm, and the restart budget. Every watchdog key but
 * the restarter's and the check's own interval (the watchdog's timer), durations in milliseconds; `restartOnStorm`
 * is `stormRestart` as the policy weighs it (whether a storm may restart at all; the flavour is the restarter's).
 */
export type WatchdogSettings = Omit<WatchdogInMs, (typeof RESTARTER_KEYS)[number] | 'checkIntervalMs'> & {
  restartOnStorm: boolean;
};

export function watchdogSettings(config: WatchdogConfig): WatchdogSettings {
  const policy = without(inMs(watchdogConfig, config), [...RESTARTER_KEYS, 'checkIntervalMs']);
  return { ...policy, restartOnStorm: config.stormRestart !== 'off' };
}

function without<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Omit<T, K> {
  const out: Partial<T> = { ...value };
  for (const key of keys) delete out[key];
  return out as Omit<T, K>;
}

/** How often the rate-limit check runs. */
export function watchdogCheckIntervalMs(config: WatchdogConfig): number {
  return inMs(watchdogConfig, config).checkIntervalMs;
}

/** What a restart runs and how long it may take. */
export type RestartSettings = Pick<WatchdogInMs, Exclude<(typeof RESTARTER_KEYS)[number], 'stormWaitMs'>> & {
  stormWaitSec: number;
};

export function restarterSettings(config: WatchdogConfig): RestartSettings {
  const w = inMs(watchdogConfig, config);
  return {
    restartCommand: w.restartCommand,
    restartTimeoutMs: w.restartTimeoutMs,
    manualRestart: w.manualRestart,
    healthRestart: w.healthRestart,
    stormRestart: w.stormRestart,
    // The openclaw CLI takes its drain bound in seconds (`--wait <sec>`), so it stays in the config's unit.
    stormWaitSec: config.stormWaitSec,
  };
}
