/**
 * Spend as the store has it: calls, failures, tokens and cost per provider, model and agent, for today
 * (since local midnight), the last 7 and the last 30 days; burn rates over the last hour; budgets.
 *
 * Calls and tokens come from different tables on purpose, as in `Store.summary`: a row of `calls` is one
 * upstream request (a failed transcript record and the gateway log's attempt of the same request are paired
 * into one row, whichever came first), so calls and failures are counted there. Usage is a transcript
 * record's, and a record paired into a log attempt left no row of its own in `calls`: every record is a row
 * of `turns`, so tokens and cost are summed there (an attempt has no usage to add).
 */
import type { Config } from '../config/index.js';
import type { Db } from '../store/database.js';
import type { Store } from '../store/db.js';
import { type BudgetPeriod, periodAt, startOfDay, type ZoneOffset } from './period.js';
import type { BudgetStanding, QuotaWindow, SpendPeriod, SpendReport, SpendRow } from './types.js';

export const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
export const WEEK_DAYS = 7;
export const MONTH_DAYS = 30;
/** Alert thresholds (shares of a budget's limit) when a budget names none. */
export const DEFAULT_ALERT_AT: readonly number[] = [0.8, 1];

export type SpendBudgetConfig = Config['budgets']['spend'][number];

/** A dependency key's provider (`provider/model` → `provider`). */
export const providerOf = (dep: string): string => {
  const slash = dep.indexOf('/');
  return slash < 0 ? dep : dep.slice(0, slash);
};

type Span = 'today' | 'week' | 'month';
const SPANS: readonly Span[] = ['today', 'week', 'month'];

interface CallGroup {
  dep: string;
  agent: string;
  callsToday: number;
  failsToday: number;
  callsWeek: number;
  failsWeek: number;
  callsMonth: number;
  failsMonth: number;
}

type Numeric<T> = { [K in keyof T]: T[K] extends number ? K : never }[keyof T];
interface UsageGroup {
  dep: string;
  agent: string;
  tokensToday: number;
  costToday: number;
  tokensWeek: number;
  costWeek: number;
  tokensMonth: number;
  costMonth: number;
}

const CALL_COLUMNS: Record<Span, [Numeric<CallGroup>, Numeric<CallGroup>]> = {
  today: ['callsToday', 'failsToday'],
  week: ['callsWeek', 'failsWeek'],
  month: ['callsMonth', 'failsMonth'],
};
const USAGE_COLUMNS: Record<Span, [Numeric<UsageGroup>, Numeric<UsageGroup>]> = {
  today: ['tokensToday', 'costToday'],
  week: ['tokensWeek', 'costWeek'],
  month: ['tokensMonth', 'costMonth'],
};

/** The statements the report runs, prepared once per database. */
export class SpendQueries {
  private readonly calls;
  private readonly usage;
  private readonly usageByDep;

  constructor(db: Db) {
    // The covering indexes of migration 11 are named: on a database never analysed the planner would
    // rather range over the time index and visit every row. (A database opened read-only at an older
    // version has no such index: the same sums, only slower.)
    const hint = (index: string) =>
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(index) === undefined
        ? ''
        : `INDEXED BY ${index}`;
    const calls = `calls ${hint('calls_for_spend')}`;
    const turns = `turns ${hint('turns_for_spend')}`;
    // One pass over the month answers all three spans: each sum counts only the rows of its span.
    this.calls = db.prepare(`
      SELECT dep, agent_id AS agent,
        sum(ts >= @today) AS callsToday, sum(ts >= @today AND outcome != 'ok') AS failsToday,
        sum(ts >= @week) AS callsWeek, sum(ts >= @week AND outcome != 'ok') AS failsWeek,
        count(*) AS callsMonth, sum(outcome != 'ok') AS failsMonth
      FROM ${calls} WHERE ts >= @month AND ts < @to GROUP BY dep, agent_id`);
    this.usage = db.prepare(`
      SELECT dep, agent_id AS agent,
        sum(CASE WHEN ts >= @today THEN tokens_total ELSE 0 END) AS tokensToday,
        sum(CASE WHEN ts >= @today THEN cost ELSE 0 END) AS costToday,
        sum(CASE WHEN ts >= @week THEN tokens_total ELSE 0 END) AS tokensWeek,
        sum(CASE WHEN ts >= @week THEN cost ELSE 0 END) AS costWeek,
        sum(tokens_total) AS tokensMonth, sum(cost) AS costMonth
      FROM ${turns} WHERE ts >= @month AND ts < @to GROUP BY dep, agent_id`);
    this.usageByDep = db.prepare(`
      SELECT dep, sum(tokens_total) AS tokens, sum(cost) AS cost FROM ${turns}
      WHERE ts >= ? AND ts < ? GROUP BY dep`);
  }

