/**
 * BreakerBar's configuration: the schema (keys, defaults, docs), loading from
 * `config.json`, and resolution of the directories BreakerBar reads and writes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import JSON5 from 'json5';
import { DEFAULT_POLICY } from '../breaker/types.js';
import { healthConfig } from '../gateway/config.js';
import { incidentsConfig } from '../incidents/config.js';
import { alertsConfig, heartbeatConfig, notificationsConfig } from '../notify/config.js';
import { quotaConfig } from '../openclaw/config.js';
import { watchdogConfig } from '../watchdog/config.js';
import { findDuplicateKey } from './duplicate-keys.js';
import {
  bool,
  ConfigError,
  checked,
  group,
  type Infer,
  int,
  list,
  millis,
  num,
  numList,
  oneOf,
  optionalName,
  optionalNum,
  optionalPath,
  optionalRedisUrl,
  optionalSecret,
  optionalUrl,
  parseWith,
  record,
  str,
} from './schema.js';

const DAY = 86_400_000;
const _DAY_SEC = 86_400;

/** One breaker policy: the defaults for all dependencies, or an override for some. */
const policyShape = {
  windowMs: millis(DEFAULT_POLICY.windowMs, 1000, DAY, 'Sliding window over event time for the failure rate.'),
  minCalls: int(DEFAULT_POLICY.minCalls, 1, 1_000_000, 'Calls in the window before the failure rate counts.'),
  failureRate: num(DEFAULT_POLICY.failureRate, 0.01, 1, 'Trip when more than this share of the window failed.'),
  consecutiveFailures: int(DEFAULT_POLICY.consecutiveFailures, 1, 10_000, 'Trip on this many failures in a row.'),
  cooldownMs: millis(DEFAULT_POLICY.cooldownMs, 100, DAY, 'First open duration before trials.'),
  backoffFactor: num(DEFAULT_POLICY.backoffFactor, 1, 100, 'Open duration grows by this after each failed trial.'),
  maxOpenMs: millis(DEFAULT_POLICY.maxOpenMs, 1000, 7 * DAY, 'Cap on the open duration.'),
  trialsToClose: int(DEFAULT_POLICY.trialsToClose, 1, 100, 'Consecutive successful trials that close the breaker.'),
  maxRetryAfterMs: millis(DEFAULT_POLICY.maxRetryAfterMs, 0, 7 * DAY, "Cap on a provider's Retry-After."),
};

