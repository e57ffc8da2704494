/**
 * BreakerBar's configuration: the schema tree, loading from `config.json`, and resolution of the directories
 * BreakerBar reads and writes. Each part declares its own group in its `config.ts` (keys, defaults, docs, units,
 * and the settings it derives from them); the tree assembles those groups in the order the file, the docs and the
 * settings view show them. The keys held here belong to no single part: where things are, the local API's
 * address (the API sits above the core), history retention, the language and the log level.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import JSON5 from 'json5';
import { breakersConfig } from '../breaker/config.js';
import { fleetConfig } from '../fleet/config.js';
import { healthConfig } from '../gateway/config.js';
import { incidentsConfig } from '../incidents/config.js';
import { alertsConfig, heartbeatConfig, notificationsConfig } from '../notify/config.js';
import { quotaConfig } from '../openclaw/config.js';
import { gatewayMetricsConfig, ingestConfig } from '../sources/config.js';
import { budgetsConfig } from '../spend/config.js';
import { watchdogConfig } from '../watchdog/config.js';
import { findDuplicateKey } from './duplicate-keys.js';
import {
  bool,
  ConfigError,
  group,
  type Infer,
  int,
  oneOf,
  optionalName,
  optionalPath,
  optionalSecret,
  optionalUrl,
  parseWith,
  str,
} from './schema.js';

export { ConfigError } from './schema.js';

export const configSchema = group({
  openclawDir: optionalPath(
    'OpenClaw state directory to follow; null resolves OPENCLAW_STATE_DIR, then ~/.openclaw. Profiles: point it at ~/.openclaw-<profile>.',
  ),
  dataDir: optionalPath("Where BreakerBar keeps its database; null means BreakerBar's home directory."),
  profile: optionalName(
    'OpenClaw profile name, when the gateway runs with --profile <name>: its logs are openclaw-<name>-YYYY-MM-DD.log, its service ai.openclaw.<name> / openclaw-gateway-<name>.service.',
  ),
  gatewayLogDir: optionalPath(
    "Directory of the gateway's JSON log (openclaw-YYYY-MM-DD.log); null follows logging.file in openclaw.json, else /tmp/openclaw.",
  ),
  gatewayUrl: optionalUrl(
    'Base URL of the gateway; null resolves http://127.0.0.1:<port> with the port from OPENCLAW_GATEWAY_PORT, then gateway.port in openclaw.json, then 18789.',
  ),
  gatewayToken: optionalSecret(
    "Gateway operator token, for OpenClaw's own metrics endpoint; null resolves OPENCLAW_GATEWAY_TOKEN, then gateway.auth.token in openclaw.json.",
  ),
  gatewayMetrics: gatewayMetricsConfig,
  ingest: ingestConfig,
  breakers: breakersConfig,
  budgets: budgetsConfig,
  quota: quotaConfig,
  health: healthConfig,
  watchdog: watchdogConfig,
  notifications: notificationsConfig,
  alerts: alertsConfig,
  heartbeat: heartbeatConfig,
  fleet: fleetConfig,
  server: group({
    host: str('127.0.0.1', 'Address of the local API and /metrics; loopback unless allowNonLoopback.'),
    port: int(18820, 0, 65535, "Port of the local API and /metrics (outside OpenClaw's 18789–18800)."),
    allowNonLoopback: bool(false, 'Allow a non-loopback host (exposes /metrics and the API on the network).'),
  }),
  incidents: incidentsConfig,
  retention: group({
    days: int(30, 1, 36500, 'Stored history older than this is pruned (checked hourly).'),
  }),
  ui: group({
    language: oneOf(
      'auto',
      ['auto', 'en', 'zh-CN'] as const,
      "Language of notifications, webhooks, the tray, `status` and `doctor` (auto: the system's, from LC_ALL, LC_MESSAGES or LANG; the dashboard follows the browser unless set there).",
    ),
  }),
  log: group({
    level: oneOf('info', ['debug', 'info', 'warn', 'error'] as const, 'Lowest level the daemon logs.'),
  }),
});

export type Config = Infer<typeof configSchema>;

export interface Environment {
  env: NodeJS.ProcessEnv;
  home: string;
  platform: NodeJS.Platform;
}

export const processEnvironment = (): Environment => ({
  env: process.env,
  home: homedir(),
  platform: process.platform,
});

/** An environment variable's value; set-but-empty counts as unset (as XDG and POSIX shells mean it). */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** BreakerBar's own home (config file, default data dir), per platform convention. */
export function breakerbarHome({ env, home, platform }: Environment): string {
  const override = envValue(env, 'BREAKERBAR_HOME');
  if (override) return resolve(override);
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'BreakerBar');
  if (platform === 'win32') return join(envValue(env, 'APPDATA') ?? join(home, 'AppData', 'Roaming'), 'BreakerBar');
  return join(envValue(env, 'XDG_CONFIG_HOME') ?? join(home, '.config'), 'breakerbar');
}

