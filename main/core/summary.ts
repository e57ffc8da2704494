/**
 * The call counts `scan` and `history` both print, built in one place so the two
 * can be compared field by field: what BreakerBar stored against what is on disk.
 */
import { emptyOutcomeCounts, type Outcome } from './classify.js';

export interface CallSummary {
  calls: number;
  outcomes: Record<Outcome, number>;
  byDependency: Record<string, Record<Outcome, number>>;
  /** Sum of `usage.totalTokens` over all calls. */
  tokens: number;
}

export class CallTally {
  private calls = 0;
  private tokens = 0;
  private readonly outcomes = emptyOutcomeCounts();
  private readonly byDependency = new Map<string, Record<Outcome, number>>();

  add(dep: string, outcome: Outcome, totalTokens: number, count = 1): void {
    this.calls += count;
    this.tokens += totalTokens;
    this.outcomes[outcome] += count;
    let perDep = this.byDependency.get(dep);
    if (!perDep) {
      perDep = emptyOutcomeCounts();
      this.byDependency.set(dep, perDep);
    }
    perDep[outcome] += count;
  }

  get size(): number {
    return this.calls;
  }

  outcomeCounts(): Record<Outcome, number> {
    return { ...this.outcomes };
  }

  summary(): CallSummary {
    const byDependency: Record<string, Record<Outcome, number>> = {};
    for (const dep of [...this.byDependency.keys()].sort()) {
      byDependency[dep] = { ...(this.byDependency.get(dep) as Record<Outcome, number>) };
    }
    return { calls: this.calls, outcomes: this.outcomeCounts(), byDependency, tokens: this.tokens };
  }
}
