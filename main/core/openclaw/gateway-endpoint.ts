/**
 * Where the OpenClaw gateway listens and which operator token it expects, as
 * BreakerBar can tell from its own config, the environment and OpenClaw's
 * `openclaw.json`. The gateway is only ever reached on loopback.
 *
 * The token is a secret: it is returned for the HTTP client to use and never
 * put in a warning, a log line or the store.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import JSON5 from 'json5';
import { type Environment, expandHome, type LoadedConfig } from '../config/index.js';

export const DEFAULT_GATEWAY_PORT = 18789;

export type PortSource = 'config' | 'env' | 'openclaw.json' | 'default';
export type TokenSource = 'config' | 'env' | 'openclaw.json';

export interface GatewayEndpoint {
  port: number;
  portSource: PortSource;
  token: string | null;
  tokenSource: TokenSource | null;
  /** `gatewayUrl`, else `http://127.0.0.1:<port>`. */
  baseUrl: string;
  /** The openclaw.json consulted (or that would be), for messages that tell the user where to look. */
  openclawConfigPath: string;
  /** Values found but not usable; they name the file or variable, never a secret. */
  warnings: string[];
}

export interface OpenClawConfigRead {
  /** The parsed top-level object, or null when the file is missing or unusable. */
  config: Record<string, unknown> | null;
  /** Why an existing file could not be used; null when it was read or simply does not exist. */
  warning: string | null;
}

/** Set-but-blank counts as unset, as in `config/index.ts`. */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** `OPENCLAW_CONFIG_PATH` if set, else `<stateDir>/openclaw.json` (OpenClaw's own rule). */
export function openclawConfigPath(loaded: Pick<LoadedConfig, 'stateDir'>, environment: Environment): string {
  const named = envValue(environment.env, 'OPENCLAW_CONFIG_PATH');
  if (!named) return join(loaded.stateDir, 'openclaw.json');
  const expanded = expandHome(named, environment.home);
  return isAbsolute(expanded) ? expanded : resolve(expanded);
}

/**
 * Reads OpenClaw's JSON5 config. A missing file is normal (OpenClaw runs on
 * defaults); anything else that stops it from being used is a warning naming
 * the file and, for syntax errors, the position only: the text around the
 * error could be part of a token.
 */
export function readOpenClawConfig(path: string): OpenClawConfigRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { config: null, warning: null };
    return { config: null, warning: `cannot read OpenClaw config ${path} (${code ?? 'unknown error'}); ignoring it` };
  }
  let parsed: unknown;
  try {
    parsed = JSON5.parse(text);
  } catch (error) {
    return { config: null, warning: `OpenClaw config ${path} is not valid JSON5${position(error)}; ignoring it` };
  }
  if (!isRecord(parsed)) return { config: null, warning: `OpenClaw config ${path} is not an object; ignoring it` };
  return { config: parsed, warning: null };
}

