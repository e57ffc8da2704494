/**
 * Rule: one local process holding many idle connections or event streams cannot lock other clients
 * out of the API. At the cap the longest-idle connection gives way; streams beyond their own cap are
 * refused with 503; an ordinary request still gets its answer.
 */
import { randomBytes } from 'node:crypto';
import { createServer, get, type IncomingMessage } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionTable, limitConnections } from '../../../main/api/server/connection-limits.js';
import { type ApiServer, startApiServer } from '../../../main/api/server/http.js';
import { FakeBackend, recordingLogger } from '../../helpers/fake-backend.js';
import { until } from '../../helpers/transcripts.js';

const TOKEN = randomBytes(32).toString('hex');
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('connection table', () => {
  it('admits up to the cap, then closes the longest idle to make room', () => {
    const table = new ConnectionTable<string>(3);
    expect(table.admit('a')).toEqual({ admit: true, evict: null });
    expect(table.admit('b')).toEqual({ admit: true, evict: null });
    expect(table.admit('c')).toEqual({ admit: true, evict: null });
    table.busy('a');
    table.busy('b');
    table.rest('b'); // b idle again: newer than c
    expect(table.admit('d')).toEqual({ admit: true, evict: 'c' });
    expect(table.admit('e')).toEqual({ admit: true, evict: 'b' });
    expect(table.size).toBe(3);
  });

  it('refuses the newcomer only when every connection is busy', () => {
    const table = new ConnectionTable<string>(2);
    table.admit('a');
    table.admit('b');
    table.busy('a');
    table.busy('b');
    expect(table.admit('c')).toEqual({ admit: false });
    table.remove('a');
    expect(table.admit('c')).toEqual({ admit: true, evict: null });
  });

  it('with none idle, closes the connection whose request has been arriving the longest', () => {
    const arriving = new Set(['a', 'b']);
    const table = new ConnectionTable<string>(3, (c) => arriving.has(c));
    for (const c of ['a', 'b', 'c']) table.admit(c);
    table.busy('c');
    table.busy('a');
    table.busy('b');
    // 'c' is answering a whole request: never closed; of the two still arriving, 'a' has been at it longest.
    expect(table.admit('d')).toEqual({ admit: true, evict: 'a' });
    table.busy('d');
    expect(table.admit('e')).toEqual({ admit: true, evict: 'b' });
    table.busy('e');
    expect(table.admit('f')).toEqual({ admit: false });
  });

  it('forgets a connection that closed, and ignores one that rests after closing', () => {
    const table = new ConnectionTable<string>(1);
    table.admit('a');
    table.remove('a');
    table.rest('a');
    expect(table.size).toBe(0);
    expect(table.admit('b')).toEqual({ admit: true, evict: null });
  });
});

async function start(requestTimeoutMs?: number, log = recordingLogger()): Promise<ApiServer> {
  const server = await startApiServer({
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
    backend: new FakeBackend(),
    port: 0,
    token: TOKEN,
    log,
    version: '9.9.9',
    sse: { heartbeatMs: 0 },
  });
  cleanups.push(() => server.close());
  return server;
}

/** A connection that never sends a byte; `gone` settles when the server has closed it. */
function idleSocket(port: number): Promise<Socket & { gone: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(Object.assign(socket, { gone })));
    // Listened for from the start, and read (flowing), so the server's close is seen whenever it comes.
    const gone = new Promise<void>((resolveClosed) => socket.once('close', () => resolveClosed()));
    socket.resume();
    socket.on('error', () => {});
    socket.once('error', reject);
    cleanups.push(() => void socket.destroy());
  });
}

/** Opens an event stream; resolves with its status once the headers arrived. */
function stream(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = get(`${url}/api/events`, { agent: false }, (res) => {
      res.on('error', () => {});
      if (res.statusCode !== 200) res.resume();
      cleanups.push(() => void res.destroy());
      resolve(res);
    });
    req.on('error', reject);
  });
}

