import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Monitor } from '../api/root/monitor.js';
import { ReloadingMonitor } from '../api/root/reloading-monitor.js';
import {
  defaultConfigPath,
  type LoadedConfig,
  loadConfig,
  processEnvironment,
  resolveDirectories,
} from '../core/config/index.js';
import { ConfigError } from '../core/config/schema.js';
import { explainStartupError } from '../core/runtime/startup-errors.js';
import { hangupAction } from '../core/service-managers/run-mode.js';
import { type Command, type Parsed, stringOption, UsageError } from './command.js';
import { type BannerFacts, daemonBanner } from './daemon-banner.js';

export const daemonCommand: Command = {
  name: 'daemon',
  summary: 'Run BreakerBar headless: follow OpenClaw live and store every model call',
  help: `Usage: breakerbar daemon [--config FILE] [--state-dir DIR] [--data-dir DIR] [--port N]

Runs BreakerBar's core without Electron or a display: follows the OpenClaw state
directory live (backfilling ingest.backfillDays of history on first start) and
stores every model call, classified, in BreakerBar's SQLite database.
Also probes the gateway, runs the watchdog and sends notifications. Follows its
config file: a valid change applies at once; an invalid one is reported and
the running configuration stays in force.
Stops cleanly on Ctrl-C / SIGTERM, and on SIGHUP (its terminal closed) unless
it runs as a service (BREAKERBAR_SERVICE=1, set by \`breakerbar service
install\`), where SIGHUP re-reads the config. Restarting resumes exactly where
it stopped. If it cannot start, one line says why (port in use, permission,
disk full, database) and it exits 1.

Options:
  --config FILE      Config file (default: $BREAKERBAR_CONFIG, else config.json in
                     BreakerBar's home: ~/.config/breakerbar on Linux,
                     ~/Library/Application Support/BreakerBar on macOS)
  --state-dir DIR    OpenClaw state directory (overrides the config's openclawDir)
  --data-dir DIR     Where BreakerBar keeps its database (overrides dataDir)
  --port N           Port of the local API and /metrics (overrides server.port;
                     0 picks a free one)
  --no-desktop       No desktop notifications (overrides notifications.desktop;
                     the tray app shows its own)
  -h, --help         Show this help
`,
  options: {
    config: { type: 'string' },
    'state-dir': { type: 'string' },
    'data-dir': { type: 'string' },
    port: { type: 'string' },
    'no-desktop': { type: 'boolean' },
  },
  positionals: false,
  async run(args, io) {
    // Listened for first, before anything that takes time (reading the config, opening the
    // database, binding the API): a SIGTERM while the daemon starts up stops it cleanly once
    // started, instead of killing it half-way through.
    const onHangup = hangupAction(process.env);
    const signal = untilSignal(onHangup === 'stop' ? ['SIGINT', 'SIGTERM', 'SIGHUP'] : ['SIGINT', 'SIGTERM']);
    const configArg = stringOption(args, 'config');
    const load = () => withOverrides(loadConfig(configArg), args);
    let loaded: LoadedConfig;
    try {
      loaded = load();
    } catch (error) {
      signal.cancel(); // nothing to wait for: the error ends the process
      throw error;
    }
    let banner = true;
    const host = new ReloadingMonitor(loaded, {
      file: loaded.file ?? configArg ?? defaultConfigPath(processEnvironment()),
      load,
      staticDir: dashboardDir(),
      reloadOnHangup: onHangup === 'reload',
      onStarted(monitor, current) {
        if (!banner) return;
        banner = false;
        io.err(
          daemonBanner({
            stateDir: current.stateDir,
            dbPath: current.dbPath,
            configFile: current.file,
            dataDir: current.dataDir,
            apiUrl: monitor.apiUrl,
            gateway: gatewayFacts(monitor),
            dashboard: dashboardDir() !== undefined,
          }),
        );
      },
    });
    try {
      await host.start();
    } catch (error) {
      signal.cancel(); // nothing to wait for: the error ends the process
      // The machine's refusals (port, permission, disk, database) as one line that says what to do.
      const explained = error instanceof ConfigError ? null : explainStartupError(error, placesOf(loaded));
      if (explained === null) throw error;
      io.err(`breakerbar daemon: ${explained}\n`);
      return 1;
    }
    const received = await signal.received;
    if (received === 'SIGHUP') {
      // The terminal is gone: writing to it now fails (EIO), which must not turn a clean stop into a crash.
      for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
    }
    host.logger.info('stopping', { signal: received });
    await host.stop();
    // Said once everything is closed: a signal that lands after this line can only cut Node's own exit short.
    host.logger.info('stopped', { signal: received });
    // A restart command left running (it may drain the gateway for minutes) must not keep the daemon
    // alive: it finishes on its own, and the next start verifies it. Anything else lingering gets 3 s.
    setTimeout(() => process.exit(), 3000).unref();
    return 0;
  },
};