  spans(bounds: { today: number; week: number; month: number; to: number }): {
    calls: CallGroup[];
    usage: UsageGroup[];
  } {
    return { calls: this.calls.all(bounds) as CallGroup[], usage: this.usage.all(bounds) as UsageGroup[] };
  }

  /** Tokens and cost per provider in [from, to). */
  usageByProvider(from: number, to: number): Map<string, { tokens: number; cost: number }> {
    const out = new Map<string, { tokens: number; cost: number }>();
    for (const row of this.usageByDep.all(from, to) as Array<{ dep: string; tokens: number; cost: number }>) {
      const provider = providerOf(row.dep);
      const sum = out.get(provider) ?? { tokens: 0, cost: 0 };
      sum.tokens += row.tokens;
      sum.cost += row.cost;
      out.set(provider, sum);
    }
    return out;
  }
}

const emptyRow = (key: string): SpendRow => ({ key, calls: 0, failures: 0, tokens: 0, cost: 0 });

/** Rows of one span, summed by provider, model and agent. */
class SpanTally {
  readonly total = emptyRow('total');
  private readonly maps = { provider: new Map<string, SpendRow>(), model: new Map<string, SpendRow>() };
  private readonly agents = new Map<string, SpendRow>();

  add(dep: string, agent: string, add: Omit<SpendRow, 'key'>): void {
    for (const row of [
      this.total,
      rowIn(this.maps.provider, providerOf(dep)),
      rowIn(this.maps.model, dep),
      rowIn(this.agents, agent),
    ]) {
      row.calls += add.calls;
      row.failures += add.failures;
      row.tokens += add.tokens;
      row.cost += add.cost;
    }
  }

  period(from: number, to: number): SpendPeriod {
    return {
      from,
      to,
      total: this.total,
      byProvider: ranked(this.maps.provider),
      byModel: ranked(this.maps.model),
      byAgent: ranked(this.agents),
    };
  }
}

function rowIn(map: Map<string, SpendRow>, key: string): SpendRow {
  let row = map.get(key);
  if (!row) {
    row = emptyRow(key);
    map.set(key, row);
  }
  return row;
}

/** Most expensive first, then most tokens, most calls, then by name (a stable order for equal rows). */
function ranked(map: Map<string, SpendRow>): SpendRow[] {
  return [...map.values()].sort(
    (a, b) => b.cost - a.cost || b.tokens - a.tokens || b.calls - a.calls || a.key.localeCompare(b.key),
  );
}

export interface SpendInputs {
  now: number;
  zone: ZoneOffset;
  budgets: readonly SpendBudgetConfig[];
  quota: readonly QuotaWindow[];
}

/** Today, the last 7 and the last 30 days, each up to `now`. */
export function spendPeriods(queries: SpendQueries, now: number, zone: ZoneOffset): Record<Span, SpendPeriod> {
  const bounds = {
    today: startOfDay(now, zone),
    week: now - WEEK_DAYS * DAY_MS,
    month: now - MONTH_DAYS * DAY_MS,
    to: now + 1,
  };
  const tallies = { today: new SpanTally(), week: new SpanTally(), month: new SpanTally() };
  const { calls, usage } = queries.spans(bounds);
  for (const row of calls) {
    for (const span of SPANS) {
      const [n, failed] = CALL_COLUMNS[span];
      if (row[n] > 0)
        tallies[span].add(row.dep, row.agent, { calls: row[n], failures: row[failed], tokens: 0, cost: 0 });
    }
  }
  for (const row of usage) {
    for (const span of SPANS) {
      const [tokens, cost] = USAGE_COLUMNS[span];
      if (row[tokens] > 0 || row[cost] > 0) {
        tallies[span].add(row.dep, row.agent, { calls: 0, failures: 0, tokens: row[tokens], cost: row[cost] });
      }
    }
  }
  return {
    today: tallies.today.period(bounds.today, now),
    week: tallies.week.period(bounds.week, now),
    month: tallies.month.period(bounds.month, now),
  };
}

