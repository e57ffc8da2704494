/**
 * Keeps the app connected to a core, whichever it is (see core-decision.ts):
 * attaches to a running daemon, or starts one in a utility process and
 * restarts it with a growing delay when it dies; follows it through its local
 * API (status, actions) and its event stream; and, on quit, stops only a core
 * it started itself — never a service daemon, and never the OpenClaw gateway.
 *
 * No Electron here: the utility process is behind `fork` (core-process.ts in
 * the app, an in-process Monitor or a fake in tests).
 */
import { EventEmitter } from 'node:events';
import type { ApiEvent, ApiStatus } from '../api/types.js';
import { serverUrl } from '../core/api-files/loopback.js';
import type { LoadedConfig } from '../core/config/index.js';
import type { LockState } from '../core/runtime/lock.js';
import { CoreApi } from './core-api.js';
import { type BackoffTiming, decideCore, embeddedCoreArgs, nextBackoff } from './core-decision.js';
import { EventStream } from './event-stream.js';
import type { CoreView } from './tray-model.js';

export interface ForkRequest {
  modulePath: string;
  args: string[];
  /** Shown in the OS's process list and Electron's metrics. */
  serviceName: string;
}

/** A core the app started: what the supervisor needs of Electron's UtilityProcess. */
export interface CoreChild {
  readonly pid: number | undefined;
  /** SIGTERM on POSIX: the daemon stops cleanly (stores its cursors, releases its lock). */
  kill(): boolean;
  /** `lastOutput`: the core's last line on stderr, which says why it stopped when it failed. */
  onExit(listener: (code: number, lastOutput: string | null) => void): void;
}

export interface SupervisorTiming extends BackoffTiming {
  /** How often the address file and `/healthz` are looked at while waiting for a core. */
  pollMs: number;
  /** After an attached daemon let go of its lock: how long to wait for it (a service restarting) before starting our own. */
  attachGraceMs: number;
  /** Events arriving together cause one status request. */
  statusDebounceMs: number;
  /** A status request this often anyway (pauses expire, the restart budget refills). */
  statusIntervalMs: number;
  /** How long stop() waits for our core to exit. */
  stopTimeoutMs: number;
  /** The event stream's reconnection delays. */
  streamMinDelayMs: number;
  streamMaxDelayMs: number;
}

export const DEFAULT_TIMING: SupervisorTiming = {
  pollMs: 250,
  attachGraceMs: 15_000,
  minMs: 1000,
  maxMs: 60_000,
  stableMs: 60_000,
  statusDebounceMs: 250,
  statusIntervalMs: 30_000,
  stopTimeoutMs: 10_000,
  streamMinDelayMs: 1000,
  streamMaxDelayMs: 10_000,
};

export interface CoreSupervisorOptions {
  /** `dist/main/cli/index.js`. */
  coreScript: string;
  /** Read again before every decision (the user may have fixed the file or moved the data directory). */
  loadConfig(): LoadedConfig;
  lockState(dataDir: string): LockState;
  readApiUrl(dataDir: string): string | null;
  readToken(dataDir: string): string | null;
  fork(request: ForkRequest): CoreChild;
  fetch?: typeof fetch;
  clock?: () => number;
  timing?: Partial<SupervisorTiming>;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

export interface CoreSupervisorEvents {
  /** The view or the status changed. */
  change: [];
  /** Every event from the core's stream. */
  event: [ApiEvent];
}

/** Events after which the tray's picture may have changed (call counts and signals alone do not). */
const STATUS_EVENTS = new Set<ApiEvent['type']>(['transition', 'probe', 'restart', 'decision', 'notice']);

export class CoreSupervisor extends EventEmitter<CoreSupervisorEvents> {
  private readonly timing: SupervisorTiming;
  private readonly clock: () => number;
  private currentView: CoreView = { phase: 'connecting', detail: 'starting…' };
  private currentStatus: ApiStatus | null = null;
  private currentApi: CoreApi | null = null;
  private stream: EventStream | null = null;
  private child: CoreChild | null = null;
  private childStartedAt = 0;
  private childExited: Promise<void> | null = null;
  private backoffMs: number | null = null;
  private dataDir: string | null = null;
  private loaded: LoadedConfig | null = null;
  /** Bumped by every new cycle and by stop(): async work of an older generation gives up. */
  private generation = 0;
  private running = false;
  private timers = new Set<NodeJS.Timeout>();
  private statusTimer: NodeJS.Timeout | null = null;
  private statusInterval: NodeJS.Timeout | null = null;

  constructor(private readonly options: CoreSupervisorOptions) {
    super();
    this.timing = { ...DEFAULT_TIMING, ...options.timing };
    this.clock = options.clock ?? Date.now;
  }

  get view(): CoreView {
    return this.currentView;
  }

  /** The latest status (kept while reconnecting). */
  get status(): ApiStatus | null {
    return this.currentStatus;
  }

  /** The client of the connected core, or null while there is none. */
  get api(): CoreApi | null {
    return this.currentView.phase === 'connected' ? this.currentApi : null;
  }

