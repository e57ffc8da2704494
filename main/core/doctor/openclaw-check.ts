/**
 * Check 2a: the OpenClaw state directory BreakerBar follows, where that choice
 * came from, the profile, the installed OpenClaw version, and OpenClaw's own
 * `openclaw.json`.
 */

import { spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import type { Message } from '../../words/messages/index.js';
import type { Environment, LoadedConfig } from '../config/index.js';
import { findExecutable } from '../gateway/control.js';
import { openclawConfigPath, readOpenClawConfig } from '../openclaw/gateway-endpoint.js';
import { envValue, isExecutableFile, isPermissionError, permissionFixMessage, statOrCode } from './fs-util.js';
import { type Finding, saidFinding } from './types.js';

export interface OpenClawCheck {
  findings: Finding[];
  /** Whether the state directory can be listed (the source checks need it). */
  stateDirUsable: boolean;
  /** openclaw.json's top-level object when it was read, for the checks that look at its keys. */
  openclawConfig: Record<string, unknown> | null;
}

/** Where the state directory came from, in the words of the place to change it. */
export function stateDirSource(
  loaded: LoadedConfig,
  environment: Environment,
): 'config' | 'state_dir' | 'home' | 'default' {
  if (loaded.config.openclawDir) return 'config';
  if (envValue(environment.env, 'OPENCLAW_STATE_DIR')) return 'state_dir';
  if (envValue(environment.env, 'OPENCLAW_HOME')) return 'home';
  return 'default';
}

const NO_STATE_FIX = { key: 'doctor.openclaw.noStateFix' } as const;

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
function openclawFacts(config: Record<string, unknown>): Message | undefined {
  const port = at(config, ['gateway', 'port']);
  const primary = at(config, ['agents', 'defaults', 'model', 'primary']);
  const fallbacks = at(config, ['agents', 'defaults', 'model', 'fallbacks']);
  const facts = {
    port: typeof port === 'number' || typeof port === 'string' ? String(port) : null,
    primary: typeof primary === 'string' ? primary : null,
    fallbacks: Array.isArray(fallbacks) ? fallbacks.length : null,
  };
  if (facts.port === null && facts.primary === null && facts.fallbacks === null) return undefined;
  return { key: 'doctor.openclaw.facts', params: facts };
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
    return saidFinding(
      'openclaw',
      'ok',
      { key: 'doctor.openclaw.version', params: { version: found.version } },
      {
        key: 'doctor.openclaw.versionFrom',
        params: { binary: found.binary ?? '', how: found.how === 'its package.json' ? 'package' : 'cli' },
      },
    );
  }
  // Informational: BreakerBar reads OpenClaw's files by their shape, whatever the version.
  // With a binary, the detail is what asking it gave (its own output).
  return saidFinding(
    'openclaw',
    'info',
    { key: 'doctor.openclaw.versionUnknown' },
    found.binary ? `${found.binary}: ${found.how}` : { key: 'doctor.openclaw.noCli' },
  );
}

export function checkOpenClaw(loaded: LoadedConfig, environment: Environment): OpenClawCheck {
  const findings: Finding[] = [];
  const { stateDir } = loaded;
  const source = stateDirSource(loaded, environment);
  const from = { key: 'doctor.openclaw.from', params: { source } } as const;
  let stateDirUsable = false;

  const stat = statOrCode(stateDir);
  if ('code' in stat) {
    if (stat.code === 'ENOENT') {
      const others = siblingStateDirs(stateDir);
      findings.push(
        saidFinding(
          'openclaw',
          'error',
          { key: 'doctor.openclaw.stateMissing', params: { dir: stateDir } },
          { key: 'doctor.openclaw.fromWithOthers', params: { source, others } },
          NO_STATE_FIX,
        ),
      );
    } else if (stat.code === 'EACCES' || stat.code === 'EPERM') {
      findings.push(
        saidFinding(
          'openclaw',
          'error',
          { key: 'doctor.openclaw.stateDenied', params: { dir: stateDir } },
          from,
          permissionFixMessage(dirname(stateDir)),
        ),
      );
    } else {
      findings.push(
        saidFinding(
          'openclaw',
          'error',
          { key: 'doctor.openclaw.stateUnusable', params: { dir: stateDir, code: stat.code } },
          from,
          NO_STATE_FIX,
        ),
      );
    }
  } else if (!stat.stats.isDirectory()) {
    findings.push(
      saidFinding(
        'openclaw',
        'error',
        { key: 'doctor.openclaw.notDirectory', params: { dir: stateDir } },
        from,
        NO_STATE_FIX,
      ),
    );
  } else {
    try {
      accessSync(stateDir, constants.R_OK | constants.X_OK);
      stateDirUsable = true;
      findings.push(
        saidFinding('openclaw', 'ok', { key: 'doctor.openclaw.stateDir', params: { dir: stateDir } }, from),
      );
    } catch (error) {
      findings.push(
        saidFinding(
          'openclaw',
          'error',
          { key: 'doctor.openclaw.stateUnreadable', params: { dir: stateDir, denied: isPermissionError(error) } },
          from,
          permissionFixMessage(stateDir),
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
        saidFinding(
          'openclaw',
          'warn',
          { key: 'doctor.openclaw.profileMismatch', params: { profile, dir: stateDir } },
          { key: 'doctor.openclaw.profileMismatchDetail', params: { profile, expected } },
          { key: 'doctor.openclaw.profileMismatchFix', params: { expected } },
        ),
      );
    } else {
      findings.push(
        saidFinding(
          'openclaw',
          'info',
          { key: 'doctor.openclaw.profile', params: { profile } },
          { key: 'doctor.openclaw.profileDetail', params: { profile } },
        ),
      );
    }
  }

  const configPath = openclawConfigPath(loaded, environment);
  const read = readOpenClawConfig(configPath);
  if (read.warning) {
    findings.push(
      // The warning is readOpenClawConfig's own line (a path, the parser's message), as it is.
      saidFinding(
        'openclaw',
        'warn',
        { key: 'doctor.openclaw.configUnusable' },
        read.warning,
        /EACCES|EPERM/.test(read.warning)
          ? permissionFixMessage(configPath)
          : { key: 'doctor.openclaw.configUnusableFix' },
      ),
    );
  } else if (read.config) {
    findings.push(
      saidFinding(
        'openclaw',
        'ok',
        { key: 'doctor.openclaw.configRead', params: { path: configPath } },
        openclawFacts(read.config),
      ),
    );
  } else {
    findings.push(
      saidFinding(
        'openclaw',
        'info',
        { key: 'doctor.openclaw.noConfig', params: { path: configPath } },
        { key: 'doctor.openclaw.noConfigDetail' },
      ),
    );
  }

  return { findings, stateDirUsable, openclawConfig: read.config };
}
