/**
 * The app and its core: it attaches to a daemon that holds the data directory
 * (a real Monitor in this process), or starts its own (`fork`, played here by
 * a Monitor started on demand) and restarts it with a growing delay when it
 * dies; quitting stops only a core it started. And a restart asked through the
 * connection reaches a real watchdog, which restarts a simulated gateway.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Monitor } from '../../main/api/root/monitor.js';
import type { ApiEvent } from '../../main/api/types.js';
import {
  type CoreChild,
  CoreSupervisor,
  type CoreSupervisorOptions,
  type ForkRequest,
} from '../../main/app/core-supervisor.js';
import { readApiUrl } from '../../main/core/api-files/address.js';
import { type LoadedConfig, loadConfig } from '../../main/core/config/index.js';
import { lockState } from '../../main/core/runtime/lock.js';
import { silentLogger } from '../../main/core/runtime/log.js';
import { type SimulatedGateway, startSimulatedGateway } from '../../main/simulator/simulated-gateway.js';
import { until } from '../helpers/transcripts.js';
import { type FakeCore, startFakeCore } from './fake-core.js';
import { notice } from './fixtures.js';

let root: string;
let home: string;
let monitors: Monitor[];
let supervisor: CoreSupervisor | null;
let gateway: SimulatedGateway | null;

const FAST = {
  pollMs: 20,
  attachGraceMs: 150,
  minMs: 40,
  maxMs: 400,
  stableMs: 60_000,
  statusDebounceMs: 10,
  streamMinDelayMs: 30,
  streamMaxDelayMs: 100,
  stopTimeoutMs: 5000,
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bb-app-supervisor-'));
  home = join(root, 'home');
  mkdirSync(join(root, 'openclaw'), { recursive: true });
  writeConfig({ server: { port: 0 }, gatewayMetrics: { enabled: false }, ingest: { reconcileIntervalMs: 200 } });
  monitors = [];
  supervisor = null;
  gateway = null;
});

afterEach(async () => {
  await supervisor?.stop();
  for (const monitor of monitors) await monitor.stop();
  await gateway?.close();
  rmSync(root, { recursive: true, force: true });
});

function writeConfig(config: Record<string, unknown>): void {
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
}

function load(): LoadedConfig {
  return loadConfig(undefined, {
    env: { BREAKERBAR_HOME: home, OPENCLAW_STATE_DIR: join(root, 'openclaw') },
    home: root,
    platform: 'linux',
  });
}

/** A daemon for the data directory, as `breakerbar daemon` runs it (in this process). */
async function startDaemon(options: { gateway?: boolean } = {}): Promise<Monitor> {
  const monitor = new Monitor(load(), { log: silentLogger, gateway: options.gateway ?? false, desktop: null });
  await monitor.start();
  monitors.push(monitor);
  return monitor;
}

/** `fork` as the app's utility process would behave: a daemon that runs until killed. */
function forkingDaemons(requests: ForkRequest[]): CoreSupervisorOptions['fork'] {
  return (request) => {
    requests.push(request);
    let monitor: Monitor | null = null;
    let exitListener: ((code: number, lastOutput: string | null) => void) | null = null;
    const started = startDaemon().then((m) => {
      monitor = m;
    });
    return {
      pid: 5000 + requests.length,
      kill: vi.fn(() => {
        void started.then(async () => {
          await monitor?.stop();
          monitors = monitors.filter((m) => m !== monitor);
          exitListener?.(0, null);
        });
        return true;
      }),
      onExit: (listener) => {
        exitListener = listener;
      },
    } satisfies CoreChild;
  };
}

function supervise(overrides: Partial<CoreSupervisorOptions> = {}): CoreSupervisor {
  supervisor = new CoreSupervisor({
    coreScript: '/app/dist/main/cli/index.js',
    loadConfig: load,
    lockState,
    readApiUrl,
    readToken: (dataDir) => {
      try {
        return readFileSync(join(dataDir, 'api-token'), 'utf8').trim();
      } catch {
        return null;
      }
    },
    fork: () => {
      throw new Error('fork must not be called');
    },
    timing: FAST,
    ...overrides,
  });
  supervisor.start();
  return supervisor;
}

const connected = (s: CoreSupervisor) => s.view.phase === 'connected' && s.status !== null;

