import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BreakerEngines } from '../../../main/core/breaker/engines.js';
import { Prober, probeOutcome } from '../../../main/core/breaker/prober.js';
import type { Outcome } from '../../../main/core/calls/classify.js';
import type { CallEvent } from '../../../main/core/calls/events.js';
import { configSchema } from '../../../main/core/config/index.js';
import { parseWith } from '../../../main/core/config/schema.js';
import { silentLogger } from '../../../main/core/runtime/log.js';
import { Store } from '../../../main/core/store/db.js';
import { callEvent } from '../../helpers/calls.js';

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const s = (seconds: number): number => T0 + seconds * 1000;
const GLM = 'zhipu/glm-5.1';

let tmp: string;
let store: Store;
let servers: Server[];
/** Probes started by a test; each test's cleanup waits for them before the store closes. */
let pending: Array<Promise<void>>;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-prober-'));
  store = Store.open(join(tmp, 'breakerbar.sqlite'));
  servers = [];
  pending = [];
});

afterEach(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(pending);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  vi.restoreAllMocks();
  store.close();
  rmSync(tmp, { recursive: true, force: true });
});

interface ProbeTarget {
  url: string;
  /** Headers of every request received, in order. */
  requests: IncomingHttpHeaders[];
  /** Resolves when the first request has arrived. */
  firstRequest: Promise<void>;
}