const DEP_PATTERN = /^[^\s]+$/;

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
  gatewayMetrics: group({
    enabled: bool(
      true,
      "Scrape the gateway's own metrics (diagnostics-prometheus plugin) when it answers; transcripts stay the source of truth where they have the calls.",
    ),
    intervalMs: millis(5000, 1000, 600000, 'How often the gateway metrics endpoint is scraped.'),
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
    reconcileIntervalMs: millis(
      5000,
      100,
      600000,
      'How often every followed file and directory is re-checked (stat, list) in case the file watcher missed a change; the watcher and quick re-checks after each read keep latency low in between. While the watcher reports every change, full re-checks thin out to about once a minute (roots not there yet are still looked for at this interval); the first change it missed brings them back to this interval.',
    ),
    sqliteMaxSchemaVersion: int(
      19,
      1,
      1000,
      'Deprecated and ignored (still accepted so that existing configs load): agent databases are read by the shape of transcript_events, whatever their user_version; a layout BreakerBar cannot read is refused and reported as an error.',
    ),
    maxLineBytes: int(
      64 * 1024 * 1024,
      1024,
      1024 * 1024 * 1024,
      'Longest line accepted; longer lines are skipped and counted as malformed.',
    ),
  }),
  breakers: group({
    key: oneOf(
      'model',
      ['model', 'provider', 'credential'] as const,
      'Breaker per `provider/model` (model), per provider, or per `provider/model/<credential fingerprint>` where a record names its auth profile (credential).',
    ),
    maxDependencies: int(
      200,
      1,
      100_000,
      'Most distinct dependencies given their own breaker and metrics; calls to further ones count under `<provider>/other`.',
    ),
    ...policyShape,
    overrides: record(
      policyShape,
      'Per-dependency policy: keys are dependency patterns (`zhipu/*`, `deepseek/deepseek-v4-pro`), values any of the keys above.',
      DEP_PATTERN,
      'dependency patterns like "zhipu/*"',
    ),
    probes: record(
      {
        url: str(
          '',
          "URL probed with GET while half-open (e.g. the provider's model list).",
          'an http(s) URL',
          /^https?:\/\/\S+$/,
        ),
        tokenEnv: optionalName('Environment variable holding the API key sent as a Bearer token; null sends none.'),
        timeoutMs: millis(2000, 100, 60_000, 'Probe read timeout.'),
      },
      'Active half-open probes per dependency pattern (off unless configured).',
      DEP_PATTERN,
      'dependency patterns like "zhipu/*"',
    ),
    stallAfterMs: millis(
      180_000,
      0,
      DAY,
      "Deprecated and ignored (still accepted so that existing configs load): stalled sessions come only from the gateway log's own stall reports; a session whose last turn failed and that went quiet is idle, not stalled.",
    ),
  }),
  budgets: group(
    {
      rates: list(
        {
          agent: str('*', 'Agent id, or * for every agent.'),
          dep: str('*', 'Dependency pattern, e.g. anthropic/*.'),
          tokensPerMinute: int(1, 1, 1e12, 'Tokens per minute (usage.totalTokens) allowed before it is an event.'),
        },
        'Token-rate budgets per agent and dependency: crossing one is an event (notification, metric).',
        'budgets {agent, dep, tokensPerMinute}',
        ['tokensPerMinute'],
      ),
      spend: checked(
        list(
          {
            provider: str('*', 'Provider (as in provider/model), or * for all providers together.'),
            period: oneOf(
              'day',
              ['day', 'week', 'month'] as const,
              'Calendar period in local time (weeks begin on Monday).',
            ),
            tokens: optionalNum(1, 1e15, 'Tokens allowed in the period (usage.totalTokens); null: no token limit.'),
            usd: optionalNum(
              0.000001,
              1e9,
              'USD allowed in the period (the cost transcripts report); null: no cost limit.',
            ),
            alertAt: numList(
              [0.8, 1],
              0.01,
              10,
              'Shares of the limit that raise a notice when crossed, once per period.',
            ),
          },
          'Spend budgets per provider and calendar period: crossing an alert share is a notice (once per period), and the standing is in the status, `breakerbar spend` and /metrics.',
          'budgets {provider, period, tokens?, usd?, alertAt?}',
          ['provider', 'period'],
        ),
        (budgets, path) => {
          const i = budgets.findIndex((b) => b.tokens === null && b.usd === null);
          return i < 0 ? null : `config key "${path}[${i}]" sets neither "tokens" nor "usd" (a budget needs a limit)`;
        },
      ),
    },
    // Before spend budgets, `budgets` was the list of rate budgets alone: such a file still loads.
    (value) => (Array.isArray(value) ? { rates: value } : value),
  ),
  quota: quotaConfig,
  health: healthConfig,
  watchdog: watchdogConfig,
  notifications: notificationsConfig,
  alerts: alertsConfig,
  heartbeat: heartbeatConfig,
  fleet: group({
    redisUrl: optionalRedisUrl(
      'Redis shared by hosts calling the same providers: breaker transitions are published and half-open probes serialized; null (default) keeps breakers local.',
    ),
    hostId: optionalName("This host's name in the fleet; null means the machine's hostname."),
    openOnPeerEvidence: bool(
      false,
      "Trip a closed breaker when another host's breaker for the same dependency trips (else it is only shown as open elsewhere).",
    ),
    probeLeaseMs: millis(5000, 100, 600_000, 'How long one host holds the half-open probe lease of a dependency.'),
  }),
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
