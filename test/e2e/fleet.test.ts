/**
 * Two BreakerBar instances ("mini-1" and "mini-2") sharing a dependency through
 * a real redis-server on loopback: a breaker that opens on one host shows as
 * open elsewhere and trips the other (openOnPeerEvidence); half-open probes
 * are serialized across hosts by the lease; while Redis is down both keep
 * working locally, and they share again once it is back.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Monitor } from '../../main/api/root/monitor.js';
import type { ApiStatus } from '../../main/api/types.js';
import { configSchema, resolveDirectories } from '../../main/core/config/index.js';
import { parseWith } from '../../main/core/config/schema.js';
import { silentLogger } from '../../main/core/runtime/log.js';
import { assistantMessage, sessionHeader } from '../../main/simulator/records.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { toolOrSkip } from '../helpers/tools.js';
import { until } from '../helpers/transcripts.js';

const REDIS = toolOrSkip('redis-server');

const DEP = 'zhipu/glm-5.1';
let root: string;
let redis: RedisServer;
let provider: Server;
let providerUrl: string;
const probes = { inFlight: 0, maxInFlight: 0, total: 0 };
const monitors: Monitor[] = [];
let entry = 0;

/** A provider's model list that is still failing, slowly: each probe holds 300 ms. */
function startProvider(): Promise<void> {
  provider = createServer((_req, res) => {
    probes.total += 1;
    probes.inFlight += 1;
    probes.maxInFlight = Math.max(probes.maxInFlight, probes.inFlight);
    setTimeout(() => {
      probes.inFlight -= 1;
      res.statusCode = 503;
      res.end('unavailable');
    }, 300);
  });
  return new Promise((resolve) =>
    provider.listen(0, '127.0.0.1', () => {
      providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1/models`;
      resolve();
    }),
  );
}

async function host(name: string, openOnPeerEvidence: boolean): Promise<Monitor> {
  const dir = join(root, name);
  mkdirSync(join(dir, 'openclaw', 'agents', 'main', 'sessions'), { recursive: true });
  const config = parseWith(configSchema, {
    openclawDir: join(dir, 'openclaw'),
    dataDir: join(dir, 'data'),
    gatewayMetrics: { enabled: false },
    ingest: { reconcileIntervalMs: 200 },
    server: { port: 0 },
    breakers: {
      consecutiveFailures: 3,
      cooldownMs: 500,
      backoffFactor: 1,
      maxOpenMs: 1000,
      probes: { 'zhipu/*': { url: providerUrl, timeoutMs: 2000 } },
    },
    fleet: { redisUrl: redis.url, hostId: name, openOnPeerEvidence, probeLeaseMs: 1000 },
  });
  const monitor = new Monitor(resolveDirectories(config, null, { env: {}, home: dir, platform: process.platform }), {
    log: silentLogger,
    gateway: false,
  });
  await monitor.start();
  monitors.push(monitor);
  return monitor;
}

function failCalls(name: string, n: number): void {
  const file = join(root, name, 'openclaw', 'agents', 'main', 'sessions', `${name}-0000-4000-8000-000000000001.jsonl`);
  const lines = entry === 0 ? [sessionHeader(`${name}-s`, Date.now())] : [];
  for (let i = 0; i < n; i++) {
    entry += 1;
    lines.push(
      assistantMessage({
        id: `e${entry}`,
        parentId: null,
        ts: Date.now(),
        provider: 'zhipu',
        model: 'glm-5.1',
        outcome: 'server_error',
      }),
    );
  }
  appendFileSync(file, `${lines.join('\n')}\n`);
}

async function status(monitor: Monitor): Promise<ApiStatus> {
  return (await (await fetch(`${monitor.apiUrl}/api/status`)).json()) as ApiStatus;
}

const breakerOf = (s: ApiStatus) => s.breakers.find((b) => b.dep === DEP);

beforeAll(async () => {
  if (REDIS.skip) return;
  root = mkdtempSync(join(tmpdir(), 'bb-fleet-'));
  redis = await startRedisServer();
  await startProvider();
}, 30_000);

afterAll(async () => {
  for (const monitor of monitors) await monitor.stop();
  await redis?.stop();
  if (provider) {
    provider.closeAllConnections();
    await new Promise((resolve) => provider?.close(resolve));
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

// One story over two hosts: each step starts from where the one before left it, so they run in order
// even when the suite is shuffled (`--sequence.shuffle`).
describe.skipIf(REDIS.skip)(REDIS.title('two hosts sharing a dependency through Redis'), { shuffle: false }, () => {
  let mini1: Monitor;
  let mini2: Monitor;

  it('a breaker that opens on mini-1 shows as open elsewhere on mini-2, which trips on that evidence', async () => {
    mini1 = await host('mini-1', false);
    mini2 = await host('mini-2', true);
    await until(
      async () => (await status(mini1)).fleet?.connected === true && (await status(mini2)).fleet?.connected === true,
      10_000,
    );
    failCalls('mini-1', 3);
    await until(
      async () => breakerOf(await status(mini2))?.state !== undefined,
      10_000,
      'mini-2 learning of the dependency',
    );
    const seen = breakerOf(await status(mini2));
    expect(seen?.reason).toMatch(/on mini-1/);
    expect(seen?.elsewhere.map((peer) => peer.host)).toEqual(['mini-1']);
    const text = await (await fetch(`${mini2.apiUrl}/metrics`)).text();
    expect(text).toMatch(/breakerbar_fleet_peer_transitions_total\{dep="zhipu\/glm-5.1",to="open"\} [1-9]/);
    expect(text).toMatch(/breakerbar_fleet_connected 1\b/);
  }, 30_000);

  it('serializes half-open probes across hosts: never two at once', async () => {
    // Both breakers cycle open → half_open → open (the provider keeps failing); each wants a probe every cycle.
    probes.maxInFlight = 0;
    const before = probes.total;
    await until(() => probes.total - before >= 6, 20_000, 'six probes across both hosts');
    const leases = async (m: Monitor) =>
      (await (await fetch(`${m.apiUrl}/metrics`)).text())
        .split('\n')
        .filter((line) => line.startsWith('breakerbar_fleet_probe_leases_total'))
        .join('; ');
    const seen = `mini-1: ${await leases(mini1)} / mini-2: ${await leases(mini2)}`;
    expect(probes.maxInFlight, seen).toBe(1);
    expect(seen).toMatch(/result="held"\} [1-9]/);
  }, 30_000);

  it('keeps working locally while Redis is down, and shares again once it is back', async () => {
    await redis.kill();
    await until(async () => (await status(mini1)).fleet?.connected === false, 15_000);
    const text = await (await fetch(`${mini1.apiUrl}/metrics`)).text();
    expect(text).toMatch(/breakerbar_fleet_connected 0\b/);
    // Local breakers and probes carry on: probes are "uncoordinated", the API answers.
    const before = probes.total;
    await until(() => probes.total > before, 10_000, 'a probe while Redis is down');
    expect((await fetch(`${mini1.apiUrl}/healthz`)).status).toBe(200);

    await redis.start();
    await until(
      async () => (await status(mini1)).fleet?.connected === true && (await status(mini2)).fleet?.connected === true,
      20_000,
    );
    // mini-2's breaker for a new dependency opens; mini-1 sees it elsewhere.
    const file = join(
      root,
      'mini-2',
      'openclaw',
      'agents',
      'main',
      'sessions',
      'mini-2-0000-4000-8000-000000000002.jsonl',
    );
    const lines = [sessionHeader('mini-2-t', Date.now())];
    for (let i = 0; i < 3; i++) {
      entry += 1;
      lines.push(
        assistantMessage({
          id: `f${entry}`,
          parentId: null,
          ts: Date.now(),
          provider: 'deepseek',
          model: 'deepseek-v4-pro',
          outcome: 'timeout',
        }),
      );
    }
    appendFileSync(file, `${lines.join('\n')}\n`);
    const deepseek = async () => (await status(mini2)).breakers.find((b) => b.dep === 'deepseek/deepseek-v4-pro');
    await until(async () => (await deepseek())?.state === 'open', 10_000, "mini-2's deepseek breaker opening");
    // mini-1 never saw a deepseek call: it has no breaker for it, but its fleet view shows mini-2's.
    const elsewhere = () => mini1.breakers?.fleet?.elsewhere('deepseek/deepseek-v4-pro') ?? [];
    await until(() => elsewhere().length > 0, 10_000, "mini-1 learning of mini-2's deepseek breaker");
    expect(elsewhere()[0]).toMatchObject({ host: 'mini-2', state: 'open' });
  }, 60_000);
});