/** Resolves with the answer, or rejects after a generous deadline (a locked-out client waits forever). */
async function answered(response: Promise<Response>): Promise<Response> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer: locked out')), 5000);
  });
  try {
    return await Promise.race([response, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe('connections that go quiet', () => {
  it('closes a kept-alive connection after its answer without a warning: browsers keep several per page', async () => {
    const log = recordingLogger();
    const server = await start(200, log);
    // As a browser holds it: the answer read, the connection left open for the next request.
    const socket = await idleSocket(server.port);
    const answer = new Promise<void>((resolve) =>
      socket.on('data', (chunk: Buffer) => chunk.includes('ok') && resolve()),
    );
    socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
    await answer;
    // The server ends the idle connection (its keep-alive timeout), quietly.
    await socket.gone;
    expect(log.lines.filter((line) => line.level === 'warn')).toEqual([]);
  });
});

describe('an API under connection pressure from one process', () => {
  it('answers /healthz and /api/status while 128 idle sockets and 32 event streams are open', async () => {
    const server = await start();
    const idle = await Promise.all(Array.from({ length: 128 }, () => idleSocket(server.port)));
    const streams = await Promise.all(Array.from({ length: 32 }, () => stream(server.url)));
    expect(streams.map((res) => res.statusCode)).toEqual(Array(32).fill(200));
    // The 33rd stream is refused, not queued: the newest gives way, not ordinary requests.
    const extra = await stream(server.url);
    expect(extra.statusCode).toBe(503);
    expect(extra.headers['retry-after']).toBe('5');

    const health = await answered(fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(10_000) }));
    expect(health.status).toBe(200);
    const status = await answered(
      fetch(`${server.url}/api/status`, {
        headers: { authorization: `Bearer ${TOKEN}` },
        signal: AbortSignal.timeout(10_000),
      }),
    );
    expect(status.status).toBe(200);
    // Room was made by closing idle sockets, never the streams.
    expect(idle.some((socket) => socket.destroyed || socket.readableEnded)).toBe(true);
    expect(streams.every((res) => !res.destroyed)).toBe(true);
  });

  it('answers while 128 connections send their POST bodies a byte at a time', async () => {
    // The server's own connection rules on a bare HTTP server, so the test knows when all 128 requests are in.
    const server = createServer((req, res) => {
      if (req.method === 'POST') req.resume();
      else res.end('ok');
    });
    const seen: string[] = [];
    server.on('request', (req) => seen.push(req.method ?? ''));
    limitConnections(server, { firstRequestMs: 5000, log: recordingLogger() });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    server.requestTimeout = 60_000;
    const { port } = server.address() as AddressInfo;
    // Headers complete, a body announced at 16000 bytes, one byte sent: each holds its slot until the request
    // timeout unless the server makes room.
    const slow = Array.from({ length: 128 }, () => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(
          `POST /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 16000\r\n\r\n{`,
        ),
      );
      socket.resume();
      socket.on('error', () => {});
      cleanups.push(() => void socket.destroy());
      return socket;
    });
    await until(() => seen.length === 128);
    for (let i = 0; i < 10; i++) {
      const health = await answered(fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(10_000) }));
      expect(health.status).toBe(200);
    }
    // Room was made by closing slow bodies, oldest first, and no more than needed.
    await until(() => slow.filter((socket) => socket.destroyed || socket.readableEnded).length > 0);
    const closed = slow.filter((socket) => socket.destroyed || socket.readableEnded).length;
    expect(closed).toBeLessThanOrEqual(10);
  });

  it('closes a connection that sends nothing after a short while', async () => {
    // The request timeout well above the 5 s first-request limit: only the silent connection's own
    // timer can close it (with a 1 s request timeout the two race, and the 408 may win under load).
    const server = await start(20_000);
    const socket = await idleSocket(server.port);
    await socket.gone;
    expect(socket.bytesRead).toBe(0);
  });
});
