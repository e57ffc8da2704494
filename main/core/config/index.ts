/**
 * BreakerBar's configuration: the schema (keys, defaults, docs), loading from
 * `config.json`, and resolution of the directories BreakerBar reads and writes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import {
  bool,
  ConfigError,
  group,
  type Infer,
  int,
  oneOf,
  optionalInt,
  optionalName,
  optionalPath,
  optionalSecret,
  parseWith,
} from './schema.js';

export { ConfigError } from './schema.js';

export const configSchema = group({
  stateDir: optionalPath(
    'OpenClaw state directory to follow; null resolves OPENCLAW_STATE_DIR, then ~/.openclaw. Profiles: point it at ~/.openclaw-<profile>.',
  ),
  dataDir: optionalPath("Where BreakerBar keeps its database; null means BreakerBar's home directory."),
  profile: optionalName(
    'OpenClaw profile name, when the gateway runs with --profile <name>: its logs are openclaw-<name>-YYYY-MM-DD.log.',
  ),
  gatewayLogDir: optionalPath(
    "Directory of the gateway's JSON log (openclaw-YYYY-MM-DD.log); null means /tmp/openclaw.",
  ),
  gateway: group({
    port: optionalInt(
      1,
      65535,
      'Gateway port on loopback; null resolves OPENCLAW_GATEWAY_PORT, then gateway.port in openclaw.json, then 18789.',
    ),
    token: optionalSecret(
      "Gateway operator token, for OpenClaw's own metrics endpoint; null resolves OPENCLAW_GATEWAY_TOKEN, then gateway.auth.token in openclaw.json.",
    ),
  }),
  gatewayMetrics: group({
    enabled: bool(
      true,
      "Scrape the gateway's own metrics (diagnostics-prometheus plugin) when it answers; transcripts stay the source of truth where they have the calls.",
    ),
    intervalMs: int(5000, 1000, 600000, 'How often the gateway metrics endpoint is scraped.'),
  }),
  ingest: group({
    backfillDays: int(
      7,
      0,
      3650,
      'On first start, store records up to this many days old (by their own time); 0 stores only what is written from now on.',
    ),
    includeArchives: bool(
      false,
      'Also read archived transcripts (*.jsonl.reset.*, *.jsonl.deleted.*, .corrupt-, .bak).',
    ),
    reconcileIntervalMs: int(
      5000,
      100,
      600000,
      'How often every followed file and directory is re-checked (stat, list) in case the file watcher missed a change; the watcher and quick re-checks after each read keep latency low in between.',
    ),
    sqliteMaxSchemaVersion: int(
      19,
      1,
      1000,
      'Newest OpenClaw agent-database schema (user_version) BreakerBar reads; newer databases are reported, not guessed at.',
    ),
    maxLineBytes: int(
      64 * 1024 * 1024,
      1024,
      1024 * 1024 * 1024,
      'Longest line accepted; longer lines are skipped and counted as malformed.',
    ),
  }),
  retention: group({
    days: int(30, 1, 36500, 'Stored history older than this is pruned (checked hourly).'),
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

export function resolveDirectories(config: Config, file: string | null, environment: Environment): LoadedConfig {
  const absolute = (p: string) => {
    const expanded = expandHome(p, environment.home);
    return isAbsolute(expanded) ? expanded : resolve(expanded);
  };
  const { env } = environment;
  const stateDir = absolute(
    config.stateDir ??
      envValue(env, 'OPENCLAW_STATE_DIR') ??
      join(envValue(env, 'OPENCLAW_HOME') ?? environment.home, '.openclaw'),
  );
  const dataDir = absolute(config.dataDir ?? breakerbarHome(environment));
  const gatewayLogDir = absolute(config.gatewayLogDir ?? join('/tmp', 'openclaw'));
  return { config, file, stateDir, dataDir, gatewayLogDir, dbPath: join(dataDir, 'breakerbar.sqlite') };
}
