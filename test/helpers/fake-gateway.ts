/**
 * A fake OpenClaw gateway for tests: a real HTTP server on 127.0.0.1 (random
 * port) serving `/api/diagnostics/prometheus` as the `diagnostics-prometheus`
 * plugin does (format: shared docs, "OpenClaw's own metrics"; label values as
 * the plugin's `modelCallLabels` writes them), behind `Authorization: Bearer`.
 *
 * Counters are set or incremented by the test; `restart()` drops them all, as a
 * gateway restart does (OpenClaw keeps them in memory only). `mode` switches the
 * endpoint to "plugin off" (404), an empty 200, the Control UI's HTML, or a
 * request that never gets an answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeGatewayMode = 'metrics' | 'not-found' | 'empty' | 'html' | 'hang' | 'starting';

/** One `openclaw_model_call_total` series, in the terms OpenClaw's plugin uses. */
export interface ModelCallLabels {
  provider: string;
  model: string;
  /** `completed` (default) or `error`. */
  outcome?: 'completed' | 'error';
  /** For errors: OpenClaw's `errorCategory` (`rate_limit`, `TimeoutError`, `Error`, …); `none` for completed calls. */
  errorCategory?: string;
  api?: string;
  transport?: string;
}

export interface FakeGateway {
  readonly baseUrl: string;
  readonly port: number;
  mode: FakeGatewayMode;
  /** Requests received at the metrics path, answered or not. */
  readonly requests: number;
  /** Most metrics requests open at the same time. */
  readonly maxConcurrent: number;
  /** Authorization headers seen, to check what the client sent. */
  readonly authorizations: ReadonlyArray<string | undefined>;
  set(labels: ModelCallLabels, value: number): void;
  increment(labels: ModelCallLabels, by?: number): void;
  /** Drops every counter, as a gateway restart does. */
  restart(): void;
  /** The body served in `metrics` mode. */
  body(): string;
  close(): Promise<void>;
}

export interface FakeGatewayOptions {
  /** The operator token required; null accepts any request (not what OpenClaw does; for contrast only). */
  token: string | null;
  /** Print `openclaw_model_call` instead of `openclaw_model_call_total`. */
  withoutTotalSuffix?: boolean;
}

function labelSet(labels: ModelCallLabels): Record<string, string> {
  const failed = labels.outcome === 'error';
  return {
    api: labels.api ?? 'openai-completions',
    error_category: failed ? (labels.errorCategory ?? 'other') : 'none',
    model: labels.model,
    outcome: failed ? 'error' : 'completed',
    provider: labels.provider,
    transport: labels.transport ?? 'http',
  };
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function formatLabels(labels: Record<string, string>): string {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  return `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
}

class Counters {
  private readonly values = new Map<string, { labels: Record<string, string>; value: number }>();

  set(labels: ModelCallLabels, value: number): void {
    const set = labelSet(labels);
    this.values.set(formatLabels(set), { labels: set, value });
  }

  increment(labels: ModelCallLabels, by: number): void {
    const set = labelSet(labels);
    const key = formatLabels(set);
    this.values.set(key, { labels: set, value: (this.values.get(key)?.value ?? 0) + by });
  }

  clear(): void {
    this.values.clear();
  }

  /** Rendered like OpenClaw's plugin: HELP/TYPE once, sorted series, a duration histogram beside the counter. */
  render(name: string): string {
    if (this.values.size === 0) return '';
    const sorted = [...this.values.entries()].sort(([a], [b]) => a.localeCompare(b));
    const lines = [
      `# HELP ${name} Provider model calls completed by outcome.`,
      `# TYPE ${name} counter`,
      ...sorted.map(([key, { value }]) => `${name}${key} ${value}`),
      '# HELP openclaw_model_call_duration_seconds Provider model call duration in seconds.',
      '# TYPE openclaw_model_call_duration_seconds histogram',
    ];
    for (const [, { labels, value }] of sorted) {
      lines.push(`openclaw_model_call_duration_seconds_bucket${formatLabels({ ...labels, le: '1' })} ${value}`);
      lines.push(`openclaw_model_call_duration_seconds_bucket${formatLabels({ ...labels, le: '+Inf' })} ${value}`);
      lines.push(`openclaw_model_call_duration_seconds_sum${formatLabels(labels)} ${value * 0.25}`);
      lines.push(`openclaw_model_call_duration_seconds_count${formatLabels(labels)} ${value}`);
    }
    lines.push('# HELP openclaw_memory_bytes Latest process memory usage by memory kind.');
    lines.push('# TYPE openclaw_memory_bytes gauge');
    lines.push('openclaw_memory_bytes{kind="rss"} 1.2345e+08');
    lines.push('');
    return lines.join('\n');
  }
}

export async function startFakeGateway(options: FakeGatewayOptions): Promise<FakeGateway> {
  const counters = new Counters();
  const metricName = options.withoutTotalSuffix ? 'openclaw_model_call' : 'openclaw_model_call_total';
  const authorizations: Array<string | undefined> = [];
  const stats = { requests: 0, open: 0, maxConcurrent: 0 };
  const state = { mode: 'metrics' as FakeGatewayMode };

  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.url !== '/api/diagnostics/prometheus') {
      res.writeHead(404).end('Not Found');
      return;
    }
    stats.requests++;
    stats.open++;
    stats.maxConcurrent = Math.max(stats.maxConcurrent, stats.open);
    res.on('close', () => stats.open--);
    authorizations.push(req.headers.authorization);
    if (options.token !== null && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    serve(state.mode, counters.render(metricName), res);
  };

  const server: Server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    get mode() {
      return state.mode;
    },
    set mode(mode: FakeGatewayMode) {
      state.mode = mode;
    },
    get requests() {
      return stats.requests;
    },
    get maxConcurrent() {
      return stats.maxConcurrent;
    },
    authorizations,
    set: (labels, value) => counters.set(labels, value),
    increment: (labels, by = 1) => counters.increment(labels, by),
    restart: () => counters.clear(),
    body: () => counters.render(metricName),
    close: () =>
      new Promise<void>((resolve) => {
        // Hung requests would keep close() waiting forever.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function serve(mode: FakeGatewayMode, body: string, res: ServerResponse): void {
  switch (mode) {
    case 'hang':
      return; // never answers; the client must time out
    case 'not-found':
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    case 'starting':
      // What OpenClaw answers on every route while it starts or drains.
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"ok":false,"status":"starting"}');
      return;
    case 'empty':
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end('');
      return;
    case 'html':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>OpenClaw</title>');
      return;
    case 'metrics':
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(body);
      return;
  }
}
