/**
 * FleetLink against a real redis-server: two (or three) links in one test are
 * two hosts sharing a dependency. Propagation, late starters, the probe lease
 * under contention, Redis restarts, and local-only behaviour while Redis is
 * down or hung.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  FleetLink,
  type FleetLinkOptions,
  type FleetStatus,
  type PeerState,
  type ProbeLease,
} from '../../../main/core/fleet/link.js';
import { silentLogger } from '../../../main/core/runtime/log.js';
import { freePort, type RedisServer, startRedisServer, startSilentServer } from '../../helpers/redis-server.js';
import { toolOrSkip } from '../../helpers/tools.js';
import { nextEvent, recordingLogger, sleep, waitUntil } from './wait.js';

const REDIS = toolOrSkip('redis-server');
const DEP = 'openai/gpt-4o@sk-…f00d';
let prefixes = 0;
const closers: Array<() => unknown> = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function link(hostId: string, url: string, options: Partial<FleetLinkOptions> & { prefix: string }): FleetLink {
  const l = new FleetLink({
    url,
    hostId,
    log: silentLogger,
    clock: Date.now,
    commandTimeoutMs: 300,
    reconnect: { initialMs: 20, maxMs: 100 },
    ...options,
  });
  closers.push(() => l.stop());
  return l;
}

/** Starts a link and waits until it reports connected. */
async function connected(l: FleetLink): Promise<FleetLink> {
  const up = waitForStatus(l, true, 3_000);
  l.start();
  await up;
  return l;
}

