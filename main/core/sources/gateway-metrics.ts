/**
 * Source: OpenClaw's own metrics, `GET /api/diagnostics/prometheus` on the
 * gateway (bundled `diagnostics-prometheus` plugin, operator token required).
 *
 * The gateway counts model calls in `openclaw_model_call_total`, one series per
 * `{api, error_category, model, outcome, provider, transport}`. BreakerBar
 * scrapes it and turns each counter's growth into that many observed calls
 * (gateway-metrics-counters.ts reads the counters, gateway-metrics-endpoint.ts
 * asks the endpoint; this module paces the scrapes, stores and reports).
 *
 * What the counters cannot say: when each call happened (every call is placed
 * at the scrape that saw it), its tokens, or its HTTP status. So where a
 * transcript source has a dependency's calls, the transcripts are the source of
 * truth and this source emits nothing for it (`transcriptsCover`).
 */

import type { CallEvent } from '../calls/events.js';
import type { Logger } from '../runtime/log.js';
import type { Cursor } from '../store/batch.js';
import {
  type CounterDeltas,
  counterDeltas,
  depOf,
  metricsCall,
  modelCallSeries,
  parseDetail,
  type Series,
  storedValues,
} from './gateway-metrics-counters.js';
import {
  errorCode,
  failure,
  type GatewayMetricsEndpoint,
  isLoopback,
  MAX_BODY_BYTES,
  METRICS_EMPTY_MESSAGE,
  METRICS_OFF_MESSAGE,
  METRICS_PATH,
  type MetricsState,
  readBody,
  type ScrapeResult,
  safeUrl,
} from './gateway-metrics-endpoint.js';
import { parsePrometheusText } from './prometheus-text.js';
import type { IngestSink, Source, SourceStatus } from './source.js';

/** Most calls synthesized for one series in one scrape: a bound on one scrape's work after a long gap. */
export const MAX_CALLS_PER_SERIES = 10_000;
const DEFAULT_TIMEOUT_MS = 3000;
/** Stored counter values older than this are not trusted for deltas (see restore). */
const STALE_AFTER_MS = 10 * 60_000;
/** Pace while the endpoint is off or refuses the token: only the user can change that. */
const DEFAULT_SLOW_INTERVAL_MS = 60_000;

export type DepTruth = 'transcripts' | 'gateway-metrics';

export interface MetricsStatus {
  state: MetricsState;
  /** Time of the last scrape answered with metrics (an empty body included), epoch ms. */
  lastScrapeAt: number | null;
  /** `openclaw_model_call_total` series in the last answer. */
  series: number;
  /** Per dependency seen in the metrics: where its calls come from. */
  truth: Record<string, DepTruth>;
  /** The plain explanation of a state other than ok (never contains the token). */
  message: string | null;
  /** Scrapes finished (any result). */
  scrapes: number;
  /** Calls counted by the gateway but not stored because transcripts have them. */
  coveredCalls: number;
}

export interface GatewayMetricsOptions {
  endpoint: GatewayMetricsEndpoint;
  intervalMs: number;
  sink: IngestSink;
  log: Logger;
  /** True when a transcript source delivers this dependency's calls. */
  transcriptsCover(dep: string): boolean;
  clock?: () => number;
  timeoutMs?: number;
  /** Pace while the endpoint is off or refuses the token (default 60 s). */
  slowIntervalMs?: number;
  /** Called with the calls just stored. */
  onStored?: (calls: CallEvent[]) => void;
}

export class GatewayMetricsSource implements Source {
  readonly kind = 'gatewaymetrics' as const;
  private readonly clock: () => number;
  private readonly timeoutMs: number;
  private readonly slowIntervalMs: number;
  private readonly counts = { lines: 0, malformed: 0, calls: 0, stored: 0, duplicates: 0 };
  /** Last counter values per series key; null until a baseline exists. */
  private last: Map<string, number> | null = null;
  /** The detail last committed, so an unchanged scrape writes nothing. */
  private committedDetail: string | null = null;
  private lastScrapeTime = 0;
  private lastScrapeAt: number | null = null;
  private lastEventAt: number | null = null;
  private lastError: string | null = null;
  private state: MetricsState | null = null;
  private message: string | null = null;
  /** Whether this endpoint has ever served model-call counters (tells "off" from "restarted, nothing yet"). */
  private seenMetrics = false;
  private deps = new Set<string>();
  private seriesCount = 0;
  private scrapes = 0;
  private coveredCalls = 0;
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private controller: AbortController | null = null;

