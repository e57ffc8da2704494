/**
 * A real BreakerBar core serving the dashboard, for the browser tests: a
 * Monitor in this process with a real SQLite file, the simulated gateway on
 * loopback, webhook receivers (one that accepts, one that fails), an hour of
 * health probes (down for a minute during a restart), and an hour of generated
 * transcripts: healthy traffic, a 429 storm on zhipu 25 to 15
 * minutes ago with a storm restart in the middle of it, and, just now, 429s
 * that throttle zhipu (the last asks to retry after 120 s) and 503s that open
 * anthropic's breaker.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Monitor } from '../../main/api/root/monitor.js';
import type { ApiStatus } from '../../main/api/types.js';
import type { Outcome } from '../../main/core/calls/classify.js';
import { loadConfig } from '../../main/core/config/index.js';
import { silentLogger } from '../../main/core/runtime/log.js';
import { assistantMessage, sessionHeader } from '../../main/simulator/records.js';
import { type SimulatedGateway, startSimulatedGateway } from '../../main/simulator/simulated-gateway.js';
import { type AuthStateWriter, profileStore, sharedAuthDatabase } from '../helpers/openclaw-auth-state.js';
import { appendLines, until } from '../helpers/transcripts.js';

export const REPO = resolve(import.meta.dirname, '..', '..');
const MINUTE = 60_000;

/** Builds the dashboard from source into `out` with the project's own build script. */
export function buildDashboard(out: string): string {
  const result = spawnSync(process.execPath, [join(REPO, 'scripts', 'build-renderer.mjs'), '--out', out], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`build-renderer failed: ${result.stderr || result.stdout}`);
  return out;
}

export interface DashboardDaemon {
  /** The instant the generated history is relative to (its calls, cooldowns and restarts lead up to it). */
  now: number;
  root: string;
  url: string;
  token: string;
  monitor: Monitor;
  gateway: SimulatedGateway;
  configFile: string;
  stateDir: string;
  status(): Promise<ApiStatus>;
  /** Appends calls to a transcript of agent `main`, `ts` given per call. */
  write(calls: Array<{ dep: string; outcome: Outcome; ts: number; sample?: number; tokens?: number }>): void;
  close(): Promise<void>;
}

export interface DaemonOptions {
  staticDir: string;
  /** Write the generated hour of history (default true); false leaves OpenClaw's directory empty. */
  history?: boolean;
  /** Extra config keys. */
  config?: Record<string, unknown>;
  /** Writes into the store (its file, at `dbPath`) before the core opens it: a history a user's store holds. */
  seed?: (dbPath: string, now: number) => void | Promise<void>;
}

