/**
 * The off-box heartbeat end to end: the real daemon as a child process pushes to a receiver on
 * loopback; once the daemon is SIGKILLed the pushes stop. That silence is what a push monitor
 * (healthchecks.io, Uptime Kuma) turns into an alarm.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/transcripts.js';

const CLI = fileURLToPath(new URL('../../dist/main/cli/index.js', import.meta.url));
const INTERVAL_MS = 1000;

let root: string;
let home: string;
let receiver: Server;
let pushes: Array<{ at: number; method: string; path: string; body: string }>;
let daemon: ChildProcess;
let daemonLog = '';

/** Polls `condition` until it holds (true) or `deadline` passes (false): a wait with an end, not a sleep. */
async function holdsBefore(condition: () => boolean, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'bb-heartbeat-e2e-'));
  const stateDir = join(root, 'openclaw');
  mkdirSync(join(stateDir, 'agents', 'main', 'sessions'), { recursive: true });
  pushes = [];
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      pushes.push({ at: Date.now(), method: req.method ?? '', path: req.url ?? '', body });
      res.end('OK');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  // Nothing listens at the gateway address: the headline says the gateway is down, and the pushes go on.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const gatewayPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));

  home = join(root, 'home');
  mkdirSync(home);
  const config = {
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    gatewayMetrics: { enabled: false },
    health: { intervalSec: 1, connectTimeoutSec: 1, readTimeoutMinSec: 1, readTimeoutMaxSec: 2 },
    watchdog: { enabled: false },
    notifications: { desktop: false },
    heartbeat: {
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ping/SECRET-TOKEN`,
      intervalSec: INTERVAL_MS / 1000,
      timeoutSec: 1,
    },
  };
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  daemon = spawn(process.execPath, [CLI, 'daemon', '--port', '0'], {
    env: { ...process.env, BREAKERBAR_HOME: home, OPENCLAW_STATE_DIR: stateDir, LANG: 'en_US.UTF-8' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  daemon.stderr?.setEncoding('utf8').on('data', (chunk: string) => (daemonLog += chunk));
  await until(() => existsSync(join(home, 'api-url')), 15_000, `the daemon's API\n${daemonLog}`);
}, 60_000);

afterAll(async () => {
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
    daemon.kill('SIGKILL');
    await new Promise((resolve) => daemon.once('exit', resolve));
  }
  await new Promise((resolve) => receiver?.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

describe('the heartbeat, end to end', () => {
  it('pushes every interval while the daemon lives, and stops when it is killed', async () => {
    await until(() => pushes.length >= 2, 15_000, `two pushes\n${daemonLog.slice(-2000)}`);
    const first = pushes[0];
    expect(first?.method).toBe('POST');
    expect(first?.path).toBe('/ping/SECRET-TOKEN');
    const body = JSON.parse(first?.body ?? '{}') as { status: string; headline: string; ts: string };
    expect(['ok', 'warning', 'critical']).toContain(body.status);
    expect(body.headline.length).toBeGreaterThan(0);
    expect(Number.isNaN(Date.parse(body.ts))).toBe(false);
    // The URL's token never reaches the log.
    expect(daemonLog).not.toContain('SECRET-TOKEN');

    daemon.kill('SIGKILL');
    await new Promise((resolve) => daemon.once('exit', resolve));
    const killedAt = Date.now();
    // A push already on the wire may land just after the kill; none may come an interval later.
    const late = () => pushes.some((p) => p.at > killedAt + INTERVAL_MS);
    expect(await holdsBefore(late, killedAt + 3 * INTERVAL_MS + 500)).toBe(false);

    // What the doctor reads, and the history row of the first push.
    const db = new Database(join(home, 'breakerbar.sqlite'), { readonly: true, fileMustExist: true });
    try {
      const last = db.prepare("SELECT value FROM meta WHERE key = 'heartbeat.last'").get() as { value: string };
      expect(JSON.parse(last.value)).toMatchObject({ ok: true, httpStatus: 200 });
      const rows = db.prepare("SELECT ok, channel FROM notifications WHERE channel = 'heartbeat'").all();
      expect(rows[0]).toEqual({ ok: 1, channel: 'heartbeat' });
    } finally {
      db.close();
    }
  }, 60_000);
});
