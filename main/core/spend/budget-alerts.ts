/**
 * Spend budgets as a running monitor watches them: a periodic check that tells a human of a crossed alert share,
 * and the standings /metrics shows. Neither may fail what runs them (a timer, a scrape): a failure is logged and
 * the next check or scrape tries again.
 */

import type { Notifier } from '../notify/notifier.js';
import type { Logger } from '../runtime/log.js';
import type { WriteFailures } from '../store/room.js';
import type { SpendTracker } from './tracker.js';
import type { BudgetStanding } from './types.js';

/** Where a crossed budget is told: the log, the notifier (when there is one); a write refused for lack of room. */
export interface BudgetAlertTargets {
  log: Logger;
  notifier?: Pick<Notifier, 'notify'>;
  writes?: WriteFailures;
}

/** Tells each budget crossed since the last check (none without a tracker). */
export function checkSpendBudgets(tracker: SpendTracker | null, { log, notifier, writes }: BudgetAlertTargets): void {
  try {
    for (const notice of tracker?.checkBudgets() ?? []) {
      log.warn('spend budget crossed', { title: notice.title });
      notifier?.notify(notice);
    }
  } catch (error) {
    if (writes?.failed(error, 'a spend alert')) return;
    log.warn('checking spend budgets failed; will retry', { error: (error as Error).message });
  }
}

/** Budget standings for /metrics; a failing query must not fail the scrape. */
export function spendBudgetsSafely(tracker: SpendTracker | null, log: Logger): BudgetStanding[] {
  try {
    return tracker?.budgets() ?? [];
  } catch (error) {
    log.warn('spend budgets unavailable', { error: (error as Error).message });
    return [];
  }
}
