/**
 * Spend through the real daemon and its HTTP server: transcripts read from disk become `GET /api/spend`
 * (calls, failures, tokens, cost, burn, budgets), OpenClaw's usage command (here a script printing a usage
 * document) becomes the status's quota windows, and /metrics carries both as gauges that promtool accepts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Monitor } from '../../../main/api/root/monitor.js';
import type { ApiStatus } from '../../../main/api/types.js';
import { loadConfig } from '../../../main/core/config/index.js';
import { METRIC_NAMES } from '../../../main/core/metrics/names.js';
import { silentLogger } from '../../../main/core/runtime/log.js';
import { parsePrometheusText } from '../../../main/core/sources/prometheus-text.js';
import type { SpendReport } from '../../../main/core/spend/types.js';
import { assistantMessage, sessionHeader } from '../../../main/simulator/records.js';
import { toolOrSkip } from '../../helpers/tools.js';
import { until } from '../../helpers/transcripts.js';

const PROMTOOL = toolOrSkip('promtool');

let root: string;
let stateDir: string;
let monitor: Monitor | null = null;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bb-spend-api-'));
  stateDir = join(root, 'openclaw');
});

afterEach(async () => {
  await monitor?.stop();
  monitor = null;
  rmSync(root, { recursive: true, force: true });
});

async function startMonitor(): Promise<Monitor> {
  const usage = join(root, 'usage.json');
  writeFileSync(usage, readFileSync(new URL('../../fixtures/openclaw/status-usage-constructed.json', import.meta.url)));
  const fakeCli = join(root, 'fake-openclaw.mjs');
  writeFileSync(
    fakeCli,
    `process.stdout.write((await import('node:fs')).readFileSync(${JSON.stringify(usage)}, 'utf8'));`,
  );
  mkdirSync(join(root, 'home'), { recursive: true });
  writeFileSync(
    join(root, 'home', 'config.json'),
    JSON.stringify({
      gatewayLogDir: join(root, 'logs'),
      gatewayMetrics: { enabled: false },
      server: { port: 0 },
      ingest: { reconcileIntervalMs: 200 },
      budgets: { spend: [{ provider: 'deepseek', period: 'month', tokens: 2000, alertAt: [0.5, 1] }] },
      quota: { command: [process.execPath, fakeCli], intervalSec: 30 },
    }),
  );
  const loaded = loadConfig(undefined, {
    env: { BREAKERBAR_HOME: join(root, 'home'), OPENCLAW_STATE_DIR: stateDir },
    home: root,
    platform: 'linux',
  });
  monitor = new Monitor(loaded, { log: silentLogger, gateway: false });
  await monitor.start();
  return monitor;
}

/** Six zhipu 429s and six deepseek successes of 500 tokens each, just now. */
function writeCalls(): void {
  const dir = join(stateDir, 'agents', 'main', 'sessions');
  mkdirSync(dir, { recursive: true });
  const now = Date.now();
  const lines = [sessionHeader('s1', now - 60_000)];
  for (let i = 0; i < 6; i++) {
    const ts = now - 30_000 + i * 1000;
    const common = { parentId: null, ts };
    lines.push(
      assistantMessage({ ...common, id: `z${i}`, provider: 'zhipu', model: 'glm-5.1', outcome: 'rate_limited' }),
      assistantMessage({
        ...common,
        id: `d${i}`,
        provider: 'deepseek',
        model: 'deepseek-v4-pro',
        outcome: 'ok',
        totalTokens: 500,
      }),
    );
  }
  writeFileSync(join(dir, 's1.jsonl'), `${lines.join('\n')}\n`);
}

const get = (path: string) => fetch(`${monitor?.apiUrl}${path}`);
const spend = async () => (await (await get('/api/spend')).json()) as SpendReport;
const status = async () => (await (await get('/api/status')).json()) as ApiStatus;

describe('GET /api/spend', () => {
  it('reports calls, failures, tokens and cost by provider, the burn rate and the budgets', async () => {
    writeCalls();
    await startMonitor();
    await until(async () => (await spend()).week.total.calls === 12, 10_000, 'the calls in the spend report');

    const report = await spend();
    // The last 7 days hold every call (today might not, were the test run just after local midnight).
    expect(report.week.total).toMatchObject({ calls: 12, failures: 6, tokens: 3000 });
    expect(report.week.total.cost).toBeCloseTo(0.006, 10);
    expect(report.week.byProvider.map((r) => [r.key, r.calls, r.failures, r.tokens])).toEqual([
      ['deepseek', 6, 0, 3000],
      ['zhipu', 6, 6, 0],
    ]);
    expect(report.week.byModel.map((r) => r.key)).toEqual(['deepseek/deepseek-v4-pro', 'zhipu/glm-5.1']);
    expect(report.month.byAgent).toEqual([
      { key: 'main', calls: 12, failures: 6, tokens: 3000, cost: report.month.total.cost },
    ]);
    expect(report.burn).toEqual([{ provider: 'deepseek', tokensPerHour: 3000, usdPerHour: expect.any(Number) }]);
    expect(report.budgets).toEqual([
      {
        provider: 'deepseek',
        period: 'month',
        unit: 'tokens',
        limit: 2000,
        used: 3000,
        projected: expect.any(Number),
        crossed: 1,
      },
    ]);
    expect(report.budgets[0]?.projected).toBeGreaterThanOrEqual(3000);
  });

  it(
    PROMTOOL.partTitle('shows the quota windows OpenClaw reports in the status, and budgets and quota in /metrics'),
    async () => {
      writeCalls();
      await startMonitor();
      await until(async () => (await status()).quota.length === 6, 10_000, 'the quota windows');
      await until(async () => (await status()).budgets[0]?.used === 3000, 10_000, 'the budget standing');
      const { quota } = await status();
      expect(quota.filter((w) => w.exhausted).map((w) => `${w.provider} ${w.window}`)).toEqual([
        'anthropic Opus Week',
        'zai Tokens (5h)',
        'minimax Monthly budget',
      ]);
      expect((await spend()).quota).toEqual(quota);

      const body = await (await get('/metrics')).text();
      const { samples, errors } = parsePrometheusText(body);
      expect(errors).toEqual([]);
      const value = (name: string, labels: Record<string, string>) =>
        samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
      expect(value(METRIC_NAMES.budgetUsedRatio, { provider: 'deepseek', period: 'month', unit: 'tokens' })).toBe(1.5);
      expect(value(METRIC_NAMES.quotaUsedRatio, { provider: 'anthropic', window: '5h' })).toBe(0.42);
      expect(value(METRIC_NAMES.quotaUsedRatio, { provider: 'zai', window: 'Tokens (5h)' })).toBe(1);
      if (PROMTOOL.skip) return;
      const promtool = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
      expect(promtool.error).toBeUndefined();
      expect(`${promtool.stdout}${promtool.stderr}`.trim()).toBe('');
      expect(promtool.status).toBe(0);
    },
  );
});
