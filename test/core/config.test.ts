import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { durationFields, mapDurations } from '../../main/core/config/durations.js';
import {
  breakerbarHome,
  ConfigError,
  configSchema,
  defaultConfigPath,
  type Environment,
  expandHome,
  loadConfig,
  resolveDirectories,
} from '../../main/core/config/index.js';
import {
  allFields,
  defaultsOf,
  describeFields,
  group,
  int,
  millis,
  seconds,
  toMs,
  unitOfKey,
} from '../../main/core/config/schema.js';

let tmp: string;
let home: string;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-config-'));
  home = join(tmp, 'home');
  mkdirSync(home);
});

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

/** A Linux environment whose home is the temp dir; nothing leaks in from the real process. */
function environment(env: NodeJS.ProcessEnv = {}, platform: NodeJS.Platform = 'linux'): Environment {
  return { env, home, platform };
}

/** Writes `content` (an object is JSON-encoded) to a config file in the temp dir. */
function configFile(content: unknown, name = 'config.json'): string {
  const path = join(tmp, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** The ConfigError thrown by loading `content` as an explicit config file. */
function errorFor(content: unknown): ConfigError {
  const path = configFile(content);
  try {
    loadConfig(path, environment());
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected ${JSON.stringify(content)} to be rejected`);
}

/**
 * The defaults as the schema declares them, in each part's config.ts. Each one is pinned by its row in
 * docs/configuration.md (test/docs/readme.test.ts), so a default changed by mistake fails there, and adding a key
 * touches no hand copy here.
 */
const DEFAULTS = defaultsOf(configSchema);

describe('loadConfig defaults', () => {
  it('uses the defaults when there is no config file at the default path', () => {
    const loaded = loadConfig(undefined, environment());
    expect(loaded.config).toEqual(DEFAULTS);
    expect(loaded.file).toBeNull();
    expect(loaded.stateDir).toBe(join(home, '.openclaw'));
    expect(loaded.dataDir).toBe(join(home, '.config', 'breakerbar'));
    expect(loaded.dbPath).toBe(join(home, '.config', 'breakerbar', 'breakerbar.sqlite'));
  });

  it('reads config.json from BreakerBar home when it exists', () => {
    const bbHome = join(tmp, 'bb');
    mkdirSync(bbHome);
    writeFileSync(join(bbHome, 'config.json'), JSON.stringify({ retention: { days: 3 } }));
    const loaded = loadConfig(undefined, environment({ BREAKERBAR_HOME: bbHome }));
    expect(loaded.file).toBe(join(bbHome, 'config.json'));
    expect(loaded.config.retention.days).toBe(3);
    expect(loaded.dataDir).toBe(bbHome);
  });

  it('BREAKERBAR_CONFIG names the default config file', () => {
    const path = configFile({ log: { level: 'debug' } }, 'elsewhere.json');
    const env = environment({ BREAKERBAR_CONFIG: path });
    expect(defaultConfigPath(env)).toBe(path);
    expect(loadConfig(undefined, env).config.log.level).toBe('debug');
  });

  it('an empty object is all defaults', () => {
    expect(loadConfig(configFile({}), environment()).config).toEqual(DEFAULTS);
  });

  it('says what every field does and what it accepts', () => {
    for (const { path, field } of describeFields(configSchema)) {
      expect(field.doc.length, path).toBeGreaterThan(10);
      expect(field.expected.length, path).toBeGreaterThan(3);
    }
  });
});

describe('loadConfig parses every documented key', () => {
  it('reads back every value the file sets', () => {
    const content = {
      openclawDir: join(tmp, 'state'),
      dataDir: join(tmp, 'data'),
      profile: 'work',
      gatewayLogDir: join(tmp, 'logs'),
      gatewayUrl: 'http://127.0.0.1:19001',
      gatewayToken: 'secret-token',
      gatewayMetrics: { enabled: false, intervalMs: 10000 },
      ingest: {
        backfillDays: 0,
        includeArchives: true,
        reconcileIntervalMs: 500,
        sqliteMaxSchemaVersion: 21,
        maxLineBytes: 4096,
      },
      breakers: {
        key: 'provider',
        maxDependencies: 50,
        windowMs: 60_000,
        minCalls: 10,
        failureRate: 0.5,
        consecutiveFailures: 3,
        cooldownMs: 10_000,
        backoffFactor: 1.5,
        maxOpenMs: 300_000,
        trialsToClose: 3,
        maxRetryAfterMs: 600_000,
        overrides: { 'zhipu/*': { cooldownMs: 120_000 } },
        probes: {
          'deepseek/*': { url: 'https://api.deepseek.com/models', tokenEnv: 'DEEPSEEK_API_KEY', timeoutMs: 1500 },
        },
        stallAfterMs: 120_000,
      },
      budgets: {
        rates: [{ agent: 'main', dep: 'anthropic/*', tokensPerMinute: 200_000 }],
        spend: [{ provider: 'anthropic', period: 'month', tokens: null, usd: 200, alertAt: [0.5, 0.9, 1] }],
      },
      quota: { enabled: false, intervalSec: 600, timeoutSec: 20, command: ['openclaw', 'status', '--usage', '--json'] },
      health: { intervalSec: 5, connectTimeoutSec: 1, readTimeoutMinSec: 1, readTimeoutMaxSec: 10 },
      watchdog: {
        enabled: false,
        checkIntervalSec: 1,
        windowSec: 2,
        threshold: 2,
        healthFailuresBeforeRestart: 3,
        deadAfterSec: 45,
        hungAfterSec: 120,
        startupGraceSec: 600,
        maxRestartsPerHour: 2,
        restartSpacingSec: 120,
        restartCommand: ['launchctl', 'kickstart', '-k', 'gui/501/ai.openclaw.gateway'],
        restartTimeoutSec: 60,
        dryRun: true,
        maxDeferralSec: 300,
        divergenceSec: 60,
        manualRestart: 'force',
        healthRestart: 'plain',
        stormRestart: 'wait',
        stormWaitSec: 10,
      },
      notifications: {
        desktop: false,
        coalesceSec: 60,
        webhooks: [
          {
            type: 'telegram',
            url: 'https://api.telegram.org/bot123:abc/sendMessage',
            events: ['restart_started', 'restart_failed'],
            minSeverity: 'info',
            timeoutSec: 5,
            retries: 1,
            chatId: '-1001234',
            secret: null,
          },
        ],
        desktopMinSeverity: 'warning',
        digest: { enabled: true, everySec: 1800, at: '08:30' },
      },
      alerts: {
        quietHours: [{ days: ['mon', 'fri'], from: '22:00', to: '07:00', timeZone: 'Europe/Berlin' }],
        quietHoursAllowCritical: false,
        maintenance: [{ days: ['sun'], from: '03:00', to: '04:00', timeZone: null }],
      },
      heartbeat: {
        url: 'https://hc-ping.com/0f4c-uuid',
        intervalSec: 30,
        method: 'GET',
        kind: 'healthchecks',
        timeoutSec: 5,
      },
      fleet: {
        redisUrl: 'redis://:pw@10.0.0.5:6379/2',
        hostId: 'mini-2',
        openOnPeerEvidence: true,
        probeLeaseMs: 2000,
      },
      server: { host: '127.0.0.1', port: 18830, allowNonLoopback: false },
      incidents: { graceSec: 120, settleSec: 45 },
      retention: { days: 90 },
      ui: { language: 'zh-CN' },
      log: { level: 'warn' },
    };
    const path = configFile(content);
    const loaded = loadConfig(path, environment());
    // toMatchObject: every value written is read back; a key added later is read by the same walk of the schema
    // and need not be listed here (its row in docs/configuration.md and its label are what it must add).
    expect(loaded.config).toMatchObject(content);
    expect(loaded.file).toBe(path);
    expect(loaded.stateDir).toBe(join(tmp, 'state'));
    expect(loaded.dataDir).toBe(join(tmp, 'data'));
    expect(loaded.dbPath).toBe(join(tmp, 'data', 'breakerbar.sqlite'));
  });

  it("fills a webhook's optional keys with their defaults", () => {
    const loaded = loadConfig(
      configFile({ notifications: { webhooks: [{ type: 'ntfy', url: 'https://ntfy.sh/breakerbar-alerts' }] } }),
      environment(),
    );
    expect(loaded.config.notifications.webhooks).toEqual([
      {
        type: 'ntfy',
        url: 'https://ntfy.sh/breakerbar-alerts',
        events: ['alerts'],
        minSeverity: 'warning',
        timeoutSec: 10,
        retries: 3,
        chatId: null,
        secret: null,
      },
    ]);
  });

  it('accepts any whole number of seconds from 1 up for watchdog times', () => {
    const watchdog = { checkIntervalSec: 1, windowSec: 1, startupGraceSec: 1, restartSpacingSec: 1, maxDeferralSec: 1 };
    expect(loadConfig(configFile({ watchdog }), environment()).config.watchdog).toMatchObject(watchdog);
    expect(errorFor({ watchdog: { windowSec: 0 } }).message).toContain('"watchdog.windowSec" is 0');
    expect(errorFor({ watchdog: { windowSec: 1.5 } }).message).toContain('an integer from 1');
    expect(errorFor({ health: { intervalSec: '15' } }).message).toContain('"health.intervalSec" is "15"');
  });

  it('rejects a restartCommand that is a string (it is run without a shell)', () => {
    const message = errorFor({ watchdog: { restartCommand: 'openclaw gateway restart' } }).message;
    expect(message).toContain('"watchdog.restartCommand"');
    expect(message).toContain('list of strings');
  });

  it('never shows a webhook URL in an error (it carries the token)', () => {
    const url = 'hooks.slack.com/services/T000/B000/SECRETSECRET';
    const message = errorFor({ notifications: { webhooks: [{ type: 'slack', url }] } }).message;
    expect(message).toContain('notifications.webhooks[0].url');
    expect(message).not.toContain('SECRET');
  });

  it('names a webhook without a url, an unknown type and an unknown event kind', () => {
    expect(errorFor({ notifications: { webhooks: [{ type: 'slack' }] } }).message).toContain(
      'notifications.webhooks[0]" lacks "url"',
    );
    expect(
      errorFor({ notifications: { webhooks: [{ type: 'teams', url: 'https://example.com/x' }] } }).message,
    ).toContain('notifications.webhooks[0].type');
    expect(
      errorFor({
        notifications: { webhooks: [{ type: 'slack', url: 'https://example.com/x', events: ['restarted'] }] },
      }).message,
    ).toContain('notifications.webhooks[0].events');
  });

  it('never shows a redis URL in an error (it may carry a password)', () => {
    const message = errorFor({ fleet: { redisUrl: 'http://:hunter2@host:6379' } }).message;
    expect(message).toContain('"fleet.redisUrl"');
    expect(message).toContain('must start with redis:// or rediss://');
    expect(message).not.toContain('hunter2');
  });

  it('takes a rediss:// (TLS) URL, and says what is wrong with a bad Redis URL', () => {
    const url = 'rediss://default:hunter2@eu1.example.cloud:6380/0';
    expect(loadConfig(configFile({ fleet: { redisUrl: url } }), environment()).config.fleet.redisUrl).toBe(url);
    for (const [url, problem] of [
      ['redis://:hunter2@h/cache', 'database number'],
      ['rediss://hunter2@h', 'user without a password'],
      ['redis:///0', 'no host'],
    ]) {
      const message = errorFor({ fleet: { redisUrl: url } }).message;
      expect(message, url).toContain(problem);
      expect(message, url).not.toContain('hunter2');
    }
  });

  it('rejects a gatewayUrl with credentials or without a scheme', () => {
    expect(errorFor({ gatewayUrl: 'http://user:pw@127.0.0.1:18789' }).message).toContain('"gatewayUrl"');
    expect(errorFor({ gatewayUrl: '127.0.0.1:18789' }).message).toContain('an http:// or https:// URL');
  });

  it('keeps defaults for the keys a group leaves out', () => {
    const loaded = loadConfig(configFile({ ingest: { includeArchives: true } }), environment());
    expect(loaded.config.ingest).toEqual({ ...DEFAULTS.ingest, includeArchives: true });
  });

  it.each(['debug', 'info', 'warn', 'error'])('accepts log.level %s', (level) => {
    expect(loadConfig(configFile({ log: { level } }), environment()).config.log.level).toBe(level);
  });

  it('still loads a config that sets the deprecated ingest.sqliteMaxSchemaVersion, and documents it as ignored', () => {
    // Configs written for BreakerBar versions that capped the agent-database schema must keep loading.
    const { config } = loadConfig(configFile({ ingest: { sqliteMaxSchemaVersion: 19 } }), environment());
    expect(config.ingest.sqliteMaxSchemaVersion).toBe(19);
    const doc = configSchema.shape.ingest.shape.sqliteMaxSchemaVersion.doc;
    expect(doc).toMatch(/^Deprecated and ignored/);
    expect(doc).toContain('whatever their user_version');
  });

  it('accepts the bounds of integer ranges', () => {
    const bounds = { ingest: { backfillDays: 3650, reconcileIntervalMs: 100 }, retention: { days: 1 } };
    const { config } = loadConfig(configFile(bounds), environment());
    expect(config.ingest.backfillDays).toBe(3650);
    expect(config.ingest.reconcileIntervalMs).toBe(100);
    expect(config.retention.days).toBe(1);
  });
});

describe('loadConfig errors', () => {
  it.each<[string, unknown, string, string]>([
    [
      'a negative integer',
      { ingest: { backfillDays: -1 } },
      'ingest.backfillDays',
      'is -1, expected an integer from 0 to 3650',
    ],
    ['too large', { retention: { days: 36501 } }, 'retention.days', 'is 36501, expected an integer from 1 to 36500'],
    [
      'a fraction',
      { ingest: { reconcileIntervalMs: 250.5 } },
      'ingest.reconcileIntervalMs',
      'is 250.5, expected an integer',
    ],
    [
      'a string for a number',
      { ingest: { maxLineBytes: '1MB' } },
      'ingest.maxLineBytes',
      'is "1MB", expected an integer',
    ],
    [
      'a string for a boolean',
      { ingest: { includeArchives: 'yes' } },
      'ingest.includeArchives',
      'is "yes", expected true or false',
    ],
    [
      'an unknown level',
      { log: { level: 'verbose' } },
      'log.level',
      'is "verbose", expected one of "debug", "info", "warn", "error"',
    ],
    ['a number for a path', { openclawDir: 42 }, 'openclawDir', 'is 42, expected a non-empty path string or null'],
    ['an empty path', { dataDir: '  ' }, 'dataDir', 'is "  ", expected a non-empty path string or null'],
    ['a scalar for a group', { ingest: 5 }, 'ingest', 'is 5, expected an object'],
    ['an array for a group', { retention: [30] }, 'retention', 'is [30], expected an object'],
  ])('%s names the key, the value and what was expected', (_, content, key, detail) => {
    const error = errorFor(content);
    expect(error.message).toContain(`"${key}"`);
    expect(error.message).toContain(detail);
    expect(error.message).toContain(join(tmp, 'config.json'));
  });

  it('rejects a file that is not an object', () => {
    expect(errorFor('[1, 2]').message).toMatch(/config file is \[1,2\], expected an object/);
  });

  it.each<[unknown, string]>([
    [{ openclawDirr: '/x' }, 'unknown config key "openclawDirr" (did you mean "openclawDir"?)'],
    [{ ingest: { backfilDays: 3 } }, 'unknown config key "ingest.backfilDays" (did you mean "ingest.backfillDays"?)'],
    [{ retention: { Days: 3 } }, 'unknown config key "retention.Days" (did you mean "retention.days"?)'],
    [{ log: { levle: 'info' } }, 'unknown config key "log.levle" (did you mean "log.level"?)'],
    // Written as a group where the schema is flat, and the other way round.
    [{ gateway: { token: 'x' } }, 'unknown config key "gateway.token" (did you mean "gatewayToken"?)'],
    [{ watchdog: { dry: { run: true } } }, 'unknown config key "watchdog.dry.run" (did you mean "watchdog.dryRun"?)'],
  ])('an unknown key %j gets a "did you mean"', (content, message) => {
    expect(errorFor(content).message).toContain(message);
  });

  it('an unknown key far from every known one gets no suggestion', () => {
    const message = errorFor({ somethingElseEntirely: 1 }).message;
    expect(message).toContain('unknown config key "somethingElseEntirely"');
    expect(message).not.toContain('did you mean');
  });

  it('refuses a key set twice in one object, naming it and its line (JSON.parse would keep the last silently)', () => {
    // A second "watchdog" block pasted below the first would drop its dryRun and run the watchdog live.
    const text =
      '{\n  "watchdog": { "dryRun": true },\n  "ingest": { "backfillDays": 3 },\n  "watchdog": { "threshold": 4 }\n}';
    const message = errorFor(text).message;
    expect(message).toBe(
      `config file ${join(tmp, 'config.json')}, line 4: key "watchdog" is set twice (only the last would count); keep one`,
    );
    expect(
      errorFor(
        '{"notifications": {"webhooks": [{"type": "ntfy", "url": "https://ntfy.sh/a",\n "url": "https://ntfy.sh/b"}]}}',
      ).message,
    ).toContain('line 2: key "notifications.webhooks[0].url" is set twice');
    // The same name in two objects, or a value equal to a key, is no duplicate.
    expect(() =>
      loadConfig(
        configFile(
          '{"watchdog": {"enabled": true}, "notifications": {"desktop": true, "webhooks": [{"type": "ntfy", "url": "https://ntfy.sh/enabled"}]}}',
        ),
        environment(),
      ),
    ).not.toThrow();
  });

  it('invalid JSON names the file', () => {
    const message = errorFor('{ "ingest": { "backfillDays": 3, } ').message;
    expect(message).toContain(join(tmp, 'config.json'));
    expect(message).toContain('not valid JSON');
  });

  it('an explicitly named file that does not exist is an error', () => {
    const missing = join(tmp, 'nope.json');
    expect(() => loadConfig(missing, environment())).toThrow(ConfigError);
    expect(() => loadConfig(missing, environment())).toThrow(`config file ${missing} does not exist`);
  });

  it('a named file given relative to the working directory is resolved', () => {
    const missing = 'definitely-not-here.json';
    expect(() => loadConfig(missing, environment())).toThrow(resolve(missing));
  });
});

describe('stateDir resolution', () => {
  const stateDirOf = (config: Record<string, unknown>, env: NodeJS.ProcessEnv) =>
    loadConfig(configFile(config), environment(env)).stateDir;

  it('config wins over OPENCLAW_STATE_DIR and OPENCLAW_HOME', () => {
    const env = { OPENCLAW_STATE_DIR: '/from/env', OPENCLAW_HOME: '/oc/home' };
    expect(stateDirOf({ openclawDir: '/from/config' }, env)).toBe('/from/config');
  });

  it('OPENCLAW_STATE_DIR comes next', () => {
    expect(stateDirOf({}, { OPENCLAW_STATE_DIR: '/from/env', OPENCLAW_HOME: '/oc/home' })).toBe('/from/env');
  });

  it('then OPENCLAW_HOME/.openclaw', () => {
    expect(stateDirOf({}, { OPENCLAW_HOME: '/oc/home' })).toBe(join('/oc/home', '.openclaw'));
  });

  it('then ~/.openclaw', () => {
    expect(stateDirOf({}, {})).toBe(join(home, '.openclaw'));
  });

  it('a profile is just a stateDir pointing at ~/.openclaw-<profile>', () => {
    expect(stateDirOf({ openclawDir: '~/.openclaw-work' }, {})).toBe(join(home, '.openclaw-work'));
  });

  it('expands ~ in the config, in OPENCLAW_STATE_DIR and in dataDir', () => {
    expect(stateDirOf({ openclawDir: '~' }, {})).toBe(home);
    expect(stateDirOf({}, { OPENCLAW_STATE_DIR: '~/oc' })).toBe(join(home, 'oc'));
    const loaded = loadConfig(configFile({ dataDir: '~/bb-data' }), environment());
    expect(loaded.dataDir).toBe(join(home, 'bb-data'));
    expect(loaded.dbPath).toBe(join(home, 'bb-data', 'breakerbar.sqlite'));
  });

  it('an empty OPENCLAW_STATE_DIR is treated as unset', () => {
    expect(stateDirOf({}, { OPENCLAW_STATE_DIR: '' })).toBe(join(home, '.openclaw'));
  });

  it("resolves a relative path in the file against the file's directory, never the working directory", () => {
    // A service starts in another working directory than the shell that wrote the file.
    expect(stateDirOf({ openclawDir: 'relative/state' }, {})).toBe(join(tmp, 'relative', 'state'));
    const loaded = loadConfig(configFile({ dataDir: '../bb', gatewayLogDir: 'logs' }), environment());
    expect(loaded.dataDir).toBe(join(tmp, '..', 'bb'));
    expect(loaded.gatewayLogDir).toBe(join(tmp, 'logs'));
    // One from the environment is the caller's.
    expect(stateDirOf({}, { OPENCLAW_STATE_DIR: 'rel/env' })).toBe(resolve('rel/env'));
  });

  it('resolveDirectories applies the same rules to an already parsed config', () => {
    const config = { ...defaultsOf(configSchema), dataDir: '/d' };
    const loaded = resolveDirectories(config, null, environment({ OPENCLAW_STATE_DIR: '/s' }));
    expect(loaded).toMatchObject({
      stateDir: '/s',
      dataDir: '/d',
      dbPath: join('/d', 'breakerbar.sqlite'),
      file: null,
    });
  });
});

describe('expandHome', () => {
  it.each<[string, string]>([
    ['~', '/h'],
    ['~/a/b', join('/h', 'a/b')],
    ['~\\a', join('/h', 'a')],
    ['/abs/~', '/abs/~'],
    ['~user/x', '~user/x'],
    ['rel', 'rel'],
  ])('%s → %s', (input, expected) => {
    expect(expandHome(input, '/h')).toBe(expected);
  });
});

describe('breakerbarHome', () => {
  it('macOS: ~/Library/Application Support/BreakerBar', () => {
    expect(breakerbarHome(environment({}, 'darwin'))).toBe(join(home, 'Library', 'Application Support', 'BreakerBar'));
  });

  it('Windows: %APPDATA%\\BreakerBar, else ~/AppData/Roaming/BreakerBar', () => {
    expect(breakerbarHome(environment({ APPDATA: '/appdata' }, 'win32'))).toBe(join('/appdata', 'BreakerBar'));
    expect(breakerbarHome(environment({}, 'win32'))).toBe(join(home, 'AppData', 'Roaming', 'BreakerBar'));
  });

  it('Linux: $XDG_CONFIG_HOME/breakerbar, else ~/.config/breakerbar', () => {
    expect(breakerbarHome(environment({ XDG_CONFIG_HOME: '/xdg' }))).toBe(join('/xdg', 'breakerbar'));
    expect(breakerbarHome(environment({}))).toBe(join(home, '.config', 'breakerbar'));
  });

  it('Linux: an empty XDG_CONFIG_HOME is treated as unset', () => {
    expect(breakerbarHome(environment({ XDG_CONFIG_HOME: '' }))).toBe(join(home, '.config', 'breakerbar'));
  });

  it('BREAKERBAR_HOME overrides every platform, made absolute', () => {
    for (const platform of ['darwin', 'win32', 'linux'] as const) {
      expect(breakerbarHome(environment({ BREAKERBAR_HOME: '/bb', XDG_CONFIG_HOME: '/xdg' }, platform))).toBe(
        resolve('/bb'),
      );
    }
    expect(breakerbarHome(environment({ BREAKERBAR_HOME: 'rel-bb' }))).toBe(resolve('rel-bb'));
  });

  it('is where the config file and the default data dir live', () => {
    const env = environment({}, 'darwin');
    const bbHome = join(home, 'Library', 'Application Support', 'BreakerBar');
    expect(defaultConfigPath(env)).toBe(join(bbHome, 'config.json'));
    expect(loadConfig(undefined, env).dataDir).toBe(bbHome);
  });
});

describe('secrets and names', () => {
  it('never shows a wrong gatewayToken in the error', () => {
    expect(() => loadConfig(configFile({ gatewayToken: 12345 }), environment())).toThrow(/value hidden/);
    expect(() => loadConfig(configFile({ gatewayToken: 12345 }), environment())).not.toThrow(/12345/);
  });

  it('accepts profile names and refuses paths', () => {
    expect(loadConfig(configFile({ profile: 'work_2' }), environment()).config.profile).toBe('work_2');
    expect(() => loadConfig(configFile({ profile: '../x' }), environment())).toThrow(/"profile"/);
  });

  it('resolves gatewayLogDir, defaulting to /tmp/openclaw', () => {
    expect(loadConfig(undefined, environment()).gatewayLogDir).toBe('/tmp/openclaw');
    expect(loadConfig(configFile({ gatewayLogDir: '~/logs' }), environment()).gatewayLogDir).toBe(join(home, 'logs'));
  });
});

describe('breaker overrides, probes and budgets', () => {
  it('keeps only the keys an override sets', () => {
    const { config } = loadConfig(
      configFile({ breakers: { overrides: { 'zhipu/*': { cooldownMs: 120_000 } } } }),
      environment(),
    );
    expect(config.breakers.overrides).toEqual({ 'zhipu/*': { cooldownMs: 120_000 } });
  });

  it('names the override key and field that is wrong', () => {
    expect(() =>
      loadConfig(configFile({ breakers: { overrides: { 'zhipu/*': { failureRate: 2 } } } }), environment()),
    ).toThrow('config key "breakers.overrides.zhipu/*.failureRate" is 2, expected a number from 0.01 to 1');
    expect(() =>
      loadConfig(configFile({ breakers: { overrides: { 'zhipu/*': { cooldwnMs: 1 } } } }), environment()),
    ).toThrow(/did you mean "breakers.overrides.zhipu\/\*.cooldownMs"/);
  });

  it('requires a probe URL to be http(s)', () => {
    expect(() => loadConfig(configFile({ breakers: { probes: { x: { url: 'ftp://x' } } } }), environment())).toThrow(
      /breakers.probes.x.url/,
    );
  });

  it('requires tokensPerMinute in every budget and names the entry', () => {
    expect(() => loadConfig(configFile({ budgets: [{ agent: 'main', dep: 'anthropic/*' }] }), environment())).toThrow(
      'config key "budgets.rates[0]" lacks "tokensPerMinute"',
    );
  });
});

describe('durations', () => {
  it('a key ending in Sec or Ms is a duration field of that unit, and every duration field says its unit so', () => {
    const problems = allFields(configSchema).flatMap(({ path, field }) => {
      const key = path.split('.').at(-1) ?? path;
      const promised = unitOfKey(key.replace(/\[\]$/, ''));
      const declared = field.unit ?? null;
      return promised === declared
        ? []
        : [`${path}: key says ${promised ?? 'no unit'}, field is ${declared ?? 'not a duration'}`];
    });
    expect(problems).toEqual([]);
  });

  it('the same rule catches a schema that breaks it', () => {
    const bad = group({
      waitSec: int(1, 0, 10, 'A duration declared as a plain integer.'),
      pause: seconds(1, 0, 10, 'No suffix.'),
    });
    const problems = allFields(bad).filter(({ path, field }) => unitOfKey(path) !== (field.unit ?? null));
    expect(problems.map((p) => p.path)).toEqual(['waitSec', 'pause']);
  });

  it('enumerates every duration, inside records and lists too', () => {
    const paths = durationFields(configSchema);
    expect(paths).toContainEqual({ path: 'watchdog.restartSpacingSec', unit: 'sec' });
    expect(paths).toContainEqual({ path: 'breakers.overrides.*.cooldownMs', unit: 'ms' });
    expect(paths).toContainEqual({ path: 'breakers.probes.*.timeoutMs', unit: 'ms' });
    expect(paths).toContainEqual({ path: 'notifications.webhooks[].timeoutSec', unit: 'sec' });
    expect(paths.map((p) => p.path)).not.toContain('watchdog.maxRestartsPerHour');
  });

  it('converts a unit to milliseconds in one place', () => {
    expect(toMs(90, 'sec')).toBe(90_000);
    expect(toMs(0.25, 'sec')).toBe(250);
    expect(toMs(1500, 'ms')).toBe(1500);
  });

  it('refuses a fraction or a value out of range, naming the unit', () => {
    const node = group({ waitSec: seconds(5, 1, 60, 'A wait.'), pollMs: millis(100, 10, 1000, 'A poll.') });
    expect(() => node.shape.waitSec.parse(1.5, 'waitSec')).toThrow(
      'config key "waitSec" is 1.5, expected an integer from 1 to 60 (seconds)',
    );
    expect(() => node.shape.pollMs.parse(5, 'pollMs')).toThrow('expected an integer from 10 to 1000 (milliseconds)');
    expect(node.shape.waitSec.parse(60, 'waitSec')).toBe(60);
  });

  it('maps every duration of a parsed config, leaving other values and absent override keys alone', () => {
    const config = loadConfig(
      configFile({
        breakers: { overrides: { 'zhipu/*': { cooldownMs: 4000, minCalls: 7 } } },
        notifications: { webhooks: [{ type: 'generic', url: 'https://example.invalid/hook', timeoutSec: 8 }] },
      }),
      environment(),
    ).config;
    const seen: string[] = [];
    const halved = mapDurations(configSchema, config, (value, _unit, path) => {
      seen.push(path);
      return value / 2;
    });
    expect(halved.watchdog.restartSpacingSec).toBe(config.watchdog.restartSpacingSec / 2);
    expect(halved.watchdog.maxRestartsPerHour).toBe(config.watchdog.maxRestartsPerHour);
    expect(halved.breakers.overrides['zhipu/*']).toEqual({ cooldownMs: 2000, minCalls: 7 });
    expect(halved.notifications.webhooks[0]?.timeoutSec).toBe(4);
    expect(config.watchdog.restartSpacingSec).toBe(60);
    expect(seen).toContain('breakers.overrides.*.cooldownMs');
    expect(seen).not.toContain('breakers.overrides.*.windowMs');
  });
});
