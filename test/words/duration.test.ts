/**
 * The one duration formatter (`f.duration`), as every surface uses it: CLI, tray, notices, dashboard,
 * doctor, decision reasons and the rehearsal report.
 */
import { describe, expect, it } from 'vitest';
import { formatters } from '../../main/words/i18n.js';

const en = formatters('en');
const zh = formatters('zh-CN');

describe('f.duration', () => {
  it('says lengths of time in at most two units, rounding down', () => {
    expect(en.duration(850)).toBe('850 ms');
    expect(en.duration(12_999)).toBe('12 s');
    expect(en.duration(200_000)).toBe('3 min 20 s');
    expect(en.duration(180_000)).toBe('3 min');
    // Past ten minutes the seconds are noise.
    expect(en.duration(754_000)).toBe('12 min');
    expect(en.duration(7_500_000)).toBe('2 h 5 min');
    expect(en.duration(3 * 86_400_000 + 4 * 3_600_000 + 59_000)).toBe('3 d 4 h');
    expect(en.duration(86_400_000)).toBe('1 d');
    expect(en.duration(-5)).toBe('0 ms');
  });

  it('says a clock step or a restart bound as people do', () => {
    expect(en.duration(90_000)).toBe('1 min 30 s');
    expect(en.duration(600_000)).toBe('10 min');
    expect(en.duration(7_200_000)).toBe('2 h');
    expect(en.duration(300_000)).toBe('5 min');
  });

  it('precise: keeps tenths of a second under a minute, rounded down, and is whole above', () => {
    expect(en.duration(1500, 'precise')).toBe('1.5 s');
    expect(en.duration(2999, 'precise')).toBe('2.9 s');
    expect(en.duration(3000, 'precise')).toBe('3 s');
    expect(en.duration(300, 'precise')).toBe('300 ms');
    expect(en.duration(90_500, 'precise')).toBe('1 min 30 s');
    expect(en.duration(59_999, 'precise')).toBe('59.9 s');
  });

  it('speaks Chinese with its own units and decimal mark', () => {
    expect(zh.duration(1500, 'precise')).toBe('1.5 秒');
    expect(zh.duration(200_000)).toBe('3 分钟 20 秒');
    expect(zh.duration(2 * 3_600_000 + 5 * 60_000)).toBe('2 小时 5 分钟');
    expect(zh.duration(850)).toBe('850 毫秒');
  });
});
