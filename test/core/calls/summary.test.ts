import { describe, expect, it } from 'vitest';
import { emptyOutcomeCounts, OUTCOMES, type Outcome } from '../../../main/core/calls/classify.js';
import type { TurnOutcome } from '../../../main/core/calls/events.js';
import { CallTally, TURN_OUTCOMES, TurnTally } from '../../../main/core/calls/summary.js';

/** The outcome counts with only the given outcomes non-zero. */
const outcomes = (counts: Partial<Record<Outcome, number>>) => ({ ...emptyOutcomeCounts(), ...counts });

/** The turn outcome counts: a call's eleven, then 'refused', only the given ones non-zero. */
const turnOutcomes = (counts: Partial<Record<TurnOutcome, number>>) => ({
  ...emptyOutcomeCounts(),
  refused: 0,
  ...counts,
});

/** The turns of a tally given none. */
const noTurns = () => ({ turns: 0, outcomes: turnOutcomes({}), byDependency: {}, tokens: 0 });

describe('CallTally', () => {
  it('starts empty, with every outcome at zero', () => {
    const tally = new CallTally();
    expect(tally.size).toBe(0);
    expect(tally.summary()).toEqual({
      calls: 0,
      outcomes: emptyOutcomeCounts(),
      byDependency: {},
      tokens: 0,
      turns: noTurns(),
    });
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
      // Calls are not turns: a tally of calls alone reports none.
      turns: noTurns(),
    });
  });

  it('reports the turns it is given next to its calls, unchanged', () => {
    const calls = new CallTally();
    calls.add('zhipu/glm-5.1', 'rate_limited', 0, 3);
    const turns = new TurnTally();
    turns.add('zhipu/glm-5.1', 'rate_limited', 0);
    const summary = calls.summary(turns.summary());
    expect(summary.calls).toBe(3);
    expect(summary.turns).toEqual({
      turns: 1,
      outcomes: turnOutcomes({ rate_limited: 1 }),
      byDependency: { 'zhipu/glm-5.1': turnOutcomes({ rate_limited: 1 }) },
      tokens: 0,
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

describe('TurnTally', () => {
  it('counts turns, every turn outcome with refused last, tokens, and dependencies sorted by name', () => {
    const tally = new TurnTally();
    tally.add('zhipu/glm-5.1', 'ok', 1200);
    tally.add('mock', 'refused', 0);
    tally.add('deepseek/deepseek-v4-pro', 'timeout', 30, 2);
    const summary = tally.summary();
    expect(summary).toEqual({
      turns: 4,
      outcomes: turnOutcomes({ ok: 1, refused: 1, timeout: 2 }),
      byDependency: {
        'deepseek/deepseek-v4-pro': turnOutcomes({ timeout: 2 }),
        mock: turnOutcomes({ refused: 1 }),
        'zhipu/glm-5.1': turnOutcomes({ ok: 1 }),
      },
      tokens: 1230,
    });
    expect(TURN_OUTCOMES).toEqual([...OUTCOMES, 'refused']);
    expect(Object.keys(summary.outcomes)).toEqual([...TURN_OUTCOMES]);
    expect(Object.keys(summary.byDependency)).toEqual(['deepseek/deepseek-v4-pro', 'mock', 'zhipu/glm-5.1']);
    expect(Object.keys(summary.byDependency.mock!)).toEqual([...TURN_OUTCOMES]);
  });

  it('hands out copies: changing a summary does not change the tally', () => {
    const tally = new TurnTally();
    tally.add('p/m', 'refused', 0);
    const first = tally.summary();
    first.outcomes.refused = 99;
    first.byDependency['p/m']!.refused = 99;
    expect(tally.summary().outcomes.refused).toBe(1);
    expect(tally.summary().byDependency['p/m']!.refused).toBe(1);
  });
});