export type Burn = SpendReport['burn'];

/** Tokens and USD per hour per provider: what the hour before `now` used (so it falls to zero when calls stop). */
export function burnRates(queries: SpendQueries, now: number): Burn {
  return [...queries.usageByProvider(now - HOUR_MS, now + 1)]
    .filter(([, sum]) => sum.tokens > 0 || sum.cost > 0)
    .map(([provider, sum]) => ({ provider, tokensPerHour: sum.tokens, usdPerHour: sum.cost }))
    .sort(
      (a, b) =>
        b.usdPerHour - a.usdPerHour || b.tokensPerHour - a.tokensPerHour || a.provider.localeCompare(b.provider),
    );
}

/** `*` matches every provider; anything else one provider exactly. */
const budgetCovers = (budgetProvider: string, provider: string) =>
  budgetProvider === '*' || budgetProvider === provider;

/** The highest threshold at or under `share`, or null. */
export function crossedThreshold(share: number, alertAt: readonly number[]): number | null {
  let crossed: number | null = null;
  for (const threshold of alertAt)
    if (share >= threshold && (crossed === null || threshold > crossed)) crossed = threshold;
  return crossed;
}

/** Each budget's standing in its calendar period (one per unit it limits): used, projected, crossed. */
export function budgetStandings(
  queries: SpendQueries,
  budgets: readonly SpendBudgetConfig[],
  burn: Burn,
  now: number,
  zone: ZoneOffset,
): BudgetStanding[] {
  const usedBy = new Map<
    BudgetPeriod,
    { from: number; to: number; used: Map<string, { tokens: number; cost: number }> }
  >();
  const standings: BudgetStanding[] = [];
  for (const budget of budgets) {
    let period = usedBy.get(budget.period);
    if (!period) {
      const bounds = periodAt(budget.period, now, zone);
      period = { ...bounds, used: queries.usageByProvider(bounds.from, now + 1) };
      usedBy.set(budget.period, period);
    }
    const hoursLeft = Math.max(0, period.to - now) / HOUR_MS;
    const usage = [...period.used].filter(([provider]) => budgetCovers(budget.provider, provider)).map(([, u]) => u);
    const burning = burn.filter((b) => budgetCovers(budget.provider, b.provider));
    const alertAt = budget.alertAt ?? DEFAULT_ALERT_AT;
    const limits: Array<[BudgetStanding['unit'], number | null | undefined]> = [
      ['tokens', budget.tokens],
      ['usd', budget.usd],
    ];
    for (const [unit, limit] of limits) {
      if (limit === null || limit === undefined) continue;
      const tokens = unit === 'tokens';
      const used = usage.reduce((acc, u) => acc + (tokens ? u.tokens : u.cost), 0);
      const rate = burning.reduce((acc, b) => acc + (tokens ? b.tokensPerHour : b.usdPerHour), 0);
      standings.push({
        provider: budget.provider,
        period: budget.period,
        unit,
        limit,
        used,
        projected: used + rate * hoursLeft,
        crossed: crossedThreshold(used / limit, alertAt),
      });
    }
  }
  return standings;
}

/** The whole report; `queries` over the store's database. */
export function spendReport(queries: SpendQueries, inputs: SpendInputs): SpendReport {
  const { now, zone } = inputs;
  const burn = burnRates(queries, now);
  return {
    generatedAt: now,
    ...spendPeriods(queries, now, zone),
    burn,
    budgets: budgetStandings(queries, inputs.budgets, burn, now, zone),
    quota: [...inputs.quota],
  };
}

/** Queries for a store, made once (prepared statements belong to its connection). */
const prepared = new WeakMap<Db, SpendQueries>();
export function spendQueries(store: Pick<Store, 'db'>): SpendQueries {
  let queries = prepared.get(store.db);
  if (!queries) {
    queries = new SpendQueries(store.db);
    prepared.set(store.db, queries);
  }
  return queries;
}
