/**
 * The gateway-metrics source against a fake OpenClaw gateway (a real HTTP
 * server) and a real store: stored outcomes equal the counter deltas, across a
 * gateway restart and a BreakerBar restart; the first scrape is a baseline; no
 * call is counted twice beside a transcript source; an endpoint that is off,
 * refuses the token, hangs or is not there is said once, plainly, and the token
 * never shows up anywhere.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Outcome } from '../../../main/core/calls/classify.js';
import type { LogFields, Logger } from '../../../main/core/runtime/log.js';
import {
  type GatewayMetricsOptions,
  GatewayMetricsSource,
  MAX_CALLS_PER_SERIES,
} from '../../../main/core/sources/gateway-metrics.js';
import { counterDeltas, modelCallOutcome } from '../../../main/core/sources/gateway-metrics-counters.js';
import { JsonlTranscriptSource } from '../../../main/core/sources/transcripts-jsonl.js';
import { Store } from '../../../main/core/store/db.js';
import { type FakeGateway, type ModelCallLabels, startFakeGateway } from '../../helpers/fake-gateway.js';
import { generateSession, until, writeSession } from '../../helpers/transcripts.js';

const TOKEN = 'gw-token-5f1c9e2a7b3d';

const ZHIPU_OK: ModelCallLabels = { provider: 'zhipu', model: 'glm-5.1' };
const ZHIPU_429: ModelCallLabels = {
  provider: 'zhipu',
  model: 'glm-5.1',
  outcome: 'error',
  errorCategory: 'rate_limit',
};
const DEEPSEEK_OK: ModelCallLabels = { provider: 'deepseek', model: 'deepseek-v4-pro' };
const DEEPSEEK_TIMEOUT: ModelCallLabels = {
  provider: 'deepseek',
  model: 'deepseek-v4-pro',
  outcome: 'error',
  errorCategory: 'TimeoutError',
};

interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields: LogFields | undefined;
}

/** A logger that keeps every line, to check what was said and how often. */
function captureLog(): { log: Logger; lines: LogLine[]; warnings: () => LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (msg: string, fields?: LogFields): void => {
      lines.push({ level, msg, fields });
    };
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { log, lines, warnings: () => lines.filter((line) => line.level === 'warn' || line.level === 'error') };
}

let tmp: string;
let store: Store;
let gateway: FakeGateway;
let sources: Array<{ stop(): Promise<void> }>;

beforeEach(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-gwmetrics-'));
  store = Store.open(join(tmp, 'breakerbar.sqlite'));
  gateway = await startFakeGateway({ token: TOKEN });
  sources = [];
});

afterEach(async () => {
  for (const source of sources) await source.stop();
  await gateway.close();
  store.close();
  rmSync(tmp, { recursive: true, force: true });
});

function startSource(options: Partial<GatewayMetricsOptions> = {}): GatewayMetricsSource {
  const source = new GatewayMetricsSource({
    endpoint: { baseUrl: gateway.baseUrl, token: TOKEN },
    intervalMs: 10,
    slowIntervalMs: 10,
    timeoutMs: 2000,
    sink: store,
    log: captureLog().log,
    transcriptsCover: () => false,
    ...options,
  });
  sources.push(source);
  source.start();
  return source;
}

async function stopSource(source: GatewayMetricsSource): Promise<void> {
  await source.stop();
  sources = sources.filter((s) => s !== source);
}

/** Waits until `n` more scrapes have finished: anything the gateway showed before is then processed. */
async function scrapes(source: GatewayMetricsSource, n = 2): Promise<void> {
  const target = source.metricsStatus().scrapes + n;
  await until(() => source.metricsStatus().scrapes >= target, 5000, `${n} more scrapes`);
}

type Counts = Record<string, Partial<Record<Outcome, number>>>;

/** Stored calls from this source, per dependency and outcome. */
function stored(source = 'gatewaymetrics'): Counts {
  const rows = store.db
    .prepare(
      'SELECT dep, outcome, count(*) AS n FROM calls WHERE source = ? GROUP BY dep, outcome ORDER BY dep, outcome',
    )
    .all(source) as Array<{ dep: string; outcome: Outcome; n: number }>;
  const counts: Counts = {};
  for (const row of rows) counts[row.dep] = { ...counts[row.dep], [row.outcome]: row.n };
  return counts;
}

function storedTotal(source = 'gatewaymetrics'): number {
  return (store.db.prepare('SELECT count(*) AS n FROM calls WHERE source = ?').get(source) as { n: number }).n;
}

