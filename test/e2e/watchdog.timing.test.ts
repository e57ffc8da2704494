/**
 * The watchdog end to end, under plain Node: the daemon as a child process, a
 * simulated OpenClaw gateway on loopback, a writer appending real transcript
 * lines, a restart command that records its calls and restarts the simulated
 * gateway, and a local webhook receiver catching every notification. What is
 * asserted is what a user sees: restarts, messages, stored history, /metrics.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage, sessionHeader } from '../../main/simulator/records.js';
import { type SimulatedGateway, startSimulatedGateway } from '../../main/simulator/simulated-gateway.js';
import { storedDecisionReasonLine } from '../../main/words/decision-reasons.js';
import { until } from '../helpers/transcripts.js';

const CLI = fileURLToPath(new URL('../../dist/main/cli/index.js', import.meta.url));
const SESSION = '7f3c2a10-0000-4000-8000-00000000e2e1';

let root: string;
let gateway: SimulatedGateway;
let receiver: Server;
let received: Array<{ kind: string; title: string; dep: string | null; count: number }>;
let daemon: ChildProcess;
let daemonLog = '';
let transcript: string;
let restartLog: string;
let dbPath: string;
let entry = 0;

function write(outcome: 'ok' | 'rate_limited', dep = 'zhipu/glm-5.1'): void {
  const [provider, model] = dep.split('/') as [string, string];
  entry += 1;
  appendFileSync(
    transcript,
    `${assistantMessage({ id: `e${entry}`, parentId: null, ts: Date.now(), provider, model, outcome, text: outcome === 'ok' ? 'done' : undefined })}\n`,
  );
}

/** Writes `outcome` calls every 150 ms until `done()` says stop. */
async function writeWhile(outcome: 'ok' | 'rate_limited', done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > timeoutMs)
      throw new Error(`writer gave up after ${timeoutMs} ms\n${daemonLog.slice(-3000)}`);
    write(outcome);
    // fixed wait: paces the calls as a gateway writes them; the loop ends on `done()` or its deadline.
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

