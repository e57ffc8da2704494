/**
 * Check 2a: the OpenClaw state directory BreakerBar follows, where that choice
 * came from, the profile, the installed OpenClaw version, and OpenClaw's own
 * `openclaw.json`.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import type { Environment, LoadedConfig } from '../config/index.js';
import { findExecutable } from '../gateway/control.js';
import { openclawConfigPath, readOpenClawConfig } from '../openclaw/gateway-endpoint.js';
import { envValue, isExecutableFile, isPermissionError, permissionFix, statOrCode } from './fs-util.js';
import { type Finding, finding } from './types.js';

export interface OpenClawCheck {
  findings: Finding[];
  /** Whether the state directory can be listed (the source checks need it). */
  stateDirUsable: boolean;
  /** openclaw.json's top-level object when it was read, for the checks that look at its keys. */
  openclawConfig: Record<string, unknown> | null;
}

/** Where the state directory came from, in the words of the place to change it. */
export function stateDirSource(loaded: LoadedConfig, environment: Environment): string {
  if (loaded.config.openclawDir) return "openclawDir in BreakerBar's config";
  if (envValue(environment.env, 'OPENCLAW_STATE_DIR')) return 'OPENCLAW_STATE_DIR';
  if (envValue(environment.env, 'OPENCLAW_HOME')) return 'OPENCLAW_HOME/.openclaw';
  return "OpenClaw's default, ~/.openclaw";
}

const NO_STATE_FIX =
  "start the gateway once (`openclaw gateway start`) so it creates its state, or point openclawDir in BreakerBar's config (or OPENCLAW_STATE_DIR) at the right place";

/** Other OpenClaw state directories next to the expected one (`~/.openclaw-<profile>`), as hints. */
function siblingStateDirs(stateDir: string): string[] {
  try {
    return readdirSync(dirname(stateDir), { withFileTypes: true })
      .filter((e) => e.isDirectory() && /^\.openclaw(-[A-Za-z0-9_-]+)?$/.test(e.name))
      .map((e) => join(dirname(stateDir), e.name))
      .filter((p) => p !== stateDir)
      .sort();
  } catch {
    return [];
  }
}

function at(config: Record<string, unknown> | null, path: readonly string[]): unknown {
  let node: unknown = config;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A few facts from openclaw.json worth seeing beside BreakerBar's own view (never a token). */
function openclawFacts(config: Record<string, unknown>): string {
  const facts: string[] = [];
  const port = at(config, ['gateway', 'port']);
  if (typeof port === 'number' || typeof port === 'string') facts.push(`gateway.port ${port}`);
  const primary = at(config, ['agents', 'defaults', 'model', 'primary']);
  if (typeof primary === 'string') facts.push(`primary model ${primary}`);
  const fallbacks = at(config, ['agents', 'defaults', 'model', 'fallbacks']);
  if (Array.isArray(fallbacks)) facts.push(`${fallbacks.length} fallback model(s)`);
  return facts.join(', ');
}

/** How long `openclaw --version` may take; the doctor must answer even when the CLI hangs. */
export const OPENCLAW_VERSION_TIMEOUT_MS = 3000;
/** How far above the CLI's real path its package.json may be (npm: <pkg>/openclaw.mjs, or <pkg>/bin/…). */
const PACKAGE_SEARCH_DEPTH = 3;

export interface OpenClawVersion {
  /** The openclaw CLI found (PATH, then the usual install places, as the restarter looks), or null. */
  binary: string | null;
  version: string | null;
  /** Where the version came from, or why it is unknown. */
  how: string;
}

/** The `version` of the `openclaw` package the CLI belongs to (an npm install links the CLI into it). */
function packageVersion(binary: string): string | null {
  let dir: string;
  try {
    dir = dirname(realpathSync(binary));
  } catch {
    return null;
  }
  for (let depth = 0; depth <= PACKAGE_SEARCH_DEPTH; depth++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'openclaw' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // No (readable) package.json here: look one directory up.
    }
  }
  return null;
}

/**
 * `openclaw --version`, killed after a timeout. The deadline holds even when
 * the CLI re-spawns itself and a child keeps its output open: on timeout
 * `spawnSync` kills the CLI and closes the pipes itself.
 */
function commandVersion(binary: string, env: NodeJS.ProcessEnv): { version: string | null; problem: string } {
  // Node's own directory first, as the restarter runs it: the CLI is a `#!/usr/bin/env node` script.
  const PATH = [dirname(process.execPath), env.PATH].filter(Boolean).join(delimiter);
  const run = spawnSync(binary, ['--version'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...env, PATH },
    encoding: 'utf8',
    timeout: OPENCLAW_VERSION_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024,
    windowsHide: true,
  });
  // Output first: a CLI that printed its version and then lingered still said it.
  const version = /\b(\d{4}\.\d+\.\d+(?:[-.][0-9A-Za-z.]+)?)\b/.exec(run.stdout ?? '')?.[1] ?? null;
  if (version) return { version, problem: '' };
  if (run.error) {
    const timedOut = (run.error as NodeJS.ErrnoException).code === 'ETIMEDOUT';
    return {
      version: null,
      problem: timedOut
        ? `\`openclaw --version\` did not answer within ${OPENCLAW_VERSION_TIMEOUT_MS / 1000} s`
        : `\`openclaw --version\` could not run (${run.error.message})`,
    };
  }
  return { version: null, problem: `\`openclaw --version\` printed no version (exit ${run.status ?? run.signal})` };
}