describe('GatewayMetricsSource: counting', () => {
  it('stores nothing for the baseline, then exactly the counter deltas, across a gateway restart', async () => {
    gateway.set(ZHIPU_OK, 40);
    gateway.set(ZHIPU_429, 9);
    const source = startSource();
    await scrapes(source, 2);
    // Those 49 calls happened at unknown times before BreakerBar looked: not stored.
    expect(storedTotal()).toBe(0);
    expect(source.metricsStatus()).toMatchObject({ state: 'ok', series: 2 });

    gateway.increment(ZHIPU_OK, 5);
    gateway.increment(ZHIPU_429, 3);
    gateway.increment(DEEPSEEK_TIMEOUT, 2); // a series that appears after the baseline counts from zero
    await until(() => storedTotal() === 10);
    await scrapes(source);
    expect(stored()).toEqual({
      'deepseek/deepseek-v4-pro': { timeout: 2 },
      'zhipu/glm-5.1': { ok: 5, rate_limited: 3 },
    });

    // Gateway restart: counters start again. The 429 series is already past its old value (12)
    // when BreakerBar looks, yet all 15 are new calls.
    gateway.restart();
    gateway.set(ZHIPU_OK, 2);
    gateway.set(ZHIPU_429, 15);
    await until(() => storedTotal() === 27);
    gateway.increment(ZHIPU_OK, 1);
    await until(() => storedTotal() === 28);
    await scrapes(source);
    expect(stored()).toEqual({
      'deepseek/deepseek-v4-pro': { timeout: 2 },
      'zhipu/glm-5.1': { ok: 8, rate_limited: 18 },
    });
    expect(source.status()).toMatchObject({ kind: 'gatewaymetrics', calls: 28, stored: 28, duplicates: 0 });
    expect(store.counter('ingest.duplicates')).toBe(0);
  });

  it('stores calls shaped as the store expects, at the scrape time', async () => {
    let now = Date.parse('2026-09-20T10:00:00.000Z');
    gateway.set(ZHIPU_429, 1);
    const source = startSource({ clock: () => now });
    await scrapes(source);
    now += 5000;
    gateway.increment(ZHIPU_429, 2);
    await until(() => storedTotal() === 2);
    const rows = store.db.prepare("SELECT * FROM calls WHERE source = 'gatewaymetrics' ORDER BY event_key").all();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      ts: now,
      agent_id: 'gateway',
      session_id: 'metrics',
      dep: 'zhipu/glm-5.1',
      provider: 'zhipu',
      model: 'glm-5.1',
      api: 'openai-completions',
      outcome: 'rate_limited',
      phase: 'before_output',
      error_code: 'rate_limit',
      http_status: null,
      tokens_total: 0,
    });
    const keys = rows.map((row) => (row as { event_key: string }).event_key);
    expect(keys[0]).toMatch(/^gatewaymetrics\/\d+\/openclaw_model_call_total\{.*provider="zhipu".*\}\/0$/);
  });

  it('keeps event keys unique when the clock stands still', async () => {
    const frozen = Date.parse('2026-09-20T10:00:00.000Z');
    gateway.set(ZHIPU_OK, 0);
    const source = startSource({ clock: () => frozen });
    await scrapes(source);
    gateway.increment(ZHIPU_OK, 1);
    await until(() => storedTotal() === 1);
    gateway.increment(ZHIPU_OK, 1);
    await until(() => storedTotal() === 2);
    expect(store.counter('ingest.duplicates')).toBe(0);
    expect(source.status().lastEventAt).toBeGreaterThan(frozen);
  });

  it('accepts the counter without its _total suffix', async () => {
    await gateway.close();
    gateway = await startFakeGateway({ token: TOKEN, withoutTotalSuffix: true });
    gateway.set(DEEPSEEK_OK, 3);
    const source = startSource();
    await scrapes(source);
    gateway.increment(DEEPSEEK_OK, 4);
    await until(() => storedTotal() === 4);
    expect(stored()).toEqual({ 'deepseek/deepseek-v4-pro': { ok: 4 } });
  });

  it(`records at most ${MAX_CALLS_PER_SERIES} calls per series per scrape, and says so`, async () => {
    const capture = captureLog();
    gateway.set(ZHIPU_429, 0);
    const source = startSource({ log: capture.log });
    await scrapes(source);
    gateway.set(ZHIPU_429, MAX_CALLS_PER_SERIES + 50);
    await until(() => storedTotal() === MAX_CALLS_PER_SERIES, 20_000);
    await scrapes(source);
    expect(storedTotal()).toBe(MAX_CALLS_PER_SERIES);
    const capped = capture.warnings().filter((line) => line.msg.includes('more gateway-metrics calls'));
    expect(capped).toHaveLength(1);
    expect(capped[0]?.fields).toMatchObject({ dep: 'zhipu/glm-5.1', counted: MAX_CALLS_PER_SERIES + 50 });
  });
});