function query<T>(sql: string): T[] {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

const restartsInLog = () => (existsSync(restartLog) ? readFileSync(restartLog, 'utf8').trim().split('\n').length : 0);
const apiUrl = () => readFileSync(join(root, 'home', 'api-url'), 'utf8').trim();

async function metrics(): Promise<string> {
  return (await fetch(`${apiUrl()}/metrics`)).text();
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'bb-watchdog-e2e-'));
  const stateDir = join(root, 'openclaw');
  const sessions = join(stateDir, 'agents', 'main', 'sessions');
  mkdirSync(sessions, { recursive: true });
  transcript = join(sessions, `${SESSION}.jsonl`);
  writeFileSync(transcript, `${sessionHeader(SESSION, Date.now())}\n`);

  gateway = await startSimulatedGateway({ restartMs: 1500 });
  received = [];
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));

  // The restart command: records its argv, then restarts the simulated gateway as `openclaw gateway restart` would.
  restartLog = join(root, 'restarts.log');
  const script = join(root, 'restart-gateway.mjs');
  writeFileSync(
    script,
    `import { appendFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(restartLog)}, JSON.stringify({ at: Date.now(), argv: process.argv.slice(2) }) + '\\n');
const res = await fetch(${JSON.stringify(`${gateway.baseUrl}/__sim/restart`)}, { method: 'POST' });
process.exit(res.ok ? 0 : 1);
`,
  );
  const home = join(root, 'home');
  mkdirSync(home);
  dbPath = join(home, 'breakerbar.sqlite');
  const config = {
    gatewayUrl: gateway.baseUrl,
    gatewayMetrics: { enabled: false },
    ingest: { reconcileIntervalMs: 300 },
    health: { intervalSec: 1, connectTimeoutSec: 1, readTimeoutMinSec: 1, readTimeoutMaxSec: 2 },
    watchdog: {
      // Storm restarts on (off by default): the storm restart is what this test follows.
      stormRestart: 'safe',
      checkIntervalSec: 1,
      windowSec: 2,
      threshold: 3,
      healthFailuresBeforeRestart: 2,
      deadAfterSec: 1,
      startupGraceSec: 20,
      restartSpacingSec: 1,
      restartCommand: [process.execPath, script, 'from-breakerbar'],
      restartTimeoutSec: 10,
    },
    notifications: {
      desktop: false,
      coalesceSec: 1,
      webhooks: [
        { type: 'generic', url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ['*'] },
      ],
    },
  };
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  daemon = spawn(process.execPath, [CLI, 'daemon', '--port', '0'], {
    env: { ...process.env, BREAKERBAR_HOME: home, OPENCLAW_STATE_DIR: stateDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  daemon.stderr?.setEncoding('utf8').on('data', (chunk: string) => (daemonLog += chunk));
  await until(() => existsSync(join(home, 'api-url')), 15_000);
  await until(() => daemonLog.includes('"class":"ok"'), 15_000);
}, 60_000);

afterAll(async () => {
  if (daemon && daemon.exitCode === null) {
    daemon.kill('SIGTERM');
    await new Promise((resolve) => daemon.once('exit', resolve));
  }
  await gateway?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

// One story over one daemon: each step starts from where the one before left it, so they run in order
// even when the suite is shuffled (`--sequence.shuffle`).
describe('the watchdog, end to end', { shuffle: false }, () => {
  it('restarts the gateway once after a 3-check 429 storm, verifies recovery and says so', async () => {
    await writeWhile('rate_limited', () => restartsInLog() >= 1);
    // Recovery needs a successful call after the gateway reports started.
    await writeWhile(
      'ok',
      () => query<{ result: string }>("SELECT result FROM restarts WHERE result = 'recovered'").length > 0,
    );

    expect(restartsInLog()).toBe(1);
    const [call] = readFileSync(restartLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(call.argv).toEqual(['from-breakerbar']);
    expect(gateway.restarts).toBe(1);

    const [restart] = query<{
      trigger: string;
      result: string;
      recovery_ms: number;
      strategy: string;
      exit_code: number;
    }>('SELECT trigger, result, recovery_ms, strategy, exit_code FROM restarts');
    expect(restart).toMatchObject({ trigger: 'storm', result: 'recovered', strategy: 'command', exit_code: 0 });
    expect(restart?.recovery_ms).toBeGreaterThan(0);

    const counting = query<{ decision: string }>("SELECT decision FROM watchdog_decisions WHERE source = 'check'");
    expect(counting.map((d) => d.decision)).toContain('counting');

    await until(() => received.some((n) => n.kind === 'restart_succeeded'), 10_000);
    const kinds = received.map((n) => n.kind);
    expect(kinds).toContain('restart_started');
    expect(kinds).toContain('breaker_throttled'); // rate limits throttle the breaker, they do not fail it
    const stored = query<{ kind: string; ok: number; channel: string }>('SELECT kind, ok, channel FROM notifications');
    expect(stored.filter((n) => n.kind === 'restart_started')).toEqual([
      { kind: 'restart_started', ok: 1, channel: 'webhook:generic#0' },
    ]);

    const text = await metrics();
    expect(text).toMatch(/breakerbar_watchdog_restarts_total\{reason="storm",result="done"\} 1\b/);
    expect(text).toMatch(/breakerbar_gateway_up 1\b/);
    expect(text).toMatch(/breakerbar_notifications_total\{channel="webhook:generic#0",result="delivered"\} [1-9]/);
    expect(text).toMatch(/breaker_probe_latency_ms_count\{dep="gateway"\} [1-9]/);
  }, 60_000);

  it('never restarts a gateway that reports starting', async () => {
    const before = restartsInLog();
    gateway.state = 'starting';
    const probes = () =>
      query<{ n: number }>("SELECT count(*) AS n FROM health_probes WHERE status = 'starting'")[0]?.n ?? 0;
    await until(() => probes() >= 4, 15_000);
    expect(restartsInLog()).toBe(before);
    gateway.state = 'up';
    await until(() => daemonLog.lastIndexOf('"class":"ok"') > daemonLog.lastIndexOf('"class":"starting"'), 10_000);
  }, 30_000);

  it('restarts a hung gateway after two dead probes and reports it down, then up', async () => {
    const before = restartsInLog();
    gateway.state = 'hang';
    await until(() => restartsInLog() > before, 20_000);
    await until(
      () => query<{ n: number }>("SELECT count(*) AS n FROM restarts WHERE trigger = 'health'")[0]?.n === 1,
      5_000,
    );
    const dead = query<{ status: string }>("SELECT status FROM health_probes WHERE status = 'read_timeout'");
    expect(dead.length).toBeGreaterThanOrEqual(2);
    await until(() => received.some((n) => n.kind === 'gateway_down'), 10_000);
    await until(() => received.some((n) => n.kind === 'gateway_up'), 20_000);
    expect(restartsInLog()).toBe(before + 1);
    expect(await metrics()).toMatch(/breakerbar_gateway_probe_failures_total\{class="read_timeout"\} [2-9]/);
  }, 45_000);

  it('answers status, pause and resume through the CLI', async () => {
    const env = { ...process.env, BREAKERBAR_HOME: join(root, 'home') };
    const run = (...args: string[]) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.stderr.on('data', (chunk) => (out += chunk));
        child.on('exit', (code) => resolve({ code, out }));
      });
    const status = await run('status', '--json');
    expect(status.code).toBe(0);
    const parsed = JSON.parse(status.out);
    expect(parsed.gateway.baseUrl).toBe(gateway.baseUrl);
    expect(parsed.watchdog.lastRestart.trigger).toBe('health');

    const paused = await run('pause', '1h', '--reason', 'maintenance window');
    expect(paused).toMatchObject({ code: 0 });
    expect(paused.out).toContain('paused');
    expect(await metrics()).toMatch(/breakerbar_watchdog_paused 1\b/);
    const human = await run('status');
    expect(human.out).toMatch(/Watchdog\s+paused until/);

    const resumed = await run('resume');
    expect(resumed.code).toBe(0);
    expect(await metrics()).toMatch(/breakerbar_watchdog_paused 0\b/);
    const reasons = query<{ reason: string }>("SELECT reason FROM watchdog_decisions WHERE source = 'manual'");
    // Stored as codes and facts; read back, the policy's line.
    expect(reasons.map((r) => storedDecisionReasonLine(r.reason)).join('\n')).toContain('maintenance window');
  }, 30_000);

  it('shuts down cleanly on SIGTERM and removes its address file', async () => {
    daemon.kill('SIGTERM');
    const code = await new Promise((resolve) => daemon.once('exit', resolve));
    expect(code).toBe(0);
    expect(existsSync(join(root, 'home', 'api-url'))).toBe(false);
  }, 20_000);
});
