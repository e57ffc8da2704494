/**
 * Token rates per agent and dependency, and the budgets they are held against.
 * A rate as shown is the tokens of the minute before the clock, so it falls to zero
 * once calls stop. Crossings are judged in event time, as calls arrive: crossing a
 * budget (from under to over) is an event; staying over is not announced again
 * until it has dropped below, including by going quiet for a minute.
 */

import type { CallEvent } from '../calls/events.js';
import type { Config } from '../config/index.js';
import { matchesPattern, mostSpecific } from '../config/patterns.js';

const MINUTE_MS = 60_000;
/** Rates of pairs idle longer than this are no longer reported. */
const REPORT_FOR_MS = 10 * MINUTE_MS;

type Budgets = Config['budgets']['rates'];

interface Pair {
  agentId: string;
  dep: string;
  /** (event time, tokens) within the last minute of the newest event. */
  entries: Array<[number, number]>;
  total: number;
  over: boolean;
  lastTs: number;
}

/** An agent's token use on one dependency in the last full minute, against its budget. */
export interface TokenRate {
  agentId: string;
  dep: string;
  /** Tokens in the last full minute (usage.totalTokens). */
  tokensPerMinute: number;
  /** The configured budget that applies, if any, and whether the last minute crossed it. */
  budget: number | null;
  overBudget: boolean;
}

export class TokenRates {
  private readonly pairs = new Map<string, Pair>();

  constructor(private readonly budgets: Budgets) {}

  /** Adds calls; returns the rates that just crossed their budget. */
  record(calls: readonly CallEvent[]): TokenRate[] {
    const crossed: TokenRate[] = [];
    for (const call of calls) {
      if (call.usage.totalTokens <= 0) continue;
      const key = `${call.agentId}\u0000${call.dep}`;
      let pair = this.pairs.get(key);
      if (!pair) {
        pair = { agentId: call.agentId, dep: call.dep, entries: [], total: 0, over: false, lastTs: 0 };
        this.pairs.set(key, pair);
      }
      pair.lastTs = Math.max(pair.lastTs, call.ts);
      this.expire(pair);
      // Quiet since the last call long enough to be under again: this call may cross anew.
      if (!this.rateOf(pair, pair.total).overBudget) pair.over = false;
      if (call.ts > pair.lastTs - MINUTE_MS) {
        insertInOrder(pair.entries, [call.ts, call.usage.totalTokens]);
        pair.total += call.usage.totalTokens;
      }
      const rate = this.rateOf(pair, pair.total);
      if (rate.overBudget && !pair.over) crossed.push(rate);
      pair.over = rate.overBudget;
    }
    return crossed;
  }

  /**
   * The tokens of the minute before `now` (the clock) per pair, so a rate decays to zero when calls stop.
   * While the newest event is ahead of the clock (a skewed clock, a test), the minute ends at that event.
   */
  rates(now: number): TokenRate[] {
    return [...this.pairs.values()]
      .filter((pair) => pair.lastTs >= now - REPORT_FOR_MS)
      .map((pair) => this.rateOf(pair, now <= pair.lastTs ? pair.total : tokensSince(pair.entries, now - MINUTE_MS)))
      .sort((a, b) => b.tokensPerMinute - a.tokensPerMinute);
  }

  /** The budget for an agent on a dependency: the most specific dependency pattern among the matching agents. */
  budgetFor(agentId: string, dep: string): number | null {
    const matching = this.budgets.filter((b) => matchesPattern(b.agent, agentId) && matchesPattern(b.dep, dep));
    if (matching.length === 0) return null;
    const best = mostSpecific(
      matching.map((b) => b.dep),
      dep,
    ).at(-1);
    const exactAgent = matching
      .filter((b) => b.dep === best)
      .sort((a, b) => (a.agent === '*' ? 1 : 0) - (b.agent === '*' ? 1 : 0));
    return exactAgent[0]?.tokensPerMinute ?? null;
  }

  private rateOf(pair: Pair, tokensPerMinute: number): TokenRate {
    const budget = this.budgetFor(pair.agentId, pair.dep);
    return {
      agentId: pair.agentId,
      dep: pair.dep,
      tokensPerMinute,
      budget,
      overBudget: budget !== null && tokensPerMinute > budget,
    };
  }

  /** Keeps only the last minute before the newest event (event time, not the clock). */
  private expire(pair: Pair): void {
    const from = pair.lastTs - MINUTE_MS;
    while (pair.entries.length > 0 && (pair.entries[0]?.[0] ?? 0) <= from) {
      pair.total -= pair.entries.shift()?.[1] ?? 0;
    }
  }
}

/** Tokens of the entries after `from` (entries are sorted by time). */
function tokensSince(entries: ReadonlyArray<[number, number]>, from: number): number {
  let total = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as [number, number];
    if (entry[0] <= from) break;
    total += entry[1];
  }
  return total;
}

/** Keeps `entries` sorted by time; calls almost always arrive in order, so this is usually a push. */
function insertInOrder(entries: Array<[number, number]>, entry: [number, number]): void {
  let i = entries.length;
  while (i > 0 && (entries[i - 1]?.[0] ?? 0) > entry[0]) i--;
  entries.splice(i, 0, entry);
}