/** The gateway probed and how the watchdog will act, for the start banner. */
function gatewayFacts(monitor: Monitor): BannerFacts['gateway'] {
  const side = monitor.gateway;
  if (!side) return null;
  const status = side.watchdog.status();
  return {
    baseUrl: side.health.health().baseUrl,
    mode: !status.enabled ? 'watch only (watchdog.enabled false)' : status.dryRun ? 'dry run' : 'active',
    restartsVia: status.strategy.description ?? `no restart strategy: ${status.strategy.problem}`,
  };
}

/** The built dashboard beside this CLI (dist/renderer), served at `/` when it exists. */
function dashboardDir(): string | undefined {
  const dir = fileURLToPath(new URL('../../renderer/', import.meta.url));
  return existsSync(join(dir, 'index.html')) ? dir : undefined;
}

function withOverrides(loaded: LoadedConfig, args: Parsed): LoadedConfig {
  const stateDir = stringOption(args, 'state-dir');
  const dataDir = stringOption(args, 'data-dir');
  const port = portOption(stringOption(args, 'port'));
  const noDesktop = args.values['no-desktop'] === true;
  if (!stateDir && !dataDir && port === undefined && !noDesktop) return loaded;
  const config = {
    ...loaded.config,
    openclawDir: stateDir ?? loaded.config.openclawDir,
    dataDir: dataDir ?? loaded.config.dataDir,
    server: { ...loaded.config.server, port: port ?? loaded.config.server.port },
    notifications: { ...loaded.config.notifications, desktop: noDesktop ? false : loaded.config.notifications.desktop },
  };
  return resolveDirectories(config, loaded.file, processEnvironment());
}

function portOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port "${value}" is not a port number (0 to 65535; 0 picks a free one)`);
  }
  return port;
}

/** Where the daemon listens and keeps its files, for start-up error messages. */
function placesOf(loaded: LoadedConfig): { dataDir: string; dbPath: string; address: string } {
  const { host, port } = loaded.config.server;
  return { dataDir: loaded.dataDir, dbPath: loaded.dbPath, address: `${host}:${port}` };
}

/**
 * `received` resolves with the first of `signals`, keeping the process alive until then or until `cancel`.
 * Later ones are swallowed until the process ends: a Ctrl-C reaches the daemon twice (from the terminal, to
 * the whole foreground group, and forwarded by `npm start`'s launcher), and a second signal must not cut the
 * shutdown short (the database, the lock and the API's address file would be left behind).
 */
function untilSignal(signals: readonly NodeJS.Signals[]): {
  received: Promise<NodeJS.Signals>;
  cancel(): void;
} {
  let stop = () => {};
  const received = new Promise<NodeJS.Signals>((resolve) => {
    const keepAlive = setInterval(() => {}, 1 << 30);
    let first: NodeJS.Signals | null = null;
    const handlers = signals.map((name) => [name, () => done(name)] as const);
    stop = () => {
      clearInterval(keepAlive);
      for (const [name, handler] of handlers) process.off(name, handler);
    };
    const done = (name: NodeJS.Signals) => {
      if (first !== null) return;
      first = name;
      clearInterval(keepAlive);
      resolve(name);
    };
    for (const [name, handler] of handlers) process.on(name, handler);
  });
  return { received, cancel: () => stop() };
}
