/**
 * A full disk while the daemon runs: every write path refused at once, in one process with real parts (a real
 * SQLite file, the simulated gateway on loopback, transcript lines appended as OpenClaw writes them, a real
 * restart command and a real webhook receiver).
 *
 * The disk is filled the way SQLite meets a full one: the store's connection may not grow the file any more
 * (`max_page_count` at its size, the free pages used up), so every write needing a new page fails with
 * SQLITE_FULL, as on a full disk. Under the test runner every write goes through that one connection (the
 * ingest writer's thread needs the built code). The daemon must keep running, say it once (log, status,
 * headline, one notice), still restart a dead gateway and pause when asked, lose none of the calls written
 * meanwhile, and say once that it stores again when there is room.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Monitor } from '../../../main/api/root/monitor.js';
import type { ApiStatus } from '../../../main/api/types.js';
import { renderStatus } from '../../../main/cli/status.js';
import { configSchema, resolveDirectories } from '../../../main/core/config/index.js';
import { parseWith } from '../../../main/core/config/schema.js';
import { checkBreakerbar, checkRoom } from '../../../main/core/doctor/breakerbar-check.js';
import type { Notice } from '../../../main/core/notify/notice.js';
import type { Store } from '../../../main/core/store/db.js';
import { assistantMessage, sessionHeader } from '../../../main/simulator/records.js';
import { type SimulatedGateway, startSimulatedGateway } from '../../../main/simulator/simulated-gateway.js';
import { recordingLogger } from '../../helpers/fake-backend.js';
import { appendLines, until } from '../../helpers/transcripts.js';

let root: string;
let gateway: SimulatedGateway;
let monitor: Monitor | null = null;
let receiver: Server | null = null;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'bb-disk-full-'));
  gateway = await startSimulatedGateway({ restartMs: 300 });
});

afterEach(async () => {
  await monitor?.stop();
  monitor = null;
  await gateway.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve) ?? resolve(undefined));
  receiver = null;
  rmSync(root, { recursive: true, force: true });
});

/** A webhook receiver on loopback: the kinds of the notices it got, in order. */
async function webhook(): Promise<{ url: string; kinds: string[] }> {
  const kinds: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      kinds.push((JSON.parse(body) as Notice).kind);
      res.end();
    });
  });
  receiver = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, kinds };
}

let entry = 0;
function calls(outcome: 'ok' | 'rate_limited', n: number): void {
  const dir = join(root, 'openclaw', 'agents', 'main', 'sessions');
  mkdirSync(dir, { recursive: true });
  const lines = entry === 0 ? [sessionHeader('main-session', Date.now())] : [];
  for (let i = 0; i < n; i++) {
    entry += 1;
    const text = outcome === 'ok' ? 'ok' : undefined;
    const ts = Date.now();
    lines.push(
      assistantMessage({ id: `e${entry}`, parentId: null, ts, provider: 'zhipu', model: 'glm-5.1', outcome, text }),
    );
  }
  appendLines(join(dir, 'main-0000-4000-8000-000000000001.jsonl'), lines);
}

/** The store the monitor writes through (private: a full disk cannot be made any other way without root). */
function storeOf(m: Monitor): Store {
  return (m as unknown as { store: Store }).store;
}

/** The database may not grow any more, and the room it had is used up: every write needing a page fails. */
function fillDisk(store: Store): void {
  const pages = store.db.pragma('page_count', { simple: true }) as number;
  store.db.pragma(`max_page_count = ${pages}`);
  const put = store.db.prepare('INSERT INTO meta (key, value) VALUES (?, hex(zeroblob(256)))');
  for (let i = 0; ; i++) {
    try {
      put.run(`test.filler.${i}`);
    } catch (error) {
      expect((error as { code?: string }).code).toBe('SQLITE_FULL');
      return;
    }
  }
}

function freeDisk(store: Store): void {
  store.db.prepare("DELETE FROM meta WHERE key LIKE 'test.filler.%'").run();
  store.db.pragma('max_page_count = 1073741823');
}

const count = (store: Store) => store.db.prepare('SELECT COUNT(*) FROM calls').pluck().get() as number;

async function status(m: Monitor): Promise<ApiStatus> {
  return (await (await fetch(`${m.apiUrl}/api/status`)).json()) as ApiStatus;
}

