/**
 * What the metrics read at scrape time: each gauge asks the running services
 * for the state it shows instead of being pushed every change. The composition
 * root supplies these readers; an absent one means the service does not run in
 * this process (the scan command has no watchdog, for one).
 */
import type { BreakerSnapshot } from '../breaker/types.js';
import type { SourceStatus } from '../sources/source.js';
import type { BudgetStanding, QuotaWindow } from '../spend/types.js';

/** What the watchdog gauges read at scrape time. */
export interface WatchdogGauges {
  /** Last probe: 1 up, 0 down; null before the first probe. */
  gatewayUp: boolean | null;
  consecutiveChecks: number;
  paused: boolean;
  budgetRemaining: number;
  diverging: boolean;
}

export interface MetricsSources {
  snapshots(): BreakerSnapshot[];
  sources(): SourceStatus[];
  stalledSessions(): Array<{ dep: string; sessions: number }>;
  /** Absent when no watchdog runs (e.g. the scan command). */
  watchdog?(): WatchdogGauges | null;
  /** Turns stored since BreakerBar started, by dependency and outcome (absent: no store). */
  turns?(): Array<{ dep: string; outcome: string; n: number }>;
  /**
   * Seconds until OpenClaw uses each dependency again (0: it can now), for every dependency with a
   * breaker or an OpenClaw cooldown seen since start (absent: OpenClaw's state is not read).
   */
  openclawCooldowns?(): Array<{ dep: string; seconds: number }>;
  /** Incidents open now (absent: this instance keeps none). */
  openIncidents?(): number;
  /** Spend budgets' standings (absent or empty: none configured). */
  budgets?(): BudgetStanding[];
  /** Providers' quota windows as OpenClaw last reported them (absent or empty: none read). */
  quota?(): QuotaWindow[];
}
