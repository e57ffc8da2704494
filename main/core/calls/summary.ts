/**
 * The call counts `scan` and `history` both print, built in one place so the two
 * can be compared field by field: what BreakerBar stored against what is on disk.
 */
import { OUTCOMES, type Outcome } from './classify.js';
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

/** Counts by outcome, overall and per dependency, with tokens: the shape calls and turns share. */
class OutcomeTally<O extends string> {
  protected total = 0;
  protected tokens = 0;
  private readonly outcomes: Record<O, number>;
  private readonly byDependency = new Map<string, Record<O, number>>();

  constructor(private readonly order: readonly O[]) {
    this.outcomes = this.zeros();
  }

  add(dep: string, outcome: O, tokens: number, count = 1): void {
    this.total += count;
    this.tokens += tokens;
    this.outcomes[outcome] += count;
    let perDep = this.byDependency.get(dep);
    if (!perDep) {
      perDep = this.zeros();
      this.byDependency.set(dep, perDep);
    }
    perDep[outcome] += count;
  }

  get size(): number {
    return this.total;
  }

  outcomeCounts(): Record<O, number> {
    return { ...this.outcomes };
  }

  /** Copies, dependencies sorted. */
  protected dependencies(): Record<string, Record<O, number>> {
    const byDependency: Record<string, Record<O, number>> = {};
    for (const dep of [...this.byDependency.keys()].sort()) {
      byDependency[dep] = { ...(this.byDependency.get(dep) as Record<O, number>) };
    }
    return byDependency;
  }

  private zeros(): Record<O, number> {
    return Object.fromEntries(this.order.map((outcome) => [outcome, 0])) as Record<O, number>;
  }
}

export class TurnTally extends OutcomeTally<TurnOutcome> {
  constructor() {
    super(TURN_OUTCOMES);
  }

  summary(): TurnSummary {
    return {
      turns: this.total,
      outcomes: this.outcomeCounts(),
      byDependency: this.dependencies(),
      tokens: this.tokens,
    };
  }
}

export class CallTally extends OutcomeTally<Outcome> {
  constructor() {
    super(OUTCOMES);
  }

  summary(turns: TurnSummary = new TurnTally().summary()): CallSummary {
    return {
      calls: this.total,
      outcomes: this.outcomeCounts(),
      byDependency: this.dependencies(),
      tokens: this.tokens,
      turns,
    };
  }
}
