/**
 * The spend report kept at hand for the API, the status and /metrics, and the budget alerts: a crossed
 * alert share of a budget is told once per calendar period, also across restarts (remembered in the store).
 */
import type { Language } from '../../words/i18n.js';
import { translator } from '../../words/messages/index.js';
import type { NoticeInput } from '../notify/notice.js';
import type { Store } from '../store/db.js';
import { type BudgetPeriod, periodAt, systemZone, type ZoneOffset } from './period.js';
import {
  budgetStandings,
  burnRates,
  type SpendBudgetConfig,
  type SpendQueries,
  spendQueries,
  spendReport,
} from './report.js';
import type { BudgetStanding, QuotaWindow, SpendReport } from './types.js';

/** A report older than this is made again even if nothing was stored (the windows moved). */
const MAX_AGE_MS = 10_000;

/** Where the alert shares already told are remembered (the store's meta table; a map in tests). */
export interface AlertMemory {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

export const storeAlertMemory = (store: Pick<Store, 'getMeta' | 'setMeta'>): AlertMemory => ({
  get: (key) => store.getMeta(key),
  set: (key, value) => store.setMeta(key, value),
});

export interface BudgetCrossing {
  standing: BudgetStanding;
  /** The alert share crossed (the highest one reached). */
  share: number;
  periodEnd: number;
}

const alertKey = (s: Pick<BudgetStanding, 'provider' | 'period' | 'unit'>) =>
  `spend.alerted.${s.provider}|${s.period}|${s.unit}`;

/**
 * The budgets that crossed an alert share not yet told in this period: a share is told once per period
 * (usage within a calendar period only grows; a new period starts over). Pure but for `memory`.
 */
export function budgetCrossings(
  standings: readonly BudgetStanding[],
  periodOf: (period: BudgetPeriod) => { from: number; to: number },
  memory: AlertMemory,
): BudgetCrossing[] {
  const crossings: BudgetCrossing[] = [];
  for (const standing of standings) {
    if (standing.crossed === null) continue;
    const { from, to } = periodOf(standing.period);
    const key = alertKey(standing);
    let told: { from: number; share: number } | null = null;
    try {
      told = JSON.parse(memory.get(key) ?? 'null') as { from: number; share: number } | null;
    } catch {
      told = null;
    }
    const toldShare = told !== null && told.from === from ? told.share : null;
    if (toldShare !== null && standing.crossed <= toldShare) continue;
    memory.set(key, JSON.stringify({ from, share: standing.crossed }));
    crossings.push({ standing, share: standing.crossed, periodEnd: to });
  }
  return crossings;
}

/** The notice of a crossing, in the daemon's language: critical once the whole limit is used. */
export function budgetNotice(crossing: BudgetCrossing, ts: number, language: Language): NoticeInput {
  const { t } = translator(language);
  const { standing, share, periodEnd } = crossing;
  return {
    kind: 'spend_budget',
    dep: standing.provider === '*' ? null : standing.provider,
    title: t('spend.notice.title', {
      provider: standing.provider,
      period: standing.period,
      unit: standing.unit,
      share,
    }),
    body: t('spend.notice.body', {
      unit: standing.unit,
      used: standing.used,
      limit: standing.limit,
      projected: standing.projected,
      periodEnd,
    }),
    severity: share >= 1 ? 'critical' : 'warning',
    ts,
  };
}

export interface SpendTrackerOptions {
  store: Store;
  budgets: () => readonly SpendBudgetConfig[];
  quota: () => QuotaWindow[];
  clock: () => number;
  zone?: ZoneOffset;
  language: Language;
  memory?: AlertMemory;
}

export class SpendTracker {
  private readonly queries: SpendQueries;
  private readonly zone: ZoneOffset;
  private readonly memory: AlertMemory;
  private cachedReport: { at: number; stamp: string; report: SpendReport } | null = null;
  private cachedBudgets: { at: number; stamp: string; budgets: BudgetStanding[] } | null = null;

  constructor(private readonly options: SpendTrackerOptions) {
    this.queries = spendQueries(options.store);
    this.zone = options.zone ?? systemZone;
    this.memory = options.memory ?? storeAlertMemory(options.store);
  }

  /** `GET /api/spend`. */
  report(): SpendReport {
    const now = this.options.clock();
    const stamp = this.options.store.changeStamp();
    const cached = this.cachedReport;
    if (cached === null || stale(cached, now, stamp)) {
      const report = spendReport(this.queries, {
        now,
        zone: this.zone,
        budgets: this.options.budgets(),
        quota: this.options.quota(),
      });
      this.cachedReport = { at: now, stamp, report };
      return report;
    }
    return { ...cached.report, quota: this.options.quota() };
  }

  /** The budgets' standings alone (the status asks every few seconds; the periods' breakdown is not needed). */
  budgets(): BudgetStanding[] {
    const now = this.options.clock();
    const stamp = this.options.store.changeStamp();
    const cached = this.cachedBudgets;
    if (cached !== null && !stale(cached, now, stamp)) return cached.budgets;
    const configured = this.options.budgets();
    const budgets =
      configured.length === 0
        ? []
        : budgetStandings(this.queries, configured, burnRates(this.queries, now), now, this.zone);
    this.cachedBudgets = { at: now, stamp, budgets };
    return budgets;
  }

  quota(): QuotaWindow[] {
    return this.options.quota();
  }

  /** Budgets that crossed an alert share since last told, as notices (the monitor checks every minute). */
  checkBudgets(): NoticeInput[] {
    const now = this.options.clock();
    const crossings = budgetCrossings(this.budgets(), (period) => periodAt(period, now, this.zone), this.memory);
    return crossings.map((crossing) => budgetNotice(crossing, now, this.options.language));
  }
}

function stale(cached: { at: number; stamp: string }, now: number, stamp: string): boolean {
  return cached.stamp !== stamp || Math.abs(now - cached.at) >= MAX_AGE_MS;
}