  constructor(private readonly options: GatewayMetricsOptions) {
    // The token goes into the request; it must never leave the machine.
    if (!isLoopback(options.endpoint.baseUrl)) {
      throw new Error(
        `gateway metrics endpoint must be on loopback (http://127.0.0.1:<port>), not ${safeUrl(options.endpoint)}`,
      );
    }
    this.clock = options.clock ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.slowIntervalMs = options.slowIntervalMs ?? DEFAULT_SLOW_INTERVAL_MS;
  }

  private get baseUrl(): string {
    return this.options.endpoint.baseUrl;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.restore();
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.controller?.abort();
    await this.inFlight;
  }

  /** No backlog to read: caught up once the first scrape has finished, whatever it found. */
  get caughtUp(): boolean {
    return this.scrapes > 0;
  }

  status(): SourceStatus {
    return {
      kind: this.kind,
      roots: [this.baseUrl],
      inputs: this.state === 'ok' ? 1 : 0,
      ...this.counts,
      pending: 0,
      lastEventAt: this.lastEventAt,
      lastError: this.lastError,
    };
  }

  metricsStatus(): MetricsStatus {
    return {
      state: this.state ?? 'unreachable',
      lastScrapeAt: this.lastScrapeAt,
      series: this.seriesCount,
      truth: this.truth(),
      message: this.message,
      scrapes: this.scrapes,
      coveredCalls: this.coveredCalls,
    };
  }

