/**
 * The monitor end to end through its local API: calls read from transcripts
 * drive the breakers, `/metrics` shows them (and passes promtool), `/api/status`
 * explains them, an operator control is applied and recorded, and a restart
 * rebuilds the same states from stored history.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Monitor } from '../../../main/api/root/monitor.js';
import type { MonitorOptions } from '../../../main/api/root/monitor-types.js';
import type { ApiHistory, ApiStatus, ConfigView } from '../../../main/api/types.js';
import { loadConfig } from '../../../main/core/config/index.js';
import type { DoctorReport } from '../../../main/core/doctor/index.js';
import { METRIC_NAMES } from '../../../main/core/metrics/names.js';
import { silentLogger } from '../../../main/core/runtime/log.js';
import { parsePrometheusText } from '../../../main/core/sources/prometheus-text.js';
import { assistantMessage, sessionHeader } from '../../../main/simulator/records.js';
import { toolOrSkip } from '../../helpers/tools.js';
import { until } from '../../helpers/transcripts.js';

const PROMTOOL = toolOrSkip('promtool');

let root: string;
let stateDir: string;
let monitor: Monitor | null;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bb-monitor-api-'));
  stateDir = join(root, 'openclaw');
  mkdirSync(join(root, 'home'), { recursive: true });
  writeFileSync(
    join(root, 'home', 'config.json'),
    JSON.stringify({
      gatewayLogDir: join(root, 'logs'),
      gatewayMetrics: { enabled: false },
      server: { port: 0 },
      ingest: { reconcileIntervalMs: 200 },
    }),
  );
  monitor = null;
});

afterEach(async () => {
  await monitor?.stop();
  rmSync(root, { recursive: true, force: true });
});

async function startMonitor(options: Partial<MonitorOptions> = {}): Promise<Monitor> {
  // A free port: another BreakerBar (or a parallel test run) may hold the default one.
  mkdirSync(join(root, 'home'), { recursive: true });
  writeFileSync(join(root, 'home', 'config.json'), JSON.stringify({ server: { port: 0 } }));
  const loaded = loadConfig(undefined, {
    env: { BREAKERBAR_HOME: join(root, 'home'), OPENCLAW_STATE_DIR: stateDir },
    home: root,
    platform: 'linux',
  });
  monitor = new Monitor(loaded, { log: silentLogger, gateway: false, ...options });
  await monitor.start();
  return monitor;
}

/** A zhipu 429 storm (the last one asking for 10 minutes) and healthy deepseek traffic, just now. */
function writeStorm(): void {
  const dir = join(stateDir, 'agents', 'main', 'sessions');
  mkdirSync(dir, { recursive: true });
  const now = Date.now();
  const lines = [sessionHeader('s1', now - 60_000)];
  for (let i = 0; i < 6; i++) {
    const ts = now - 30_000 + i * 1000;
    lines.push(
      assistantMessage({
        id: `z${i}`,
        parentId: null,
        ts,
        provider: 'zhipu',
        model: 'glm-5.1',
        outcome: 'rate_limited',
        sample: i === 5 ? 1 : 0,
      }),
      assistantMessage({
        id: `d${i}`,
        parentId: null,
        ts: ts + 1,
        provider: 'deepseek',
        model: 'deepseek-v4-pro',
        outcome: 'ok',
        totalTokens: 500,
      }),
    );
  }
  appendFileSync(join(dir, 's1.jsonl'), `${lines.join('\n')}\n`);
}

async function get(path: string): Promise<Response> {
  return fetch(`${monitor?.apiUrl}${path}`);
}

async function status(): Promise<ApiStatus> {
  return (await (await get('/api/status')).json()) as ApiStatus;
}

const breaker = (s: ApiStatus, dep: string) => s.breakers.find((b) => b.dep === dep);

