/**
 * What the strategies read from the machine: where programs are, and which
 * OpenClaw profile the gateway runs under.
 */
import { pathFor } from './steps.js';
import type { StrategyEnvironment } from './types.js';

/**
 * Where the openclaw CLI is usually installed but a service's PATH does not
 * look: launchd starts agents with /usr/bin:/bin:/usr/sbin:/sbin only.
 * `~/.openclaw/bin` is where OpenClaw's local-prefix installer (and the macOS
 * app's setup) put the CLI. `~` is the user's home.
 */
export const EXTRA_BIN_DIRS = [
  '/opt/homebrew/bin',
  '/usr/local/bin',
  '~/.openclaw/bin',
  '~/.npm-global/bin',
  '~/.local/bin',
  '~/.volta/bin',
  '~/.bun/bin',
] as const;

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

/**
 * The profile the gateway's service is named after: null for none. OpenClaw
 * treats a blank profile and `default` (any case) as the default gateway.
 */
export function serviceProfile(env: StrategyEnvironment): string | null {
  const profile = env.profile?.trim() ?? '';
  return profile === '' || profile.toLowerCase() === 'default' ? null : profile;
}

/**
 * An explicit service name from the environment (OPENCLAW_LAUNCHD_LABEL,
 * OPENCLAW_SYSTEMD_UNIT). OpenClaw honours these for the default profile
 * only: a named profile always uses its derived name.
 */
export function serviceNameOverride(env: StrategyEnvironment, variable: string): string | null {
  if (serviceProfile(env) !== null) return null;
  const value = env.env[variable]?.trim() ?? '';
  return value === '' ? null : value;
}
