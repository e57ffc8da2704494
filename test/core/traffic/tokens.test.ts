import { describe, expect, it } from 'vitest';
import type { CallEvent } from '../../../main/core/calls/events.js';
import type { Config } from '../../../main/core/config/index.js';
import { TokenRates } from '../../../main/core/traffic/tokens.js';
import { callEvent, tokenUsage } from '../../helpers/calls.js';

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const GLM = 'zhipu/glm-5.1';
const CLAUDE = 'anthropic/claude-sonnet-4';

type Budgets = Config['budgets']['rates'];

let nextKey = 0;

/** A successful call by `agentId` to `dep` at `ts` that used `tokens` tokens. */
function call(agentId: string, dep: string, ts: number, tokens: number): CallEvent {
  return callEvent({
    key: `${agentId}/e${nextKey++}@${ts}`,
    ts,
    agentId,
    sessionId: `${agentId}-session`,
    dep,
    usage: tokenUsage(tokens),
  });
}

const budget = (agent: string, dep: string, tokensPerMinute: number) => ({ agent, dep, tokensPerMinute });

/** Records each call in its own batch; returns every budget crossing in order. */
function recordEach(rates: TokenRates, calls: readonly CallEvent[]) {
  return calls.flatMap((c) => rates.record([c]));
}

const rateOf = (rates: TokenRates, now: number, agentId: string, dep: string) =>
  rates.rates(now).find((r) => r.agentId === agentId && r.dep === dep);

describe('TokenRates: rates', () => {
  it('sums usage.totalTokens per agent and dependency', () => {
    const rates = new TokenRates([]);
    rates.record([call('main', GLM, T0, 100), call('main', GLM, T0 + SECOND, 50), call('ops', GLM, T0, 7)]);
    rates.record([call('main', CLAUDE, T0, 30)]);
    expect(rates.rates(T0 + SECOND)).toEqual([
      { agentId: 'main', dep: GLM, tokensPerMinute: 150, budget: null, overBudget: false },
      { agentId: 'main', dep: CLAUDE, tokensPerMinute: 30, budget: null, overBudget: false },
      { agentId: 'ops', dep: GLM, tokensPerMinute: 7, budget: null, overBudget: false },
    ]);
  });

  it('counts only the minute of event time ending at the newest call', () => {
    const rates = new TokenRates([]);
    recordEach(rates, [call('main', GLM, T0, 100), call('main', GLM, T0 + 30 * SECOND, 10)]);
    expect(rateOf(rates, T0, 'main', GLM)?.tokensPerMinute).toBe(110);
    recordEach(rates, [call('main', GLM, T0 + MINUTE, 1)]);
    expect(rateOf(rates, T0, 'main', GLM)?.tokensPerMinute).toBe(11);
  });

  it('decays to zero as the clock moves on without calls (the minute before now)', () => {
    const rates = new TokenRates([]);
    recordEach(rates, [call('main', GLM, T0, 100), call('main', GLM, T0 + 30 * SECOND, 10)]);
    expect(rateOf(rates, T0 + 45 * SECOND, 'main', GLM)?.tokensPerMinute).toBe(110);
    expect(rateOf(rates, T0 + MINUTE, 'main', GLM)?.tokensPerMinute).toBe(10);
    expect(rateOf(rates, T0 + 90 * SECOND, 'main', GLM)?.tokensPerMinute).toBe(0);
    expect(rateOf(rates, T0 + 5 * MINUTE, 'main', GLM)?.tokensPerMinute).toBe(0);
  });

  it('is no longer over budget once the clock has left the busy minute behind', () => {
    const rates = new TokenRates([budget('main', GLM, 1000)]);
    rates.record([call('main', GLM, T0, 1500)]);
    expect(rateOf(rates, T0 + SECOND, 'main', GLM)?.overBudget).toBe(true);
    expect(rateOf(rates, T0 + 2 * MINUTE, 'main', GLM)).toMatchObject({ tokensPerMinute: 0, overBudget: false });
  });

  it('ignores a late call older than the minute ending at the newest one', () => {
    const rates = new TokenRates([]);
    recordEach(rates, [call('main', GLM, T0 + 2 * MINUTE, 100), call('main', GLM, T0, 5000)]);
    expect(rateOf(rates, T0 + 2 * MINUTE, 'main', GLM)?.tokensPerMinute).toBe(100);
  });

  it('counts a late call that still falls within the minute', () => {
    const rates = new TokenRates([]);
    recordEach(rates, [call('main', GLM, T0 + MINUTE, 100), call('main', GLM, T0 + SECOND, 20)]);
    expect(rateOf(rates, T0 + MINUTE, 'main', GLM)?.tokensPerMinute).toBe(120);
  });

  it('ignores calls without tokens', () => {
    const rates = new TokenRates([budget('*', '*', 1)]);
    expect(rates.record([call('main', GLM, T0, 0)])).toEqual([]);
    expect(rates.rates(T0)).toEqual([]);
  });

  it('stops reporting a pair idle for more than ten minutes', () => {
    const rates = new TokenRates([]);
    rates.record([call('main', GLM, T0, 100)]);
    expect(rates.rates(T0 + 10 * MINUTE)).toHaveLength(1);
    expect(rates.rates(T0 + 10 * MINUTE + 1)).toEqual([]);
  });
});

