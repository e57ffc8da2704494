/**
 * The off-box heartbeat: every `heartbeat.intervalSec` BreakerBar tells a push
 * monitor (healthchecks.io, Uptime Kuma, any HTTP endpoint) that it is alive
 * and how things stand. Its silence is the alarm nothing on this machine can
 * raise: the daemon killed, the machine off, the network gone.
 *
 * One push in flight at most: a receiver that hangs costs one timeout, and the
 * pushes due meanwhile are skipped rather than piled up. A failure is logged at
 * warn once, then at debug until a push succeeds again. Changes of outcome are
 * recorded in the notifications history (channel `heartbeat`); the last push
 * is kept in the store's meta table for `breakerbar doctor`.
 */

import type { Logger } from '../runtime/log.js';
import type { HeartbeatSettings } from './config.js';
import { formatHeartbeat, type HeartbeatStatus } from './heartbeat-format.js';
import { type HeartbeatResult, META_HEARTBEAT } from './heartbeat-result.js';
import { fetchSameHost, redirectRefusal } from './same-host-fetch.js';
import { scrub } from './webhook.js';
import { redactUrl } from './webhook-format.js';

export interface HeartbeatRecord {
  ts: number;
  kind: 'heartbeat';
  channel: 'heartbeat';
  title: string;
  ok: boolean;
  error: string | null;
  dep: null;
}

/** What one push says: a tone, its words in the daemon's language, and the last probe's latency. */
export interface HeartbeatSaying {
  status: HeartbeatStatus;
  text: string;
  /** Uptime Kuma charts it; null when there is none. */
  pingMs: number | null;
}

export interface HeartbeatOptions {
  config: HeartbeatSettings;
  /** What to say now (the composition root words the API's headline; the heartbeat only carries it). */
  say(now: number): HeartbeatSaying;
  clock: () => number;
  log: Logger;
  /** Stores a change of outcome in the notifications history. */
  record(row: HeartbeatRecord): void;
  /** Keeps the last push for the doctor. */
  setMeta?(key: string, value: string): void;
  fetch?: typeof fetch;
}

export class Heartbeat {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<HeartbeatResult> | null = null;
  private controller: AbortController | null = null;
  private last: HeartbeatResult | null = null;
  private lastRecorded: { ok: boolean; status: HeartbeatStatus } | null = null;
  private skippedCount = 0;
  private stopped = false;

  constructor(private readonly options: HeartbeatOptions) {}

  /** Pushes now, then every interval. */
  start(): void {
    this.stopped = false;
    if (this.timer !== null) return;
    void this.push();
    this.timer = setInterval(() => void this.push(), this.options.config.intervalMs);
    // The heartbeat says the daemon is alive; it must not be what keeps it alive.
    this.timer.unref();
  }

  /** Stops the timer and abandons a push in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.controller?.abort();
    await this.running?.catch(() => undefined);
  }

  /**
   * One push, unless one is still in flight (then null: skipped). Never throws; the result says
   * how it went.
   */
  push(): Promise<HeartbeatResult> | null {
    if (this.running !== null) {
      this.skippedCount += 1;
      this.options.log.debug('heartbeat skipped: the previous push is still in flight', {
        target: redactUrl(this.options.config.url),
      });
      return null;
    }
    const run = this.send().finally(() => {
      this.running = null;
      this.controller = null;
    });
    this.running = run;
    return run;
  }

  /** The last push's result (null before the first finished). */
  lastResult(): HeartbeatResult | null {
    return this.last;
  }

  /** Pushes skipped because one was still in flight. */
  skipped(): number {
    return this.skippedCount;
  }

  private async send(): Promise<HeartbeatResult> {
    const { config, clock } = this.options;
    const ts = clock();
    let said: HeartbeatSaying;
    try {
      said = this.options.say(ts);
    } catch (error) {
      // A status that cannot be built is itself news: the push says so rather than falling silent.
      said = {
        status: 'critical',
        text: `BreakerBar cannot build its status: ${(error as Error).message}`,
        pingMs: null,
      };
    }
    const controller = new AbortController();
    this.controller = controller;
    const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(config.timeoutMs)]);
    let result: HeartbeatResult;
    try {
      const request = formatHeartbeat(config, { status: said.status, headline: said.text, ts, pingMs: said.pingMs });
      const response = await fetchSameHost(
        request.url,
        { method: request.method, headers: request.headers, body: request.body ?? undefined, signal },
        this.options.fetch,
      );
      // The answer is not needed; reading it frees the connection.
      await response.arrayBuffer().catch(() => undefined);
      const ok = response.status >= 200 && response.status < 300;
      const why = redirectRefusal(response, request.url) ?? `HTTP ${response.status}`;
      result = {
        ts,
        status: said.status,
        ok,
        error: ok ? null : `${redactUrl(config.url)}: ${why}`,
        httpStatus: response.status,
      };
    } catch (error) {
      const why =
        signal.aborted && !controller.signal.aborted ? `timed out after ${config.timeoutMs / 1000} s` : describe(error);
      result = {
        ts,
        status: said.status,
        ok: false,
        error: `${redactUrl(config.url)}: ${scrub(why, config.url)}`,
        httpStatus: null,
      };
    }
    if (this.stopped && controller.signal.aborted) return result;
    this.finish(result, said.text);
    return result;
  }

  private finish(result: HeartbeatResult, text: string): void {
    const { log } = this.options;
    const previous = this.last;
    this.last = result;
    if (result.ok) {
      if (previous !== null && !previous.ok)
        log.info('heartbeat delivered again', { target: redactUrl(this.options.config.url) });
      else log.debug('heartbeat delivered', { status: result.status });
    } else {
      const repeated = previous !== null && !previous.ok && previous.error === result.error;
      (repeated ? log.debug : log.warn)('heartbeat failed', { error: result.error });
    }
    try {
      this.options.setMeta?.(META_HEARTBEAT, JSON.stringify(result));
    } catch (error) {
      log.debug('could not keep the last heartbeat', { error: (error as Error).message });
    }
    // History gets a row when the outcome or the status changes, not one a minute.
    const changed =
      this.lastRecorded === null || this.lastRecorded.ok !== result.ok || this.lastRecorded.status !== result.status;
    if (!changed) return;
    this.lastRecorded = { ok: result.ok, status: result.status };
    try {
      this.options.record({
        ts: result.ts,
        kind: 'heartbeat',
        channel: 'heartbeat',
        title: text,
        ok: result.ok,
        error: result.error,
        dep: null,
      });
    } catch (error) {
      log.error('could not record a heartbeat', { error: (error as Error).message });
    }
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return `${error.message}: ${cause.message}${code && !cause.message.includes(code) ? ` (${code})` : ''}`;
  }
  return error.message;
}
