/**
 * The watchdog's rules and its failure handling with real parts: a monitor in
 * this process with a real SQLite file, the simulated gateway on loopback,
 * transcript lines appended as OpenClaw writes them, real restart commands
 * and real webhook receivers. Time settings are a second or two so each case
 * runs in seconds.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Monitor } from '../../../main/api/root/monitor.js';
import type { Outcome } from '../../../main/core/calls/classify.js';
import { configSchema, resolveDirectories } from '../../../main/core/config/index.js';
import { parseWith } from '../../../main/core/config/schema.js';
import type { DesktopChannel } from '../../../main/core/notify/desktop.js';
import type { Notice } from '../../../main/core/notify/notice.js';
import { silentLogger } from '../../../main/core/runtime/log.js';
import { assistantMessage, sessionHeader } from '../../../main/simulator/records.js';
import { type SimulatedGateway, startSimulatedGateway } from '../../../main/simulator/simulated-gateway.js';
import { translator } from '../../../main/words/messages/index.js';
import { appendLines, until } from '../../helpers/transcripts.js';

let root: string;
let gateway: SimulatedGateway;
let monitor: Monitor | null;
const servers: Server[] = [];
let entry = 0;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'bb-gateway-side-'));
  gateway = await startSimulatedGateway({ restartMs: 300 });
  monitor = null;
});

afterEach(async () => {
  await monitor?.stop();
  await gateway.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  rmSync(root, { recursive: true, force: true });
});

function transcriptPath(agent: string): string {
  const dir = join(root, 'openclaw', 'agents', agent, 'sessions');
  mkdirSync(dir, { recursive: true });
  return join(dir, `${agent}-0000-4000-8000-000000000001.jsonl`);
}

/** Appends one call of `outcome` (sample 1 of rate_limited carries Retry-After 120 s). */
function call(outcome: Outcome, { dep = 'zhipu/glm-5.1', agent = 'main', sample = 0 } = {}): void {
  const path = transcriptPath(agent);
  const [provider, model] = dep.split('/') as [string, string];
  entry += 1;
  const lines = entry === 1 ? [sessionHeader(`${agent}-session`, Date.now())] : [];
  lines.push(
    assistantMessage({
      id: `e${entry}`,
      parentId: null,
      ts: Date.now(),
      provider,
      model,
      outcome,
      sample,
      text: outcome === 'ok' ? 'ok' : undefined,
    }),
  );
  appendLines(path, lines);
}

async function start(config: Record<string, unknown>, desktop: DesktopChannel | null = null): Promise<Monitor> {
  const base = {
    openclawDir: join(root, 'openclaw'),
    dataDir: join(root, 'data'),
    gatewayUrl: gateway.baseUrl,
    gatewayMetrics: { enabled: false },
    ingest: { reconcileIntervalMs: 200 },
    health: { intervalSec: 1, connectTimeoutSec: 1, readTimeoutMinSec: 1, readTimeoutMaxSec: 1 },
    notifications: { desktop: false, coalesceSec: 1 },
    server: { port: 0 },
    ...config,
  };
  mkdirSync(join(root, 'openclaw'), { recursive: true });
  const loaded = resolveDirectories(parseWith(configSchema, base), null, {
    env: {},
    home: root,
    platform: process.platform,
  });
  monitor = new Monitor(loaded, { log: silentLogger, desktop });
  await monitor.start();
  return monitor;
}

function side(m: Monitor) {
  const gatewaySide = m.gateway;
  if (!gatewaySide) throw new Error('monitor started without its gateway side');
  return gatewaySide;
}

const decisions = (m: Monitor) => side(m).history.decisions(0, Number.MAX_SAFE_INTEGER);
const restarts = (m: Monitor) => side(m).history.restarts(0, Number.MAX_SAFE_INTEGER);
const notifications = (m: Monitor) => side(m).history.notifications(0, Number.MAX_SAFE_INTEGER);

