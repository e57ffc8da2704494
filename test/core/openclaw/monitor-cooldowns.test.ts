/**
 * OpenClaw's cooldowns through the monitor, end to end in this process: the
 * state written where OpenClaw writes it, a real monitor polling it, and what
 * comes out: the dependency's `openclawCooldown` in `/api/status`, the
 * `breakerbar_openclaw_cooldown_seconds` gauge, and the notice for a cooldown
 * that does not end, delivered to a real webhook receiver.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Monitor } from '../../../main/api/root/monitor.js';
import type { ApiStatus } from '../../../main/api/types.js';
import { configSchema, resolveDirectories } from '../../../main/core/config/index.js';
import { parseWith } from '../../../main/core/config/schema.js';
import { METRIC_NAMES } from '../../../main/core/metrics/names.js';
import type { Notice } from '../../../main/core/notify/notice.js';
import { silentLogger } from '../../../main/core/runtime/log.js';
import { parsePrometheusText } from '../../../main/core/sources/prometheus-text.js';
import { assistantMessage, sessionHeader } from '../../../main/simulator/records.js';
import { type SimulatedGateway, startSimulatedGateway } from '../../../main/simulator/simulated-gateway.js';
import { type AuthStateWriter, profileStore, sharedAuthDatabase } from '../../helpers/openclaw-auth-state.js';
import { appendLines, until } from '../../helpers/transcripts.js';

const MIN = 60_000;

let root: string;
let gateway: SimulatedGateway;
let monitor: Monitor | null;
let receiver: Server | null;
let auth: AuthStateWriter | null;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'bb-monitor-cooldowns-'));
  gateway = await startSimulatedGateway({ restartMs: 300 });
  monitor = null;
  receiver = null;
  auth = null;
});

afterEach(async () => {
  await monitor?.stop();
  await gateway.close();
  auth?.close();
  if (receiver) {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  }
  rmSync(root, { recursive: true, force: true });
});

/** A webhook receiver collecting the notices it is sent. */
function hook(got: Notice[]): Promise<string> {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      got.push(JSON.parse(body) as Notice);
      res.end();
    });
  });
  const server = receiver;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`)),
  );
}

/** Calls of two dependencies in a transcript, so that both have a breaker. */
function traffic(): void {
  const dir = join(root, 'openclaw', 'agents', 'main', 'sessions');
  mkdirSync(dir, { recursive: true });
  const now = Date.now();
  const lines = [sessionHeader('main-session', now - 10_000)];
  ['zhipu/glm-5.1', 'deepseek/deepseek-v4-pro'].forEach((dep, i) => {
    const [provider, model] = dep.split('/') as [string, string];
    lines.push(assistantMessage({ id: `c${i}`, parentId: null, ts: now - 5000 + i, provider, model, outcome: 'ok' }));
  });
  appendLines(join(dir, 'main-0000-4000-8000-000000000001.jsonl'), lines);
}

async function start(webhook: string): Promise<Monitor> {
  const loaded = resolveDirectories(
    parseWith(configSchema, {
      openclawDir: join(root, 'openclaw'),
      dataDir: join(root, 'data'),
      gatewayUrl: gateway.baseUrl,
      gatewayMetrics: { enabled: false },
      ingest: { reconcileIntervalMs: 200 },
      watchdog: { enabled: false },
      notifications: {
        desktop: false,
        coalesceSec: 1,
        webhooks: [{ type: 'generic', url: webhook, events: ['openclaw_cooldown_loop'] }],
      },
      server: { port: 0 },
    }),
    null,
    { env: {}, home: root, platform: process.platform },
  );
  monitor = new Monitor(loaded, { log: silentLogger, desktop: null, cooldownPollMs: 100 });
  await monitor.start();
  return monitor;
}

async function status(m: Monitor): Promise<ApiStatus> {
  return (await (await fetch(`${m.apiUrl}/api/status`)).json()) as ApiStatus;
}

async function gauge(m: Monitor): Promise<Record<string, number>> {
  const { samples } = parsePrometheusText(await (await fetch(`${m.apiUrl}/metrics`)).text());
  return Object.fromEntries(
    samples.filter((s) => s.name === METRIC_NAMES.openclawCooldown).map((s) => [s.labels.dep, s.value]),
  );
}

describe("the monitor and OpenClaw's cooldowns", () => {
  it('shows a cooldown on its dependency in /api/status and /metrics, and 0 once it is over', async () => {
    const now = Date.now();
    traffic();
    auth = sharedAuthDatabase(join(root, 'openclaw'));
    auth.setStore(profileStore({ 'zhipu:default': 'zhipu', 'deepseek:default': 'deepseek' }));
    auth.setState({
      version: 1,
      usageStats: {
        'zhipu:default': {
          cooldownUntil: now + 4 * MIN,
          cooldownReason: 'rate_limit',
          cooldownModel: 'glm-5.1',
          errorCount: 3,
          failureCounts: { rate_limit: 3 },
          lastFailureAt: now - MIN,
        },
      },
    });
    const m = await start(await hook([]));
    await until(async () => (await status(m)).breakers.length === 2, 10_000);

    const s = await status(m);
    const zhipu = s.breakers.find((b) => b.dep === 'zhipu/glm-5.1');
    expect(zhipu?.openclawCooldown).toEqual({
      until: now + 4 * MIN,
      reason: 'rate_limit',
      profile: 'zhipu:default',
      kind: 'cooldown',
    });
    expect(s.breakers.find((b) => b.dep === 'deepseek/deepseek-v4-pro')?.openclawCooldown).toBeNull();
    expect(s.openclawCooldowns?.active).toMatchObject([
      { dep: 'zhipu/glm-5.1', profile: 'zhipu:default', errorCount: 3, failures: 3 },
    ]);
    expect(s.openclawCooldowns?.databases).toEqual([
      { path: join('state', 'openclaw.sqlite'), profiles: 1, error: null },
    ]);
    expect(m.openclawCooldowns?.cooldownUntil('zhipu/glm-5.1', Date.now())).toBe(now + 4 * MIN);

    const seconds = await gauge(m);
    expect(seconds['zhipu/glm-5.1']).toBeGreaterThan(200);
    expect(seconds['zhipu/glm-5.1']).toBeLessThanOrEqual(240);
    expect(seconds['deepseek/deepseek-v4-pro']).toBe(0);

    // OpenClaw clears the window after a successful call.
    auth.setState({ version: 1, usageStats: { 'zhipu:default': { lastUsed: Date.now(), errorCount: 0 } } });
    await until(async () => (await status(m)).openclawCooldowns?.active.length === 0, 10_000);
    expect((await status(m)).breakers.every((b) => b.openclawCooldown === null)).toBe(true);
    expect(await gauge(m)).toEqual({ 'deepseek/deepseek-v4-pro': 0, 'zhipu/glm-5.1': 0 });
  }, 30_000);

  it('tells a human once about a profile OpenClaw disabled for hours', async () => {
    const now = Date.now();
    traffic();
    auth = sharedAuthDatabase(join(root, 'openclaw'));
    auth.setStore(profileStore({ 'moonshot:default': 'moonshot' }));
    auth.setState({
      version: 1,
      usageStats: {
        'moonshot:default': {
          disabledUntil: now + 160 * MIN,
          disabledReason: 'billing',
          errorCount: 5,
          failureCounts: { billing: 5 },
          lastFailureAt: now,
        },
      },
    });
    const got: Notice[] = [];
    const m = await start(await hook(got));
    await until(() => got.length > 0, 10_000);
    expect(got[0]).toMatchObject({
      kind: 'openclaw_cooldown_loop',
      dep: 'moonshot',
      severity: 'critical',
      title: 'OpenClaw disabled moonshot for 2 h 40 min',
    });
    // Polled again with the same disable (only its error count moving, which the status shows once
    // read): still one notice; and the gauge knows the provider-wide disable.
    for (const errorCount of [6, 7]) {
      auth.setState({
        version: 1,
        usageStats: {
          'moonshot:default': {
            disabledUntil: now + 160 * MIN,
            disabledReason: 'billing',
            errorCount,
            failureCounts: { billing: errorCount },
            lastFailureAt: now,
          },
        },
      });
      await until(
        async () => (await status(m)).openclawCooldowns?.active[0]?.errorCount === errorCount,
        10_000,
        `OpenClaw's state read with ${errorCount} errors`,
      );
    }
    expect(got).toHaveLength(1);
    expect((await gauge(m)).moonshot).toBeGreaterThan(9000);
    const delivered = m.gateway?.history.notifications(0, Number.MAX_SAFE_INTEGER) ?? [];
    expect(delivered).toMatchObject([{ kind: 'openclaw_cooldown_loop', ok: true, dep: 'moonshot' }]);
  }, 30_000);
});