describe('attach or start', () => {
  it('attaches to the daemon that holds the data directory, and never stops it', async () => {
    const daemon = await startDaemon();
    const fork = vi.fn();
    const s = supervise({ fork });
    await until(() => connected(s));
    expect(s.view).toEqual({ phase: 'connected', mode: 'attached', url: daemon.apiUrl, pid: process.pid });
    expect(s.ownsCore).toBe(false);
    expect(s.status?.breakers).toEqual([]);
    expect(fork).not.toHaveBeenCalled();

    await s.stop();
    // The daemon is not the app's: it still runs and answers.
    expect(lockState(load().dataDir)).toEqual({ held: true, pid: process.pid });
    expect((await fetch(`${daemon.apiUrl}/healthz`)).ok).toBe(true);
  });

  it('starts its own core when no daemon runs, and stops it on quit', async () => {
    const requests: ForkRequest[] = [];
    const s = supervise({ fork: forkingDaemons(requests) });
    await until(() => connected(s));
    expect(requests).toEqual([
      {
        modulePath: '/app/dist/main/cli/index.js',
        args: ['daemon', '--no-desktop'],
        serviceName: 'BreakerBar core',
      },
    ]);
    expect(s.view).toMatchObject({ phase: 'connected', mode: 'embedded', pid: 5001 });
    expect(s.ownsCore).toBe(true);

    await s.stop();
    // Our core is gone, and with it the lock: nothing of ours keeps running after quit.
    expect(lockState(load().dataDir)).toEqual({ held: false });
    expect(s.view.phase).toBe('connecting');
  });

  it('restarts a core that keeps dying, waiting longer each time, and says why it died', async () => {
    const forks: number[] = [];
    const s = supervise({
      fork: () => {
        forks.push(Date.now());
        return {
          pid: 7000 + forks.length,
          kill: () => true,
          onExit: (listener) => {
            setTimeout(
              () => listener(1, 'cannot start the API server on 127.0.0.1:18820: the port is already in use'),
              5,
            );
          },
        };
      },
    });
    await until(() => forks.length >= 4 && s.view.phase === 'unreachable', 10_000);
    expect(s.view).toMatchObject({
      phase: 'unreachable',
      detail: 'the core exited (code 1): cannot start the API server on 127.0.0.1:18820: the port is already in use',
    });
    const gaps = forks.slice(1).map((t, i) => t - (forks[i] as number));
    // 40, 80, 160 ms (plus the 5 ms each core lived): each wait longer than the one before.
    expect(gaps[1]).toBeGreaterThan(gaps[0] as number);
    expect(gaps[2]).toBeGreaterThan(gaps[1] as number);
  });

  it('starts its own core once the daemon it attached to is gone for good', async () => {
    const daemon = await startDaemon();
    const requests: ForkRequest[] = [];
    const s = supervise({ fork: forkingDaemons(requests) });
    await until(() => connected(s) && s.view.phase === 'connected' && s.view.mode === 'attached');
    await daemon.stop();
    monitors = monitors.filter((m) => m !== daemon);
    await until(() => s.view.phase === 'connected' && s.view.mode === 'embedded', 10_000);
    expect(requests).toHaveLength(1);
    expect(s.ownsCore).toBe(true);
  });

  it('says what is wrong with the configuration, and tries again once it is fixed', async () => {
    writeConfig({ server: { port: 'many' } });
    const daemonLater: ForkRequest[] = [];
    const s = supervise({ fork: forkingDaemons(daemonLater) });
    await until(() => s.view.phase === 'unreachable');
    expect(s.view.phase === 'unreachable' && s.view.detail).toMatch(/^configuration: .*server\.port/);
    expect(daemonLater).toEqual([]);
    writeConfig({ server: { port: 0 }, gatewayMetrics: { enabled: false } });
    await until(() => connected(s), 10_000);
    expect(daemonLater).toHaveLength(1);
  });
});

describe('following a core', () => {
  let core: FakeCore;

  afterEach(async () => {
    await core?.close();
  });

  it('passes every event on and refreshes the status after the ones that change it', async () => {
    core = await startFakeCore();
    const s = supervise({ lockState: () => ({ held: true, pid: 31 }), readApiUrl: () => core.url });
    await until(() => connected(s));
    const events: ApiEvent[] = [];
    s.on('event', (event) => events.push(event));
    await until(() => core.backend.subscribers > 0);
    core.backend.statusResult = { ...core.backend.statusResult, version: '9.9.9' };
    core.backend.emit({ type: 'notice', data: notice() });
    await until(() => events.length === 1 && s.status?.version === '9.9.9');
    expect(events[0]).toEqual({ type: 'notice', data: notice() });
  });

  it('waits for an attached daemon that restarts its server, and comes back to it', async () => {
    core = await startFakeCore();
    const { dataDir, token } = core;
    const port = core.server.port;
    const s = supervise({ lockState: () => ({ held: true, pid: 31 }), readApiUrl: () => core.url });
    await until(() => connected(s));
    await core.stop();
    await until(() => s.view.phase === 'connecting');
    core = await startFakeCore({ port, dataDir, token });
    await until(() => s.view.phase === 'connected', 10_000);
    expect(s.view).toMatchObject({ mode: 'attached', pid: 31 });
  });
});

describe('the restart path', () => {
  it('a restart asked through the connection reaches the watchdog, which restarts the gateway', async () => {
    gateway = await startSimulatedGateway({ restartMs: 100 });
    const script = join(root, 'restart-gateway.mjs');
    writeFileSync(
      script,
      `const res = await fetch(${JSON.stringify(`${gateway.baseUrl}/__sim/restart`)}, { method: 'POST' });\nprocess.exit(res.ok ? 0 : 1);\n`,
    );
    writeConfig({
      server: { port: 0 },
      gatewayUrl: gateway.baseUrl,
      gatewayMetrics: { enabled: false },
      health: { intervalSec: 1, connectTimeoutSec: 1, readTimeoutMinSec: 1, readTimeoutMaxSec: 2 },
      watchdog: { restartCommand: [process.execPath, script], restartTimeoutSec: 10, startupGraceSec: 5 },
      notifications: { desktop: false },
    });
    await startDaemon({ gateway: true });
    const s = supervise();
    await until(() => connected(s));
    const events: ApiEvent[] = [];
    s.on('event', (event) => events.push(event));

    const answer = await s.api?.call('restart', { force: false, reason: 'restart from the menu bar' });
    expect(answer?.decision).toBe('restart');
    await until(() => gateway?.restarts === 1, 15_000);
    await until(() => events.some((e) => e.type === 'restart'), 15_000);
    const restart = events.find((e) => e.type === 'restart');
    expect(restart?.type === 'restart' && restart.data).toMatchObject({
      trigger: 'manual',
      reason: 'restart from the menu bar',
    });
  });
});