/** The installed OpenClaw's version: from its package.json when the CLI is an npm install, else by asking the CLI. */
export function openclawVersion(environment: Environment): OpenClawVersion {
  const binary = findExecutable('openclaw', {
    platform: environment.platform,
    uid: null,
    profile: null,
    env: environment.env,
    home: environment.home,
    exists: isExecutableFile,
  });
  if (binary === null) return { binary, version: null, how: 'no openclaw CLI on PATH or in the usual install places' };
  const fromPackage = packageVersion(binary);
  if (fromPackage) return { binary, version: fromPackage, how: 'its package.json' };
  const asked = commandVersion(binary, environment.env);
  return asked.version
    ? { binary, version: asked.version, how: '`openclaw --version`' }
    : { binary, version: null, how: asked.problem };
}

function versionFinding(environment: Environment): Finding {
  const found = openclawVersion(environment);
  if (found.version) {
    return finding('openclaw', 'ok', `OpenClaw ${found.version}`, `${found.binary}, version from ${found.how}`);
  }
  // Informational: BreakerBar reads OpenClaw's files by their shape, whatever the version.
  return finding(
    'openclaw',
    'info',
    'OpenClaw version unknown',
    found.binary ? `${found.binary}: ${found.how}` : found.how,
  );
}

export function checkOpenClaw(loaded: LoadedConfig, environment: Environment): OpenClawCheck {
  const findings: Finding[] = [];
  const { stateDir } = loaded;
  const source = stateDirSource(loaded, environment);
  let stateDirUsable = false;

  const stat = statOrCode(stateDir);
  if ('code' in stat) {
    if (stat.code === 'ENOENT') {
      const others = siblingStateDirs(stateDir);
      findings.push(
        finding(
          'openclaw',
          'error',
          `OpenClaw state directory ${stateDir} does not exist`,
          `from ${source}${others.length > 0 ? `; other OpenClaw state directories here: ${others.join(', ')}` : ''}`,
          NO_STATE_FIX,
        ),
      );
    } else if (stat.code === 'EACCES' || stat.code === 'EPERM') {
      findings.push(
        finding(
          'openclaw',
          'error',
          `cannot reach the OpenClaw state directory ${stateDir} (permission denied)`,
          `from ${source}`,
          permissionFix(dirname(stateDir)),
        ),
      );
    } else {
      findings.push(
        finding(
          'openclaw',
          'error',
          `cannot use the OpenClaw state directory ${stateDir} (${stat.code})`,
          `from ${source}`,
          NO_STATE_FIX,
        ),
      );
    }
  } else if (!stat.stats.isDirectory()) {
    findings.push(finding('openclaw', 'error', `${stateDir} is not a directory`, `from ${source}`, NO_STATE_FIX));
  } else {
    try {
      accessSync(stateDir, constants.R_OK | constants.X_OK);
      stateDirUsable = true;
      findings.push(finding('openclaw', 'ok', `state directory ${stateDir}`, `from ${source}`));
    } catch (error) {
      findings.push(
        finding(
          'openclaw',
          'error',
          `cannot read the OpenClaw state directory ${stateDir}${isPermissionError(error) ? ' (permission denied)' : ''}`,
          `from ${source}`,
          permissionFix(stateDir),
        ),
      );
    }
  }

  findings.push(versionFinding(environment));

  const profile = loaded.config.profile;
  if (profile !== null) {
    const expected = `.openclaw-${profile}`;
    const chosen = loaded.config.openclawDir || envValue(environment.env, 'OPENCLAW_STATE_DIR');
    if (!chosen && basename(stateDir) !== expected) {
      findings.push(
        finding(
          'openclaw',
          'warn',
          `profile "${profile}" is set, but the state directory is ${stateDir}`,
          `a gateway started with --profile ${profile} keeps its state in ~/${expected}`,
          `set openclawDir to ~/${expected} in BreakerBar's config`,
        ),
      );
    } else {
      findings.push(
        finding(
          'openclaw',
          'info',
          `profile "${profile}"`,
          `gateway log openclaw-${profile}-YYYY-MM-DD.log, service ai.openclaw.${profile} / openclaw-gateway-${profile}.service`,
        ),
      );
    }
  }

  const configPath = openclawConfigPath(loaded, environment);
  const read = readOpenClawConfig(configPath);
  if (read.warning) {
    findings.push(
      finding(
        'openclaw',
        'warn',
        `openclaw.json cannot be used`,
        read.warning,
        /EACCES|EPERM/.test(read.warning)
          ? permissionFix(configPath)
          : 'fix it where the message says (the gateway reads the same file); BreakerBar uses the defaults meanwhile',
      ),
    );
  } else if (read.config) {
    findings.push(finding('openclaw', 'ok', `openclaw.json read: ${configPath}`, openclawFacts(read.config)));
  } else {
    findings.push(
      finding(
        'openclaw',
        'info',
        `no openclaw.json at ${configPath}`,
        'OpenClaw then runs on its defaults (port 18789); OPENCLAW_CONFIG_PATH names another file',
      ),
    );
  }

  return { findings, stateDirUsable, openclawConfig: read.config };
}