function waitForStatus(l: FleetLink, want: boolean, timeoutMs: number): Promise<FleetStatus> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`link ${l.hostId} not connected=${want} in ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onStatus = (status: FleetStatus) => {
      if (status.connected !== want) return;
      clearTimeout(timer);
      l.off('status', onStatus);
      resolve(status);
    };
    l.on('status', onStatus);
  });
}

function collect(l: FleetLink): PeerState[] {
  const seen: PeerState[] = [];
  l.onPeerTransition((peer) => seen.push(peer));
  return seen;
}

const opened = (ts: number) => ({
  dep: DEP,
  from: 'closed' as const,
  to: 'open' as const,
  reason: '5 consecutive failures',
  ts,
  openUntil: ts + 30_000,
});

const closed = (ts: number) => ({
  dep: DEP,
  from: 'half_open' as const,
  to: 'closed' as const,
  reason: '2 successful trials',
  ts,
  openUntil: null,
});

describe.skipIf(REDIS.skip)(REDIS.title('FleetLink with a shared redis-server'), () => {
  let redis: RedisServer;
  /** A plain client for looking at (and ageing) the keys the links write. */
  let raw: Redis;
  let prefix: string;

  beforeAll(async () => {
    redis = await startRedisServer();
    raw = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await raw.connect();
  });
  afterAll(async () => {
    raw?.disconnect();
    await redis?.stop();
  });
  afterEach(() => {
    prefixes += 1;
  });
  const fresh = () => {
    prefix = `t${prefixes}-${process.pid}`;
    return { prefix };
  };

  it('propagates a transition from host A to host B within 100 ms; a host ignores its own', async () => {
    const options = fresh();
    const a = await connected(link('a', redis.url, options));
    const b = await connected(link('b', redis.url, options));
    const seenByA = collect(a);
    const arrived = new Promise<[PeerState, number]>((resolve) =>
      b.onPeerTransition((peer) => resolve([peer, performance.now()])),
    );
    const ts = Date.now();
    const t0 = performance.now();
    const result = a.publishTransition(opened(ts));
    expect(result).toBeUndefined();
    const [peer, t1] = await arrived;
    expect(t1 - t0).toBeLessThan(100);
    const expected: PeerState = {
      host: 'a',
      dep: DEP,
      state: 'open',
      since: ts,
      reason: '5 consecutive failures',
      openUntil: ts + 30_000,
    };
    expect(peer).toEqual(expected);
    expect(b.peers(DEP)).toEqual([expected]);
    expect(b.peers()).toEqual([expected]);

    const closedSeen = new Promise<PeerState>((resolve) => b.onPeerTransition(resolve));
    a.publishTransition(closed(ts + 60_000));
    expect((await closedSeen).state).toBe('closed');
    expect(b.peers()).toEqual([]);
    // Each subscriber gets a channel's messages in publish order: once A has heard a marker published after
    // its own two transitions, it has had them too, and ignored them.
    const marker = { host: 'marker', ...opened(ts), dep: 'marker/dep', at: ts, seq: 1 };
    expect(await raw.publish(`${options.prefix}:transitions`, JSON.stringify(marker))).toBe(2);
    await waitUntil(() => seenByA.length > 0, 1_000, 'A to hear the marker');
    expect(seenByA.map((p) => p.host)).toEqual(['marker']);
    expect(a.peers().map((p) => p.host)).toEqual(['marker']);
    expect(a.status().dropped).toBe(0);
  });

  it('lets a host that starts late learn current peer states from the state hash', async () => {
    const options = fresh();
    const a = await connected(link('a', redis.url, options));
    const c = await connected(link('c', redis.url, options));
    const now = Date.now();
    a.publishTransition(opened(now));
    a.publishTransition({ ...opened(now), dep: 'anthropic/claude', to: 'throttled', openUntil: now + 120_000 });
    a.publishTransition({ ...opened(now), dep: 'google/gemini' });
    a.publishTransition({ ...closed(now + 1), dep: 'google/gemini' });
    c.publishTransition({ ...opened(now), dep: 'mistral/large', reason: 'c saw it' });
    await waitUntil(() => a.peers().length === 1, 1_000, 'a to see c');

    const late = link('late', redis.url, options);
    const told = collect(late);
    await connected(late);
    await waitUntil(() => late.peers().length === 3, 1_000, 'the late starter to read the hashes');
    expect(late.peers().map((p) => `${p.dep} ${p.host} ${p.state}`)).toEqual([
      'anthropic/claude a throttled',
      'mistral/large c open',
      `${DEP} a open`,
    ]);
    // Listeners hear what was learned (a closed breaker the late starter never saw open is not news).
    expect(told.map((p) => `${p.dep} ${p.state}`).sort()).toEqual([
      'anthropic/claude throttled',
      'mistral/large open',
      `${DEP} open`,
    ]);
    // The hashes expire by themselves (state TTL, default 10 min).
    const pttl = await raw.pttl(`${options.prefix}:state:${DEP}`);
    expect(pttl).toBeGreaterThan(590_000);
    expect(pttl).toBeLessThanOrEqual(600_000);
  });

  it('a late starter ignores reports older than the TTL', async () => {
    const options = fresh();
    // A host whose reports are 11 minutes old.
    const old = await connected(link('old', redis.url, { ...options, clock: () => Date.now() - 11 * 60_000 }));
    old.publishTransition({ ...opened(Date.now() - 11 * 60_000), openUntil: null });
    for (let i = 0; i < 100 && (await raw.hlen(`${options.prefix}:state:${DEP}`)) === 0; i++) await sleep(5);
    expect(await raw.hlen(`${options.prefix}:state:${DEP}`)).toBe(1);
    const late = link('late', redis.url, options);
    const told = collect(late);
    const resynced = nextEvent<[number]>(late, 'resynced', 3_000);
    await connected(late);
    // The hash was read (one report found) and its only report judged too old.
    expect(await resynced).toEqual([1]);
    expect(late.peers()).toEqual([]);
    expect(told).toEqual([]);
  });

  it('ignores messages that are not transitions, and messages claiming to come from itself', async () => {
    const options = fresh();
    const b = await connected(link('b', redis.url, options));
    const seen = collect(b);
    const channel = `${options.prefix}:transitions`;
    const ts = Date.now();
    const valid = { host: 'x', ...opened(ts), at: ts, seq: 1 };
    expect(await raw.publish(channel, 'not json')).toBe(1);
    await raw.publish(channel, JSON.stringify({ ...valid, to: 'exploded' }));
    await raw.publish(channel, JSON.stringify({ ...valid, host: 'b' }));
    await raw.publish(channel, JSON.stringify(valid));
    // Published last, so (messages arriving in order) everything before it has been judged once it is seen.
    await waitUntil(() => seen.length > 0, 1_000, 'the valid message');
    expect(seen.map((p) => p.host)).toEqual(['x']);
    expect(b.status().connected).toBe(true);
  });

  it('keeps calling other listeners when one throws', async () => {
    const options = fresh();
    const a = await connected(link('a', redis.url, options));
    const b = await connected(link('b', redis.url, options));
    b.onPeerTransition(() => {
      throw new Error('listener bug');
    });
    const seen = collect(b);
    a.publishTransition(opened(Date.now()));
    await waitUntil(() => seen.length === 1, 1_000, 'the second listener');
    const unsubscribe = b.onPeerTransition(() => seen.push(seen[0] as PeerState));
    unsubscribe();
    a.publishTransition(closed(Date.now() + 1));
    await waitUntil(() => seen.length === 2, 1_000, 'the closed report');
    // Listeners are called together for each report: the removed one would have pushed a third entry by now.
    expect(seen).toHaveLength(2);
  });

  it('grants the probe lease to exactly one holder at a time, across hosts, over 200 rounds', async () => {
    const options = fresh();
    const hosts = [await connected(link('a', redis.url, options)), await connected(link('b', redis.url, options))];
    const ROUNDS = 200;
    let granted = 0;
    let holders = 0;
    let maxHolders = 0;
    let held = 0;
    const tokens: number[] = [];
    const answers: ProbeLease['kind'][] = [];
    const worker = async (host: FleetLink) => {
      while (granted < ROUNDS) {
        const lease = await host.acquireProbeLease(DEP, 5_000);
        answers.push(lease.kind);
        if (lease.kind === 'held') {
          held += 1;
          await sleep(Math.random() * 2);
          continue;
        }
        if (lease.kind !== 'granted') throw new Error(`unexpected ${lease.kind}`);
        holders += 1;
        maxHolders = Math.max(maxHolders, holders);
        granted += 1;
        tokens.push(lease.token);
        await sleep(Math.random() * 3); // "probing"
        holders -= 1;
        expect(await host.releaseProbeLease(DEP, lease.token)).toBe(true);
      }
    };
    // Four contenders per host.
    await Promise.all(hosts.flatMap((host) => [worker(host), worker(host), worker(host), worker(host)]));
    expect(granted).toBeGreaterThanOrEqual(ROUNDS);
    expect(maxHolders).toBe(1);
    expect(held).toBeGreaterThan(ROUNDS); // there was real contention
    expect(answers).not.toContain('uncoordinated');
    // Fencing tokens: one per grant, strictly increasing in grant order.
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBe((tokens[i - 1] as number) + 1);
  });

  /** Lets Redis expire a lease now, as its ttl running out would (a long ttl keeps a loaded machine from doing it early). */
  async function expireNow(key: string): Promise<void> {
    expect(await raw.pexpire(key, 1)).toBe(1);
    for (let i = 0; i < 200 && (await raw.exists(key)) === 1; i++) await sleep(5);
    expect(await raw.exists(key)).toBe(0);
  }

  it('lets the lease expire after its ttl; the holder then learns it lost it', async () => {
    const options = fresh();
    const a = await connected(link('a', redis.url, options));
    const b = await connected(link('b', redis.url, options));
    const TTL = 60_000;
    const first = await a.acquireProbeLease(DEP, TTL);
    if (first.kind !== 'granted') throw new Error(`expected granted, got ${first.kind}`);
    expect(first.expiresAt).toBeLessThanOrEqual(Date.now() + TTL);
    // Fencing tokens start from the wall clock, not 0 (see ACQUIRE_LEASE).
    expect(first.token).toBeGreaterThan(Date.now() - 60_000);
    expect(await a.validateFencing(DEP, first.token)).toBe('valid');
    expect(await b.acquireProbeLease(DEP, TTL)).toEqual({ kind: 'held', holder: 'a', token: first.token });
    expect(await a.acquireProbeLease(DEP, TTL)).toMatchObject({ kind: 'held', holder: 'a' });
    // The script gave the lease the ttl asked for (PX), so Redis drops it by itself when it runs out.
    const pttl = await raw.pttl(`${options.prefix}:lease:${DEP}`);
    expect(pttl).toBeGreaterThan(TTL / 2);
    expect(pttl).toBeLessThanOrEqual(TTL);
    await expireNow(`${options.prefix}:lease:${DEP}`);
    const second = await b.acquireProbeLease(DEP, 1_000);
    if (second.kind !== 'granted') throw new Error(`expected granted, got ${second.kind}`);
    expect(second.token).toBeGreaterThan(first.token);
    expect(await a.validateFencing(DEP, first.token)).toBe('lost');
    expect(await b.validateFencing(DEP, second.token)).toBe('valid');
    // Leases are per dependency.
    expect((await a.acquireProbeLease('other/dep', 1_000)).kind).toBe('granted');
  });

  it('ignores a release with a stale or wrong token', async () => {
    const options = fresh();
    const a = await connected(link('a', redis.url, options));
    const b = await connected(link('b', redis.url, options));
    const stale = await a.acquireProbeLease(DEP, 60_000);
    if (stale.kind !== 'granted') throw new Error(`expected granted, got ${stale.kind}`);
    await expireNow(`${options.prefix}:lease:${DEP}`);
    const current = await b.acquireProbeLease(DEP, 5_000);
    if (current.kind !== 'granted') throw new Error(`expected granted, got ${current.kind}`);
    // A's lease expired and B holds a new one: A's late release must not free B's.
    expect(await a.releaseProbeLease(DEP, stale.token)).toBe(false);
    // Another host cannot release B's lease by guessing its token.
    expect(await a.releaseProbeLease(DEP, current.token)).toBe(false);
    expect(await b.releaseProbeLease(DEP, current.token + 1)).toBe(false);
    expect(await a.acquireProbeLease(DEP, 5_000)).toMatchObject({ kind: 'held', holder: 'b' });
    expect(await b.releaseProbeLease(DEP, current.token)).toBe(true);
    expect(await b.releaseProbeLease(DEP, current.token)).toBe(false);
    expect((await a.acquireProbeLease(DEP, 5_000)).kind).toBe('granted');
  });

  it('stamps status changes with the injected clock', async () => {
    const options = fresh();
    let now = 1_000_000;
    const a = link('a', redis.url, { ...options, clock: () => now });
    expect(a.status()).toEqual({ connected: false, since: null, lastError: null, dropped: 0 });
    await connected(a);
    expect(a.status()).toEqual({ connected: true, since: 1_000_000, lastError: null, dropped: 0 });
    now = 2_000_000;
    const down = waitForStatus(a, false, 1_000);
    a.stop();
    expect(await down).toMatchObject({ connected: false, since: 2_000_000 });
  });
});

describe.skipIf(REDIS.skip)(REDIS.title('FleetLink when Redis goes away'), () => {
  it('degrades to local-only while redis-server is down, then recovers and resumes propagation', async () => {
    const redis = await startRedisServer();
    closers.push(() => redis.stop());
    const options = { prefix: 'restart' };
    const a = await connected(link('a', redis.url, options));
    const b = await connected(link('b', redis.url, options));
    const seenByB = collect(b);
    const before = await a.acquireProbeLease(DEP, 1_000);
    if (before.kind !== 'granted') throw new Error(`expected granted, got ${before.kind}`);
    expect(await a.releaseProbeLease(DEP, before.token)).toBe(true);

    const aDown = waitForStatus(a, false, 2_000);
    const bDown = waitForStatus(b, false, 2_000);
    await redis.kill();
    const [statusA] = await Promise.all([aDown, bDown]);
    expect(statusA.lastError).toBeTruthy();

    // Local-only: nothing waits, nothing throws.
    const ts = Date.now();
    let t0 = performance.now();
    a.publishTransition(opened(ts));
    expect(performance.now() - t0).toBeLessThan(50);
    expect(a.status().dropped).toBe(1);
    t0 = performance.now();
    const lease = await a.acquireProbeLease(DEP, 1_000);
    expect(performance.now() - t0).toBeLessThan(50);
    expect(lease.kind).toBe('uncoordinated');
    expect(await a.releaseProbeLease(DEP, 1)).toBe(false);
    expect(await a.validateFencing(DEP, 1)).toBe('unknown');

    const aUp = waitForStatus(a, true, 5_000);
    const bUp = waitForStatus(b, true, 5_000);
    await redis.start();
    await Promise.all([aUp, bUp]);

    // The transition dropped during the outage goes out on reconnect (B hears it live or reads it).
    await waitUntil(() => seenByB.some((p) => p.state === 'open'), 1_000, 'the republished state');
    expect(b.peers()).toMatchObject([{ host: 'a', state: 'open', since: ts }]);
    // The subscription is back: a new transition arrives live.
    a.publishTransition(closed(ts + 1));
    await waitUntil(() => seenByB.some((p) => p.state === 'closed'), 1_000, 'the live closed report');
    expect(b.peers()).toEqual([]);
    // The hash lost everything with the restart; republishing filled it again for late starters.
    const c = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await c.connect();
    const hash = await c.hgetall(`restart:state:${DEP}`).finally(() => c.disconnect());
    expect(Object.keys(hash)).toEqual(['a']);
    // Fencing stays monotonic although Redis lost the counter.
    await sleep(5);
    const after = await a.acquireProbeLease(DEP, 1_000);
    if (after.kind !== 'granted') throw new Error(`expected granted, got ${after.kind}`);
    expect(after.token).toBeGreaterThan(before.token);
  });

  it('is local-only from the start when nothing listens, warning once without the password', async () => {
    const port = await freePort();
    const recorder = recordingLogger();
    const a = link('a', `redis://:pw-xyzzy@127.0.0.1:${port}`, { prefix: 'none', log: recorder.log });
    const down = waitForStatus(a, false, 2_000);
    a.start();
    const status = await down;
    expect(status.lastError).toMatch(/ECONNREFUSED/);
    expect(() => a.publishTransition(opened(Date.now()))).not.toThrow();
    a.publishTransition(closed(Date.now()));
    expect(a.status().dropped).toBe(2);
    const t0 = performance.now();
    const lease = await a.acquireProbeLease(DEP, 1_000);
    expect(performance.now() - t0).toBeLessThan(50);
    expect(lease).toEqual({ kind: 'uncoordinated', reason: expect.stringMatching(/ECONNREFUSED/) });
    expect(a.peers()).toEqual([]);
    // Retries keep failing (each logged at debug level), yet the warning was given once.
    await waitUntil(
      () => recorder.lines.filter((l) => l.msg === 'redis connection failed').length >= 6,
      3_000,
      'three failed retries per connection',
    );
    expect(recorder.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(recorder.text()).toContain(`redis://127.0.0.1:${port}/0`);
    expect(recorder.text()).not.toContain('pw-xyzzy');
  });

  it('stays down against a server that accepts TCP and never answers, and stops without hanging', async () => {
    const silent = await startSilentServer();
    closers.push(() => silent.close());
    const a = link('a', silent.url, { prefix: 'hang', commandTimeoutMs: 100 });
    const down = waitForStatus(a, false, 1_000);
    a.start();
    expect((await down).lastError).toBe('connected, but no answer within 100 ms');
    const t0 = performance.now();
    expect((await a.acquireProbeLease(DEP, 1_000)).kind).toBe('uncoordinated');
    expect(performance.now() - t0).toBeLessThan(50);
    a.publishTransition(opened(Date.now()));
    expect(a.status()).toMatchObject({ connected: false, dropped: 1 });
    a.stop();
    await waitUntil(() => silent.open === 0, 1_000, 'the link to hang up');
  });

  it('answers "uncoordinated" within the timeout when Redis stops answering commands', async () => {
    // Answers the connect (ready check, subscription, the peer-state read), then nothing: the link comes up, the lease script hangs.
    const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
    const silent = await startSilentServer((data, socket) => {
      const request = data.toLowerCase();
      if (request.includes('info')) socket.write(bulk('# Server\r\nredis_version:7.0.0\r\nloading:0\r\n'));
      if (request.includes('subscribe')) socket.write(`*3\r\n${bulk('subscribe')}${bulk('hang2:transitions')}:1\r\n`);
      // The link reads peer states on connect: none.
      if (request.includes('smembers')) socket.write('*0\r\n');
    });
    closers.push(() => silent.close());
    const a = link('a', silent.url, { prefix: 'hang2', commandTimeoutMs: 150, healthCheckMs: 0 });
    await connected(a);
    const t0 = performance.now();
    const lease = await a.acquireProbeLease(DEP, 1_000);
    const elapsed = performance.now() - t0;
    expect(lease).toEqual({ kind: 'uncoordinated', reason: 'lease script timed out after 150 ms' });
    expect(elapsed).toBeLessThan(300);
    // A Redis that does not answer in time is dropped; the link says so.
    await waitUntil(() => !a.status().connected, 1_000, 'the link to go down');
  });
});
