import { describe, expect, it } from 'vitest';
import { emptyOutcomeCounts, OUTCOMES, type Outcome } from '../../main/core/classify.js';
import { CallTally } from '../../main/core/summary.js';

/** The outcome counts with only the given outcomes non-zero. */
const outcomes = (counts: Partial<Record<Outcome, number>>) => ({ ...emptyOutcomeCounts(), ...counts });

describe('CallTally', () => {
  it('starts empty, with every outcome at zero', () => {
    const tally = new CallTally();
    expect(tally.size).toBe(0);
    expect(tally.summary()).toEqual({ calls: 0, outcomes: emptyOutcomeCounts(), byDependency: {}, tokens: 0 });
  });

  it('counts calls, outcomes, tokens and per-dependency outcomes', () => {
    const tally = new CallTally();
    tally.add('zhipu/glm-5.1', 'ok', 1200);
    tally.add('zhipu/glm-5.1', 'rate_limited', 0);
    tally.add('deepseek/deepseek-v4-pro', 'ok', 800);
    expect(tally.size).toBe(3);
    expect(tally.summary()).toEqual({
      calls: 3,
      outcomes: outcomes({ ok: 2, rate_limited: 1 }),
      byDependency: {
        'deepseek/deepseek-v4-pro': outcomes({ ok: 1 }),
        'zhipu/glm-5.1': outcomes({ ok: 1, rate_limited: 1 }),
      },
      tokens: 2000,
    });
  });

  it('adds pre-aggregated counts (a GROUP BY row) with their token sum', () => {
    const tally = new CallTally();
    tally.add('a/x', 'timeout', 50, 7);
    tally.add('a/x', 'timeout', 10, 3);
    expect(tally.summary()).toMatchObject({ calls: 10, tokens: 60, outcomes: outcomes({ timeout: 10 }) });
  });

  it('lists all eleven outcomes in OUTCOMES order, for the totals and each dependency', () => {
    const tally = new CallTally();
    tally.add('p/m', 'billing', 0);
    const summary = tally.summary();
    expect(Object.keys(summary.outcomes)).toEqual([...OUTCOMES]);
    expect(Object.keys(summary.byDependency['p/m']!)).toEqual([...OUTCOMES]);
  });

  it('sorts dependencies by name, whatever order they arrived in', () => {
    const tally = new CallTally();
    for (const dep of ['zhipu/glm-5.1', 'anthropic/claude', 'deepseek/v4']) tally.add(dep, 'ok', 0);
    expect(Object.keys(tally.summary().byDependency)).toEqual(['anthropic/claude', 'deepseek/v4', 'zhipu/glm-5.1']);
  });

  it('hands out copies: changing a summary does not change the tally', () => {
    const tally = new CallTally();
    tally.add('p/m', 'ok', 1);
    const first = tally.summary();
    first.outcomes.ok = 99;
    first.byDependency['p/m']!.ok = 99;
    tally.outcomeCounts().ok = 99;
    expect(tally.summary().outcomes.ok).toBe(1);
    expect(tally.summary().byDependency['p/m']!.ok).toBe(1);
  });
});
