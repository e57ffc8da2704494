/**
 * The gateway health probe as the monitor runs it: one probe every
 * `intervalMs` (faster while a restart is being verified), never two at once,
 * the read timeout following the gateway's own recent latency, every result
 * stored and exported, and announced to the watchdog.
 *
 * A probe that BreakerBar itself could not run on time (`unknown`: its own
 * event loop was blocked) changes neither "up since" nor "down since", and a
 * latency measured across a stall does not teach the timeout.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from '../runtime/log.js';
import { AdaptiveTimeout } from './adaptive-timeout.js';
import { STALL_MIN_MS } from './loop-stall.js';
import { found, type ProbeResult, probeGateway } from './probe.js';

/** While a restart is verified, probe at least this often, so "started" is seen within seconds. */
const FAST_INTERVAL_MS = 2000;

export interface HealthProberOptions {
  baseUrl: string;
  intervalMs: number;
  connectTimeoutMs: number;
  readTimeoutMinMs: number;
  readTimeoutMaxMs: number;
  clock: () => number;
  log: Logger;
  /** Stores and exports one result; a throw is logged, never fatal. */
  record(result: ProbeResult): void;
  /**
   * What the probes said just before this monitor started (a config reload, a daemon restart): whether the
   * gateway was up or down, and since when, so "down since" goes on from there. Null: nothing recent known.
   */
  resume?: Omit<ProbeStreak, 'lastTs'> | null;
  /** Replaceable for tests. */
  probe?: typeof probeGateway;
}

export interface GatewayHealth {
  baseUrl: string;
  last: ProbeResult | null;
  /** Since when probes have been ok without a failed one between (null while down or before the first ok). */
  upSince: number | null;
  /** Since when probes have been failing (null while up); `unknown` probes neither start nor end either. */
  downSince: number | null;
  readTimeoutMs: number;
}

/** The run of probes with one verdict that a probe history ends with (unknown probes aside). */
export interface ProbeStreak {
  ok: boolean;
  /** The first probe of the run. */
  since: number;
  /** The last probe of the run. */
  lastTs: number;
}

/**
 * The stored streak a new monitor goes on from: only when its last probe is at most two intervals (and a
 * probe's longest wait) old, as after a config reload or a quick daemon restart. Older, BreakerBar was not
 * watching in between and cannot say since when.
 */
export function resumableStreak(
  streak: ProbeStreak | null,
  now: number,
  settings: Pick<HealthProberOptions, 'intervalMs' | 'readTimeoutMaxMs'>,
): Omit<ProbeStreak, 'lastTs'> | null {
  if (!streak || now - streak.lastTs > 2 * settings.intervalMs + settings.readTimeoutMaxMs) return null;
  return { ok: streak.ok, since: streak.since };
}

export class HealthProber extends EventEmitter<{ probe: [ProbeResult] }> {
  private readonly timeout: AdaptiveTimeout;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<ProbeResult> | null = null;
  private fast = false;
  private stopped = true;
  private last: ProbeResult | null = null;
  private upSince: number | null = null;
  private downSince: number | null = null;

  constructor(private readonly options: HealthProberOptions) {
    super();
    this.timeout = new AdaptiveTimeout({ floorMs: options.readTimeoutMinMs, ceilingMs: options.readTimeoutMaxMs });
    if (options.resume) {
      if (options.resume.ok) this.upSince = options.resume.since;
      else this.downSince = options.resume.since;
    }
  }

  start(): void {
    this.stopped = false;
    void this.probeNow();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** Probe faster while a restart is being verified. */
  setFast(fast: boolean): void {
    if (this.fast === fast) return;
    this.fast = fast;
    if (fast && !this.running) this.schedule();
  }

  /** Probes now (or joins the probe already running). */
  probeNow(): Promise<ProbeResult> {
    if (this.running) return this.running;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.runOnce().finally(() => {
      this.running = null;
      this.schedule();
    });
    return this.running;
  }

  health(): GatewayHealth {
    return {
      baseUrl: this.options.baseUrl,
      last: this.last,
      upSince: this.upSince,
      downSince: this.downSince,
      readTimeoutMs: this.timeout.current(),
    };
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const interval = this.fast ? Math.min(this.options.intervalMs, FAST_INTERVAL_MS) : this.options.intervalMs;
    this.timer = setTimeout(() => void this.probeNow(), interval);
    this.timer.unref?.();
  }

  private async runOnce(): Promise<ProbeResult> {
    const { baseUrl, connectTimeoutMs, clock, log } = this.options;
    const probe = this.options.probe ?? probeGateway;
    const started = clock();
    const result = await probe({ baseUrl, connectTimeoutMs, readTimeoutMs: this.timeout.current(), clock }).catch(
      (error: unknown): ProbeResult => ({
        ts: started,
        class: 'error',
        dead: true,
        ok: false,
        latencyMs: null,
        startup: 'unknown',
        ready: null,
        ...found({ code: 'probe-threw', message: (error as Error).message }),
      }),
    );
    // Only healthy answers teach the timeout what normal is; a 404 or a starting gateway says little, and
    // an answer that waited on BreakerBar's own blocked loop is measured too roughly to learn from.
    const measured = (result.loopStallMs ?? 0) < STALL_MIN_MS;
    if (result.latencyMs !== null && result.ok && measured) this.timeout.record(result.latencyMs);
    const previous = this.last;
    this.last = result;
    if (result.ok) {
      this.upSince ??= result.ts;
      this.downSince = null;
    } else if (result.class !== 'unknown') {
      this.upSince = null;
      this.downSince ??= result.ts;
    }
    if (previous?.class !== result.class) {
      (result.ok ? log.info : log.warn)('gateway probe', { class: result.class, detail: result.detail });
    }
    try {
      this.options.record(result);
    } catch (error) {
      log.warn('could not store a health probe', { error: (error as Error).message });
    }
    if (!this.stopped) this.emit('probe', result);
    return result;
  }
}