  /** True when the connected core is one this app started (its notifications are ours to show). */
  get ownsCore(): boolean {
    return this.currentView.phase === 'connected' && this.currentView.mode === 'embedded';
  }

  /** The configuration last loaded (paths, server address), null before the first load. */
  get config(): LoadedConfig | null {
    return this.loaded;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.statusInterval = setInterval(() => this.scheduleStatus(), this.timing.statusIntervalMs);
    this.statusInterval.unref?.();
    void this.cycle();
  }

  /** Stops following; stops our own core (waiting for it to exit), never a daemon we attached to. */
  async stop(): Promise<void> {
    this.running = false;
    this.generation++;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.statusTimer) clearTimeout(this.statusTimer);
    if (this.statusInterval) clearInterval(this.statusInterval);
    this.statusTimer = this.statusInterval = null;
    this.disconnect();
    const child = this.child;
    const exited = this.childExited;
    if (child && exited) {
      this.log('stopping the core this app started', { pid: child.pid });
      child.kill();
      await Promise.race([exited, this.sleep(this.timing.stopTimeoutMs)]);
    }
    this.setView({ phase: 'connecting', detail: 'stopped' });
  }

  /** Asks for a fresh status soon (after an action, or when the menu is about to be shown). */
  refresh(): void {
    this.scheduleStatus(0);
  }

  private async cycle(): Promise<void> {
    if (!this.running) return;
    const generation = ++this.generation;
    this.disconnect();
    try {
      this.loaded = this.options.loadConfig();
    } catch (error) {
      // Our own core keeps its last good configuration (the daemon rejects a bad file the same way).
      if (!this.loaded || !this.child) return this.retryLater(generation, `configuration: ${(error as Error).message}`);
      this.log('configuration not loaded; keeping the previous one', { error: (error as Error).message });
    }
    const loaded = this.loaded;
    this.dataDir = loaded.dataDir;
    if (this.child) {
      // Our core is running: it holds the lock, so the lock says nothing about whose core it is.
      this.setView({ phase: 'connecting', detail: 'waiting for the core…' });
      return this.follow(generation, 'embedded');
    }
    const decision = decideCore(this.options.lockState(loaded.dataDir), this.options.readApiUrl(loaded.dataDir));
    this.log('core decision', { decision: decision.kind, dataDir: loaded.dataDir });
    if (decision.kind === 'unknown') return this.retryLater(generation, decision.reason);
    if (decision.kind === 'attach') {
      this.setView({ phase: 'connecting', detail: 'waiting for the BreakerBar daemon…' });
      return this.follow(generation, 'attached');
    }
    this.spawn(loaded);
    this.setView({ phase: 'connecting', detail: 'starting the core…' });
    return this.follow(generation, 'embedded');
  }

  /** Waits for the core to answer and connects; when the connection is lost, waits again (the URL may change). */
  private async follow(generation: number, mode: 'attached' | 'embedded'): Promise<void> {
    while (generation === this.generation) {
      const found = await this.waitForCore(generation, mode);
      if (found === null || generation !== this.generation) return;
      const pid = mode === 'embedded' ? (this.child?.pid ?? found.pid) : found.pid;
      const lost = await this.connect(generation, found.url, mode, pid);
      if (!lost || generation !== this.generation) return;
      this.setView({ phase: 'connecting', detail: 'reconnecting to the core…' });
    }
  }

  /**
   * The URL of a BreakerBar that answers for our data directory, or null when this generation is over
   * (our core exited, or the daemon we waited for let go of its lock: then a new cycle decides again).
   */
  private async waitForCore(
    generation: number,
    mode: 'attached' | 'embedded',
  ): Promise<{ url: string; pid: number | null } | null> {
    const dataDir = this.dataDir as string;
    let releasedAt: number | null = null;
    while (generation === this.generation) {
      const lock = this.options.lockState(dataDir);
      if (mode === 'attached' && lock.held === false) {
        releasedAt ??= this.clock();
        if (this.clock() - releasedAt >= this.timing.attachGraceMs) {
          this.log('the BreakerBar daemon is gone; deciding again');
          void this.cycle();
          return null;
        }
      } else {
        releasedAt = null;
      }
      const url = this.options.readApiUrl(dataDir) ?? (mode === 'attached' ? this.configuredUrl() : null);
      // A stale address file (left by a crash) may name a port nobody, or somebody else, listens on:
      // only a BreakerBar answering while our data directory is locked counts.
      if (url !== null && lock.held !== false && (await this.clientFor(url).alive())) {
        if (generation !== this.generation) return null;
        return { url, pid: lock.held === true ? lock.pid : null };
      }
      await this.sleep(this.timing.pollMs);
    }
    return null;
  }

