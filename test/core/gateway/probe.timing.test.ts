import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  classifyAnswers,
  classifyNetworkError,
  isDead,
  type ProbeOptions,
  probeGateway,
  readyFromAnswer,
  startupFromAnswer,
} from '../../../main/core/gateway/probe.js';
import { type SimulatedGateway, startSimulatedGateway } from '../../../main/simulator/simulated-gateway.js';
import { until } from '../../helpers/transcripts.js';

let cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function gateway(options: Parameters<typeof startSimulatedGateway>[0] = {}): Promise<SimulatedGateway> {
  const gw = await startSimulatedGateway(options);
  cleanups.push(() => gw.close());
  return gw;
}

const fast = (baseUrl: string, extra: Partial<ProbeOptions> = {}): ProbeOptions => ({
  baseUrl,
  connectTimeoutMs: 1000,
  readTimeoutMs: 1000,
  ...extra,
});

type Route = (req: IncomingMessage, res: ServerResponse) => void;

/** A plain server with hand-written answers, for what the simulated gateway does not do. */
async function serve(routes: Record<string, Route>): Promise<{ baseUrl: string; connections: () => number }> {
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const route = routes[req.url ?? ''];
    if (route) route(req, res);
    else {
      res.writeHead(404);
      res.end();
    }
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

const json =
  (status: number, body: unknown): Route =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('probeGateway against the simulated gateway', () => {
  it('ok: live, started, ready', async () => {
    const gw = await gateway();
    const result = await probeGateway(fast(gw.baseUrl, { clock: () => 1234 }));
    expect(result.class).toBe('ok');
    expect(result.ok).toBe(true);
    expect(result.dead).toBe(false);
    expect(result.ts).toBe(1234);
    expect(result.startup).toBe('started');
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(result.latencyMs).toBeLessThan(1000);
    expect(result.ready).toEqual({ ready: true, failing: [], uptimeMs: expect.any(Number) });
    expect(result.detail).toMatch(/^live \(\/healthz 200 in \d+ ms\), started$/);
    expect(gw.requests).toEqual({ '/healthz': 1, '/startupz': 1, '/readyz': 1 });
  });

  it('failing channels are reported but do not make the probe fail', async () => {
    const gw = await gateway();
    gw.failing = ['telegram', 'discord'];
    const result = await probeGateway(fast(gw.baseUrl));
    expect(result.class).toBe('ok');
    expect(result.dead).toBe(false);
    expect(result.ready).toMatchObject({ ready: false, failing: ['telegram', 'discord'] });
    expect(result.detail).toContain('not ready: telegram, discord');
  });

  it('/readyz failing (503, a channel down) with /healthz live and /startupz started is ok, never dead', async () => {
    const body = (name: string) =>
      readFileSync(new URL(`../../fixtures/gateway-owner/${name}`, import.meta.url), 'utf8');
    const answer =
      (status: number, text: string): Route =>
      (_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(text);
      };
    const gw = await serve({
      '/healthz': answer(200, body('healthz-live.json')),
      '/startupz': answer(200, body('startupz-started.json')),
      '/readyz': answer(503, body('readyz-channel-down.json')),
    });
    const result = await probeGateway(fast(gw.baseUrl));
    expect(result).toMatchObject({ class: 'ok', ok: true, dead: false, startup: 'started' });
    expect(result.ready).toEqual({ ready: false, failing: ['telegram'], uptimeMs: 734215 });
    expect(result.detail).toContain('not ready: telegram');
  });

  it('an older gateway without /startupz is ok with startup unknown', async () => {
    const gw = await gateway({ withoutStartupz: true });
    const result = await probeGateway(fast(gw.baseUrl));
    expect(result.class).toBe('ok');
    expect(result.startup).toBe('unknown');
    expect(result.detail).toContain('no /startupz (older gateway)');
  });

  it.each(['starting', 'draining'] as const)('%s: alive, not ok, not dead', async (state) => {
    const gw = await gateway({ state });
    const result = await probeGateway(fast(gw.baseUrl));
    expect(result.class).toBe(state);
    expect(result.startup).toBe(state);
    expect(result.dead).toBe(false);
    expect(result.ok).toBe(false);
    expect(result.detail).toBe(`${state} (/startupz 503)`);
    expect(result.ready?.ready).toBe(false);
  });

  it('read_timeout: a gateway that accepts and never answers', async () => {
    const gw = await gateway({ state: 'hang' });
    const started = performance.now();
    const result = await probeGateway(fast(gw.baseUrl, { readTimeoutMs: 300 }));
    const took = performance.now() - started;
    expect(result.class).toBe('read_timeout');
    expect(result.dead).toBe(true);
    expect(result.latencyMs).toBeNull();
    expect(result.ready).toBeNull();
    expect(result.detail).toBe('no answer to /healthz within 300 ms (read timeout)');
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(900);
    // The request arrived: it is the answer that never came.
    expect(gw.requests['/healthz']).toBe(1);
  });

  it('reset: the connection is reset when the request arrives', async () => {
    const gw = await gateway({ state: 'reset' });
    const result = await probeGateway(fast(gw.baseUrl));
    expect(result.class).toBe('reset');
    expect(result.dead).toBe(true);
    expect(result.detail).toBe(`connection reset by 127.0.0.1:${gw.port} during /healthz`);
  });

  it('http_500: a gateway that errors on everything is dead', async () => {
    const gw = await gateway({ state: 'error500' });
    const result = await probeGateway(fast(gw.baseUrl));
    expect(result.class).toBe('http_500');
    expect(result.dead).toBe(true);
    expect(result.ok).toBe(false);
    expect(result.startup).toBe('unknown');
    expect(result.latencyMs).not.toBeNull();
    expect(result.detail).toBe('/healthz answered HTTP 500');
  });

  it('refused: the simulated gateway really stops listening', async () => {
    const gw = await gateway();
    gw.state = 'refuse';
    const result = await probeGateway(fast(gw.baseUrl));
    expect(result.class).toBe('refused');
    expect(result.dead).toBe(true);
    expect(result.detail).toBe(`connection refused on 127.0.0.1:${gw.port}`);
  });
});

describe('probeGateway edge cases', () => {
  it('refused on a closed port', async () => {
    const port = await closedPort();
    const result = await probeGateway(fast(`http://127.0.0.1:${port}`));
    expect(result).toMatchObject({ class: 'refused', dead: true, ok: false, startup: 'unknown', ready: null });
    expect(result.detail).toBe(`connection refused on 127.0.0.1:${port}`);
  });

  it('a /healthz 503 whose /startupz says starting is starting, not dead', async () => {
    const target = await serve({
      '/healthz': json(503, { ok: false }),
      '/startupz': json(503, { ok: false, status: 'starting' }),
    });
    const result = await probeGateway(fast(target.baseUrl));
    expect(result.class).toBe('starting');
    expect(result.dead).toBe(false);
  });

  it('a 503 without a starting/draining status is dead', async () => {
    const target = await serve({
      '/healthz': json(503, { ok: false }),
      '/startupz': json(503, { ok: false, status: 'broken' }),
    });
    const result = await probeGateway(fast(target.baseUrl));
    expect(result.class).toBe('http_503');
    expect(result.dead).toBe(true);
  });

  it('something else at the address (a 404, a web page) is not an OpenClaw gateway, and not dead', async () => {
    const missing = await serve({ '/startupz': json(200, { ok: true, status: 'started' }) });
    const result = await probeGateway(fast(missing.baseUrl));
    expect(result).toMatchObject({ class: 'not_openclaw', dead: false, ok: false });
    expect(result.detail).toContain('something else listens there');
    const page = await serve({
      '/healthz': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>router login</html>');
      },
    });
    expect((await probeGateway(fast(page.baseUrl))).class).toBe('not_openclaw');
  });

  it("a 4xx with OpenClaw's JSON is classed but not dead", async () => {
    const target = await serve({ '/healthz': json(429, { ok: false, status: 'busy' }) });
    const result = await probeGateway(fast(target.baseUrl));
    expect(result).toMatchObject({ class: 'http_429', dead: false, ok: false });
  });

  it('a /readyz that never answers leaves the probe ok, without ready detail', async () => {
    const target = await serve({
      '/healthz': json(200, { ok: true, status: 'live' }),
      '/startupz': json(200, { ok: true, status: 'started' }),
      '/readyz': () => {},
    });
    const result = await probeGateway(fast(target.baseUrl, { readTimeoutMs: 200 }));
    expect(result.class).toBe('ok');
    expect(result.dead).toBe(false);
    expect(result.ready).toBeNull();
  });

  it('headers sent, body never finished: read timeout', async () => {
    const target = await serve({
      '/healthz': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"ok":');
      },
    });
    const result = await probeGateway(fast(target.baseUrl, { readTimeoutMs: 250 }));
    expect(result.class).toBe('read_timeout');
  });

  it('reads at most 64 KB of a body (an endless body still gets classified)', async () => {
    const target = await serve({
      '/healthz': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"ok":true,"status":"live"}');
        res.write(Buffer.alloc(100 * 1024, 0x20)); // more than the cap, and never ended
      },
      '/startupz': json(200, { ok: true, status: 'started' }),
    });
    const result = await probeGateway(fast(target.baseUrl, { readTimeoutMs: 2000 }));
    expect(result.class).toBe('ok');
    expect(result.latencyMs).toBeLessThan(1500);
  });

  it('opens a fresh connection for every request and asks the server to close it', async () => {
    const headers: Array<string | undefined> = [];
    const record =
      (route: Route): Route =>
      (req, res) => {
        headers.push(req.headers.connection);
        route(req, res);
      };
    const target = await serve({
      '/healthz': record(json(200, { ok: true, status: 'live' })),
      '/startupz': record(json(200, { ok: true, status: 'started' })),
      '/readyz': record(json(200, { ready: true, failing: [], uptimeMs: 5 })),
    });
    const result = await probeGateway(fast(target.baseUrl));
    expect(result.ready).toEqual({ ready: true, failing: [], uptimeMs: 5 });
    expect(target.connections()).toBe(3);
    expect(headers).toEqual(['close', 'close', 'close']);
  });

  it('an unusable base URL is an error, not a crash', async () => {
    expect(await probeGateway(fast('not a url'))).toMatchObject({ class: 'error', dead: true });
    const https = await probeGateway(fast('https://127.0.0.1:1'));
    expect(https.class).toBe('error');
    expect(https.detail).toContain('https:');
  });
});

