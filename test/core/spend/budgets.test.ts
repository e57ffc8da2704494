/**
 * Spend budgets: the calendar periods they run over, each alert share told once per period (also after a
 * restart, remembered in the store), the notice's words and severity, and the config that declares them
 * (the old `budgets` list still loads, as the rate budgets).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfigFile } from '../../../main/core/config/file.js';
import { loadConfig } from '../../../main/core/config/index.js';
import {
  fixedZone,
  periodAt,
  startOfDay,
  startOfMonth,
  startOfWeek,
  type ZoneOffset,
} from '../../../main/core/spend/period.js';
import { type AlertMemory, budgetCrossings, SpendTracker } from '../../../main/core/spend/tracker.js';
import type { BudgetStanding } from '../../../main/core/spend/types.js';
import { Store } from '../../../main/core/store/db.js';
import { translator } from '../../../main/words/messages/index.js';
import { callEvent, tokenUsage } from '../../helpers/calls.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const UTC8 = fixedZone(480);

describe('calendar periods', () => {
  // Tuesday 1 Dec 2026, 14:00 in UTC+8.
  const now = Date.UTC(2026, 11, 1, 6, 0);

  it('start at local midnight, on Monday, on the first of the month', () => {
    expect(startOfDay(now, UTC8)).toBe(Date.UTC(2026, 10, 30, 16, 0));
    expect(startOfWeek(now, UTC8)).toBe(Date.UTC(2026, 10, 29, 16, 0)); // Monday 30 Nov, local
    expect(startOfMonth(now, UTC8)).toBe(Date.UTC(2026, 10, 30, 16, 0));
    expect(periodAt('day', now, UTC8)).toEqual({ from: Date.UTC(2026, 10, 30, 16), to: Date.UTC(2026, 11, 1, 16) });
    expect(periodAt('week', now, UTC8).to).toBe(Date.UTC(2026, 11, 6, 16));
    expect(periodAt('month', now, UTC8).to).toBe(Date.UTC(2026, 11, 31, 16));
  });

  it('follow a daylight-saving change: the day after the change starts at its own local midnight', () => {
    // A zone at UTC+1 that moves to UTC+2 at 01:00 UTC on 29 Mar 2026 (as Central Europe does).
    const change = Date.UTC(2026, 2, 29, 1, 0);
    const cet: ZoneOffset = (at) => (at >= change ? 120 : 60);
    const afternoon = Date.UTC(2026, 2, 29, 12, 0);
    // Local midnight of the 29th was still UTC+1: 28 Mar 23:00 UTC; the next is UTC+2: 29 Mar 22:00 UTC.
    expect(periodAt('day', afternoon, cet)).toEqual({ from: Date.UTC(2026, 2, 28, 23), to: Date.UTC(2026, 2, 29, 22) });
  });
});

const standing = (crossed: number | null, over: Partial<BudgetStanding> = {}): BudgetStanding => ({
  provider: 'zhipu',
  period: 'day',
  unit: 'tokens',
  limit: 1000,
  used: crossed === null ? 100 : crossed * 1000,
  projected: 2000,
  crossed,
  ...over,
});

function mapMemory(): AlertMemory & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return { map, get: (k) => map.get(k), set: (k, v) => void map.set(k, v) };
}

describe('budget crossings', () => {
  const day1 = { from: 0, to: DAY };
  const day2 = { from: DAY, to: 2 * DAY };

  it('tells each alert share once per period, the higher share again, and starts over in a new period', () => {
    const memory = mapMemory();
    expect(budgetCrossings([standing(null)], () => day1, memory)).toEqual([]);
    expect(budgetCrossings([standing(0.8)], () => day1, memory).map((c) => c.share)).toEqual([0.8]);
    expect(budgetCrossings([standing(0.8)], () => day1, memory)).toEqual([]);
    expect(budgetCrossings([standing(1)], () => day1, memory).map((c) => c.share)).toEqual([1]);
    expect(budgetCrossings([standing(1)], () => day1, memory)).toEqual([]);
    expect(budgetCrossings([standing(0.8)], () => day2, memory).map((c) => [c.share, c.periodEnd])).toEqual([
      [0.8, 2 * DAY],
    ]);
  });

  it('keeps budgets of different units and periods apart', () => {
    const memory = mapMemory();
    const both = [standing(0.8), standing(0.8, { unit: 'usd' }), standing(0.8, { period: 'week' })];
    expect(budgetCrossings(both, () => day1, memory)).toHaveLength(3);
    expect(budgetCrossings(both, () => day1, memory)).toHaveLength(0);
  });
});

describe('SpendTracker over a store', () => {
  let tmp: string;
  let dbPath: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'breakerbar-budgets-'));
    dbPath = join(tmp, 'breakerbar.sqlite');
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  const now = Date.UTC(2026, 11, 1, 6, 0);
  const budgets = [{ provider: 'zhipu', period: 'day' as const, tokens: 1000, usd: null, alertAt: [0.8, 1] }];
  const tracker = (store: Store, clock: () => number) =>
    new SpendTracker({ store, budgets: () => budgets, quota: () => [], clock, zone: UTC8, language: 'en' });

  it('notifies a crossing once, not again after a restart, and critically at the whole limit', () => {
    let store = Store.open(dbPath);
    let clock = now;
    store.commit({
      events: [callEvent({ key: 'main/e1@1', ts: now - HOUR, role: 'record', usage: tokenUsage(850) })],
    });
    const first = tracker(store, () => clock).checkBudgets();
    expect(first).toHaveLength(1);
    const { t } = translator('en');
    expect(first[0]).toMatchObject({
      kind: 'spend_budget',
      dep: 'zhipu',
      severity: 'warning',
      title: t('spend.notice.title', { provider: 'zhipu', period: 'day', unit: 'tokens', share: 0.8 }),
    });
    store.close();

    // A restart: a new tracker over the same file tells nothing new.
    store = Store.open(dbPath);
    expect(tracker(store, () => clock).checkBudgets()).toEqual([]);
    clock += 60_000;
    store.commit({
      events: [callEvent({ key: 'main/e2@2', ts: clock - 1000, role: 'record', usage: tokenUsage(200) })],
    });
    const over = tracker(store, () => clock).checkBudgets();
    expect(over.map((n) => [n.severity, n.kind])).toEqual([['critical', 'spend_budget']]);
    store.close();
  });
});

describe('budgets config', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'breakerbar-budgets-config-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));
  const env = () => ({ env: {}, home: tmp, platform: 'linux' as const });
  const file = (content: unknown) => {
    const path = join(tmp, 'config.json');
    writeFileSync(path, JSON.stringify(content));
    return path;
  };

  it('reads an old `budgets` list as the rate budgets', () => {
    const rates = [{ agent: 'main', dep: 'anthropic/*', tokensPerMinute: 200_000 }];
    expect(loadConfig(file({ budgets: rates }), env()).config.budgets).toEqual({ rates, spend: [] });
  });

  it('shows the settings editor an old `budgets` list as `budgets.rates`, other keys as written', () => {
    const rates = [{ agent: '*', dep: 'deepseek/*', tokensPerMinute: 100_000 }];
    const view = readConfigFile(file({ budgets: rates, retention: { days: 7 } }));
    expect(view.raw).toEqual({ budgets: { rates }, retention: { days: 7 } });
    expect(view.fields.map((f) => f.path)).toEqual(expect.arrayContaining(['budgets.rates', 'budgets.spend']));
  });

  it('reads rates and spend budgets, with default alert shares', () => {
    const { budgets } = loadConfig(
      file({
        budgets: {
          spend: [
            { provider: 'zhipu', period: 'month', usd: 50 },
            { provider: '*', period: 'day', tokens: 1e6, alertAt: [1, 0.5] },
          ],
        },
      }),
      env(),
    ).config;
    expect(budgets).toEqual({
      rates: [],
      spend: [
        { provider: 'zhipu', period: 'month', tokens: null, usd: 50, alertAt: [0.8, 1] },
        { provider: '*', period: 'day', tokens: 1e6, usd: null, alertAt: [0.5, 1] },
      ],
    });
  });

  it('refuses a spend budget without a limit, or with a bad period, naming the key', () => {
    expect(() => loadConfig(file({ budgets: { spend: [{ provider: 'zhipu', period: 'day' }] } }), env())).toThrow(
      'config key "budgets.spend[0]" sets neither "tokens" nor "usd"',
    );
    expect(() =>
      loadConfig(file({ budgets: { spend: [{ provider: 'zhipu', period: 'year', usd: 1 }] } }), env()),
    ).toThrow('config key "budgets.spend[0].period" is "year"');
    expect(() => loadConfig(file({ budgets: [{ agent: 'main', dep: 'anthropic/*' }] }), env())).toThrow(
      'config key "budgets.rates[0]" lacks "tokensPerMinute"',
    );
  });
});