export function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/') || path.startsWith('~\\')) return join(home, path.slice(2));
  return path;
}

/** The configuration as loaded, plus where it came from and the directories it resolves to. */
export interface LoadedConfig {
  config: Config;
  /** The file read, or null when defaults were used because none exists. */
  file: string | null;
  stateDir: string;
  dataDir: string;
  /** Where the gateway writes its JSON log (`gatewayLogDir`, default /tmp/openclaw). */
  gatewayLogDir: string;
  dbPath: string;
}

/** The config file read without `--config`: `$BREAKERBAR_CONFIG`, else `config.json` in BreakerBar's home. */
export function defaultConfigPath(environment: Environment): string {
  const named = envValue(environment.env, 'BREAKERBAR_CONFIG');
  return named ? resolve(named) : join(breakerbarHome(environment), 'config.json');
}

/**
 * Loads `file`, else `$BREAKERBAR_CONFIG`, else `config.json` in BreakerBar's home.
 * Only that last one may be missing (meaning: defaults); a file the user named
 * explicitly, by flag or variable, must exist.
 */
export function loadConfig(file: string | undefined, environment = processEnvironment()): LoadedConfig {
  const named = file ?? envValue(environment.env, 'BREAKERBAR_CONFIG');
  const path = file ? resolve(file) : defaultConfigPath(environment);
  let raw: unknown;
  let used: string | null = null;
  if (existsSync(path)) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`);
    }
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`config file ${path} is not valid JSON: ${(error as Error).message}`);
    }
    const duplicate = findDuplicateKey(text);
    if (duplicate) {
      throw new ConfigError(
        `config file ${path}, line ${duplicate.line}: key "${duplicate.path}" is set twice (only the last would count); keep one`,
      );
    }
    used = path;
  } else if (named) {
    throw new ConfigError(`config file ${path} does not exist${file ? '' : ' (named by BREAKERBAR_CONFIG)'}`);
  }
  let config: Config;
  try {
    config = parseWith(configSchema, raw);
  } catch (error) {
    if (error instanceof ConfigError && used) throw new ConfigError(`${used}: ${error.message}`);
    throw error;
  }
  return resolveDirectories(config, used, environment);
}

/**
 * Where the gateway writes its log when openclaw.json moves it (`logging.file`,
 * whose file name keeps OpenClaw's dated pattern): the file's directory. Null when
 * the config is missing, unreadable or does not say; the doctor reports those.
 */
function openclawLogDir(stateDir: string, environment: Environment): string | null {
  const named = envValue(environment.env, 'OPENCLAW_CONFIG_PATH');
  const path = named ? expandHome(named, environment.home) : join(stateDir, 'openclaw.json');
  let parsed: unknown;
  try {
    parsed = JSON5.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
  const file = (parsed as { logging?: { file?: unknown } } | null)?.logging?.file;
  if (typeof file !== 'string' || file.trim() === '') return null;
  return dirname(expandHome(file.trim(), environment.home));
}

export function resolveDirectories(config: Config, file: string | null, environment: Environment): LoadedConfig {
  // A relative path in the file is the file's (a service starts in another working directory than a shell);
  // one from the environment is the caller's.
  const base = file ? dirname(file) : process.cwd();
  const absolute = (p: string, from = process.cwd()) => {
    const expanded = expandHome(p, environment.home);
    return isAbsolute(expanded) ? expanded : resolve(from, expanded);
  };
  const fromFile = (p: string | null) => (p === null ? null : absolute(p, base));
  const { env } = environment;
  const stateDir =
    fromFile(config.openclawDir) ??
    absolute(
      envValue(env, 'OPENCLAW_STATE_DIR') ?? join(envValue(env, 'OPENCLAW_HOME') ?? environment.home, '.openclaw'),
    );
  const dataDir = fromFile(config.dataDir) ?? absolute(breakerbarHome(environment));
  const gatewayLogDir =
    fromFile(config.gatewayLogDir) ?? absolute(openclawLogDir(stateDir, environment) ?? join('/tmp', 'openclaw'));
  return { config, file, stateDir, dataDir, gatewayLogDir, dbPath: join(dataDir, 'breakerbar.sqlite') };
}
