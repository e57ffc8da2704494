/**
 * Spend and quota as the API, the CLI, the dashboard and the headline see them.
 */

/** A provider's quota window as OpenClaw reports it (read-only). */
export interface QuotaWindow {
  provider: string;
  /** The window's name as OpenClaw gives it ("5h", "week", "daily"…). */
  window: string;
  /** Share used, 0..1, when known. */
  usedShare: number | null;
  /** When the window resets (epoch ms), when known. */
  resetsAt: number | null;
  /** No requests left in this window. */
  exhausted: boolean;
  /** When it was read (epoch ms). */
  readAt: number;
}

/** A budget's standing in its period. */
export interface BudgetStanding {
  provider: string;
  period: 'day' | 'week' | 'month';
  unit: 'tokens' | 'usd';
  limit: number;
  used: number;
  /** What the period will have used at its end at the current burn rate. */
  projected: number;
  /** The highest alert threshold (share of the limit) crossed, or null. */
  crossed: number | null;
}

/** Calls, failures, tokens and cost of one provider, model (`provider/model`) or agent in a period. */
export interface SpendRow {
  key: string;
  calls: number;
  failures: number;
  tokens: number;
  /** USD, as the transcripts carry it (0 where a record has none). */
  cost: number;
}

export interface SpendPeriod {
  from: number;
  to: number;
  total: SpendRow;
  byProvider: SpendRow[];
  byModel: SpendRow[];
  byAgent: SpendRow[];
}

/** `GET /api/spend`: today (since local midnight), the last 7 and 30 days, burn rates, budgets, quota windows. */
export interface SpendReport {
  generatedAt: number;
  today: SpendPeriod;
  week: SpendPeriod;
  month: SpendPeriod;
  /** Per provider: tokens and USD per hour over the last hour of calls. */
  burn: Array<{ provider: string; tokensPerHour: number; usdPerHour: number }>;
  budgets: BudgetStanding[];
  quota: QuotaWindow[];
}
