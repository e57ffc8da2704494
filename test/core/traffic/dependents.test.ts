import { describe, expect, it } from 'vitest';
import { AgentDependencies } from '../../../main/core/traffic/dependents.js';

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Dependencies recorded as `[agent, dep, ts]` rows. */
function seen(rows: ReadonlyArray<readonly [string, string, number]>): AgentDependencies {
  const deps = new AgentDependencies();
  for (const [agentId, dep, ts] of rows) deps.record(agentId, dep, ts);
  return deps;
}

describe('AgentDependencies.soleDependents', () => {
  it('lists an agent whose only dependency is the given one', () => {
    const deps = seen([
      ['main', 'zhipu/glm-5.1', T0],
      ['main', 'zhipu/glm-5.1', T0 + 1000],
    ]);
    expect(deps.soleDependents('zhipu/glm-5.1', T0 + HOUR)).toEqual(['main']);
  });

  it('leaves out an agent that also calls another dependency (it has a fallback)', () => {
    const deps = seen([
      ['main', 'zhipu/glm-5.1', T0],
      ['ops', 'zhipu/glm-5.1', T0],
      ['ops', 'anthropic/claude-sonnet-4', T0],
    ]);
    expect(deps.soleDependents('zhipu/glm-5.1', T0)).toEqual(['main']);
    expect(deps.soleDependents('anthropic/claude-sonnet-4', T0)).toEqual([]);
  });

  it('forgets dependencies not called for more than a day', () => {
    const deps = seen([
      ['ops', 'anthropic/claude-sonnet-4', T0],
      ['ops', 'zhipu/glm-5.1', T0 + 2 * HOUR],
    ]);
    expect(deps.soleDependents('zhipu/glm-5.1', T0 + DAY)).toEqual([]);
    expect(deps.soleDependents('zhipu/glm-5.1', T0 + DAY + 1)).toEqual(['ops']);
    expect(deps.soleDependents('zhipu/glm-5.1', T0 + 2 * HOUR + DAY + 1)).toEqual([]);
  });

  it('keeps the newest call time when a late record arrives', () => {
    const deps = seen([
      ['ops', 'anthropic/claude-sonnet-4', T0],
      ['ops', 'zhipu/glm-5.1', T0 + DAY],
      ['ops', 'zhipu/glm-5.1', T0 - HOUR],
    ]);
    expect(deps.soleDependents('zhipu/glm-5.1', T0 + DAY + HOUR)).toEqual(['ops']);
  });

  it('returns agents sorted by id', () => {
    const deps = seen([
      ['zeta', 'zhipu/glm-5.1', T0],
      ['alpha', 'zhipu/glm-5.1', T0],
      ['main', 'zhipu/glm-5.1', T0],
    ]);
    expect(deps.soleDependents('zhipu/glm-5.1', T0)).toEqual(['alpha', 'main', 'zeta']);
  });

  it('is empty for a dependency nobody called', () => {
    expect(seen([['main', 'zhipu/glm-5.1', T0]]).soleDependents('openai/gpt-5', T0)).toEqual([]);
  });
});