describe('a full disk while the daemon runs', () => {
  it('keeps running, says so once, still restarts and pauses, loses no call, and says once it stores again', async () => {
    const hook = await webhook();
    const marker = join(root, 'restarts');
    writeFileSync(marker, '');
    const restartCommand = [process.execPath, '-e', `require('fs').appendFileSync(${JSON.stringify(marker)}, 'x')`];
    const log = recordingLogger();
    const config = {
      openclawDir: join(root, 'openclaw'),
      dataDir: join(root, 'data'),
      gatewayLogDir: join(root, 'logs'),
      gatewayUrl: gateway.baseUrl,
      gatewayMetrics: { enabled: false },
      ingest: { reconcileIntervalMs: 200 },
      health: { intervalSec: 1, connectTimeoutSec: 1, readTimeoutMinSec: 1, readTimeoutMaxSec: 1 },
      notifications: { desktop: false, coalesceSec: 1, webhooks: [{ type: 'generic', url: hook.url, events: ['*'] }] },
      incidents: { graceSec: 1 },
      watchdog: {
        checkIntervalSec: 1,
        healthFailuresBeforeRestart: 1,
        startupGraceSec: 5,
        deadAfterSec: 0,
        restartCommand,
      },
      server: { port: 0 },
    };
    mkdirSync(join(root, 'logs'), { recursive: true });
    const loaded = resolveDirectories(parseWith(configSchema, config), null, {
      env: {},
      home: root,
      platform: process.platform,
    });
    const m = new Monitor(loaded, { log, incidentsEvaluateMs: 100, storeWatchMs: 100 });
    monitor = m;
    await m.start();
    const store = storeOf(m);
    calls('ok', 10);
    await until(() => count(store) === 10, 10_000, 'the first 10 calls stored');
    await until(() => m.gateway?.watchdog.status().seenHealthy === true, 10_000, 'the gateway seen healthy');

    fillDisk(store);
    calls('rate_limited', 200);
    gateway.state = 'refuse';
    // The gateway's recovery does not wait for disk space: restarted, though the restart cannot be recorded.
    await until(() => readFileSync(marker, 'utf8') === 'x', 15_000, 'the dead gateway restarted');
    gateway.state = 'up';
    await until(async () => (await status(m)).store?.problem === 'full', 10_000, 'the status saying the store is full');
    // A pause asked for holds, only not across a restart of BreakerBar.
    const token = readFileSync(join(root, 'data', 'api-token'), 'utf8').trim();
    const paused = await fetch(`${m.apiUrl}/api/watchdog/pause`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ durationSec: 300 }),
    });
    expect(paused.status).toBe(200);
    expect(m.gateway?.watchdog.status().paused).toBe(true);
    const full = await status(m);
    expect(full.store).toMatchObject({ ok: false, problem: 'full' });
    expect(full.store?.refused).toBeGreaterThan(1);
    expect(renderStatus(full, Date.now()).split('\n')[0]).toMatch(/No room to store since \d/);
    expect(count(store)).toBe(10);
    await until(() => hook.kinds.includes('store_full'), 10_000, 'the store-full notice sent');
    // `doctor` asks the running daemon and says it too, with the fix.
    const doctor = await checkBreakerbar(loaded, { connectTimeoutMs: 5000, readTimeoutMs: 5000 });
    expect(doctor.find((f) => f.title.startsWith('the daemon has had no room to store'))).toMatchObject({
      level: 'error',
      fix: expect.stringContaining(`free space on the disk holding ${join(root, 'data')}`),
    });

    freeDisk(store);
    await until(() => hook.kinds.includes('store_room'), 10_000, 'the room-again notice sent');
    await until(() => count(store) === 210, 10_000, 'the 200 calls written meanwhile stored');
    expect((await status(m)).store).toEqual({ ok: true });
    // The storm the breakers could not see while nothing was stored reaches them once it is.
    await until(
      () => m.breakers?.snapshots().some((b) => b.dep === 'zhipu/glm-5.1' && b.state !== 'closed') === true,
      10_000,
      'the breaker out of closed',
    );

    // Said once each, in order; no read failure claimed, nothing escaped.
    expect(hook.kinds.filter((kind) => kind.startsWith('store_'))).toEqual(['store_full', 'store_room']);
    const said = log.lines.map((line) => line.msg);
    expect(said.filter((msg) => msg.startsWith('no room to store'))).toHaveLength(1);
    expect(said.filter((msg) => msg.startsWith('room to store again'))).toHaveLength(1);
    expect(said.filter((msg) => /read failed|unreadable|could not store/.test(msg))).toEqual([]);
    expect(log.lines.filter((line) => line.level === 'error').map((line) => line.msg)).toEqual([
      'no room to store: the disk holding the database is full; reading goes on, storing resumes when there is room',
    ]);
  }, 60_000);
});

describe('doctor on a nearly full disk', () => {
  it('warns while the data directory has less room than the store needs, and says nothing otherwise', () => {
    const [warning] = checkRoom('/data', () => 3 * 1024 * 1024);
    expect(warning).toMatchObject({ level: 'warn', title: 'the disk holding /data is nearly full (3.0 MB free)' });
    expect(checkRoom('/data', () => 1024 ** 3)).toEqual([]);
  });
});