/**
 * A real connect timeout on loopback: a listener whose process is stopped
 * (SIGSTOP) never accepts, so once its accept queue is full the kernel drops
 * further SYNs and a connect simply waits. Linux only: the kernel's socket
 * table (/proc/net/tcp) shows when a connect is left waiting. Returns its port.
 */
async function stoppedListener(): Promise<number> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:net').createServer(() => {});
       s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
         console.log(s.address().port);
         process.kill(process.pid, 'SIGSTOP');
       });`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const fillers: Socket[] = [];
  cleanups.push(() => {
    for (const socket of fillers) socket.destroy();
    child.kill('SIGKILL');
  });
  const port = await new Promise<number>((resolve) =>
    child.stdout?.once('data', (data: Buffer) => resolve(Number(String(data).trim()))),
  );
  // Stopped for real before the queue is filled (ps shows state T), else it might still accept.
  await until(
    () =>
      spawnSync('ps', ['-o', 'stat=', '-p', String(child.pid)], { encoding: 'utf8' })
        .stdout.trim()
        .startsWith('T'),
    5000,
    'the listener to be stopped',
  );
  // Fill the accept queue until a connection stays pending (its size varies by platform).
  let full = false;
  for (let i = 0; i < 20 && !full; i++) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    fillers.push(socket);
    let connected = false;
    socket.once('connect', () => {
      connected = true;
    });
    await until(() => connected || waitingConnects(port) > 0, 5000, 'the connect to finish or wait');
    full = !connected;
  }
  expect(full).toBe(true);
  return port;
}

/** Connections to `port` on loopback that wait for the far side's answer to their SYN (state SYN_SENT). */
function waitingConnects(port: number): number {
  const SYN_SENT = '02';
  const portHex = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(([, , remote, state]) => remote?.endsWith(`:${portHex}`) && state === SYN_SENT).length;
}

const LINUX = process.platform === 'linux';

describe.skipIf(!LINUX)('connect_timeout', () => {
  it('a listener that never accepts gives connect_timeout', async () => {
    const port = await stoppedListener();
    const result = await probeGateway(fast(`http://127.0.0.1:${port}`, { connectTimeoutMs: 300, readTimeoutMs: 5000 }));
    expect(result.class).toBe('connect_timeout');
    expect(result.dead).toBe(true);
    expect(result.detail).toBe(`no connection to 127.0.0.1:${port} within 300 ms (connect timeout)`);
  });
});

