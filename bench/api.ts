/**
 * Local API latency: `/metrics`, `/api/status` and `/api/history` with 100
 * dependencies and a day of history in the store, answered by the real
 * Monitor (store, breakers rebuilt from history, prom-client registry, HTTP
 * server) and requested over loopback one after another.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Monitor } from '../main/api/root/monitor.js';
import { OUTCOMES, type Outcome } from '../main/core/calls/classify.js';
import type { CallEvent } from '../main/core/calls/events.js';
import { loadConfig } from '../main/core/config/index.js';
import { silentLogger } from '../main/core/runtime/log.js';
import { Store } from '../main/core/store/db.js';
import { seededRandom } from '../main/simulator/records.js';
import { distribution, machine, recordSection } from './report.js';

const DEPS = 100;
const DAY_MS = 86_400_000;

/** A day of calls: every dependency called every 30 s, one in five failing, from 10 agents. */
function fillHistory(store: Store, now: number): number {
  const random = seededRandom(17);
  let stored = 0;
  for (let t = now - DAY_MS; t < now; t += 30_000) {
    const events: CallEvent[] = [];
    for (let d = 0; d < DEPS; d++) {
      const failed = random() < 0.2;
      const outcome: Outcome = failed ? (OUTCOMES[1 + Math.floor(random() * 5)] as Outcome) : 'ok';
      const provider = `provider${d % 12}`;
      const model = `model-${d}`;
      events.push({
        key: `bench/${d}/${t}`,
        ts: t + d,
        source: 'jsonl',
        agentId: `agent${d % 10}`,
        sessionId: `session-${d % 37}`,
        dep: `${provider}/${model}`,
        provider,
        model,
        api: 'openai-completions',
        stopReason: failed ? 'error' : 'stop',
        outcome,
        phase: failed ? 'before_output' : 'complete',
        httpStatus: null,
        errorCode: null,
        retryAfterMs: null,
        credential: null,
        usage: { input: 100, output: 50, cacheRead: 0, cacheWrite: 0, totalTokens: 150, cost: 0 },
      });
    }
    stored += store.commit({ events }).inserted;
  }
  return stored;
}

async function time(url: string, requests: number): Promise<{ ms: number[]; bytes: number }> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < requests; i++) {
    const t0 = performance.now();
    const response = await fetch(url);
    const body = await response.arrayBuffer();
    ms.push(performance.now() - t0);
    bytes = body.byteLength;
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  }
  return { ms, bytes };
}

export async function apiBench(requests = 2000): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'bb-api-'));
  try {
    const home = join(root, 'home');
    mkdirSync(home, { recursive: true });
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ gatewayLogDir: join(root, 'logs'), gatewayMetrics: { enabled: false }, server: { port: 0 } }),
    );
    const environment = {
      env: { BREAKERBAR_HOME: home, OPENCLAW_STATE_DIR: join(root, 'openclaw') },
      home: root,
      platform: process.platform,
    };
    const loaded = loadConfig(undefined, environment);
    const now = Date.now();
    const store = Store.open(loaded.dbPath);
    const calls = fillHistory(store, now);
    store.close();
    process.stdout.write(`history: ${calls} calls over 24 h for ${DEPS} dependencies\n`);

    const monitor = new Monitor(loaded, { log: silentLogger, environment, gateway: false });
    await monitor.start();
    const base = monitor.apiUrl as string;
    const routes = [
      ['/metrics', `${base}/metrics`],
      ['/api/status', `${base}/api/status`],
      ['/api/history (1 h, 60 s steps, all)', `${base}/api/history?step=60`],
      [
        '/api/history (24 h, 5 min steps, one dep)',
        `${base}/api/history?dep=provider1%2Fmodel-1&from=${now - DAY_MS}&to=${now}&step=300`,
      ],
    ] as const;
    const rows: string[] = [];
    for (const [name, url] of routes) {
      await time(url, 50); // warm-up
      const { ms, bytes } = await time(url, name.startsWith('/api/history (24') ? requests / 4 : requests);
      const d = distribution(ms);
      rows.push(
        `| ${name} | ${d.n} | ${d.p50.toFixed(2)} | ${d.p90.toFixed(2)} | ${d.p99.toFixed(2)} | ${d.max.toFixed(2)} | ${(bytes / 1024).toFixed(0)} KiB |`,
      );
      process.stdout.write(`${name}: p50 ${d.p50.toFixed(2)} ms, p99 ${d.p99.toFixed(2)} ms\n`);
    }
    const breakers = (await (await fetch(`${base}/api/status`)).json()) as { breakers: unknown[] };
    await monitor.stop();

    const markdown = `## Local API (\`npm run bench -- api\`)

Latency of the local API answered by the real Monitor (store, ${breakers.breakers.length} breakers rebuilt from history,
prom-client registry with process metrics, HTTP server), with ${DEPS} dependencies and a day of history
(${calls} calls) in the store; requests one after another over loopback with keep-alive, after 50 warm-up
requests; measured on ${machine()}.

| route | requests | p50 ms | p90 ms | p99 ms | max ms | body |
|---|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

Target: \`/metrics\` and \`/api/status\` p99 in single-digit milliseconds.`;
    process.stdout.write(`\n${markdown}\n`);
    recordSection('api', markdown);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
