import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCommand } from '../../main/core/gateway/run-command.js';
import {
  type SimulatedGateway,
  type SimulatedGatewayOptions,
  startSimulatedGateway,
} from '../../main/simulator/simulated-gateway.js';

let gateways: SimulatedGateway[] = [];

afterEach(async () => {
  await Promise.all(gateways.map((gw) => gw.close()));
  gateways = [];
});

async function start(options: SimulatedGatewayOptions = {}): Promise<SimulatedGateway> {
  const gw = await startSimulatedGateway(options);
  gateways.push(gw);
  return gw;
}

interface Answer {
  status: number;
  body: unknown;
}

/** One request on a fresh connection; rejects with the socket error (its code) when there is no answer. */
function call(
  url: string,
  init: { method?: string; body?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', agent: false, headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', reject);
    });
    req.setTimeout(init.timeoutMs ?? 2000, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', reject);
    req.end(init.body);
  });
}

const code = (promise: Promise<unknown>): Promise<string | undefined> =>
  promise.then(
    () => undefined,
    (error: NodeJS.ErrnoException) => error.code,
  );

/** Whether a TCP connection to the port is refused (rather than accepted). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean, withinMs = 3000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

describe('simulated gateway endpoints', () => {
  it('serves the probe endpoints as OpenClaw does when up', async () => {
    let now = 1_000_000;
    const gw = await start({ clock: () => now });
    expect(gw.baseUrl).toBe(`http://127.0.0.1:${gw.port}`);
    now += 4200;
    for (const path of ['/health', '/healthz']) {
      expect(await call(gw.baseUrl + path)).toEqual({ status: 200, body: { ok: true, status: 'live' } });
    }
    for (const path of ['/startup', '/startupz']) {
      expect(await call(gw.baseUrl + path)).toMatchObject({ status: 200, body: { ok: true, status: 'started' } });
    }
    for (const path of ['/ready', '/readyz']) {
      expect(await call(gw.baseUrl + path)).toEqual({
        status: 200,
        body: { ready: true, failing: [], uptimeMs: 4200 },
      });
    }
    expect((await call(`${gw.baseUrl}/v1/chat/completions`)).status).toBe(404);
    expect(gw.requests).toEqual({
      '/health': 1,
      '/healthz': 1,
      '/startup': 1,
      '/startupz': 1,
      '/ready': 1,
      '/readyz': 1,
      '/v1/chat/completions': 1,
    });
  });

  it('reports failing checks on /readyz', async () => {
    const gw = await start();
    gw.failing = ['telegram'];
    expect(await call(`${gw.baseUrl}/readyz`)).toMatchObject({
      status: 503,
      body: { ready: false, failing: ['telegram'] },
    });
  });

  it.each(['starting', 'draining'] as const)('%s: live, but /startupz says %s', async (state) => {
    const gw = await start({ state });
    expect(await call(`${gw.baseUrl}/healthz`)).toEqual({ status: 200, body: { ok: true, status: 'live' } });
    expect(await call(`${gw.baseUrl}/startupz`)).toEqual({ status: 503, body: { ok: false, status: state } });
    expect(await call(`${gw.baseUrl}/readyz`)).toMatchObject({ status: 503, body: { ready: false } });
  });

  it('an older gateway has no /startupz', async () => {
    const gw = await start({ withoutStartupz: true });
    expect((await call(`${gw.baseUrl}/startupz`)).status).toBe(404);
    expect((await call(`${gw.baseUrl}/startup`)).status).toBe(404);
    expect((await call(`${gw.baseUrl}/healthz`)).status).toBe(200);
  });

  it('error500 answers 500 everywhere', async () => {
    const gw = await start();
    gw.state = 'error500';
    for (const path of ['/healthz', '/startupz', '/readyz']) expect((await call(gw.baseUrl + path)).status).toBe(500);
  });

  it('reset resets the connection when the request arrives', async () => {
    const gw = await start({ state: 'reset' });
    expect(await code(call(`${gw.baseUrl}/healthz`))).toBe('ECONNRESET');
    expect(gw.requests['/healthz']).toBe(1);
  });

  it('hang accepts and never answers; close() is still fast', async () => {
    const gw = await start({ state: 'hang' });
    const pending = code(call(`${gw.baseUrl}/healthz`, { timeoutMs: 5000 }));
    await waitFor(() => gw.requests['/healthz'] === 1);
    const started = Date.now();
    await gw.close();
    // Far below the 5 s it would take if close() waited for the hung request or the restart.
    expect(Date.now() - started).toBeLessThan(2500);
    // The hung request ends because close() destroyed its socket, not by the client's 5 s timeout.
    expect(await pending).toBe('ECONNRESET');
  });

  it('refuse really stops listening, and the same port comes back', async () => {
    const gw = await start();
    gw.state = 'refuse';
    expect(await refused(gw.port)).toBe(true);
    expect(await code(call(`${gw.baseUrl}/healthz`))).toBe('ECONNREFUSED');
    gw.state = 'up';
    await gw.settled();
    expect(gw.listenError).toBeNull();
    expect((await call(`${gw.baseUrl}/healthz`)).status).toBe(200);
  });

  it('going to refuse drops open connections, even hung ones', async () => {
    const gw = await start({ state: 'hang' });
    const pending = code(call(`${gw.baseUrl}/healthz`, { timeoutMs: 5000 }));
    await waitFor(() => gw.requests['/healthz'] === 1);
    gw.state = 'refuse';
    expect(await pending).toBe('ECONNRESET');
  });

  it('can start in refuse', async () => {
    const gw = await start({ state: 'refuse' });
    expect(await refused(gw.port)).toBe(true);
    gw.state = 'up';
    await gw.settled();
    expect((await call(`${gw.baseUrl}/healthz`)).status).toBe(200);
  });
});

describe('simulated restarts', () => {
  it('restart(): refused, then starting for restartMs, then up', async () => {
    const gw = await start({ refuseMs: 150, restartMs: 300 });
    const restarting = gw.restart();
    expect(gw.restarts).toBe(1);
    expect(gw.state).toBe('refuse');
    expect(await refused(gw.port)).toBe(true);
    await restarting;
    expect(gw.state).toBe('starting');
    expect(await call(`${gw.baseUrl}/startupz`)).toEqual({ status: 503, body: { ok: false, status: 'starting' } });
    expect((await call(`${gw.baseUrl}/healthz`)).status).toBe(200);
    await waitFor(() => gw.state === 'up');
    expect((await call(`${gw.baseUrl}/startupz`)).status).toBe(200);
  });

  it('restart() with restartMs 0 comes straight back up, uptime reset', async () => {
    let now = 0;
    const gw = await start({ refuseMs: 10, clock: () => now });
    now = 50_000;
    await gw.restart();
    now = 50_500;
    expect(gw.state).toBe('up');
    expect(await call(`${gw.baseUrl}/readyz`)).toMatchObject({ body: { ready: true, uptimeMs: 500 } });
  });

  it('restart(timing) refuses and starts for the times given, not the defaults', async () => {
    const gw = await start({ refuseMs: 5000, restartMs: 5000 });
    const began = Date.now();
    await gw.restart({ refuseMs: 20, startingMs: 100 });
    expect(Date.now() - began).toBeLessThan(4000);
    expect(gw.state).toBe('starting');
    await waitFor(() => gw.state === 'up');
    expect(Date.now() - began).toBeLessThan(4000);
  });

  it('uptime is the wall clock minus the start, as OpenClaw computes it: a step back makes it negative', async () => {
    let now = 1_000_000;
    const gw = await start({ clock: () => now });
    now += 3000;
    expect(await call(`${gw.baseUrl}/readyz`)).toMatchObject({ body: { uptimeMs: 3000 } });
    now -= 7_200_000;
    expect(await call(`${gw.baseUrl}/startupz`)).toMatchObject({ body: { status: 'started', uptimeMs: -7_197_000 } });
  });

  it('a state set during a restart wins over the restart', async () => {
    const gw = await start({ refuseMs: 10, restartMs: 150 });
    // The restart's own timers on a fake clock: its end (150 ms after it listens again) comes on cue.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const restarted = gw.restart();
      await vi.advanceTimersByTimeAsync(10);
      await restarted;
      gw.state = 'hang';
      await vi.advanceTimersByTimeAsync(150);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    expect(gw.state).toBe('hang');
  });

  it('a restart pulls a hung gateway out of its hang', async () => {
    const gw = await start({ state: 'hang', refuseMs: 10 });
    await gw.restart();
    expect(gw.state).toBe('up');
    expect((await call(`${gw.baseUrl}/healthz`)).status).toBe(200);
  });

  it('close() during a restart is fast and final', async () => {
    const gw = await start({ refuseMs: 5000, restartMs: 5000 });
    const restarting = gw.restart();
    const started = Date.now();
    await gw.close();
    await restarting;
    // Far below the 5 s it would take if close() waited for the hung request or the restart.
    expect(Date.now() - started).toBeLessThan(2500);
    expect(await refused(gw.port)).toBe(true);
    await gw.close(); // twice is fine
  });

  it('leaves no servers, sockets or timers behind', async () => {
    const before = process.getActiveResourcesInfo().filter((name) => name !== 'TTYWrap');
    const gw = await startSimulatedGateway({ state: 'hang', refuseMs: 20, restartMs: 10_000 });
    const pending = code(call(`${gw.baseUrl}/healthz`, { timeoutMs: 5000 }));
    await waitFor(() => gw.requests['/healthz'] === 1);
    await gw.restart();
    await pending;
    await gw.close();
    await sleep(20);
    const after = process.getActiveResourcesInfo().filter((name) => name !== 'TTYWrap');
    const count = (list: string[], name: string) => list.filter((item) => item === name).length;
    for (const name of ['TCPServerWrap', 'TCPSocketWrap', 'Timeout']) {
      expect(count(after, name), name).toBeLessThanOrEqual(count(before, name));
    }
  });
});

describe('simulated gateway control endpoints', () => {
  it('POST /__sim/state changes the state', async () => {
    const gw = await start();
    const answer = await call(`${gw.baseUrl}/__sim/state`, { method: 'POST', body: '{"state":"error500"}' });
    expect(answer).toEqual({ status: 200, body: { ok: true, state: 'error500' } });
    await waitFor(() => gw.state === 'error500');
    expect((await call(`${gw.baseUrl}/healthz`)).status).toBe(500);
    // Control requests are not counted as gateway traffic.
    expect(gw.requests).toEqual({ '/healthz': 1 });
  });

  it('POST /__sim/state rejects unknown states', async () => {
    const gw = await start();
    expect((await call(`${gw.baseUrl}/__sim/state`, { method: 'POST', body: '{"state":"melted"}' })).status).toBe(400);
    expect((await call(`${gw.baseUrl}/__sim/state`, { method: 'POST', body: 'nope' })).status).toBe(400);
    expect(gw.state).toBe('up');
  });

  it('GET /__sim/state reports state, restarts and requests', async () => {
    const gw = await start();
    await call(`${gw.baseUrl}/healthz`);
    expect(await call(`${gw.baseUrl}/__sim/state`)).toEqual({
      status: 200,
      body: { state: 'up', restarts: 0, requests: { '/healthz': 1 } },
    });
  });

  it('control works while the gateway is hung or failing', async () => {
    const gw = await start({ state: 'hang' });
    expect((await call(`${gw.baseUrl}/__sim/state`)).status).toBe(200);
    gw.state = 'reset';
    expect((await call(`${gw.baseUrl}/__sim/state`)).status).toBe(200);
  });

  it('refuses requests from browsers (an Origin header)', async () => {
    const gw = await start();
    const answer = await call(`${gw.baseUrl}/__sim/restart`, {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
    });
    expect(answer.status).toBe(403);
    // A restart is only ever scheduled after a 202: the 403 is the handler's last word.
    expect(gw.restarts).toBe(0);
  });

  it('an external restartCommand can restart it through POST /__sim/restart', async () => {
    const gw = await start({ state: 'hang', refuseMs: 20 });
    const script = `fetch('${gw.baseUrl}/__sim/restart',{method:'POST'}).then(r=>{console.log(r.status);process.exit(r.status===202?0:1)},e=>{console.error(e);process.exit(1)})`;
    const result = await runCommand([process.execPath, '-e', script], { timeoutMs: 10_000 });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toBe('202');
    await waitFor(() => gw.restarts === 1 && gw.state === 'up');
    await gw.settled();
    expect((await call(`${gw.baseUrl}/healthz`)).status).toBe(200);
  });
});