/** Keeps this process's event loop busy, as a backfill or a burst of calls could keep BreakerBar's. */
function blockLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy on purpose
  }
}

describe("BreakerBar's own event loop blocked during a probe", () => {
  it('a deadline that ran out while the loop was blocked is unknown, never dead', async () => {
    // The gateway takes the request and never answers; the loop is blocked 1.2 s right then.
    const target = await serve({ '/healthz': () => blockLoop(1200) });
    const result = await probeGateway(fast(target.baseUrl, { readTimeoutMs: 300 }));
    expect(result.class).toBe('unknown');
    expect(result.dead).toBe(false);
    expect(result.ok).toBe(false);
    expect(result.latencyMs).toBeNull();
    expect(result.detail).toMatch(
      /^probe delayed by BreakerBar's own event loop \(\d+\.\d s\): gateway state unknown$/,
    );
    expect(isDead(result.class)).toBe(false);
  });

  it('an answer that arrived while the loop was blocked still counts, its latency without the block', async () => {
    const target = await serve({
      '/healthz': (req, res) => {
        blockLoop(1200);
        json(200, { ok: true, status: 'live' })(req, res);
      },
      '/startupz': json(200, { ok: true, status: 'started' }),
      '/readyz': json(200, { ready: true, failing: [], uptimeMs: 5 }),
    });
    const result = await probeGateway(fast(target.baseUrl, { readTimeoutMs: 300 }));
    expect(result.class).toBe('ok');
    expect(result.dead).toBe(false);
    // The round trip took over 1.2 s of wall time; the gateway's part of it was small.
    expect(result.latencyMs).toBeLessThan(600);
    expect(result.loopStallMs).toBeGreaterThanOrEqual(600);
  });

  it('a hung gateway is still dead when only the connection waited on the blocked loop', async () => {
    const target = await serve({ '/healthz': () => {} });
    const probe = probeGateway(fast(target.baseUrl, { connectTimeoutMs: 300, readTimeoutMs: 300 }));
    // Blocked before the connection is seen: the connect deadline passes, the read deadline then runs in full.
    blockLoop(800);
    const result = await probe;
    expect(result.class).toBe('read_timeout');
    expect(result.dead).toBe(true);
  });

  it.skipIf(!LINUX)('a connect deadline that ran out while the loop was blocked is unknown', async () => {
    const port = await stoppedListener();
    const probe = probeGateway(fast(`http://127.0.0.1:${port}`, { connectTimeoutMs: 300, readTimeoutMs: 5000 }));
    blockLoop(1200);
    const result = await probe;
    expect(result.class).toBe('unknown');
    expect(result.dead).toBe(false);
  });
});