  /** For each dependency seen in the metrics, which source's calls count. */
  truth(): Record<string, DepTruth> {
    const truth: Record<string, DepTruth> = {};
    for (const dep of [...this.deps].sort()) {
      truth[dep] = this.options.transcriptsCover(dep) ? 'transcripts' : 'gateway-metrics';
    }
    return truth;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      // One scrape at a time: the next is scheduled only once this one is over.
      this.inFlight = this.scrape().finally(() => {
        this.inFlight = null;
        this.scrapes++;
        const slow = this.state === 'off' || this.state === 'unauthorized';
        this.schedule(slow ? this.slowIntervalMs : this.options.intervalMs);
      });
    }, delayMs);
  }

  private async scrape(): Promise<void> {
    try {
      const result = await this.fetchMetrics();
      if (!this.running) return;
      this.handle(result);
    } catch (error) {
      // A failed commit lands here; the values were not advanced, so the next scrape counts these calls again.
      this.setState('error', `gateway metrics not stored: ${this.redact((error as Error).message)}`);
    }
  }

  private handle(result: ScrapeResult): void {
    if (result.kind === 'metrics') {
      if (result.html) this.setState('off', METRICS_OFF_MESSAGE);
      else this.ingest(result.text);
    } else if (result.kind === 'status') {
      this.onStatus(result.status);
    } else {
      this.setState(...failure(result, this.baseUrl, this.timeoutMs));
    }
  }

  private async fetchMetrics(): Promise<ScrapeResult> {
    const controller = new AbortController();
    this.controller = controller;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const headers: Record<string, string> = { accept: 'text/plain' };
    if (this.options.endpoint.token) headers.authorization = `Bearer ${this.options.endpoint.token}`;
    try {
      const response = await fetch(`${this.baseUrl}${METRICS_PATH}`, {
        headers,
        signal: controller.signal,
        // A redirect could carry the token elsewhere; there is no reason for one on loopback.
        redirect: 'manual',
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        return { kind: 'status', status: response.status };
      }
      const html = (response.headers.get('content-type') ?? '').includes('text/html');
      return { kind: 'metrics', text: await readBody(response, MAX_BODY_BYTES), html };
    } catch (error) {
      if (timedOut) return { kind: 'timeout' };
      if (errorCode(error) === 'ECONNREFUSED') return { kind: 'refused' };
      const code = errorCode(error);
      return { kind: 'failed', reason: this.redact(`${(error as Error).message}${code ? ` (${code})` : ''}`) };
    } finally {
      clearTimeout(timer);
      this.controller = null;
    }
  }

  private onStatus(status: number): void {
    if (status === 401 || status === 403) this.setState('unauthorized', this.tokenMessage(status));
    else if (status === 404) this.setState('off', METRICS_OFF_MESSAGE);
    // A gateway starting up, draining or restarting answers every route 503: the gateway's state, which the
    // probes report, not a fault of this reader (measured on OpenClaw 2026.9.6 right after a restart).
    else if (status === 503) this.setState('unreachable', `the gateway is not ready (HTTP 503 from ${METRICS_PATH})`);
    else this.setState('error', `OpenClaw's metrics endpoint answered HTTP ${status}`);
  }

  private tokenMessage(status: number): string {
    const where =
      "BreakerBar takes it from gatewayToken in its config, else OPENCLAW_GATEWAY_TOKEN, else gateway.auth.token in OpenClaw's openclaw.json";
    const { token, tokenSource } = this.options.endpoint;
    if (!token)
      return `OpenClaw's metrics endpoint needs the gateway token and BreakerBar has none (HTTP ${status}); ${where}`;
    const from = tokenSource ? ` (the token in use comes from ${tokenSource})` : '';
    return `OpenClaw's metrics endpoint rejected the gateway token (HTTP ${status})${from}; ${where}: check that it is the gateway's current token`;
  }

  /** An answer with metrics (possibly none). */
  private ingest(text: string): void {
    const scrapeTime = this.nextScrapeTime();
    if (text.trim() === '') {
      this.ingestEmpty(scrapeTime);
      return;
    }
    const parsed = parsePrometheusText(text);
    if (parsed.samples.length === 0 && parsed.errors.length > 0) {
      this.countLines(parsed.samples.length, parsed.errors.length);
      this.setState('error', "OpenClaw's metrics endpoint answered with something that is not Prometheus text");
      return;
    }
    const current = modelCallSeries(parsed.samples, parsed.errors.length);
    this.commitScrape(scrapeTime, counterDeltas(this.last, current));
    this.countLines(parsed.samples.length, parsed.errors.length);
    this.seriesCount = current.series.size;
    for (const series of current.series.values()) this.deps.add(depOf(series.labels));
    if (current.series.size > 0) this.seenMetrics = true;
    this.setState('ok', null);
  }

  /**
   * OpenClaw renders nothing until a diagnostic event is recorded: an empty body
   * is either diagnostics being off, or a gateway that has made no model call
   * since it (re)started. Both mean "zero calls so far", which is a valid
   * baseline; which message applies depends on whether counters were ever seen.
   */
  private ingestEmpty(scrapeTime: number): void {
    this.commitScrape(scrapeTime, counterDeltas(this.last, { series: new Map(), complete: true }));
    this.seriesCount = 0;
    if (this.seenMetrics) this.setState('ok', null);
    else this.setState('off', METRICS_EMPTY_MESSAGE);
  }

  private countLines(samples: number, errors: number): void {
    this.counts.lines += samples + errors;
    this.counts.malformed += errors;
  }

  /** Strictly increasing, so event keys from two scrapes never collide even if the clock stalls or steps back. */
  private nextScrapeTime(): number {
    const now = Math.max(this.clock(), this.lastScrapeTime + 1);
    this.lastScrapeTime = now;
    this.lastScrapeAt = now;
    return now;
  }

  private commitScrape(scrapeTime: number, result: CounterDeltas): void {
    const events: CallEvent[] = [];
    for (const { series, delta } of result.deltas) this.synthesize(series, delta, scrapeTime, events);
    const detail = storedValues(result.next);
    if (events.length > 0 || detail !== this.committedDetail) {
      const cursor: Cursor = {
        source: 'gatewaymetrics',
        key: this.baseUrl,
        path: this.baseUrl,
        position: scrapeTime,
        detail,
      };
      const stored = this.options.sink.commit({ events, cursor });
      this.committedDetail = detail;
      this.counts.calls += events.length;
      this.counts.stored += stored.inserted;
      this.counts.duplicates += stored.duplicates;
      if (events.length > 0) this.lastEventAt = scrapeTime;
      if (stored.stored.length > 0) this.options.onStored?.(stored.stored);
    }
    // Advanced only after a successful commit: a failed one is recounted at the next scrape.
    this.last = result.next;
    if (result.reset) this.options.log.info('OpenClaw gateway restarted; its metrics counters start again from zero');
  }

  /** Appends `delta` calls of one series, unless transcripts already have this dependency's calls. */
  private synthesize(series: Series, delta: number, scrapeTime: number, events: CallEvent[]): void {
    const dep = depOf(series.labels);
    if (this.options.transcriptsCover(dep)) {
      this.coveredCalls += delta;
      return;
    }
    const count = Math.min(delta, MAX_CALLS_PER_SERIES);
    if (count < delta) {
      this.options.log.warn('more gateway-metrics calls in one scrape than BreakerBar records; the rest are dropped', {
        dep,
        counted: delta,
        recorded: count,
      });
    }
    for (let i = 0; i < count; i++) events.push(metricsCall(series, dep, scrapeTime, i));
  }

  /** Restores the last values committed for this endpoint, so a BreakerBar restart counts what the gateway did meanwhile. */
  private restore(): void {
    const cursor = this.options.sink.cursors('gatewaymetrics').find((c) => c.key === this.baseUrl);
    if (!cursor) return;
    this.lastScrapeTime = Math.max(this.lastScrapeTime, cursor.position);
    // After a long gap, what the gateway did meanwhile would all land at "now" and could
    // trip breakers on stale failures: start from a fresh baseline instead.
    if (this.clock() - cursor.position > STALE_AFTER_MS) {
      this.options.log.info('stored gateway-metrics values are stale; the next scrape is a new baseline', {
        endpoint: this.baseUrl,
        ageMinutes: Math.round((this.clock() - cursor.position) / 60_000),
      });
      return;
    }
    const values = parseDetail(cursor.detail ?? null);
    if (values === null) {
      this.options.log.warn('stored gateway-metrics position unreadable; the next scrape is a new baseline', {
        endpoint: this.baseUrl,
      });
      return;
    }
    this.last = values;
    this.committedDetail = cursor.detail ?? null;
    this.seenMetrics = values.size > 0;
  }

  /** Logs only when the state or its explanation changes: a lasting condition is said once. */
  private setState(state: MetricsState, message: string | null): void {
    const changed = state !== this.state || message !== this.message;
    const previous = this.state;
    this.state = state;
    this.message = message;
    // An error is what the user can fix and BreakerBar should have read: a refused token, a broken answer.
    // The plugin not installed (most gateways) and the gateway down (the probes say so) are not: as errors
    // they would open an incident and alert on every stock install, and repeat the gateway's own state.
    this.lastError = state === 'unauthorized' || state === 'error' ? message : null;
    if (!changed) return;
    const fields = { endpoint: this.baseUrl };
    if (state === 'ok') {
      this.options.log.info("reading OpenClaw's metrics endpoint", fields);
    } else if (state === 'unreachable') {
      // The gateway being down is normal (restarts, not started yet); the status says so.
      this.options.log.debug(message ?? 'gateway unreachable', fields);
    } else {
      this.options.log.warn(message ?? state, previous === null ? fields : { ...fields, was: previous });
    }
  }

  /** Error text from the HTTP stack never carries the token, but this makes sure. */
  private redact(text: string): string {
    const { token } = this.options.endpoint;
    return token ? text.split(token).join('[token]') : text;
  }
}