/** A real HTTP server on 127.0.0.1 (random port) answering every request with `answer` (which may never answer). */
async function target(answer: (res: ServerResponse) => void): Promise<ProbeTarget> {
  const requests: IncomingHttpHeaders[] = [];
  let arrived = () => {};
  const firstRequest = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const server = createServer((req, res) => {
    requests.push(req.headers);
    arrived();
    answer(res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1/models`, requests, firstRequest };
}

const answering = (status: number, headers: Record<string, string> = {}) =>
  target((res) => res.writeHead(status, headers).end('{}'));
/** A server that accepts requests and never answers them. */
const hanging = () => target(() => {});

/** A gateway call to GLM at `seconds` that failed with a 503 before any output. */
function serverError(seconds: number): CallEvent {
  return callEvent({ key: `main/e${seconds}`, ts: s(seconds), dep: GLM, outcome: 'server_error', httpStatus: 503 });
}

interface Harness {
  engines: BreakerEngines;
  prober: Prober;
  wall: { now: number };
  latencies: Array<{ dep: string; ms: number }>;
  /** Starts due probes and resolves once the next one has been reported to the engines. */
  runAndWait(): Promise<void>;
}

/**
 * A prober over engines whose GLM breaker tripped open on 5 server errors
 * (session s1, 0–4 s) and is half-open at 34 s, the wall clock at 35 s.
 */
function harness(probes: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Harness {
  const config = parseWith(configSchema, { breakers: { probes } }).breakers;
  const wall = { now: s(34) };
  const engines = new BreakerEngines({ config, store, clock: () => wall.now, onTransition: () => {} });
  engines.observe([0, 1, 2, 3, 4].map(serverError));
  engines.tick();
  expect(engines.snapshots()).toMatchObject([{ state: 'half_open' }]);
  wall.now = s(35);

  const latencies: Harness['latencies'] = [];
  let reported = () => {};
  const prober = new Prober({
    probes: config.probes,
    engines,
    env,
    log: silentLogger,
    clock: () => wall.now,
    // Called right before the outcome goes to the engines, in the same turn: awaiting it sees the result.
    onLatency: (dep, ms) => {
      latencies.push({ dep, ms });
      reported();
    },
  });
  const runAndWait = () => {
    const done = new Promise<void>((resolve) => {
      reported = resolve;
    });
    pending.push(done);
    prober.run();
    return done;
  };
  return { engines, prober, wall, latencies, runAndWait };
}

const snapshot = (h: Harness) => h.engines.snapshots()[0];

describe('probeOutcome', () => {
  it.each<[number, Outcome]>([
    [200, 'ok'],
    [204, 'ok'],
    [302, 'ok'],
    [401, 'auth'],
    [403, 'auth'],
    [404, 'other_error'],
    [408, 'timeout'],
    [429, 'rate_limited'],
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'server_error'],
    [504, 'timeout'],
    [529, 'overloaded'],
  ])('maps HTTP %i to %s', (status, outcome) => {
    expect(probeOutcome(status)).toBe(outcome);
  });
});

describe('Prober against a local HTTP server', () => {
  it('counts a 200 answer as a successful half-open trial', async () => {
    const server = await answering(200);
    const h = harness({ [GLM]: { url: server.url } });
    await h.runAndWait();
    expect(server.requests).toHaveLength(1);
    expect(snapshot(h)).toMatchObject({ state: 'half_open', trialSuccesses: 1 });
  });

  it('throttles on a 429 until its Retry-After', async () => {
    const server = await answering(429, { 'retry-after': '120' });
    const h = harness({ [GLM]: { url: server.url } });
    await h.runAndWait();
    expect(snapshot(h)).toMatchObject({
      state: 'throttled',
      retryAfterUntil: s(35 + 120),
      openUntil: s(35 + 120),
      reason: 'trial failed: rate_limited, Retry-After 120 s',
    });
  });

  it('re-opens on a 503 with the grown open duration', async () => {
    const server = await answering(503);
    const h = harness({ [GLM]: { url: server.url } });
    await h.runAndWait();
    expect(snapshot(h)).toMatchObject({
      state: 'open',
      reason: 'trial failed: server_error',
      retryAfterUntil: null,
      openDurationMs: 60_000,
    });
  });

  it('reports a timeout when the server does not answer within timeoutMs', async () => {
    const server = await hanging();
    const h = harness({ [GLM]: { url: server.url, timeoutMs: 300 } });
    await h.runAndWait();
    // One probe at most; on a loaded machine the client may give up before the server has seen it.
    expect(server.requests.length).toBeLessThanOrEqual(1);
    expect(snapshot(h)).toMatchObject({ state: 'open', reason: 'trial failed: timeout' });
  });

  it('reports connection_reset when nothing listens at the URL', async () => {
    const server = await answering(200);
    const url = server.url;
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const h = harness({ [GLM]: { url } });
    await h.runAndWait();
    expect(snapshot(h)).toMatchObject({ state: 'open', reason: 'trial failed: connection_reset' });
  });

  it('sends the key from the named environment variable as a Bearer token, tagged as a probe', async () => {
    const server = await answering(200);
    const h = harness({ [GLM]: { url: server.url, tokenEnv: 'ZHIPU_API_KEY' } }, { ZHIPU_API_KEY: 'sk-test-1' });
    await h.runAndWait();
    expect(server.requests[0]).toMatchObject({ authorization: 'Bearer sk-test-1', 'x-breakerbar-probe': '1' });
  });

  it.each<[string, Record<string, unknown>, NodeJS.ProcessEnv]>([
    ['no tokenEnv is configured', {}, { ZHIPU_API_KEY: 'sk-test-1' }],
    ['the named variable is unset', { tokenEnv: 'ZHIPU_API_KEY' }, {}],
    ['the named variable is empty', { tokenEnv: 'ZHIPU_API_KEY' }, { ZHIPU_API_KEY: '' }],
  ])('sends no Authorization header when %s', async (_, settings, env) => {
    const server = await answering(200);
    const h = harness({ [GLM]: { url: server.url, ...settings } }, env);
    await h.runAndWait();
    expect(server.requests[0]?.authorization).toBeUndefined();
  });

  it('probes the URL of the most specific matching pattern', async () => {
    const general = await answering(503);
    const specific = await answering(200);
    const h = harness({ 'zhipu/*': { url: general.url }, [GLM]: { url: specific.url } });
    await h.runAndWait();
    expect([general.requests.length, specific.requests.length]).toEqual([0, 1]);
  });

  it('reports the latency of each probe for its dependency', async () => {
    const server = await answering(200);
    const h = harness({ [GLM]: { url: server.url } });
    await h.runAndWait();
    expect(h.latencies).toEqual([{ dep: GLM, ms: expect.any(Number) }]);
    expect(h.latencies[0]?.ms).toBeGreaterThanOrEqual(0);
  });
});

describe('Prober: when it probes', () => {
  it.each<[string, Record<string, unknown>]>([
    ['no probe is configured', {}],
    ['only other dependencies have one', { 'anthropic/*': { url: 'http://127.0.0.1:9/v1/models' } }],
    ['the matching probe has no URL', { 'zhipu/*': { tokenEnv: 'ZHIPU_API_KEY' } }],
  ])('sends nothing and keeps the probe slot free when %s', (_, probes) => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const h = harness(probes);
    h.prober.run();
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(h.engines.probesWanted(h.wall.now)).toEqual([GLM]);
  });

  it('sends nothing while the breaker is closed', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const server = await answering(200);
    const h = harness({ [GLM]: { url: server.url } });
    h.engines.control(GLM, 'reset', 'test');
    h.prober.run();
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('never has two probes in flight for one dependency', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const server = await hanging();
    // Long enough that even a loaded machine delivers the request before the client gives up.
    const h = harness({ [GLM]: { url: server.url, timeoutMs: 1000 } });
    const first = h.runAndWait();
    await server.firstRequest;
    for (let i = 1; i <= 5; i++) {
      h.wall.now = s(35 + i);
      h.prober.run();
    }
    expect(fetchSpy).toHaveBeenCalledTimes(1);
    await first;
    expect(server.requests).toHaveLength(1);
  });

  it('probes again once the previous probe has finished and the spacing has passed', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const server = await answering(200);
    const h = harness({ [GLM]: { url: server.url } });
    await h.runAndWait();
    h.prober.run();
    expect(fetchSpy).toHaveBeenCalledTimes(1);
    h.wall.now = s(35.25);
    await h.runAndWait();
    expect(server.requests).toHaveLength(2);
  });
});