function receiver(status: number): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'ok' : 'receiver says no');
    });
  });
  return new Promise((resolveServer) =>
    server.listen(0, '127.0.0.1', () =>
      resolveServer({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` }),
    ),
  );
}

export async function startDashboardDaemon(options: DaemonOptions): Promise<DashboardDaemon> {
  const root = mkdtempSync(join(tmpdir(), 'bb-dashboard-'));
  const stateDir = join(root, 'openclaw');
  const sessions = join(stateDir, 'agents', 'main', 'sessions');
  mkdirSync(sessions, { recursive: true });
  const gateway = await startSimulatedGateway({ restartMs: 300 });
  const accepting = await receiver(204);
  const failing = await receiver(500);

  const transcript = join(sessions, 'main-0000-4000-8000-000000000001.jsonl');
  let entry = 0;
  const write: DashboardDaemon['write'] = (calls) => {
    const lines = entry === 0 ? [sessionHeader('main-session', (calls[0]?.ts ?? Date.now()) - 1000)] : [];
    for (const call of calls) {
      entry += 1;
      const [provider, model] = call.dep.split('/') as [string, string];
      lines.push(
        assistantMessage({
          id: `e${entry}`,
          parentId: null,
          ts: call.ts,
          provider,
          model,
          outcome: call.outcome,
          sample: call.sample ?? 0,
          totalTokens: call.tokens ?? (call.outcome === 'ok' ? 800 : 0),
          text: call.outcome === 'ok' ? 'ok' : undefined,
        }),
      );
    }
    appendLines(transcript, lines);
  };

  const now = Date.now();
  let auth: AuthStateWriter | null = null;
  if (options.history !== false) {
    write(generatedHour(now));
    // OpenClaw's own cooldown after the 429s, where 2026.9 keeps it: zhipu's only profile, for glm-5.1.
    auth = sharedAuthDatabase(stateDir);
    auth.setStore(profileStore({ 'zhipu:default': 'zhipu' }));
    auth.setState({
      version: 1,
      usageStats: {
        'zhipu:default': {
          cooldownUntil: now + 12 * MINUTE,
          cooldownReason: 'rate_limit',
          cooldownModel: 'glm-5.1',
          errorCount: 6,
          failureCounts: { rate_limit: 6 },
          lastFailureAt: now - 7000,
        },
      },
    });
  }

  const configFile = join(root, 'home', 'config.json');
  mkdirSync(join(root, 'home'), { recursive: true });
  const restartCommand = [process.execPath, '-e', `fetch('${gateway.baseUrl}/__sim/restart',{method:'POST'})`];
  writeFileSync(
    configFile,
    `${JSON.stringify(
      {
        openclawDir: stateDir,
        dataDir: join(root, 'data'),
        gatewayLogDir: join(root, 'logs'),
        gatewayUrl: gateway.baseUrl,
        gatewayMetrics: { enabled: false },
        ingest: { reconcileIntervalMs: 200 },
        health: { intervalSec: 2, connectTimeoutSec: 1, readTimeoutMinSec: 1, readTimeoutMaxSec: 1 },
        // Long cooldowns and windows: what the tests look at stays open, throttled and counted while they run.
        breakers: { cooldownMs: 600_000, windowMs: 600_000 },
        budgets: { rates: [{ agent: '*', dep: 'deepseek/*', tokensPerMinute: 100_000 }] },
        // No automatic restart during the tests: the first storm check is an hour away.
        watchdog: { checkIntervalSec: 3600, startupGraceSec: 5, restartCommand },
        // The breakers the last minute trips open an incident soon enough for the Incidents view to show it.
        incidents: { graceSec: 1 },
        notifications: {
          desktop: false,
          coalesceSec: 1,
          webhooks: [
            { type: 'generic', url: accepting.url, events: ['*'], retries: 0, timeoutSec: 2 },
            { type: 'generic', url: failing.url, events: ['*'], retries: 0, timeoutSec: 2 },
          ],
        },
        server: { port: 0 },
        ...options.config,
      },
      null,
      2,
    )}\n`,
  );
  const environment = { env: {}, home: root, platform: process.platform };
  const loaded = loadConfig(configFile, environment);
  await options.seed?.(loaded.dbPath, now);
  const monitor = new Monitor(loaded, { log: silentLogger, environment, staticDir: options.staticDir });
  await monitor.start();
  const url = monitor.apiUrl;
  if (url === null) throw new Error('the monitor did not start its API');
  const token = readFileSync(join(root, 'data', 'api-token'), 'utf8').trim();
  const status = async () => (await (await fetch(`${url}/api/status`)).json()) as ApiStatus;

  const daemon: DashboardDaemon = {
    now,
    root,
    url,
    token,
    monitor,
    gateway,
    configFile,
    stateDir,
    status,
    write,
    async close() {
      await monitor.stop();
      auth?.close();
      await gateway.close();
      for (const { server } of [accepting, failing]) {
        server.closeAllConnections();
        await new Promise((done) => server.close(done));
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
  if (options.history === false) return daemon;

  const breaker = (s: ApiStatus, dep: string) => s.breakers.find((b) => b.dep === dep);
  await until(async () => {
    const s = await status();
    return (
      breaker(s, 'zhipu/glm-5.1')?.state === 'throttled' && breaker(s, 'anthropic/claude-sonnet-4-5')?.state === 'open'
    );
  });
  await until(() => (monitor.incidents?.openCount() ?? 0) > 0, 15_000, 'the incident the tripped breakers open');
  const history = monitor.gateway?.history;
  if (!history) throw new Error('the monitor runs no gateway side');
  // An hour of health probes as the monitor stores them: latency rising with the storm, and the gateway
  // refusing connections for the minute its storm restart took.
  for (let ts = now - 59 * MINUTE; ts < now - 30_000; ts += 30_000) {
    const restarting = ts >= now - 20 * MINUTE && ts < now - 19 * MINUTE;
    const storm = ts >= now - 25 * MINUTE && ts < now - 15 * MINUTE;
    history.recordProbe({
      ts,
      ok: !restarting,
      status: restarting ? 'refused' : 'ok',
      startup: restarting ? null : 'started',
      latencyMs: restarting ? null : storm ? 180 + ((ts / 30_000) % 5) * 40 : 20 + ((ts / 30_000) % 4) * 6,
      detail: restarting ? `connection refused at ${gateway.baseUrl}/healthz` : null,
    });
  }
  // A storm restart in the middle of the storm, as the watchdog records one.
  const id = history.startRestart({
    ts: now - 20 * MINUTE,
    trigger: 'storm',
    reason: '3 checks in a row saw new 429s',
  });
  history.updateRestart(id, {
    result: 'recovered',
    durationMs: 4200,
    strategy: 'openclaw CLI',
    command: ['openclaw', 'gateway', 'restart', '--wait', '30s', '--json'],
    exitCode: 0,
    output: '{"ok":true,"restarted":true}',
    recoveryMs: 38_000,
  });
  // Notifications for the new breaker states: one delivered, one failed per notice.
  await until(() => history.notifications(0, Number.MAX_SAFE_INTEGER).some((n) => !n.ok));
  return daemon;
}

/**
 * An hour of calls: deepseek healthy every minute (with a few timeouts), zhipu ok with a 429 storm from
 * 25 to 15 minutes ago, and in the last seconds 6 zhipu 429s in a row (throttled, Retry-After 120 s) and
 * 6 anthropic 503s in a row (open).
 */
function generatedHour(now: number): Array<{ dep: string; outcome: Outcome; ts: number; sample?: number }> {
  const calls: Array<{ dep: string; outcome: Outcome; ts: number; sample?: number }> = [];
  for (let minute = 59; minute >= 1; minute--) {
    const t = now - minute * MINUTE;
    calls.push({ dep: 'deepseek/deepseek-v4-pro', outcome: minute % 17 === 0 ? 'timeout' : 'ok', ts: t });
    calls.push({ dep: 'deepseek/deepseek-v4-pro', outcome: minute % 23 === 0 ? 'server_error' : 'ok', ts: t + 20_000 });
    calls.push({ dep: 'anthropic/claude-sonnet-4-5', outcome: 'ok', ts: t + 25_000 });
    if (minute <= 25 && minute > 15) {
      // The storm: eight 429s a minute (no Retry-After, so nothing throttles), a success now and then.
      for (let i = 0; i < 8; i++) calls.push({ dep: 'zhipu/glm-5.1', outcome: 'rate_limited', ts: t + i * 6000 });
      if (minute % 3 === 0) calls.push({ dep: 'zhipu/glm-5.1', outcome: 'ok', ts: t + 50_000 });
    } else {
      calls.push({ dep: 'zhipu/glm-5.1', outcome: 'ok', ts: t + 10_000 });
    }
  }
  for (let i = 0; i < 6; i++) {
    // The last 429 asks to retry after 120 s (sample 1): zhipu is throttled until then.
    calls.push({ dep: 'zhipu/glm-5.1', outcome: 'rate_limited', ts: now - 12_000 + i * 1000, sample: i === 5 ? 1 : 0 });
    calls.push({ dep: 'anthropic/claude-sonnet-4-5', outcome: 'server_error', ts: now - 11_500 + i * 1000 });
  }
  return calls.sort((a, b) => a.ts - b.ts);
}
