import { describe, expect, it } from 'vitest';
import {
  localTime,
  quietAt,
  type RecurringWindow,
  suppressionReason,
  WEEKDAYS,
  windowEnd,
  windowsEnd,
} from '../../../main/core/notify/quiet.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const ALL = WEEKDAYS;
/** Tuesday 1 December 2026, in UTC. */
const utc = (day: number, hh: number, mm = 0) => Date.UTC(2026, 11, day, hh, mm);
const win = (from: string, to: string, extra: Partial<RecurringWindow> = {}): RecurringWindow => ({
  days: ALL,
  from,
  to,
  timeZone: 'UTC',
  ...extra,
});

describe('localTime', () => {
  it('reads the weekday and minute in the window’s own time zone', () => {
    expect(localTime(utc(1, 10, 30), 'UTC')).toEqual({ day: 1, minute: 10 * 60 + 30 }); // Tuesday
    // 20:30 UTC on Tuesday is 04:30 on Wednesday in Shanghai (UTC+8).
    expect(localTime(utc(1, 20, 30), 'Asia/Shanghai')).toEqual({ day: 2, minute: 4 * 60 + 30 });
  });
});

describe('windowEnd', () => {
  it('a window within a day holds from `from` (included) to `to` (excluded)', () => {
    const w = win('09:00', '17:00');
    expect(windowEnd(w, utc(1, 8, 59))).toBeNull();
    expect(windowEnd(w, utc(1, 9, 0))).toBe(utc(1, 17));
    expect(windowEnd(w, utc(1, 16, 59))).toBe(utc(1, 17));
    expect(windowEnd(w, utc(1, 17, 0))).toBeNull();
  });

  it('a window crossing midnight ends the next day, and belongs to the day it starts on', () => {
    const w = win('22:00', '07:00', { days: ['tue'] });
    expect(windowEnd(w, utc(1, 21, 59))).toBeNull();
    expect(windowEnd(w, utc(1, 23, 0))).toBe(utc(2, 7));
    // Wednesday 03:00 is still Tuesday night's window.
    expect(windowEnd(w, utc(2, 3, 0))).toBe(utc(2, 7));
    expect(windowEnd(w, utc(2, 7, 0))).toBeNull();
    // Monday night is not configured: Tuesday 03:00 is outside.
    expect(windowEnd(w, utc(1, 3, 0))).toBeNull();
    // Wednesday 23:00 starts no window either.
    expect(windowEnd(w, utc(2, 23, 0))).toBeNull();
  });

  it('from equal to to lasts 24 hours', () => {
    const w = win('06:00', '06:00', { days: ['tue'] });
    expect(windowEnd(w, utc(1, 6))).toBe(utc(2, 6));
    expect(windowEnd(w, utc(2, 5, 59))).toBe(utc(2, 6));
    expect(windowEnd(w, utc(1, 5, 59))).toBeNull();
  });

  it('reads from/to in the window’s time zone', () => {
    // 22:00–07:00 in Shanghai is 14:00–23:00 UTC.
    const w = win('22:00', '07:00', { timeZone: 'Asia/Shanghai' });
    expect(windowEnd(w, utc(1, 13, 59))).toBeNull();
    expect(windowEnd(w, utc(1, 14, 0))).toBe(utc(1, 23));
    expect(windowEnd(w, utc(1, 23, 0))).toBeNull();
    // New York in December is UTC-5: 22:00–07:00 there is 03:00–12:00 UTC.
    const ny = win('22:00', '07:00', { timeZone: 'America/New_York' });
    expect(windowEnd(ny, utc(1, 4, 0))).toBe(utc(1, 12));
  });

  it('counts from the start of the current minute (seconds do not shift the end)', () => {
    expect(windowEnd(win('09:00', '10:00'), utc(1, 9, 30) + 42_000)).toBe(utc(1, 10));
  });
});

describe('windowsEnd', () => {
  it('follows windows that continue one another to the real end', () => {
    const windows = [win('22:00', '00:00'), win('00:00', '06:00')];
    expect(windowsEnd(windows, utc(1, 23))).toBe(utc(2, 6));
    expect(windowsEnd(windows, utc(1, 21))).toBeNull();
  });

  it('every day all day has no end within reach and says so with the last one found', () => {
    const end = windowsEnd([win('00:00', '00:00')], utc(1, 12));
    expect(end).not.toBeNull();
    expect(end as number).toBeGreaterThan(utc(1, 12) + 6 * 24 * HOUR);
  });
});

describe('quietAt', () => {
  const quietHours = [win('22:00', '07:00')];
  const maintenance = [win('03:00', '04:00', { days: ['wed'] })];

  it('maintenance by hand comes first, then recurring maintenance, then quiet hours', () => {
    const manual = { startedAt: utc(1, 20), until: utc(2, 5), reason: 'upgrading OpenClaw' };
    expect(quietAt({ quietHours, maintenance, manual }, utc(2, 3, 30))).toEqual({
      kind: 'maintenance',
      until: utc(2, 5),
      reason: 'upgrading OpenClaw',
    });
    expect(quietAt({ quietHours, maintenance, manual: null }, utc(2, 3, 30))).toMatchObject({
      kind: 'maintenance',
      until: utc(2, 4),
    });
    expect(quietAt({ quietHours, maintenance, manual: null }, utc(2, 5))).toMatchObject({
      kind: 'quiet_hours',
      until: utc(2, 7),
    });
    expect(quietAt({ quietHours, maintenance, manual: null }, utc(2, 12))).toBeNull();
  });

  it('a window by hand that has ended holds nothing; one without an end holds until stopped', () => {
    const ended = { startedAt: utc(1, 1), until: utc(1, 2), reason: 'x' };
    expect(quietAt({ quietHours: [], maintenance: [], manual: ended }, utc(1, 3))).toBeNull();
    const open = { startedAt: utc(1, 1), until: null, reason: 'x' };
    expect(quietAt({ quietHours: [], maintenance: [], manual: open }, utc(9, 3))).toMatchObject({ until: null });
  });
});

describe('suppressionReason', () => {
  const quiet = { kind: 'quiet_hours' as const, until: 1, reason: 'quiet hours 22:00–07:00' };
  const maintenance = { kind: 'maintenance' as const, until: null, reason: 'upgrading' };

  it('quiet hours hold everything below critical, and critical too unless allowed', () => {
    expect(suppressionReason(quiet, { kind: 'breaker_opened', severity: 'warning' }, true)).toBe(
      'suppressed: quiet hours 22:00–07:00',
    );
    expect(suppressionReason(quiet, { kind: 'gateway_down', severity: 'critical' }, true)).toBeNull();
    expect(suppressionReason(quiet, { kind: 'gateway_down', severity: 'critical' }, false)).not.toBeNull();
    // The all-clear of a critical alarm goes where the alarm went.
    expect(suppressionReason(quiet, { kind: 'gateway_up', severity: 'info' }, true)).toBeNull();
  });

  it('maintenance holds everything, critical included', () => {
    expect(suppressionReason(maintenance, { kind: 'restart_failed', severity: 'critical' }, true)).toBe(
      'suppressed: maintenance (upgrading)',
    );
  });

  it('nothing in force holds nothing', () => {
    expect(suppressionReason(null, { kind: 'breaker_opened', severity: 'warning' }, false)).toBeNull();
  });
});