describe('Monitor with its local API', () => {
  it(
    PROMTOOL.partTitle(
      'shows breakers driven by observed calls in /metrics and /api/status, and promtool accepts the scrape',
    ),
    async () => {
      writeStorm();
      await startMonitor();
      await until(async () => breaker(await status(), 'zhipu/glm-5.1')?.state === 'throttled');

      const zhipu = breaker(await status(), 'zhipu/glm-5.1');
      // The sixth 429 carried Retry-After 120 s (errorRetryAfterMs): binding.
      expect(zhipu?.retryAfterUntil).toBeGreaterThan(Date.now() + 60_000);
      expect(zhipu?.soleDependents).toEqual([]);
      expect(breaker(await status(), 'deepseek/deepseek-v4-pro')?.state).toBe('closed');

      const response = await get('/metrics');
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0.0.4/);
      const body = await response.text();
      const { samples, errors } = parsePrometheusText(body);
      expect(errors).toEqual([]);
      const value = (name: string, labels: Record<string, string>) =>
        samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
      expect(value(METRIC_NAMES.breakerState, { dep: 'zhipu/glm-5.1' })).toBe(3);
      expect(value(METRIC_NAMES.breakerState, { dep: 'deepseek/deepseek-v4-pro' })).toBe(0);
      expect(value(METRIC_NAMES.breakerTransitions, { dep: 'zhipu/glm-5.1', from: 'closed', to: 'throttled' })).toBe(1);
      expect(value(METRIC_NAMES.calls, { dep: 'zhipu/glm-5.1', outcome: 'rate_limited' })).toBe(6);
      expect(value(METRIC_NAMES.calls, { dep: 'zhipu/glm-5.1', outcome: 'billing' })).toBe(0);
      expect(value(METRIC_NAMES.tokens, { dep: 'deepseek/deepseek-v4-pro', agent: 'main' })).toBe(3000);
      // Without a gateway log every transcript record is a call and a turn.
      expect(value(METRIC_NAMES.turns, { dep: 'zhipu/glm-5.1', outcome: 'rate_limited' })).toBe(6);
      expect(value(METRIC_NAMES.turns, { dep: 'deepseek/deepseek-v4-pro', outcome: 'ok' })).toBe(6);
      const last = (await status()).lastDay;
      expect({ calls: last.calls, turns: last.turns.turns }).toEqual({ calls: 12, turns: 12 });
      expect(value(METRIC_NAMES.breakerOpenMinDuration, { dep: 'zhipu/glm-5.1' })).toBe(30);
      // No session or message ids in any label.
      for (const sample of samples) expect(Object.values(sample.labels).join(' ')).not.toMatch(/\bs1\b|z\d|d\d/);

      if (PROMTOOL.skip) return;
      const promtool = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
      expect(promtool.error).toBeUndefined();
      expect(`${promtool.stdout}${promtool.stderr}`.trim()).toBe('');
      expect(promtool.status).toBe(0);
    },
  );

  it('applies an operator control with the token, records it, and rebuilds every state after a restart', async () => {
    writeStorm();
    const first = await startMonitor();
    await until(async () => breaker(await status(), 'zhipu/glm-5.1')?.state === 'throttled');
    const token = readFileSync(join(root, 'home', 'api-token'), 'utf8').trim();
    const control = await fetch(
      `${first.apiUrl}/api/breakers/${encodeURIComponent('deepseek/deepseek-v4-pro')}/control`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'force_open', reason: 'provider maintenance' }),
      },
    );
    expect(control.status).toBe(200);
    const deepseek = breaker(await status(), 'deepseek/deepseek-v4-pro');
    expect(deepseek).toMatchObject({ state: 'open', forced: 'open', reason: 'operator: provider maintenance' });

    const history = (await (await get('/api/history?step=60')).json()) as ApiHistory;
    expect(history.transitions.map((t) => t.to)).toEqual(expect.arrayContaining(['throttled', 'open']));
    expect(history.steps.reduce((sum, step) => sum + step.outcomes.rate_limited, 0)).toBe(6);

    await first.stop();
    monitor = null;
    await startMonitor();
    const after = await status();
    expect(breaker(after, 'zhipu/glm-5.1')?.state).toBe('throttled');
    expect(breaker(after, 'deepseek/deepseek-v4-pro')).toMatchObject({ state: 'open', forced: 'open' });
  });

  it('refuses a control without the token and changes nothing', async () => {
    writeStorm();
    await startMonitor();
    await until(async () => breaker(await status(), 'deepseek/deepseek-v4-pro') !== undefined);
    const response = await fetch(`${monitor?.apiUrl}/api/breakers/deepseek%2Fdeepseek-v4-pro/control`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'force_open', reason: 'x' }),
    });
    expect(response.status).toBe(401);
    expect(breaker(await status(), 'deepseek/deepseek-v4-pro')?.state).toBe('closed');
  });
});