describe('GatewayMetricsSource: beside a transcript source', () => {
  it('never counts a call twice: transcripts are the truth for their dependencies', async () => {
    const stateDir = join(tmp, 'state');
    const session = generateSession({
      agentId: 'main',
      sessionId: '0b6c5d2e-1111-4222-a333-444455556666',
      start: Date.now() - 60_000,
      turns: 12,
      seed: 3,
    });
    writeSession(stateDir, session);
    const transcriptDeps = new Set(session.calls.map((call) => call.dep));
    expect(transcriptDeps.size).toBeGreaterThan(0);
    const hasTranscriptCalls = store.db.prepare("SELECT 1 FROM calls WHERE source = 'jsonl' AND dep = ? LIMIT 1");

    const jsonl = new JsonlTranscriptSource({
      stateDir,
      includeArchives: false,
      sink: store,
      cutoff: 0,
      reconcileIntervalMs: 50,
      maxLineBytes: 1024 * 1024,
      log: captureLog().log,
    });
    sources.push(jsonl);
    jsonl.start();
    const metrics = startSource({ transcriptsCover: (dep) => hasTranscriptCalls.get(dep) !== undefined });
    await until(() => jsonl.caughtUp && storedTotal('jsonl') === session.calls.length);
    await scrapes(metrics);

    // The gateway counts the same calls the transcripts hold, plus calls of a dependency
    // no transcript shows (a CLI backend, say).
    for (const call of session.calls) {
      const [provider, model] = call.dep.split('/') as [string, string];
      const failed = call.outcome !== 'ok';
      gateway.increment({ provider, model, outcome: failed ? 'error' : 'completed', errorCategory: call.outcome });
    }
    gateway.increment(
      { provider: 'openrouter', model: 'qwen3-coder', outcome: 'error', errorCategory: 'overloaded' },
      3,
    );
    gateway.increment({ provider: 'openrouter', model: 'qwen3-coder' }, 2);
    await until(() => storedTotal() === 5);
    await scrapes(metrics);

    expect(stored()).toEqual({ 'openrouter/qwen3-coder': { ok: 2, overloaded: 3 } });
    expect(storedTotal('jsonl')).toBe(session.calls.length);
    expect(store.summary().calls).toBe(session.calls.length + 5);
    const truth = metrics.truth();
    expect(truth['openrouter/qwen3-coder']).toBe('gateway-metrics');
    for (const dep of transcriptDeps) expect(truth[dep]).toBe('transcripts');
    expect(metrics.metricsStatus()).toMatchObject({ truth, coveredCalls: session.calls.length });
  });
});

describe('GatewayMetricsSource: BreakerBar restarts', () => {
  it('continues from the stored values, counting what the gateway did meanwhile', async () => {
    gateway.set(ZHIPU_OK, 10);
    const first = startSource();
    await scrapes(first);
    gateway.increment(ZHIPU_OK, 2);
    await until(() => storedTotal() === 2);
    await stopSource(first);

    // While BreakerBar is down the gateway keeps working.
    gateway.increment(ZHIPU_OK, 4);
    gateway.increment(ZHIPU_429, 1);
    const second = startSource();
    await until(() => storedTotal() === 7);
    await scrapes(second);
    expect(stored()).toEqual({ 'zhipu/glm-5.1': { ok: 6, rate_limited: 1 } });
    await stopSource(second);

    // The gateway restarted too while BreakerBar was down: its counters are lower, so they are all new.
    gateway.restart();
    gateway.set(ZHIPU_OK, 3);
    const third = startSource();
    await until(() => storedTotal() === 10);
    await scrapes(third);
    expect(stored()).toEqual({ 'zhipu/glm-5.1': { ok: 9, rate_limited: 1 } });
    expect(store.counter('ingest.duplicates')).toBe(0);
  });

  it('takes a new baseline when its stored values are older than 10 minutes, so stale failures never land at "now"', async () => {
    gateway.set(ZHIPU_429, 10);
    const first = startSource();
    await scrapes(first);
    await stopSource(first);

    gateway.increment(ZHIPU_429, 40);
    const later = Date.now() + 11 * 60_000;
    const second = startSource({ clock: () => later });
    await scrapes(second);
    gateway.increment(ZHIPU_429, 1);
    await until(() => storedTotal() === 1);
    expect(stored()).toEqual({ 'zhipu/glm-5.1': { rate_limited: 1 } });
  });

  it('takes a new baseline for an endpoint it has no stored values for', async () => {
    gateway.set(ZHIPU_OK, 10);
    const first = startSource();
    await scrapes(first);
    await stopSource(first);
    const other = await startFakeGateway({ token: TOKEN });
    try {
      other.set(ZHIPU_OK, 50);
      const second = startSource({ endpoint: { baseUrl: other.baseUrl, token: TOKEN } });
      await scrapes(second);
      expect(storedTotal()).toBe(0);
      expect(store.cursors('gatewaymetrics').map((c) => c.key)).toEqual([gateway.baseUrl, other.baseUrl].sort());
    } finally {
      for (const source of sources) await source.stop();
      sources = [];
      await other.close();
    }
  });
});

