/**
 * Check 2a: the OpenClaw state directory BreakerBar follows, where that choice
 * came from, the profile, and OpenClaw's own `openclaw.json`.
 */
import { accessSync, constants, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Environment, LoadedConfig } from '../config/index.js';
import { openclawConfigPath, readOpenClawConfig } from '../openclaw/gateway-endpoint.js';
import { envValue, isPermissionError, permissionFix, statOrCode } from './fs-util.js';
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