describe('classification', () => {
  it('maps socket errors by phase', () => {
    expect(classifyNetworkError('ECONNREFUSED', false)).toBe('refused');
    expect(classifyNetworkError('ETIMEDOUT', false)).toBe('connect_timeout');
    expect(classifyNetworkError('ETIMEDOUT', true)).toBe('read_timeout');
    expect(classifyNetworkError('ECONNRESET', true)).toBe('reset');
    expect(classifyNetworkError('EPIPE', true)).toBe('reset');
    expect(classifyNetworkError('EHOSTUNREACH', false)).toBe('error');
    expect(classifyNetworkError(undefined, false)).toBe('error');
  });

  it('starting and draining win over the /healthz status', () => {
    expect(classifyAnswers(200, 'started')).toBe('ok');
    expect(classifyAnswers(200, 'unknown')).toBe('ok');
    expect(classifyAnswers(200, 'starting')).toBe('starting');
    expect(classifyAnswers(502, 'draining')).toBe('draining');
    expect(classifyAnswers(502, 'started')).toBe('http_502');
  });

  it('dead means no answer or a 5xx', () => {
    for (const cls of [
      'refused',
      'connect_timeout',
      'read_timeout',
      'reset',
      'error',
      'http_500',
      'http_503',
    ] as const) {
      expect(isDead(cls)).toBe(true);
    }
    for (const cls of ['ok', 'starting', 'draining', 'unknown', 'http_404', 'http_429'] as const)
      expect(isDead(cls)).toBe(false);
  });

  it('reads /startupz and /readyz tolerantly', () => {
    const answer = (status: number, body: string) => ({ kind: 'answered' as const, status, body, latencyMs: 1 });
    expect(startupFromAnswer(answer(200, '{"ok":true,"status":"started"}'))).toBe('started');
    // OpenClaw 2026.7 serves its Control UI page there: no /startupz, not a verdict.
    expect(startupFromAnswer(answer(200, '<!doctype html><html>'))).toBe('unknown');
    expect(startupFromAnswer(answer(503, '{"status":"draining"}'))).toBe('draining');
    expect(startupFromAnswer(answer(503, 'oops'))).toBe('unknown');
    expect(startupFromAnswer(answer(404, ''))).toBe('unknown');
    expect(startupFromAnswer({ kind: 'reset', message: 'x' })).toBe('unknown');
    expect(readyFromAnswer(answer(503, '{"ready":false,"failing":["slack",{"name":"irc"},3],"uptimeMs":"x"}'))).toEqual(
      {
        ready: false,
        failing: ['slack', 'irc'],
        uptimeMs: null,
      },
    );
    expect(readyFromAnswer(answer(200, '{"failing":[]}'))).toBeNull();
    expect(readyFromAnswer(answer(200, '[1]'))).toBeNull();
  });
});
