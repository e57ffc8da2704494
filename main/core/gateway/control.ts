/**
 * How to restart the gateway here, and what the attempt's exit meant (shared
 * docs, "Service control" and "Restarting well"). Choosing is pure: the
 * platform, user, profile, PATH and file checks come in as a
 * StrategyEnvironment, so every branch is testable on any machine.
 *
 * Preference order: the user's own `watchdog.restartCommand`; the `openclaw`
 * CLI (it knows how to drain, and reports "still starting" with exit 2); then
 * the service manager directly (launchd on macOS, systemd --user on Linux).
 */
import { posix, win32 } from 'node:path';
import type { CommandResult } from './run-command.js';

export type RestartTrigger = 'manual' | 'health' | 'storm';
export type RestartFlavour = 'safe' | 'force' | 'wait' | 'plain';

export interface StrategyEnvironment {
  platform: NodeJS.Platform;
  uid: number | null;
  /** OpenClaw profile (`--profile`), null for the default gateway. */
  profile: string | null;
  env: NodeJS.ProcessEnv;
  home: string;
  /** Whether an executable file exists at this path. */
  exists(path: string): boolean;
}

export interface RestartPlan {
  strategy: 'command' | 'openclaw' | 'launchd' | 'systemd';
  argv: string[];
  description: string;
}

export interface StrategyChoice {
  plan: RestartPlan | null;
  /** Why there is no plan, with a fix hint; null when there is one. */
  problem: string | null;
}

export interface RestartOptions {
  restartCommand: string[] | null;
  flavour: RestartFlavour;
  waitSec: number;
}

export type RestartOutcome = 'done' | 'still_starting' | 'failed';

export interface RestartInterpretation {
  outcome: RestartOutcome;
  message: string;
}

/**
 * Where the openclaw CLI is usually installed but a service's PATH does not
 * look: launchd starts agents with /usr/bin:/bin:/usr/sbin:/sbin only.
 * `~` is the user's home.
 */
export const EXTRA_BIN_DIRS = [
  '/opt/homebrew/bin',
  '/usr/local/bin',
  '~/.npm-global/bin',
  '~/.local/bin',
  '~/.volta/bin',
  '~/.bun/bin',
] as const;

/** Exit code of `openclaw gateway restart` when the new gateway is still starting. */
export const OPENCLAW_STILL_STARTING = 2;

const FIX_HINT = 'set watchdog.restartCommand';

function pathFor(platform: NodeJS.Platform): typeof posix {
  return platform === 'win32' ? win32 : posix;
}

/**
 * The first executable called `name` on PATH, then in the usual install
 * places. Names with a directory part are only checked as given. Empty PATH
 * entries (which would mean the current directory) are skipped.
 */
export function findExecutable(name: string, env: StrategyEnvironment): string | null {
  if (name === '') return null;
  const path = pathFor(env.platform);
  if (name.includes('/') || (env.platform === 'win32' && name.includes('\\'))) {
    return env.exists(name) ? name : null;
  }
  const separator = env.platform === 'win32' ? ';' : ':';
  const pathValue = env.env.PATH ?? env.env.Path ?? '';
  const dirs = pathValue.split(separator).filter((dir) => dir !== '');
  // POSIX install places only: on Windows, installers put the CLI on PATH.
  if (env.platform !== 'win32') {
    for (const extra of EXTRA_BIN_DIRS) {
      dirs.push(extra.startsWith('~/') ? path.join(env.home, extra.slice(2)) : extra);
    }
  }
  const names =
    env.platform === 'win32'
      ? [
          name,
          ...(env.env.PATHEXT ?? '.EXE;.CMD;.BAT')
            .split(';')
            .filter((ext) => ext !== '')
            .map((ext) => name + ext),
        ]
      : [name];
  for (const dir of dirs) {
    for (const candidate of names) {
      const full = path.join(dir, candidate);
      if (env.exists(full)) return full;
    }
  }
  return null;
}

function flavourArgs(flavour: RestartFlavour, waitSec: number): string[] {
  switch (flavour) {
    case 'safe':
      return ['--safe'];
    case 'force':
      return ['--force'];
    case 'wait':
      return ['--wait', `${Math.max(1, Math.round(waitSec))}s`];
    case 'plain':
      return [];
  }
}

