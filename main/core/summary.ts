/**
 * The call counts `scan` and `history` both print, built in one place so the two
 * can be compared field by field: what BreakerBar stored against what is on disk.
 */
import { emptyOutcomeCounts, OUTCOMES, type Outcome } from './classify.js';
import type { TurnOutcome } from './events.js';

/** Turn outcomes in report order: a call's, then refused by OpenClaw itself. */
export const TURN_OUTCOMES: readonly TurnOutcome[] = [...OUTCOMES, 'refused'];

/** Turns (run outcomes the user saw): transcript records and turns OpenClaw refused itself. */
export interface TurnSummary {
  turns: number;
  outcomes: Record<TurnOutcome, number>;
  byDependency: Record<string, Record<TurnOutcome, number>>;
  /** Sum of tokens over the turns (the transcripts' usage). */
  tokens: number;
}

export interface CallSummary {
  /** Upstream requests (attempts), the unit breakers and storm detection count. */
  calls: number;
  outcomes: Record<Outcome, number>;
  byDependency: Record<string, Record<Outcome, number>>;
  /** Sum of `usage.totalTokens` over all calls. */
  tokens: number;
  turns: TurnSummary;
}

function emptyTurnCounts(): Record<TurnOutcome, number> {
  return Object.fromEntries(TURN_OUTCOMES.map((outcome) => [outcome, 0])) as Record<TurnOutcome, number>;
}

export class TurnTally {
  private turns = 0;
  private tokens = 0;
  private readonly outcomes = emptyTurnCounts();
  private readonly byDependency = new Map<string, Record<TurnOutcome, number>>();

  add(dep: string, outcome: TurnOutcome, tokens: number, count = 1): void {
    this.turns += count;
    this.tokens += tokens;
    this.outcomes[outcome] += count;
    let perDep = this.byDependency.get(dep);
    if (!perDep) {
      perDep = emptyTurnCounts();
      this.byDependency.set(dep, perDep);
    }
    perDep[outcome] += count;
  }

  summary(): TurnSummary {
    const byDependency: Record<string, Record<TurnOutcome, number>> = {};
    for (const dep of [...this.byDependency.keys()].sort()) {
      byDependency[dep] = { ...(this.byDependency.get(dep) as Record<TurnOutcome, number>) };
    }
    return { turns: this.turns, outcomes: { ...this.outcomes }, byDependency, tokens: this.tokens };
  }
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

  summary(turns: TurnSummary = new TurnTally().summary()): CallSummary {
    const byDependency: Record<string, Record<Outcome, number>> = {};
    for (const dep of [...this.byDependency.keys()].sort()) {
      byDependency[dep] = { ...(this.byDependency.get(dep) as Record<Outcome, number>) };
    }
    return { calls: this.calls, outcomes: this.outcomeCounts(), byDependency, tokens: this.tokens, turns };
  }
}