/** Writes `outcome` calls every 100 ms until `done()`. */
async function writeUntil(outcome: Outcome, done: () => boolean, options: Parameters<typeof call>[1] = {}) {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > 20_000) throw new Error('condition not reached within 20 s of writing');
    call(outcome, options);
    // fixed wait: paces the calls as a gateway writes them (one per 100 ms); the loop ends on the condition.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function receiverOn(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => handler(req, res, body));
  });
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`)),
  );
}

const FAST_WATCHDOG = {
  // Storm restarts on (the default waits storms out): a storm is the quickest way to make the watchdog act here.
  stormRestart: 'safe',
  checkIntervalSec: 1,
  windowSec: 2,
  threshold: 2,
  restartSpacingSec: 1,
  startupGraceSec: 5,
  deadAfterSec: 0,
};

describe('Retry-After is binding', () => {
  it('defers a storm restart while the provider asks to wait, tells so, and restarts once the 429s stop asking', async () => {
    const restartCommand = [process.execPath, '-e', `fetch('${gateway.baseUrl}/__sim/restart',{method:'POST'})`];
    const m = await start({ watchdog: { ...FAST_WATCHDOG, maxDeferralSec: 3, restartCommand } });
    // 429s asking for 120 s: the restart is held (each new ask holds it again)…
    await writeUntil('rate_limited', () => decisions(m).some((d) => d.decision === 'deferred'), { sample: 1 });
    // …and once the storm goes on with 429s that ask for nothing, the one ask seen is capped at 3 s.
    await writeUntil('rate_limited', () => restarts(m).length > 0);
    const kinds = decisions(m).map((d) => d.decision);
    const firstDeferred = kinds.indexOf('deferred');
    expect(firstDeferred).toBeGreaterThan(-1);
    expect(kinds.indexOf('restart')).toBeGreaterThan(firstDeferred);
    const deferred = decisions(m).find((d) => d.decision === 'deferred');
    expect(deferred?.reason).toMatch(/asked to retry after .*restart held/);
    expect(deferred?.dep).toBe('zhipu/glm-5.1');
    const status = await m.gateway?.watchdog.status();
    expect(status?.lastRestart?.trigger).toBe('storm');
    const text = (await (await fetch(`${m.apiUrl}/metrics`)).text()) as string;
    expect(text).toMatch(/breakerbar_watchdog_deferrals_total\{dep="zhipu\/glm-5.1"\} [1-9]/);
    expect(text).toMatch(/breaker_retry_after_skips_total\{dep="zhipu\/glm-5.1"\} [1-9]/);
  }, 40_000);
});

describe('the restart command fails or hangs', () => {
  it('a command that exits 1 is a failed restart, recorded with its exit code and output, and announced', async () => {
    const restartCommand = [process.execPath, '-e', 'console.error("gateway not installed"); process.exit(1)'];
    const got: Notice[] = [];
    const hook = await receiverOn((_req, res, body) => {
      got.push(JSON.parse(body) as Notice);
      res.end();
    });
    const m = await start({
      watchdog: { ...FAST_WATCHDOG, restartCommand },
      notifications: {
        desktop: false,
        coalesceSec: 1,
        webhooks: [{ type: 'generic', url: hook, events: ['restart_failed'] }],
      },
    });
    await writeUntil('rate_limited', () => restarts(m).some((r) => r.result === 'failed'));
    const [failed] = restarts(m);
    expect(failed).toMatchObject({ trigger: 'storm', result: 'failed', exitCode: 1, strategy: 'command' });
    expect(failed?.output).toContain('gateway not installed');
    await until(() => got.length > 0, 5000);
    expect(got[0]?.kind).toBe('restart_failed');
    expect(got[0]?.body).toContain('exit');
    expect(side(m).watchdog.status().restartInFlight).toBeNull();
  }, 30_000);

  it('speaks the configured language: ui.language zh-CN words the webhook in Chinese', async () => {
    const restartCommand = [process.execPath, '-e', 'console.error("gateway not installed"); process.exit(1)'];
    const got: Array<Notice & { language: string }> = [];
    const hook = await receiverOn((_req, res, body) => {
      got.push(JSON.parse(body) as Notice & { language: string });
      res.end();
    });
    await start({
      ui: { language: 'zh-CN' },
      watchdog: { ...FAST_WATCHDOG, restartCommand },
      notifications: {
        desktop: false,
        coalesceSec: 1,
        webhooks: [{ type: 'generic', url: hook, events: ['restart_started', 'restart_failed'] }],
      },
    });
    await writeUntil('rate_limited', () => got.some((n) => n.kind === 'restart_failed'));
    const zh = translator('zh-CN');
    const started = got.find((n) => n.kind === 'restart_started');
    expect(started?.title).toBe(zh.t('notices.restartStarted.title', { evidence: 'storm' }));
    expect(started?.body).toMatch(/^zhipu\/glm-5\.1 的 429 风暴已持续 .+。执行：/);
    const failed = got.find((n) => n.kind === 'restart_failed');
    expect(failed).toMatchObject({
      title: zh.t('notices.restartFailed.title', { trigger: 'storm' }),
      language: 'zh-CN',
    });
    expect(failed?.body.startsWith('重启命令失败：')).toBe(true);
  }, 30_000);

  it('a command that hangs is killed at the timeout, the restart fails, and the monitor keeps answering', async () => {
    const m = await start({
      watchdog: { ...FAST_WATCHDOG, restartCommand: ['sleep', '60'], restartTimeoutSec: 1 },
    });
    await writeUntil('rate_limited', () => restarts(m).some((r) => r.result === 'failed'));
    const [failed] = restarts(m);
    expect(failed?.detail).toMatch(/timed out|timeout/i);
    expect(failed?.durationMs).toBeLessThan(10_000);
    expect((await fetch(`${m.apiUrl}/healthz`)).status).toBe(200);
  }, 30_000);
});

describe('notification channels that fail', () => {
  it('a webhook that hangs is recorded as failed, delays nothing else, and the API stays responsive', async () => {
    const hung = await receiverOn(() => {
      /* never answers */
    });
    const got: string[] = [];
    const fine = await receiverOn((_req, res, body) => {
      got.push((JSON.parse(body) as Notice).kind);
      res.end('ok');
    });
    const m = await start({
      watchdog: { ...FAST_WATCHDOG, healthFailuresBeforeRestart: 1, enabled: false },
      notifications: {
        desktop: false,
        coalesceSec: 1,
        webhooks: [
          { type: 'generic', url: hung, events: ['*'], timeoutSec: 1, retries: 0 },
          { type: 'generic', url: fine, events: ['*'], timeoutSec: 1, retries: 0 },
        ],
      },
    });
    await until(() => side(m).watchdog.status().seenHealthy, 10_000); // a gateway never seen up is not "down"
    gateway.state = 'refuse';
    await until(() => got.includes('gateway_down'), 10_000);
    expect((await fetch(`${m.apiUrl}/healthz`)).status).toBe(200);
    await until(() => notifications(m).some((n) => n.channel === 'webhook:generic#0'), 10_000);
    const hungDelivery = notifications(m).find((n) => n.channel === 'webhook:generic#0');
    expect(hungDelivery).toMatchObject({ kind: 'gateway_down', ok: false });
    expect(hungDelivery?.error).toMatch(/timed out|timeout|abort/i);
    expect(hungDelivery?.error).not.toContain('/hook');
  }, 30_000);

  it('a desktop notifier that fails is recorded and the monitor carries on', async () => {
    const desktop: DesktopChannel = {
      send: () => Promise.reject(new Error('desktop notifications unavailable: no D-Bus session')),
    };
    const m = await start({ watchdog: { ...FAST_WATCHDOG, enabled: false, healthFailuresBeforeRestart: 1 } }, desktop);
    await until(() => side(m).watchdog.status().seenHealthy, 10_000);
    gateway.state = 'refuse';
    await until(() => notifications(m).some((n) => n.channel === 'desktop'), 10_000);
    expect(notifications(m)[0]).toMatchObject({ channel: 'desktop', ok: false, kind: 'gateway_down' });
    gateway.state = 'up';
    await until(() => notifications(m).some((n) => n.kind === 'gateway_up'), 10_000);
  }, 30_000);
});

describe('deciding not to restart', () => {
  it('on the default policy a storm is waited out: judged, said, never restarted', async () => {
    const marker = join(root, 'ran');
    const restartCommand = [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`];
    const { stormRestart: _on, ...defaults } = FAST_WATCHDOG;
    const m = await start({ watchdog: { ...defaults, restartCommand } });
    await writeUntil('rate_limited', () => decisions(m).some((d) => d.decision === 'storm_waited'));
    // Two more checks of the same storm: still waited out, still no restart.
    await writeUntil('rate_limited', () => decisions(m).filter((d) => d.decision === 'storm_waited').length >= 3);
    expect(restarts(m)).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    const said = decisions(m).find((d) => d.decision === 'storm_waited');
    expect(said?.reason).toMatch(
      /^429 storm on zhipu\/glm-5\.1 for .+, no fallback answering: waited out, not restarted/,
    );
    expect(side(m).watchdog.status()).toMatchObject({ stormRestart: false });
  }, 30_000);

  it('does not restart when a fallback answers for the same agents, and says so', async () => {
    const m = await start({ watchdog: { ...FAST_WATCHDOG, restartCommand: ['false'] } });
    await writeUntil('rate_limited', () => {
      call('ok', { dep: 'deepseek/deepseek-v4-pro' });
      return decisions(m).some((d) => d.decision === 'fallback_answering');
    });
    expect(restarts(m)).toEqual([]);
    const said = decisions(m).find((d) => d.decision === 'fallback_answering');
    expect(said?.reason).toContain('deepseek/deepseek-v4-pro');
  }, 30_000);

  it('in dry run decides, records and announces, but runs nothing', async () => {
    const marker = join(root, 'ran');
    const restartCommand = [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`];
    const got: string[] = [];
    const hook = await receiverOn((_req, res, body) => {
      got.push((JSON.parse(body) as Notice).kind);
      res.end();
    });
    const m = await start({
      watchdog: { ...FAST_WATCHDOG, dryRun: true, restartCommand },
      notifications: {
        desktop: false,
        coalesceSec: 1,
        webhooks: [{ type: 'generic', url: hook, events: ['restart_would_run'] }],
      },
    });
    await writeUntil('rate_limited', () => restarts(m).length > 0);
    expect(restarts(m)[0]).toMatchObject({ result: 'dry_run', trigger: 'storm' });
    await until(() => got.includes('restart_would_run'), 5000);
    expect(got.every((k) => k === 'restart_would_run')).toBe(true);
    expect(existsSync(marker)).toBe(false);
  }, 30_000);

  it('stops at the hourly budget under a permanent storm and raises the alarm once', async () => {
    const restartCommand = [process.execPath, '-e', `fetch('${gateway.baseUrl}/__sim/restart',{method:'POST'})`];
    const got: string[] = [];
    const hook = await receiverOn((_req, res, body) => {
      got.push((JSON.parse(body) as Notice).kind);
      res.end();
    });
    const m = await start({
      watchdog: { ...FAST_WATCHDOG, maxRestartsPerHour: 1, restartCommand },
      notifications: {
        desktop: false,
        coalesceSec: 60,
        webhooks: [{ type: 'generic', url: hook, events: ['restart_budget_exhausted'] }],
      },
    });
    await writeUntil('rate_limited', () => decisions(m).filter((d) => d.decision === 'budget_exhausted').length >= 3);
    expect(restarts(m)).toHaveLength(1);
    await until(() => got.length > 0, 5000);
    expect(got).toEqual(['restart_budget_exhausted']); // once, however many checks it held
    const status = side(m).watchdog.status();
    expect(status.budgetRemaining).toBe(0);
    // The user acts: resume resets the budget.
    side(m).watchdog.resume();
    expect(side(m).watchdog.status().budgetRemaining).toBe(1);
  }, 40_000);
});

describe('divergence alarm', () => {
  it('fires when probes are green while a breaker stays open', async () => {
    const got: string[] = [];
    const hook = await receiverOn((_req, res, body) => {
      got.push((JSON.parse(body) as Notice).kind);
      res.end();
    });
    const m = await start({
      watchdog: { ...FAST_WATCHDOG, enabled: false, divergenceSec: 1 },
      breakers: { consecutiveFailures: 3, cooldownMs: 60_000 },
      notifications: { desktop: false, coalesceSec: 1, webhooks: [{ type: 'generic', url: hook, events: ['*'] }] },
    });
    for (let i = 0; i < 5; i++) call('server_error');
    await until(() => got.includes('divergence'), 15_000);
    expect(side(m).watchdog.status().diverging).toBe(true);
    expect(decisions(m).some((d) => d.decision === 'divergence')).toBe(true);
  }, 30_000);
});

describe('BreakerBar restarting while the gateway restarts', () => {
  it('stops without waiting for the command, and the next start keeps verifying that restart', async () => {
    const pidFile = join(root, 'restart.pid');
    // A long drain: the command outlives the monitor that started it.
    const restartCommand = [
      process.execPath,
      '-e',
      `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setTimeout(() => {}, 30000)`,
    ];
    const config = { watchdog: { ...FAST_WATCHDOG, restartCommand, restartTimeoutSec: 60, startupGraceSec: 60 } };
    const first = await start(config);
    expect(side(first).watchdog.restartNow('before an upgrade').kind).toBe('restart');
    await until(() => existsSync(pidFile), 5000);
    const stopping = Date.now();
    await first.stop();
    expect(Date.now() - stopping).toBeLessThan(5000);
    try {
      const second = await start(config);
      const status = side(second).watchdog.status();
      expect(status.recovering).toMatchObject({ trigger: 'manual' });
      expect(status.lastRestart).toMatchObject({ result: 'running', reason: 'before an upgrade' });
      // Its grace holds the triggers: dead probes do not restart a gateway that is being restarted.
      gateway.state = 'refuse';
      await until(() => decisions(second).some((d) => d.decision === 'recovering'), 10_000);
      expect(restarts(second)).toHaveLength(1);
    } finally {
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    }
  }, 30_000);
});

describe('manual restart', () => {
  it('goes through the same path, is recorded as manual, and is never doubled', async () => {
    const marker = join(root, 'count');
    writeFileSync(marker, '');
    const restartCommand = [
      process.execPath,
      '-e',
      `require('fs').appendFileSync(${JSON.stringify(marker)}, 'x'); setTimeout(() => fetch('${gateway.baseUrl}/__sim/restart',{method:'POST'}), 500)`,
    ];
    const m = await start({ watchdog: { ...FAST_WATCHDOG, restartCommand } });
    const first = side(m).watchdog.restartNow('from the test');
    const second = side(m).watchdog.restartNow('clicked twice');
    expect(first.kind).toBe('restart');
    expect(second.kind).toBe('in_flight');
    await side(m).watchdog.settled();
    expect(readFileSync(marker, 'utf8')).toBe('x');
    expect(restarts(m)[0]).toMatchObject({ trigger: 'manual', reason: 'from the test' });
  }, 30_000);
});

describe('maintenance, end to end in one process', () => {
  it('a dead gateway during maintenance is neither restarted nor announced, and both are on record', async () => {
    const got: string[] = [];
    const hook = await receiverOn((_req, res, body) => {
      got.push((JSON.parse(body) as Notice).kind);
      res.end();
    });
    const restartCommand = [process.execPath, '-e', `fetch('${gateway.baseUrl}/__sim/restart',{method:'POST'})`];
    const m = await start({
      watchdog: { ...FAST_WATCHDOG, healthFailuresBeforeRestart: 1, restartCommand },
      notifications: { desktop: false, coalesceSec: 1, webhooks: [{ type: 'generic', url: hook, events: ['*'] }] },
    });
    await until(() => side(m).watchdog.status().seenHealthy, 10_000);
    side(m).windows.start(3_600_000, 'upgrading OpenClaw');
    const status = (await (await fetch(`${m.apiUrl}/api/status`)).json()) as { quiet: unknown };
    expect(status.quiet).toMatchObject({ kind: 'maintenance', reason: 'upgrading OpenClaw' });
    gateway.state = 'refuse';
    await until(() => decisions(m).some((d) => d.decision === 'maintenance'), 10_000);
    await until(() => notifications(m).some((n) => n.kind === 'gateway_down'), 10_000);
    const held = notifications(m).find((n) => n.kind === 'gateway_down');
    expect(held).toMatchObject({ ok: false, error: 'suppressed: maintenance (upgrading OpenClaw)' });
    expect(restarts(m)).toEqual([]);
    expect(got).toEqual([]);
    // Over: the watchdog restarts the dead gateway again.
    side(m).windows.stop();
    await until(() => restarts(m).length > 0, 10_000);
    expect(restarts(m)[0]).toMatchObject({ trigger: 'health' });
  }, 30_000);
});