/** Picks how to restart the gateway; the flavour only applies to the openclaw CLI. */
export function chooseRestart(options: RestartOptions, env: StrategyEnvironment): StrategyChoice {
  const profile = env.profile !== null && env.profile.trim() !== '' ? env.profile.trim() : null;

  if (options.restartCommand !== null) {
    const argv = options.restartCommand;
    if (argv.length === 0 || argv[0] === '') {
      return { plan: null, problem: 'watchdog.restartCommand is empty: give the program and its arguments, or null' };
    }
    return {
      plan: { strategy: 'command', argv: [...argv], description: `restart command: ${argv.join(' ')}` },
      problem: null,
    };
  }

  const openclaw = findExecutable('openclaw', env);
  if (openclaw !== null) {
    const argv = [
      openclaw,
      ...(profile ? ['--profile', profile] : []),
      'gateway',
      'restart',
      '--json',
      ...flavourArgs(options.flavour, options.waitSec),
    ];
    const how = options.flavour === 'wait' ? `wait ${argv[argv.length - 1]}` : options.flavour;
    return {
      plan: {
        strategy: 'openclaw',
        argv,
        description: `openclaw gateway restart (${how}${profile ? `, profile ${profile}` : ''})`,
      },
      problem: null,
    };
  }

  if (env.platform === 'darwin') {
    if (env.uid === null) {
      return { plan: null, problem: `no openclaw CLI found and the user id for launchctl is unknown: ${FIX_HINT}` };
    }
    const label = profile ? `ai.openclaw.${profile}` : 'ai.openclaw.gateway';
    // launchctl always lives in /bin on macOS; PATH may not say so under launchd.
    const launchctl = findExecutable('launchctl', env) ?? '/bin/launchctl';
    return {
      plan: {
        strategy: 'launchd',
        argv: [launchctl, 'kickstart', '-k', `gui/${env.uid}/${label}`],
        description: `launchctl kickstart -k ${label}`,
      },
      problem: null,
    };
  }

  if (env.platform === 'linux') {
    const systemctl = findExecutable('systemctl', env);
    if (systemctl === null) {
      return { plan: null, problem: `no openclaw CLI and no systemctl on PATH: ${FIX_HINT}` };
    }
    const unit = profile ? `openclaw-gateway-${profile}.service` : 'openclaw-gateway.service';
    return {
      plan: {
        strategy: 'systemd',
        argv: [systemctl, '--user', 'restart', unit],
        description: `systemctl --user restart ${unit}`,
      },
      problem: null,
    };
  }

  return { plan: null, problem: `no openclaw CLI on PATH, not macOS/Linux: ${FIX_HINT}` };
}

const REASON_MAX = 200;

function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > REASON_MAX ? `${line.slice(0, REASON_MAX - 1)}…` : line;
}

/** The last non-empty line of some output, shortened. */
function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  return shorten(lines[lines.length - 1] ?? '');
}

/**
 * A short reason from the CLI's `--json` output, whatever its exact shape:
 * the first string among the usual fields (`error` may be a string or an
 * object with a message). Null when stdout is not a JSON object.
 */
export function reasonFromJson(stdout: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout.trim());
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const record = parsed as Record<string, unknown>;
  const error = record.error;
  if (error !== null && typeof error === 'object') {
    const message = (error as Record<string, unknown>).message;
    if (typeof message === 'string' && message.trim() !== '') return shorten(message);
  }
  for (const key of ['error', 'message', 'reason', 'detail', 'status'] as const) {
    const value = record[key];
    if (typeof value === 'string' && value.trim() !== '') return shorten(value);
  }
  return null;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** What a restart attempt's exit means. */
export function interpretRestart(plan: RestartPlan, result: CommandResult): RestartInterpretation {
  if (result.spawnError !== null) {
    return { outcome: 'failed', message: `${plan.description} could not start: ${result.spawnError}` };
  }
  if (result.timedOut) {
    return {
      outcome: 'failed',
      message: `${plan.description} still running after ${seconds(result.durationMs)}: stopped it (timeout)`,
    };
  }
  if (result.signal !== null) {
    return { outcome: 'failed', message: `${plan.description} was killed by ${result.signal}` };
  }

  const reason =
    (plan.strategy === 'openclaw' ? reasonFromJson(result.stdout) : null) ||
    lastLine(result.stderr) ||
    lastLine(result.stdout);
  const because = reason ? `: ${reason}` : '';

  if (result.exitCode === 0) return { outcome: 'done', message: `${plan.description}: done` };
  if (plan.strategy === 'openclaw' && result.exitCode === OPENCLAW_STILL_STARTING) {
    return { outcome: 'still_starting', message: `${plan.description}: gateway still starting${because}` };
  }
  return { outcome: 'failed', message: `${plan.description} failed with exit code ${result.exitCode}${because}` };
}
