import { describe, expect, it } from 'vitest';
import { matchesPattern, mostSpecific } from '../../../main/core/config/patterns.js';

describe('matchesPattern', () => {
  it.each([
    ['*', 'zhipu/glm-5.1'],
    ['*', ''],
    ['zhipu/glm-5.1', 'zhipu/glm-5.1'],
    ['zhipu/*', 'zhipu/glm-5.1'],
    ['zhipu/*', 'zhipu/'],
    ['*/glm-5.1', 'zhipu/glm-5.1'],
    ['anthropic/claude-*-4', 'anthropic/claude-opus-4'],
    ['a*b*c', 'a-x-b-y-c'],
  ])('%s matches %s', (pattern, value) => {
    expect(matchesPattern(pattern, value)).toBe(true);
  });

  it.each([
    ['zhipu/glm-5.1', 'zhipu/glm-5.10'],
    ['zhipu/glm-5.1', 'ZHIPU/GLM-5.1'],
    ['zhipu/*', 'zhipu'],
    ['zhipu/*', 'xzhipu/glm-5.1'],
    ['*/glm-5.1', 'zhipu/glm-5.1-air'],
    ['anthropic/claude-*-4', 'anthropic/claude-opus-4.5'],
  ])('%s does not match %s (anchored at both ends, case-sensitive)', (pattern, value) => {
    expect(matchesPattern(pattern, value)).toBe(false);
  });

  it('treats regex characters other than * literally', () => {
    expect(matchesPattern('zhipu/glm-5.*', 'zhipu/glm-5.1')).toBe(true);
    expect(matchesPattern('zhipu/glm-5.*', 'zhipu/glm-5x1')).toBe(false);
    expect(matchesPattern('local/(llama)+*', 'local/(llama)+3')).toBe(true);
    expect(matchesPattern('local/(llama)+*', 'local/llamallama3')).toBe(false);
    expect(matchesPattern('a?b*', 'ab-1')).toBe(false);
  });
});

describe('mostSpecific', () => {
  it('keeps only matching patterns, least specific first and an exact match last', () => {
    const patterns = ['zhipu/glm-5.1', 'zhipu/*', '*', 'anthropic/*', 'zhipu/glm-*'];
    expect(mostSpecific(patterns, 'zhipu/glm-5.1')).toEqual(['*', 'zhipu/*', 'zhipu/glm-*', 'zhipu/glm-5.1']);
  });

  it('ranks wildcard patterns by their literal characters, not their length', () => {
    expect(mostSpecific(['zhipu/glm-*', '*/*/*/*', 'z*'], 'zhipu/glm-5.1')).toEqual(['z*', 'zhipu/glm-*']);
    expect(mostSpecific(['**********', 'zhipu/*'], 'zhipu/glm-5.1')).toEqual(['**********', 'zhipu/*']);
  });

  it('ranks an exact match above any wildcard pattern, however long', () => {
    expect(mostSpecific(['a', 'a*'], 'a')).toEqual(['a*', 'a']);
  });

  it('keeps the given order between equally specific patterns', () => {
    expect(mostSpecific(['*glm-5.1', 'zhipu/g*'], 'zhipu/glm-5.1')).toEqual(['*glm-5.1', 'zhipu/g*']);
    expect(mostSpecific(['zhipu/g*', '*glm-5.1'], 'zhipu/glm-5.1')).toEqual(['zhipu/g*', '*glm-5.1']);
  });

  it('is empty when nothing matches', () => {
    expect(mostSpecific(['anthropic/*', 'openai/gpt-5'], 'zhipu/glm-5.1')).toEqual([]);
    expect(mostSpecific([], 'zhipu/glm-5.1')).toEqual([]);
  });

  it('accepts any iterable, such as a Set of configured keys', () => {
    expect(mostSpecific(new Set(['zhipu/*', '*']), 'zhipu/glm-5.1')).toEqual(['*', 'zhipu/*']);
  });
});
