import { describe, expect, it } from 'vitest';
import { durationWords, relativeWords } from '../../main/app/human-time.js';

describe('times for the menu', () => {
  it.each([
    [0, '0 s'],
    [42_000, '42 s'],
    [89_000, '89 s'],
    [3 * 60_000, '3 min'],
    [89 * 60_000, '89 min'],
    [2 * 3600_000, '2 h'],
    [65 * 60_000 + 3600_000, '2 h 5 min'],
    [26 * 3600_000, '1 d 2 h'],
    [3 * 86_400_000, '3 d'],
  ])('%i ms is "%s"', (ms, words) => {
    expect(durationWords(ms)).toBe(words);
  });

  it('says ago for the past, in for the future, just now for now', () => {
    expect(relativeWords(1_000_000 - 180_000, 1_000_000)).toBe('3 min ago');
    expect(relativeWords(1_000_000 + 42_000, 1_000_000)).toBe('in 42 s');
    expect(relativeWords(1_000_000 + 400, 1_000_000)).toBe('just now');
  });
});
