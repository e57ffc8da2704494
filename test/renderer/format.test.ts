/** Numbers and times as the dashboard words them. */
import { describe, expect, it } from 'vitest';
import {
  compact,
  count,
  countdown,
  inLast,
  percent,
  relativeTime,
  stateLabel,
  timeLeft,
  useLanguage,
  words,
} from '../../renderer/format.js';

const NOW = 1_750_000_000_000;

describe('format', () => {
  it('says times relative to now, past and future', () => {
    expect(relativeTime(NOW - 2000, NOW)).toBe('just now');
    expect(relativeTime(NOW - 40_000, NOW)).toBe('40 s ago');
    expect(relativeTime(NOW - 3 * 60_000 - 59_000, NOW)).toBe('3 min 59 s ago');
    expect(relativeTime(NOW - 5 * 3_600_000, NOW)).toBe('5 h ago');
    expect(relativeTime(NOW - 2 * 86_400_000, NOW)).toBe('2 d ago');
    expect(relativeTime(NOW + 120_000, NOW)).toBe('in 2 min');
  });

  it('counts down to a deadline and says "now" once it passed', () => {
    expect(countdown(NOW + 65_000, NOW)).toBe('in 1 min 5 s');
    expect(countdown(NOW, NOW)).toBe('now');
    expect(countdown(NOW - 1, NOW)).toBe('now');
  });

  it('counts things in words', () => {
    expect(inLast(3, 'restart', 'hour')).toBe('3 restarts in the last hour');
    expect(inLast(1, 'restart', 'hour')).toBe('1 restart in the last hour');
    expect(inLast(0, 'restart', 'hour')).toBe('no restarts in the last hour');
    expect(count(1200, 'call')).toBe('1,200 calls');
  });

  it('keeps small shares visible and shortens big numbers', () => {
    expect(percent(0.625)).toBe('63%');
    expect(percent(0.004)).toBe('0.4%');
    expect(percent(0)).toBe('0%');
    expect(percent(1)).toBe('100%');
    expect(compact(950)).toBe('950');
    expect(compact(1600)).toBe('1.6K');
    expect(compact(100_000)).toBe('100K');
    expect(compact(3_200_000)).toBe('3.2M');
    expect(stateLabel('half_open')).toBe('half-open');
  });

  it('says the time left of a window as a remainder, and over once reached', () => {
    expect(timeLeft(NOW + 240_000, NOW)).toBe('4 min left');
    expect(timeLeft(NOW, NOW)).toBe('over');
  });

  it("speaks the dashboard's language once it is switched, and English again after", () => {
    try {
      useLanguage('zh-CN');
      expect(words().language).toBe('zh-CN');
      expect(words().duration(200_000)).toBe('3 分钟 20 秒');
      expect(countdown(NOW + 65_000, NOW)).toBe('1 分钟 5 秒后');
      expect(countdown(NOW, NOW)).toBe('现在');
      expect(timeLeft(NOW + 240_000, NOW)).toBe('剩余 4 分钟');
      expect(relativeTime(NOW - 40_000, NOW)).toBe('40 秒前');
      expect(stateLabel('half_open')).toBe('半开');
      expect(compact(72_000)).toBe('7.2万');
    } finally {
      useLanguage('en');
    }
    expect(stateLabel('half_open')).toBe('half-open');
  });
});