describe('settings and doctor through the API', () => {
  const token = () => readFileSync(join(root, 'home', 'api-token'), 'utf8').trim();
  const authorized = (body?: unknown): RequestInit => ({
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

  it('shows the config file only with the token, with every field of the schema', async () => {
    await startMonitor();
    expect((await get('/api/config')).status).toBe(401);
    const view = (await (await fetch(`${monitor?.apiUrl}/api/config`, authorized())).json()) as ConfigView;
    expect(view.file).toBe(join(root, 'home', 'config.json'));
    expect(view.raw).toEqual({ server: { port: 0 } });
    expect(view.fields.map((f) => f.path)).toContain('watchdog.maxRestartsPerHour');
    expect(view.fields.find((f) => f.path === 'watchdog.threshold')).toMatchObject({ default: 3 });
    expect((view.effective as { watchdog: { threshold: number } }).watchdog.threshold).toBe(3);
  });

  it('refuses an invalid config naming the key and writes nothing; writes a valid one', async () => {
    await startMonitor();
    const file = join(root, 'home', 'config.json');
    const before = readFileSync(file, 'utf8');
    const bad = await fetch(
      `${monitor?.apiUrl}/api/config`,
      authorized({ config: { server: { port: 0 }, watchdog: { threshold: 0 } } }),
    );
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ param: 'watchdog.threshold' });
    expect(readFileSync(file, 'utf8')).toBe(before);

    const good = await fetch(
      `${monitor?.apiUrl}/api/config`,
      authorized({ config: { server: { port: 0 }, watchdog: { dryRun: true } } }),
    );
    expect(good.status).toBe(200);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ server: { port: 0 }, watchdog: { dryRun: true } });
    const noToken = await fetch(`${monitor?.apiUrl}/api/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ config: {} }),
    });
    expect(noToken.status).toBe(401);
  });

  it('sends the code a browser needs for a dangerous change to the desktop, in the daemon’s words', async () => {
    const shown: Array<{ title: string; body: string }> = [];
    await startMonitor({
      showConfirmationCode: async (title, body) => {
        shown.push({ title, body });
      },
    });
    const file = join(root, 'home', 'config.json');
    const before = readFileSync(file, 'utf8');
    const change = { config: { server: { port: 0 }, watchdog: { restartCommand: ['true'] } } };
    const fromPage = (body: unknown): RequestInit => {
      const init = authorized(body);
      return { ...init, headers: { ...(init.headers as Record<string, string>), origin: monitor!.apiUrl! } };
    };
    const asked = await fetch(`${monitor?.apiUrl}/api/config`, fromPage(change));
    expect(asked.status).toBe(428);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(shown).toHaveLength(1);
    expect(shown[0]!.title).toBe('BreakerBar: confirm a settings change');
    const code = /Code (\d{6}) confirms the change to watchdog\.restartCommand/.exec(shown[0]!.body)?.[1];
    expect(code).toMatch(/^\d{6}$/);
    const confirmed = await fetch(`${monitor?.apiUrl}/api/config`, fromPage({ ...change, confirmCode: code }));
    expect(confirmed.status).toBe(200);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(change.config);
  });

  it("answers the doctor's findings", async () => {
    await startMonitor();
    const report = (await (await get('/api/doctor')).json()) as DoctorReport;
    expect(report.findings.some((f) => f.area === 'openclaw')).toBe(true);
    expect(report.summary.ok + report.summary.info + report.summary.warn + report.summary.error).toBe(
      report.findings.length,
    );
  }, 20_000);
});
