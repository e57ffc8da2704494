/**
 * `breakerbar spend`: the report as a table with burn rates, budgets and quota windows (in both languages),
 * and the command over a real database when no daemon runs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Io } from '../../main/cli/command.js';
import { main } from '../../main/cli/main.js';
import { renderSpend } from '../../main/cli/spend.js';
import type { SpendPeriod, SpendReport } from '../../main/core/spend/types.js';
import { Store } from '../../main/core/store/db.js';
import { translator } from '../../main/words/messages/index.js';
import { callEvent, tokenUsage } from '../helpers/calls.js';

const NOW = Date.UTC(2026, 11, 1, 6, 0);
const HOUR = 3_600_000;

const period = (from: number): SpendPeriod => ({
  from,
  to: NOW,
  total: { key: 'total', calls: 1250, failures: 31, tokens: 4_200_000, cost: 12.5 },
  byProvider: [
    { key: 'anthropic', calls: 1000, failures: 1, tokens: 4_000_000, cost: 12 },
    { key: 'zhipu', calls: 250, failures: 30, tokens: 200_000, cost: 0.5 },
  ],
  byModel: [{ key: 'anthropic/claude-sonnet-4', calls: 1000, failures: 1, tokens: 4_000_000, cost: 12 }],
  byAgent: [{ key: 'main', calls: 1250, failures: 31, tokens: 4_200_000, cost: 12.5 }],
});

const REPORT: SpendReport = {
  generatedAt: NOW,
  today: period(NOW - 6 * HOUR),
  week: period(NOW - 7 * 24 * HOUR),
  month: period(NOW - 30 * 24 * HOUR),
  burn: [{ provider: 'anthropic', tokensPerHour: 300_000, usdPerHour: 0.9 }],
  budgets: [{ provider: 'anthropic', period: 'day', unit: 'usd', limit: 15, used: 12, projected: 28.2, crossed: 0.8 }],
  quota: [
    {
      provider: 'anthropic',
      window: '5h',
      usedShare: 0.42,
      resetsAt: NOW + 2 * HOUR + 5 * 60_000,
      exhausted: false,
      readAt: NOW,
    },
    { provider: 'zai', window: 'Tokens (5h)', usedShare: 1, resetsAt: null, exhausted: true, readAt: NOW },
  ],
};

describe('renderSpend', () => {
  it('prints the period by provider with totals, then burn, budgets and quota windows', () => {
    const text = renderSpend(REPORT, { period: 'today', by: 'provider', now: NOW, language: 'en' });
    const { t, dateTime } = translator('en');
    const lines = text.split('\n');
    expect(lines[0]).toBe(`Today (${dateTime(NOW - 6 * HOUR)} – ${dateTime(NOW)})`);
    expect(lines[2]).toMatch(/^Provider\s+Calls\s+Failures\s+Tokens\s+Cost$/);
    expect(lines[3]).toMatch(/^anthropic\s+1,000\s+1\s+4M\s+\$12\.00$/);
    expect(lines[4]).toMatch(/^zhipu\s+250\s+30\s+200K\s+\$0\.50$/);
    expect(lines[5]).toMatch(/^Total\s+1,250\s+31\s+4\.2M\s+\$12\.50$/);
    // Numbers are right-aligned: every row of the table is as wide as its header row.
    expect(new Set(lines.slice(2, 6).map((l) => l.length)).size).toBe(1);
    expect(text).toContain('Burn rate (last hour)\n  anthropic: 300K tokens/h, $0.90/h');
    expect(text).toContain(`  ${t('spend.budget.row', REPORT.budgets[0]!)} — over 80%`);
    expect(text).toContain('  anthropic 5h: 42% used, resets in 2 h 5 min');
    expect(text).toContain('  zai Tokens (5h): 100% used, exhausted');
  });

  it('with failed calls in the last hour and nothing used, says nothing was used, not that there were no calls', () => {
    // Found trying it as a new user would: "No calls in the last hour" with 16 failed calls in it.
    const text = renderSpend({ ...REPORT, burn: [] }, { period: 'today', by: 'provider', now: NOW, language: 'en' });
    expect(text).toContain('Burn rate (last hour)\n  Nothing used in the last hour: no tokens, no cost.');
    expect(text).not.toContain('No calls in the last hour');
  });

  it('breaks down by model or agent, for the week or the month', () => {
    const byModel = renderSpend(REPORT, { period: 'week', by: 'model', now: NOW, language: 'en' });
    expect(byModel).toMatch(/^Last 7 days/);
    expect(byModel).toMatch(/\nModel\s+Calls/);
    expect(byModel).toContain('anthropic/claude-sonnet-4');
    const byAgent = renderSpend(REPORT, { period: 'month', by: 'agent', now: NOW, language: 'en' });
    expect(byAgent).toMatch(/^Last 30 days/);
    expect(byAgent).toMatch(/\nmain\s+1,250/);
  });

  it('speaks Chinese when asked', () => {
    const text = renderSpend(REPORT, { period: 'today', by: 'provider', now: NOW, language: 'zh-CN' });
    expect(text).toMatch(/^今天/);
    expect(text).toMatch(/\n服务商\s+调用\s+失败\s+令牌\s+费用/);
    expect(text).toContain(translator('zh-CN').t('spend.quota.resetsIn', { ms: 2 * HOUR + 5 * 60_000 }));
    expect(text).toContain('已用尽');
  });

  it('says when a period had no calls, no burn, no budgets and no quota', () => {
    const empty: SpendReport = {
      ...REPORT,
      today: {
        ...period(NOW - HOUR),
        total: { key: 'total', calls: 0, failures: 0, tokens: 0, cost: 0 },
        byProvider: [],
      },
      burn: [],
      budgets: [],
      quota: [],
    };
    const text = renderSpend(empty, { period: 'today', by: 'provider', now: NOW, language: 'en' });
    for (const key of ['spend.noCalls', 'spend.burn.none', 'spend.budgets.none', 'spend.quota.none'] as const) {
      expect(text).toContain(translator('en').t(key));
    }
  });
});

describe('breakerbar spend', () => {
  let tmp: string;
  let config: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'breakerbar-spend-cli-'));
    const dataDir = join(tmp, 'data');
    mkdirSync(dataDir, { recursive: true });
    config = join(tmp, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        dataDir,
        openclawDir: join(tmp, 'openclaw'),
        budgets: { spend: [{ provider: 'zhipu', period: 'month', usd: 1 }] },
      }),
    );
    const store = Store.open(join(dataDir, 'breakerbar.sqlite'));
    const now = Date.now();
    store.commit({
      events: [
        callEvent({ key: 'main/e1@1', ts: now - 60_000, role: 'record', usage: tokenUsage(1200, 1200, 0.3) }),
        callEvent({ key: 'main/e2@2', ts: now - 30_000, role: 'record', outcome: 'server_error', httpStatus: 500 }),
      ],
    });
    store.close();
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  async function run(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = { out: (text) => out.push(text), err: (text) => err.push(text), isTTY: false };
    const code = await main(argv, io);
    return { code, out: out.join(''), err: err.join('') };
  }

  it('reads the database when no BreakerBar runs', async () => {
    const { code, out, err } = await run('spend', '--json', '--config', config);
    expect(err).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(out) as SpendReport;
    expect(report.week.total).toMatchObject({ calls: 2, failures: 1, tokens: 1200, cost: 0.3 });
    expect(report.budgets).toMatchObject([{ provider: 'zhipu', period: 'month', unit: 'usd', used: 0.3, limit: 1 }]);
    expect(report.quota).toEqual([]);

    const text = await run('spend', '--period', 'week', '--by', 'model', '--config', config);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/\nzhipu\/glm-5\.1\s+2\s+1\s+1\.2K\s+\$0\.30/);
  });

  it('refuses an unknown period or breakdown with exit 2', async () => {
    const bad = await run('spend', '--period', 'year', '--config', config);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--period "year" is not one of today, week, month');
    expect((await run('spend', '--by', 'dep', '--config', config)).err).toContain('--by "dep"');
  });
});