describe('TokenRates: budget crossings', () => {
  const budgets: Budgets = [budget('main', GLM, 1000)];

  it('reports a crossing when the rate goes over the budget', () => {
    const rates = new TokenRates(budgets);
    const crossed = recordEach(rates, [call('main', GLM, T0, 600), call('main', GLM, T0 + SECOND, 600)]);
    expect(crossed).toEqual([{ agentId: 'main', dep: GLM, tokensPerMinute: 1200, budget: 1000, overBudget: true }]);
  });

  it('is not over at exactly the budget', () => {
    const rates = new TokenRates(budgets);
    expect(recordEach(rates, [call('main', GLM, T0, 500), call('main', GLM, T0 + SECOND, 500)])).toEqual([]);
    expect(rateOf(rates, T0, 'main', GLM)).toMatchObject({ tokensPerMinute: 1000, budget: 1000, overBudget: false });
  });

  it('does not report again while the rate stays over', () => {
    const rates = new TokenRates(budgets);
    const calls = [0, 1, 2, 3].map((i) => call('main', GLM, T0 + i * SECOND, 600));
    expect(recordEach(rates, calls)).toHaveLength(1);
  });

  it('reports again after the rate has dropped below the budget', () => {
    const rates = new TokenRates(budgets);
    const first = recordEach(rates, [call('main', GLM, T0, 1100), call('main', GLM, T0 + 2 * MINUTE, 10)]);
    expect(rateOf(rates, T0 + 2 * MINUTE, 'main', GLM)?.overBudget).toBe(false);
    const again = recordEach(rates, [call('main', GLM, T0 + 2 * MINUTE + SECOND, 1100)]);
    expect([...first, ...again].map((r) => r.tokensPerMinute)).toEqual([1100, 1110]);
  });

  it('reports again when calls resume over budget after a quiet minute (no call in between)', () => {
    const rates = new TokenRates(budgets);
    const first = rates.record([call('main', GLM, T0, 1500)]);
    const again = rates.record([call('main', GLM, T0 + 3 * MINUTE, 1500)]);
    expect([...first, ...again].map((r) => r.tokensPerMinute)).toEqual([1500, 1500]);
  });

  it('reports one crossing per pair in a batch', () => {
    const rates = new TokenRates([budget('*', '*', 100)]);
    const crossed = rates.record([call('main', GLM, T0, 101), call('ops', GLM, T0, 101), call('main', GLM, T0, 1)]);
    expect(crossed.map((r) => r.agentId)).toEqual(['main', 'ops']);
  });
});

describe('TokenRates.budgetFor', () => {
  it('is null when no budget matches the agent and dependency', () => {
    const rates = new TokenRates([budget('ops', '*', 10), budget('*', 'anthropic/*', 20)]);
    expect(rates.budgetFor('main', GLM)).toBeNull();
  });

  it('applies a `*` agent and `*` dependency budget to everyone', () => {
    expect(new TokenRates([budget('*', '*', 10)]).budgetFor('main', GLM)).toBe(10);
  });

  it('prefers the exact agent over `*` for the same dependency pattern, in any order', () => {
    const exactLast = [budget('*', 'zhipu/*', 10), budget('main', 'zhipu/*', 20)];
    expect(new TokenRates(exactLast).budgetFor('main', GLM)).toBe(20);
    expect(new TokenRates([...exactLast].reverse()).budgetFor('main', GLM)).toBe(20);
    expect(new TokenRates(exactLast).budgetFor('ops', GLM)).toBe(10);
  });

  it('prefers the most specific dependency pattern, in any order', () => {
    const budgets = [budget('*', '*', 10), budget('*', 'zhipu/*', 20), budget('*', 'zhipu/glm-*', 30)];
    expect(new TokenRates(budgets).budgetFor('main', GLM)).toBe(30);
    expect(new TokenRates([...budgets].reverse()).budgetFor('main', GLM)).toBe(30);
    expect(new TokenRates([...budgets, budget('*', GLM, 40)]).budgetFor('main', GLM)).toBe(40);
    expect(new TokenRates(budgets).budgetFor('main', 'zhipu/embedding-3')).toBe(20);
  });

  it('ranks the dependency pattern before the agent: `*` on the exact dependency beats `main` on `zhipu/*`', () => {
    const rates = new TokenRates([budget('main', 'zhipu/*', 20), budget('*', GLM, 40)]);
    expect(rates.budgetFor('main', GLM)).toBe(40);
  });

  it('matches agent patterns with `*` too', () => {
    expect(new TokenRates([budget('team-*', '*', 5)]).budgetFor('team-a', GLM)).toBe(5);
    expect(new TokenRates([budget('team-*', '*', 5)]).budgetFor('main', GLM)).toBeNull();
  });
});
