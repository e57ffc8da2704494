/**
 * The daemon follows its config file: a change (saved by an editor, by the
 * dashboard's settings view, or announced with SIGHUP) is validated first; a
 * bad file is reported and the running configuration stays in force, a good
 * one restarts the monitor in place (ingestion resumes exactly where it was).
 */
import { unwatchFile, watchFile } from 'node:fs';
import { ConfigError, type LoadedConfig } from '../../core/config/index.js';
import { createLogger, type Logger } from '../../core/runtime/log.js';
import { Monitor } from './monitor.js';

/** How often the config file's mtime is looked at (a stat: negligible when idle). */
const WATCH_INTERVAL_MS = 2000;

export interface ReloadingMonitorOptions {
  /** The config file to follow (it may not exist yet: creating it counts as a change). */
  file: string;
  /** Loads and validates the configuration (throws ConfigError for a bad one). */
  load(): LoadedConfig;
  /** The dashboard's built files, served at `/`. */
  staticDir?: string;
  /** SIGHUP re-reads the config (default); false leaves SIGHUP to the caller (a daemon run from a terminal stops on it). */
  reloadOnHangup?: boolean;
  /** Called after every successful (re)start, with the monitor now running. */
  onStarted?(monitor: Monitor, loaded: LoadedConfig): void;
}

export class ReloadingMonitor {
  private monitor: Monitor | null = null;
  private loaded: LoadedConfig;
  private log: Logger;
  private queue: Promise<void> = Promise.resolve();
  private readonly onChange = () => void this.reload('config file changed');
  private readonly onHangup = () => void this.reload('SIGHUP');

  constructor(
    initial: LoadedConfig,
    private readonly options: ReloadingMonitorOptions,
  ) {
    this.loaded = initial;
    this.log = createLogger({ level: initial.config.log.level });
  }

  get current(): Monitor | null {
    return this.monitor;
  }

  get logger(): Logger {
    return this.log;
  }

  async start(): Promise<void> {
    // Listened for first: a SIGHUP while starting would otherwise end the process (its default action).
    // Its re-read is queued behind the start.
    const hangup = this.options.reloadOnHangup !== false;
    if (hangup) process.on('SIGHUP', this.onHangup);
    const starting = this.startWith(this.loaded).then((monitor) => {
      this.monitor = monitor;
    });
    this.queue = starting.catch(() => {});
    try {
      await starting;
    } catch (error) {
      process.off('SIGHUP', this.onHangup);
      throw error;
    }
    watchFile(this.options.file, { interval: WATCH_INTERVAL_MS, persistent: false }, this.onChange);
  }

  /** Re-reads the config; applies it when valid and different. Never throws. */
  reload(why: string): Promise<void> {
    this.queue = this.queue.then(() => this.apply(why));
    return this.queue;
  }

  async stop(): Promise<void> {
    unwatchFile(this.options.file, this.onChange);
    process.off('SIGHUP', this.onHangup);
    await this.queue;
    await this.monitor?.stop();
    this.monitor = null;
  }

  private async apply(why: string): Promise<void> {
    let next: LoadedConfig;
    try {
      next = this.options.load();
    } catch (error) {
      const message = error instanceof ConfigError ? error.message : (error as Error).message;
      this.log.error('config change rejected; still running with the previous configuration', {
        why,
        error: message,
      });
      return;
    }
    if (JSON.stringify(next) === JSON.stringify(this.loaded)) return;
    this.log.info('configuration changed; restarting the monitor with it', { why, file: next.file });
    const previous = this.loaded;
    await this.monitor?.stop();
    this.monitor = null;
    this.log = createLogger({ level: next.config.log.level });
    try {
      this.monitor = await this.startWith(next);
      this.loaded = next;
    } catch (error) {
      // A valid file can still fail to start (a port taken, a data directory locked elsewhere).
      this.log.error('the new configuration could not start; back to the previous one', {
        error: (error as Error).message,
      });
      this.log = createLogger({ level: previous.config.log.level });
      this.monitor = await this.startWith(previous);
    }
  }

  private async startWith(loaded: LoadedConfig): Promise<Monitor> {
    const monitor = new Monitor(loaded, { log: this.log, staticDir: this.options.staticDir });
    await monitor.start();
    this.options.onStarted?.(monitor, loaded);
    return monitor;
  }
}