describe('GatewayMetricsSource: when the endpoint does not serve metrics', () => {
  /** What every "off" message must say: the plugin, that BreakerBar does not need it, and no command that can fail. */
  function expectPlainOff(message: string | null | undefined): void {
    expect(message).toContain('BreakerBar does not need');
    expect(message).toContain('the gateway log and the transcripts');
    // `openclaw plugins enable diagnostics-prometheus` says "Plugin not found" where the plugin is not installed.
    expect(message).not.toContain('plugins enable');
  }

  it('says once, plainly, what a 404 means and that BreakerBar does not need it, and again only when that changes', async () => {
    const capture = captureLog();
    gateway.mode = 'not-found';
    const source = startSource({ log: capture.log });
    await scrapes(source, 5);
    expect(capture.warnings()).toHaveLength(1);
    const message = capture.warnings()[0]?.msg;
    expect(message).toContain('not served by this gateway');
    expect(message).toContain('`diagnostics-prometheus` plugin is not installed or not enabled');
    expect(message).toContain('`openclaw plugins list`');
    expectPlainOff(message);
    expect(source.metricsStatus()).toMatchObject({ state: 'off' });
    // The plugin is optional: its absence is stated (metricsStatus), never an error of the source.
    expect(source.status()).toMatchObject({ inputs: 0, lastError: null });

    gateway.set(ZHIPU_OK, 1);
    gateway.mode = 'metrics';
    await until(() => source.metricsStatus().state === 'ok');
    expect(source.status()).toMatchObject({ inputs: 1, lastError: null });
    gateway.mode = 'not-found';
    await until(() => source.metricsStatus().state === 'off');
    await scrapes(source, 3);
    expect(capture.warnings()).toHaveLength(2);
  });

  it('treats an empty answer as "off" until metrics were seen, and as zero calls so far', async () => {
    const capture = captureLog();
    gateway.mode = 'empty';
    const source = startSource({ log: capture.log });
    await scrapes(source, 4);
    expect(source.metricsStatus().state).toBe('off');
    expect(capture.warnings()).toHaveLength(1);
    const message = capture.warnings()[0]?.msg;
    // The endpoint is there: the plugin is not the question, OpenClaw's diagnostics (or no call yet) are.
    expect(message).toContain('answers, but with no metrics');
    expect(message).toContain('`diagnostics.enabled`');
    expect(message).not.toContain('not installed');
    expectPlainOff(message);

    // Nothing had been counted, so everything the gateway shows now is new.
    gateway.set(ZHIPU_OK, 3);
    gateway.mode = 'metrics';
    await until(() => storedTotal() === 3);
    expect(source.metricsStatus().state).toBe('ok');

    // A gateway restart with no call yet also serves an empty body: not "off" any more.
    gateway.restart();
    await scrapes(source, 3);
    expect(source.metricsStatus().state).toBe('ok');
    gateway.set(ZHIPU_OK, 1);
    await until(() => storedTotal() === 4);
    expect(capture.warnings()).toHaveLength(1);
  });

  it("treats the Control UI's HTML page as the endpoint being off", async () => {
    gateway.mode = 'html';
    const source = startSource();
    await scrapes(source);
    expect(source.metricsStatus()).toMatchObject({ state: 'off' });
    expect(source.metricsStatus().message).toContain('not served by this gateway');
    expectPlainOff(source.metricsStatus().message);
  });

  it('says once that the token is wrong, where BreakerBar looks for it, and never prints it', async () => {
    const capture = captureLog();
    const wrong = 'wrong-token-0000aaaa';
    const source = startSource({
      log: capture.log,
      endpoint: { baseUrl: gateway.baseUrl, token: wrong, tokenSource: 'env' },
    });
    await scrapes(source, 5);
    expect(source.metricsStatus().state).toBe('unauthorized');
    expect(capture.warnings()).toHaveLength(1);
    const message = capture.warnings()[0]?.msg ?? '';
    expect(message).toContain('rejected the gateway token');
    expect(message).toContain('gatewayToken');
    expect(message).toContain('OPENCLAW_GATEWAY_TOKEN');
    expect(message).toContain('gateway.auth.token');
    expect(gateway.authorizations.at(-1)).toBe(`Bearer ${wrong}`);
    const everything = JSON.stringify([
      capture.lines,
      source.status(),
      source.metricsStatus(),
      store.cursors('gatewaymetrics'),
    ]);
    expect(everything).not.toContain(wrong);
    expect(everything).not.toContain(TOKEN);
  });

  it('says the token is missing when BreakerBar has none, and sends no Authorization header', async () => {
    const capture = captureLog();
    const source = startSource({ log: capture.log, endpoint: { baseUrl: gateway.baseUrl, token: null } });
    await scrapes(source, 3);
    expect(source.metricsStatus().state).toBe('unauthorized');
    expect(capture.warnings()).toHaveLength(1);
    expect(capture.warnings()[0]?.msg).toContain('BreakerBar has none');
    expect(gateway.authorizations.every((header) => header === undefined)).toBe(true);
  });

  it('keeps the working token out of logs, status and the store', async () => {
    const capture = captureLog();
    gateway.set(ZHIPU_429, 1);
    const source = startSource({ log: capture.log });
    await scrapes(source);
    gateway.increment(ZHIPU_429, 2);
    await until(() => storedTotal() === 2);
    const rows = store.db.prepare('SELECT * FROM calls').all();
    const everything = JSON.stringify([
      capture.lines,
      source.status(),
      source.metricsStatus(),
      store.cursors('gatewaymetrics'),
      rows,
    ]);
    expect(everything).not.toContain(TOKEN);
    expect(gateway.authorizations.at(-1)).toBe(`Bearer ${TOKEN}`);
  });

  it('times out a hung endpoint as the gateway not answering (no source error), one request at a time, and recovers', async () => {
    // Seen on the real gateway: a hung run kept the metrics endpoint from answering, and the source's error
    // joined the `gateway_hung` incident as a second cause ("cannot read what the gateway writes").
    const capture = captureLog();
    gateway.set(ZHIPU_OK, 1);
    gateway.mode = 'hang';
    const source = startSource({ log: capture.log, timeoutMs: 100 });
    await until(() => source.metricsStatus().message?.includes('no answer') === true);
    expect(source.metricsStatus()).toMatchObject({
      state: 'unreachable',
      message: "OpenClaw's metrics endpoint gave no answer within 100 ms (the gateway is busy or hung)",
    });
    expect(source.status().lastError).toBeNull();
    expect(source.caughtUp).toBe(true);
    await scrapes(source, 3);
    expect(gateway.maxConcurrent).toBe(1);
    expect(capture.warnings()).toHaveLength(0);

    gateway.mode = 'metrics';
    await until(() => source.metricsStatus().state === 'ok');
    gateway.increment(ZHIPU_OK, 2);
    await until(() => storedTotal() === 2);
  });

  it('stops promptly while a scrape hangs', async () => {
    gateway.mode = 'hang';
    const source = startSource({ timeoutMs: 60_000 });
    await until(() => gateway.requests >= 1);
    const started = Date.now();
    await stopSource(source);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('takes a gateway answering 503 while it starts for the gateway not ready, not an error of its own', async () => {
    const capture = captureLog();
    gateway.mode = 'starting';
    const source = startSource({ log: capture.log });
    await scrapes(source, 3);
    expect(source.metricsStatus()).toMatchObject({ state: 'unreachable' });
    expect(source.metricsStatus().message).toContain('not ready (HTTP 503');
    expect(source.status().lastError).toBeNull();
    expect(capture.warnings()).toEqual([]);
    gateway.set(ZHIPU_OK, 1);
    gateway.mode = 'metrics';
    await until(() => source.metricsStatus().state === 'ok');
  });

  it('reports a gateway that is not running without warnings', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const capture = captureLog();
    const source = startSource({ log: capture.log, endpoint: { baseUrl: `http://127.0.0.1:${port}`, token: TOKEN } });
    await scrapes(source, 3);
    expect(source.metricsStatus()).toMatchObject({ state: 'unreachable', lastScrapeAt: null, series: 0 });
    expect(source.metricsStatus().message).toContain('not running');
    // The probes report a gateway that is down: the optional metrics reader does not repeat it as its error.
    expect(source.status()).toMatchObject({ inputs: 0, lastError: null });
    expect(source.caughtUp).toBe(true);
    expect(capture.warnings()).toEqual([]);
  });

  it('refuses an endpoint off loopback, without showing the token', () => {
    const create = () =>
      new GatewayMetricsSource({
        endpoint: { baseUrl: `http://10.0.0.5:18789/?t=${TOKEN}`, token: TOKEN },
        intervalMs: 10,
        sink: store,
        log: captureLog().log,
        transcriptsCover: () => false,
      });
    expect(create).toThrow(/loopback/);
    try {
      create();
    } catch (error) {
      expect((error as Error).message).not.toContain(TOKEN);
    }
  });
});

describe('modelCallOutcome', () => {
  it.each([
    [{ outcome: 'completed', error_category: 'none' }, 'ok'],
    [{ outcome: 'ok' }, 'ok'],
    [{ error_category: 'none' }, 'ok'],
    [{ outcome: 'error', error_category: 'rate_limit' }, 'rate_limited'],
    [{ outcome: 'error', error_category: 'overloaded' }, 'overloaded'],
    [{ outcome: 'error', error_category: 'billing' }, 'billing'],
    [{ outcome: 'error', error_category: 'auth_permanent' }, 'auth'],
    [{ outcome: 'error', error_category: 'timeout' }, 'timeout'],
    [{ outcome: 'error', error_category: 'TimeoutError' }, 'timeout'],
    [{ outcome: 'error', error_category: 'AbortError' }, 'aborted'],
    [{ outcome: 'error', error_category: 'StreamAbandoned' }, 'aborted'],
    [{ outcome: 'error', error_category: 'connection_reset' }, 'connection_reset'],
    [{ outcome: 'error', error_category: 'connection_closed' }, 'connection_reset'],
    [{ outcome: 'error', error_category: 'Error' }, 'other_error'],
    [{ outcome: 'error', error_category: 'TypeError' }, 'other_error'],
    [{ outcome: 'error', error_category: 'other' }, 'other_error'],
    [{ outcome: 'error', error_category: 'none' }, 'other_error'],
    [{ outcome: 'error' }, 'other_error'],
    [{ error_category: 'rate_limit' }, 'rate_limited'],
  ] as Array<[Record<string, string>, Outcome]>)('%j is %s', (labels, outcome) => {
    expect(modelCallOutcome(labels)).toBe(outcome);
  });
});

describe('counterDeltas', () => {
  const series = (values: Record<string, number>, complete = true) => ({
    series: new Map(Object.entries(values).map(([key, value]) => [key, { key, labels: {}, value }])),
    complete,
  });
  const asObject = (result: ReturnType<typeof counterDeltas>) =>
    Object.fromEntries(result.deltas.map(({ series: s, delta }) => [s.key, delta]));

  it('is a baseline without previous values', () => {
    const result = counterDeltas(null, series({ a: 5 }));
    expect(result.deltas).toEqual([]);
    expect([...result.next]).toEqual([['a', 5]]);
  });

  it('counts growth and new series', () => {
    const result = counterDeltas(new Map([['a', 5]]), series({ a: 8, b: 2 }));
    expect(asObject(result)).toEqual({ a: 3, b: 2 });
    expect(result.reset).toBe(false);
  });

  it('treats any lower counter as a restart of all of them', () => {
    const result = counterDeltas(
      new Map([
        ['a', 5],
        ['b', 4],
      ]),
      series({ a: 2, b: 6 }),
    );
    expect(result.reset).toBe(true);
    expect(asObject(result)).toEqual({ a: 2, b: 6 });
  });

  it('treats a vanished series as a restart, unless a bad line may have hidden it', () => {
    const previous = new Map([
      ['a', 5],
      ['b', 4],
    ]);
    expect(counterDeltas(previous, series({ a: 7 })).reset).toBe(true);
    const partial = counterDeltas(previous, series({ a: 7 }, false));
    expect(partial.reset).toBe(false);
    expect(asObject(partial)).toEqual({ a: 2 });
    expect(partial.next.get('b')).toBe(4);
  });
});