  /** Connected until the stream breaks and the core no longer answers: resolves true then (false when superseded). */
  private connect(
    generation: number,
    url: string,
    mode: 'attached' | 'embedded',
    pid: number | null,
  ): Promise<boolean> {
    return new Promise((resolve) => {
      const api = this.clientFor(url);
      this.currentApi = api;
      let connected = false;
      /** Connected once the stream is open and a status has been read (asked again until one is). */
      const confirm = async () => {
        while (!connected && generation === this.generation && this.stream === stream) {
          if (await this.fetchStatus(generation)) {
            if (connected || generation !== this.generation) return;
            connected = true;
            // A daemon we attached to is not ours to back off from; our own core's backoff follows its runs.
            if (mode === 'attached') this.backoffMs = null;
            this.log('connected to the core', { url, mode });
            this.setView({ phase: 'connected', mode, url, pid });
            return;
          }
          await this.sleep(this.timing.pollMs * 4);
        }
      };
      const stream: EventStream = new EventStream({
        url,
        fetch: this.options.fetch,
        minDelayMs: this.timing.streamMinDelayMs,
        maxDelayMs: this.timing.streamMaxDelayMs,
        onOpen: () => {
          if (generation !== this.generation) return;
          // What happened while we were not listening is in the status.
          if (connected) void this.fetchStatus(generation);
          else void confirm();
        },
        onEvent: (event) => {
          if (generation !== this.generation) return;
          this.emit('event', event);
          if (STATUS_EVENTS.has(event.type)) this.scheduleStatus();
        },
        onDrop: (reason) => {
          if (generation !== this.generation) {
            resolve(false);
            return;
          }
          void api.alive().then((alive) => {
            if (generation !== this.generation) return resolve(false);
            if (alive) return; // A hiccup: the stream reconnects by itself.
            this.log('lost the core', { url, reason });
            stream.close();
            if (this.stream === stream) this.stream = null;
            resolve(true);
          });
        },
      });
      this.stream = stream;
      stream.start();
    });
  }

  private spawn(loaded: LoadedConfig): void {
    const child = this.options.fork({
      modulePath: this.options.coreScript,
      args: embeddedCoreArgs(),
      serviceName: 'BreakerBar core',
    });
    this.child = child;
    this.childStartedAt = this.clock();
    this.log('started the core', { pid: child.pid, dataDir: loaded.dataDir });
    this.childExited = new Promise((resolve) => {
      child.onExit((code, lastOutput) => {
        const ranFor = this.clock() - this.childStartedAt;
        if (this.child === child) {
          this.child = null;
          this.childExited = null;
        }
        resolve();
        if (!this.running) return;
        this.log('the core exited', { code, ranForMs: ranFor, lastOutput });
        this.backoffMs = nextBackoff(this.backoffMs, ranFor, this.timing);
        const why = `the core exited (code ${code})${lastOutput ? `: ${lastOutput}` : ''}`;
        this.retryLater(++this.generation, why, this.backoffMs);
      });
    });
  }

  private retryLater(generation: number, detail: string, delayMs?: number): void {
    if (generation !== this.generation || !this.running) return;
    this.disconnect();
    if (delayMs === undefined) this.backoffMs = nextBackoff(this.backoffMs, 0, this.timing);
    const delay = delayMs ?? (this.backoffMs as number);
    this.setView({ phase: 'unreachable', detail, retryAt: this.clock() + delay });
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (generation === this.generation) void this.cycle();
    }, delay);
    this.timers.add(timer);
  }

  private disconnect(): void {
    this.stream?.close();
    this.stream = null;
    this.currentApi = null;
  }

  private scheduleStatus(delayMs = this.timing.statusDebounceMs): void {
    if (!this.running || this.currentApi === null) return;
    if (this.statusTimer) {
      if (delayMs > 0) return;
      clearTimeout(this.statusTimer);
    }
    const generation = this.generation;
    this.statusTimer = setTimeout(() => {
      this.statusTimer = null;
      void this.fetchStatus(generation);
    }, delayMs);
  }

  private async fetchStatus(generation: number): Promise<boolean> {
    const api = this.currentApi;
    if (!api) return false;
    try {
      const status = await api.call('status');
      if (generation !== this.generation) return false;
      this.currentStatus = status;
      this.emit('change');
      return true;
    } catch (error) {
      this.log('status request failed', { error: (error as Error).message });
      return false;
    }
  }

  private clientFor(url: string): CoreApi {
    const dataDir = this.dataDir as string;
    return new CoreApi({ url, token: () => this.options.readToken(dataDir), fetch: this.options.fetch });
  }

  /** Where a daemon listens when it has not written its address file: the configured host and port. */
  private configuredUrl(): string | null {
    const server = this.loaded?.config.server;
    if (!server || server.port === 0) return null;
    return serverUrl(server.host, server.port);
  }

  private setView(view: CoreView): void {
    if (JSON.stringify(view) === JSON.stringify(this.currentView)) return;
    this.currentView = view;
    this.emit('change');
  }

  /** Unreferenced: a poll never keeps the process alive; a loop that wakes after stop() sees its generation is over. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      setTimeout(resolve, ms).unref?.();
    });
  }

  private log(message: string, fields?: Record<string, unknown>): void {
    this.options.log?.(message, fields);
  }
}
