/**
 * A real Prometheus server for end-to-end tests: Debian's `prometheus` package
 * (`/usr/bin/prometheus`), started on 127.0.0.1 on a random free port with a
 * throw-away TSDB directory and a generated scrape config, stopped (and its
 * directory removed) by `stop()`. Queries go through Prometheus's own HTTP API,
 * exactly as Grafana or an operator's curl would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROMETHEUS as PROMETHEUS_BIN } from './tools.js';

export interface ScrapeJob {
  job: string;
  /** `host:port` targets. */
  targets: string[];
  /** Extra labels attached to every series of the job (e.g. `host`). */
  labels?: Record<string, string>;
  metricsPath?: string;
  /** Scrape interval in seconds (also the scrape timeout). */
  intervalSec?: number;
}

/** One element of an instant-vector result. */
export interface Sample {
  metric: Record<string, string>;
  value: number;
}

export interface PrometheusServer {
  readonly baseUrl: string;
  readonly port: number;
  /** Instant query (`/api/v1/query`), optionally at `time` (epoch ms). Throws on an API error. */
  query(expr: string, time?: number): Promise<Sample[]>;
  /** Each scrape target's health and last error (`/api/v1/targets`), one line each, for assertion messages. */
  targets(): Promise<string>;
  /** The last `chars` characters of Prometheus's stderr (its log), for assertion messages. */
  log(chars?: number): string;
  /** SIGTERM, then SIGKILL after 5 s; removes the TSDB directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** A port that was free a moment ago (the kernel's pick for port 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port assigned');
  return address.port;
}

function renderConfig(jobs: ScrapeJob[]): string {
  // YAML is a superset of JSON: the config is written as JSON, no YAML library needed.
  return JSON.stringify({
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    scrape_configs: jobs.map((j) => ({
      job_name: j.job,
      scrape_interval: `${j.intervalSec ?? 1}s`,
      scrape_timeout: `${j.intervalSec ?? 1}s`,
      metrics_path: j.metricsPath ?? '/metrics',
      static_configs: [{ targets: j.targets, labels: j.labels ?? {} }],
    })),
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Between readiness checks: a refused connection to loopback costs next to nothing. */
const READY_POLL_MS = 20;

async function stopChild(child: ChildProcess): Promise<void> {
  // No pid: the spawn itself failed, there is nothing to stop (and no 'exit' will come).
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(killer);
}

/** Starts Prometheus scraping `jobs` and resolves once `/-/ready` answers 200. */
export async function startPrometheus(jobs: ScrapeJob[], readyTimeoutMs = 20_000): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), 'bb-prometheus-'));
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, renderConfig(jobs));
  let lastError = '';
  // The free port can be taken between the check and Prometheus's bind: try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    let stderr = '';
    const child = spawn(
      PROMETHEUS_BIN,
      [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${join(dir, `data-${attempt}`)}`,
        '--storage.tsdb.retention.time=1h',
        `--web.listen-address=127.0.0.1:${port}`,
        // The console directories are not needed; pointing them at the temp dir keeps /etc out of it.
        `--web.console.templates=${dir}`,
        `--web.console.libraries=${dir}`,
        '--log.level=info',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-200_000);
    });
    let spawnError: string | null = null;
    child.once('error', (e) => {
      spawnError = String(e);
    });
    let failure: string | null = null;
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        failure = `prometheus exited (${child.exitCode ?? child.signalCode}) before it was ready`;
        break;
      }
      if (spawnError !== null) {
        failure = `prometheus could not be started: ${spawnError}`;
        break;
      }
      try {
        const res = await fetch(`${baseUrl}/-/ready`, { signal: AbortSignal.timeout(1000) });
        if (res.status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        failure = `prometheus not ready after ${readyTimeoutMs} ms`;
        break;
      }
      await sleep(READY_POLL_MS);
    }
    if (failure === null) {
      let stopped = false;
      return {
        baseUrl,
        port,
        async query(expr, time) {
          const params = new URLSearchParams({ query: expr });
          if (time !== undefined) params.set('time', (time / 1000).toFixed(3));
          const res = await fetch(`${baseUrl}/api/v1/query?${params}`, { signal: AbortSignal.timeout(5000) });
          const body = (await res.json()) as {
            status: string;
            error?: string;
            data?: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> };
          };
          if (body.status !== 'success' || !body.data)
            throw new Error(`query ${expr} failed: ${body.error ?? res.status}`);
          if (body.data.resultType !== 'vector')
            throw new Error(`query ${expr}: ${body.data.resultType}, not a vector`);
          return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
        },
        async targets() {
          try {
            const res = await fetch(`${baseUrl}/api/v1/targets`, { signal: AbortSignal.timeout(5000) });
            const body = (await res.json()) as {
              data?: {
                activeTargets?: Array<{ scrapeUrl: string; health: string; lastError: string; lastScrape: string }>;
              };
            };
            const active = body.data?.activeTargets ?? [];
            if (active.length === 0) return '(no active targets)';
            return active
              .map(
                (t) => `${t.scrapeUrl} ${t.health} last scrape ${t.lastScrape}${t.lastError ? `: ${t.lastError}` : ''}`,
              )
              .join('\n');
          } catch (error) {
            return `(targets unavailable: ${String(error)})`;
          }
        },
        log: (chars = 3000) => stderr.slice(-chars),
        async stop() {
          if (stopped) return;
          stopped = true;
          await stopChild(child);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await stopChild(child);
    lastError = `${failure}\n--- prometheus stderr ---\n${stderr.slice(-3000)}`;
    if (!/address already in use/i.test(stderr)) break;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(lastError);
}
