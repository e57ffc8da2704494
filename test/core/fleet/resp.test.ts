/**
 * The RESP client against a real redis-server (started here on a free
 * loopback port) and against servers that misbehave: one that never answers,
 * one that answers the handshake and then hangs.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  RedisError,
  RedisTimeoutError,
  RedisUnavailableError,
  RespClient,
  type RespConnectionOptions,
  RespSubscriber,
} from '../../../main/core/fleet/resp.js';
import {
  freePort,
  type RedisServer,
  type SilentServer,
  startRedisServer,
  startSilentServer,
} from '../../helpers/redis-server.js';
import { nextEvent, recordingLogger, sleep, waitUntil } from './wait.js';

const FAST: Partial<RespConnectionOptions> = { commandTimeoutMs: 300, reconnect: { initialMs: 20, maxMs: 100 } };

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function client(url: string, options: Partial<RespConnectionOptions> = {}): RespClient {
  const c = new RespClient({ url, ...FAST, ...options });
  closers.push(() => c.close());
  return c;
}

function subscriber(url: string, options: Partial<RespConnectionOptions> = {}): RespSubscriber {
  const s = new RespSubscriber({ url, ...FAST, ...options });
  closers.push(() => s.close());
  return s;
}

async function started<T extends RespClient | RespSubscriber>(connection: T): Promise<T> {
  const up = nextEvent(connection, 'up', 3_000);
  connection.start();
  await up;
  return connection;
}

describe('RespClient against redis-server', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('sends commands and decodes every reply type', async () => {
    const c = await started(client(redis.url));
    expect(await c.command(['SET', 'resp:k', 'é€ value'])).toBe('OK');
    expect(await c.command(['GET', 'resp:k'])).toBe('é€ value');
    expect(await c.command(['GET', 'resp:missing'])).toBeNull();
    expect(await c.command(['INCR', 'resp:n'])).toBe(1);
    await c.command(['HSET', 'resp:h', 'a', '1', 'b', '2']);
    expect(await c.command(['HGETALL', 'resp:h'])).toEqual(['a', '1', 'b', '2']);
    expect(await c.command(['EVAL', 'return {1, false, "x", {2}}', '0'])).toEqual([1, null, 'x', [2]]);
  });

  it('pipelines: many commands in flight come back to their own callers', async () => {
    const c = await started(client(redis.url));
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => c.command(['ECHO', `m${i}`])));
    expect(replies).toEqual(Array.from({ length: 200 }, (_, i) => `m${i}`));
  });

  it('rejects an error reply with RedisError and stays connected', async () => {
    const c = await started(client(redis.url));
    await c.command(['SET', 'resp:str', 'x']);
    const error = await c.command(['HGETALL', 'resp:str']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisError);
    expect((error as Error).message).toMatch(/^WRONGTYPE/);
    expect(c.isUp).toBe(true);
    expect(await c.command(['PING'])).toBe('PONG');
  });

  it('fails fast before start, and is not usable after close', async () => {
    const c = client(redis.url);
    const t0 = performance.now();
    await expect(c.command(['PING'])).rejects.toBeInstanceOf(RedisUnavailableError);
    expect(performance.now() - t0).toBeLessThan(50);
    c.start();
    await nextEvent(c, 'up', 3_000);
    const down = nextEvent<[string]>(c, 'down', 1_000);
    c.close();
    expect((await down)[0]).toBe('client closed');
    await expect(c.command(['PING'])).rejects.toBeInstanceOf(RedisUnavailableError);
  });

  it('delivers pub/sub messages to the subscriber, and survives a throwing handler', async () => {
    const c = await started(client(redis.url));
    const s = subscriber(redis.url);
    const got: string[] = [];
    s.subscribe('resp:ch', (m) => {
      got.push(m);
      if (m === 'boom') throw new Error('listener bug');
    });
    await started(s);
    expect(await c.command(['PUBLISH', 'resp:ch', 'boom'])).toBe(1);
    expect(await c.command(['PUBLISH', 'resp:ch', 'é after'])).toBe(1);
    await waitUntil(() => got.length === 2, 1_000, 'two messages');
    expect(got).toEqual(['boom', 'é after']);
    // Subscribing while up takes effect without a reconnect.
    const other: string[] = [];
    const subscribers = async () => ((await c.command(['PUBSUB', 'NUMSUB', 'resp:other'])) as [string, number])[1];
    s.subscribe('resp:other', (m) => other.push(m));
    for (let i = 0; i < 100 && (await subscribers()) === 0; i++) await sleep(5);
    await c.command(['PUBLISH', 'resp:other', 'hi']);
    await waitUntil(() => other.length === 1, 1_000, 'message on the second channel');
    s.unsubscribe('resp:other');
    for (let i = 0; i < 100 && (await subscribers()) === 1; i++) await sleep(5);
    expect(await c.command(['PUBLISH', 'resp:other', 'gone'])).toBe(0);
  });
});

describe('RespClient with AUTH and SELECT', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer(['--requirepass', 's3cret-pw']);
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('authenticates and selects the database from the URL', async () => {
    const db2 = await started(client(`redis://:s3cret-pw@127.0.0.1:${redis.port}/2`));
    const db0 = await started(client(`redis://default:s3cret-pw@127.0.0.1:${redis.port}`));
    await db2.command(['SET', 'where', 'two']);
    expect(await db2.command(['GET', 'where'])).toBe('two');
    expect(await db0.command(['GET', 'where'])).toBeNull();
  });

  it('stays down on a wrong password, saying why without the password', async () => {
    const recorder = recordingLogger();
    const c = client(`redis://:not-the-pw@127.0.0.1:${redis.port}`, { log: recorder.log });
    const down = nextEvent<[string]>(c, 'down', 2_000);
    let up = false;
    c.on('up', () => {
      up = true;
    });
    c.start();
    const [reason] = await down;
    expect(reason).toMatch(/^AUTH failed: WRONGPASS/);
    expect(c.lastError).toBe(reason);
    await sleep(150); // several retries
    expect(up).toBe(false);
    expect(recorder.lines.length).toBeGreaterThan(1);
    expect(recorder.text()).not.toContain('not-the-pw');
    expect(reason).not.toContain('not-the-pw');
  });

  it('without a password: down with NOAUTH', async () => {
    const c = client(redis.url);
    const down = nextEvent<[string]>(c, 'down', 2_000);
    c.start();
    expect((await down)[0]).toMatch(/NOAUTH/);
  });
});

describe('RespClient when Redis goes away', () => {
  it('fails fast while the port refuses connections, and says why once', async () => {
    const port = await freePort();
    const c = client(`redis://127.0.0.1:${port}`);
    const downs: string[] = [];
    c.on('down', (reason) => downs.push(reason));
    c.start();
    await waitUntil(() => downs.length > 0, 1_000, 'down');
    const t0 = performance.now();
    const error = await c.command(['PING']).catch((e: unknown) => e);
    expect(performance.now() - t0).toBeLessThan(50);
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    await sleep(200); // more failed retries: reported once
    expect(downs).toHaveLength(1);
  });

  it('reconnects after redis-server restarts, and resubscribes before reporting up', async () => {
    const redis = await startRedisServer();
    closers.push(() => redis.stop());
    const c = await started(client(redis.url));
    const s = subscriber(redis.url);
    const got: string[] = [];
    s.subscribe('resp:restart', (m) => got.push(m));
    await started(s);

    const cDown = nextEvent<[string]>(c, 'down', 2_000);
    const sDown = nextEvent<[string]>(s, 'down', 2_000);
    await redis.kill();
    await Promise.all([cDown, sDown]);
    expect(c.isUp).toBe(false);
    await expect(c.command(['PING'])).rejects.toBeInstanceOf(RedisUnavailableError);

    const cUp = nextEvent(c, 'up', 3_000);
    const sUp = nextEvent(s, 'up', 3_000);
    await redis.start();
    await Promise.all([cUp, sUp]);
    // No wait between 'up' and publishing: the subscription is already in place.
    expect(await c.command(['PUBLISH', 'resp:restart', 'again'])).toBe(1);
    await waitUntil(() => got.length === 1, 1_000, 'message after restart');
    expect(got).toEqual(['again']);
  });
});

describe('RespClient against servers that do not answer', () => {
  let silent: SilentServer | null = null;
  afterEach(async () => {
    await silent?.close();
    silent = null;
  });

  it('never reports up when the server accepts TCP but never answers, and stops cleanly', async () => {
    silent = await startSilentServer();
    const c = client(silent.url, { commandTimeoutMs: 100 });
    let up = false;
    c.on('up', () => {
      up = true;
    });
    const t0 = performance.now();
    const down = nextEvent<[string]>(c, 'down', 1_000);
    c.start();
    expect((await down)[0]).toBe('PING timed out after 100 ms');
    expect(performance.now() - t0).toBeLessThan(400);
    const t1 = performance.now();
    await expect(c.command(['GET', 'x'])).rejects.toBeInstanceOf(RedisUnavailableError);
    expect(performance.now() - t1).toBeLessThan(50);
    const server = silent;
    await waitUntil(() => server.connections >= 2, 2_000, 'a retry');
    expect(up).toBe(false);
    c.close();
    await waitUntil(() => server.open === 0, 1_000, 'the client to hang up');
    const after = server.connections;
    await sleep(250);
    expect(server.connections).toBe(after);
  });

  it('times out a command the server never answers, fails the others in flight, and reconnects', async () => {
    // Answers PING (the handshake) and nothing else.
    silent = await startSilentServer((data, socket) => {
      for (const _ of data.matchAll(/PING/g)) socket.write('+PONG\r\n');
    });
    const c = await started(client(silent.url, { commandTimeoutMs: 150, healthCheckMs: 0 }));
    const down = nextEvent<[string]>(c, 'down', 1_000);
    const t0 = performance.now();
    const first = c.command(['GET', 'a']).catch((e: unknown) => e);
    await sleep(50);
    const second = c.command(['GET', 'b']).catch((e: unknown) => e);
    const firstError = await first;
    expect(firstError).toBeInstanceOf(RedisTimeoutError);
    expect((firstError as Error).message).toBe('GET timed out after 150 ms');
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(400);
    const secondError = await second;
    expect(secondError).toBeInstanceOf(RedisUnavailableError);
    expect(secondError).not.toBeInstanceOf(RedisTimeoutError);
    expect((await down)[0]).toBe('GET timed out after 150 ms');
    await nextEvent(c, 'up', 2_000);
  });

  it('bounds the commands in flight', async () => {
    silent = await startSilentServer((data, socket) => {
      if (data.includes('PING')) socket.write('+PONG\r\n');
    });
    const c = await started(client(silent.url, { commandTimeoutMs: 1_000, maxInFlight: 3 }));
    const inFlight = [1, 2, 3].map((n) => c.command(['GET', `k${n}`]).catch((e: unknown) => e));
    const t0 = performance.now();
    const error = await c.command(['GET', 'k4']).catch((e: unknown) => e);
    expect(performance.now() - t0).toBeLessThan(50);
    expect((error as Error).message).toMatch(/too many commands in flight/);
    c.close();
    for (const e of await Promise.all(inFlight)) expect((e as Error).message).toBe('client closed');
  });

  it('notices an idle connection that stopped answering (health-check PING)', async () => {
    let answered = 0;
    silent = await startSilentServer((data, socket) => {
      // PONG the first handshake only.
      if (data.includes('PING') && answered++ === 0) socket.write('+PONG\r\n');
    });
    const c = await started(client(silent.url, { commandTimeoutMs: 100, healthCheckMs: 50 }));
    const [reason] = await nextEvent<[string]>(c, 'down', 1_000);
    expect(reason).toBe('PING timed out after 100 ms');
  });
});
