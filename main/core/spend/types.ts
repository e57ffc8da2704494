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