function position(error: unknown): string {
  const { lineNumber, columnNumber } = error as { lineNumber?: unknown; columnNumber?: unknown };
  return typeof lineNumber === 'number' && typeof columnNumber === 'number'
    ? ` (line ${lineNumber}, column ${columnNumber})`
    : '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `gateway.auth.token` → the value at that path, or undefined. */
function at(config: Record<string, unknown> | null, path: readonly string[]): unknown {
  let node: unknown = config;
  for (const key of path) {
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return node;
}

function validPort(value: unknown): number | null {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 65535 ? n : null;
}

/** openclaw.json read at most once, and only when a value has to come from it. */
class LazyOpenClawConfig {
  private read: OpenClawConfigRead | null = null;
  constructor(
    readonly path: string,
    private readonly warnings: string[],
  ) {}

  get(keyPath: readonly string[]): unknown {
    if (!this.read) {
      this.read = readOpenClawConfig(this.path);
      if (this.read.warning) this.warnings.push(this.read.warning);
    }
    return at(this.read.config, keyPath);
  }
}

/** The port a configured URL names, or its scheme's default. */
function portOfUrl(url: string): number {
  const parsed = new URL(url);
  return parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
}

function resolvePort(
  env: NodeJS.ProcessEnv,
  openclaw: LazyOpenClawConfig,
  warnings: string[],
): { port: number; portSource: PortSource } {
  const fromEnv = envValue(env, 'OPENCLAW_GATEWAY_PORT');
  if (fromEnv !== undefined) {
    const port = /^\d+$/.test(fromEnv) ? validPort(fromEnv) : null;
    if (port !== null) return { port, portSource: 'env' };
    warnings.push(`OPENCLAW_GATEWAY_PORT="${fromEnv.slice(0, 20)}" is not a port (1-65535); ignoring it`);
  }
  const fromFile = openclaw.get(['gateway', 'port']);
  if (fromFile !== undefined && fromFile !== null) {
    const port = validPort(fromFile);
    if (port !== null) return { port, portSource: 'openclaw.json' };
    warnings.push(`gateway.port in ${openclaw.path} is not a port (1-65535); ignoring it`);
  }
  return { port: DEFAULT_GATEWAY_PORT, portSource: 'default' };
}

/** OpenClaw substitutes `${NAME}` (upper-case names) from its environment; `$${NAME}` is a literal. */
const ENV_REFERENCE = /\$?\$\{([A-Z_][A-Z0-9_]*)\}/g;

/**
 * A token written in openclaw.json, resolved the way OpenClaw resolves it as
 * far as BreakerBar can: `${VAR}` substitution and `{ source: "env", id }`
 * secret refs read BreakerBar's environment; other secret-ref sources are not
 * followed.
 */
function tokenFromFile(value: unknown, env: NodeJS.ProcessEnv, where: string, warnings: string[]): string | null {
  if (typeof value === 'string') {
    const missing: string[] = [];
    const resolved = value.replace(ENV_REFERENCE, (whole: string, name: string) => {
      if (whole.startsWith('$$')) return whole.slice(1);
      const found = envValue(env, name);
      if (found === undefined) missing.push(name);
      return found ?? '';
    });
    if (missing.length > 0) {
      warnings.push(`${where} refers to \${${missing.join('}, ${')}}, not set in BreakerBar's environment`);
      return null;
    }
    return resolved.trim() === '' ? null : resolved.trim();
  }
  if (isRecord(value)) {
    if (value.source === 'env' && typeof value.id === 'string') {
      const found = envValue(env, value.id);
      if (found !== undefined) return found;
      warnings.push(`${where} refers to environment variable ${value.id}, not set in BreakerBar's environment`);
      return null;
    }
    warnings.push(
      `${where} is a secret reference BreakerBar cannot follow; set gatewayToken in BreakerBar's config or OPENCLAW_GATEWAY_TOKEN`,
    );
    return null;
  }
  if (value !== undefined && value !== null) warnings.push(`${where} is not a string; ignoring it`);
  return null;
}

function resolveToken(
  loaded: LoadedConfig,
  env: NodeJS.ProcessEnv,
  openclaw: LazyOpenClawConfig,
  warnings: string[],
): { token: string | null; tokenSource: TokenSource | null } {
  const fromConfig = loaded.config.gatewayToken?.trim();
  if (fromConfig) return { token: fromConfig, tokenSource: 'config' };
  const fromEnv = envValue(env, 'OPENCLAW_GATEWAY_TOKEN');
  if (fromEnv !== undefined) return { token: fromEnv, tokenSource: 'env' };
  const where = `gateway.auth.token in ${openclaw.path}`;
  const fromFile = tokenFromFile(openclaw.get(['gateway', 'auth', 'token']), env, where, warnings);
  return fromFile === null ? { token: null, tokenSource: null } : { token: fromFile, tokenSource: 'openclaw.json' };
}

/**
 * URL: config `gatewayUrl`, else `http://127.0.0.1:<port>` with the port from
 * `OPENCLAW_GATEWAY_PORT` → `gateway.port` in openclaw.json → 18789. Token:
 * config `gatewayToken` →
 * `OPENCLAW_GATEWAY_TOKEN` → `gateway.auth.token` in openclaw.json. An
 * unusable value is a warning and the next place is tried.
 */
export function resolveGatewayEndpoint(loaded: LoadedConfig, environment: Environment): GatewayEndpoint {
  const warnings: string[] = [];
  const openclaw = new LazyOpenClawConfig(openclawConfigPath(loaded, environment), warnings);
  const configured = loaded.config.gatewayUrl;
  const { port, portSource } = configured
    ? { port: portOfUrl(configured), portSource: 'config' as const }
    : resolvePort(environment.env, openclaw, warnings);
  const { token, tokenSource } = resolveToken(loaded, environment.env, openclaw, warnings);
  return {
    port,
    portSource,
    token,
    tokenSource,
    baseUrl: configured ?? `http://127.0.0.1:${port}`,
    openclawConfigPath: openclaw.path,
    warnings,
  };
}
