import { describe, expect, it } from 'vitest';
import { Digest, isImmediate, nextDigestAt } from '../../../main/core/notify/digest.js';
import type { Notice } from '../../../main/core/notify/notice.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T = Date.UTC(2026, 11, 1, 10, 17, 30);

const notice = (kind: Notice['kind'], severity: Notice['severity'], ts = T): Notice => ({
  kind,
  severity,
  ts,
  dep: null,
  title: kind,
  body: kind,
  count: 1,
});

describe('nextDigestAt', () => {
  it('every period, aligned to the clock', () => {
    expect(nextDigestAt({ enabled: true, everyMs: 3_600_000, at: null }, T)).toBe(Date.UTC(2026, 11, 1, 11));
    expect(nextDigestAt({ enabled: true, everyMs: 900_000, at: null }, T)).toBe(Date.UTC(2026, 11, 1, 10, 30));
    // Exactly on a boundary: the next one, never now.
    expect(nextDigestAt({ enabled: true, everyMs: 3_600_000, at: null }, Date.UTC(2026, 11, 1, 11))).toBe(
      Date.UTC(2026, 11, 1, 12),
    );
  });

  it('once a day at a local time, in the given time zone', () => {
    const daily = { enabled: true, everyMs: 3_600_000, at: '08:30', timeZone: 'UTC' };
    expect(nextDigestAt(daily, T)).toBe(Date.UTC(2026, 11, 2, 8, 30));
    expect(nextDigestAt(daily, Date.UTC(2026, 11, 1, 8, 0))).toBe(Date.UTC(2026, 11, 1, 8, 30));
    // 08:30 in Shanghai is 00:30 UTC.
    expect(nextDigestAt({ ...daily, timeZone: 'Asia/Shanghai' }, T)).toBe(Date.UTC(2026, 11, 2, 0, 30));
  });
});

describe('Digest', () => {
  it('keeps one batch per channel, due when its period ends', () => {
    const d = new Digest({ enabled: true, everyMs: 3_600_000, at: null });
    d.hold('desktop', notice('breaker_opened', 'warning'), T);
    d.hold('webhook:slack#0', notice('token_budget', 'warning'), T + 30 * MIN);
    d.hold('desktop', notice('breaker_closed', 'info'), T + 10 * MIN);
    expect(d.due(T + 42 * MIN)).toEqual([]);
    const due = d.due(Date.UTC(2026, 11, 1, 11));
    expect(due.map((b) => [b.channel, b.from, b.notices.length])).toEqual([
      ['desktop', T, 2],
      ['webhook:slack#0', T + 30 * MIN, 1],
    ]);
    expect(d.held()).toBe(0);
    expect(d.due(T + 5 * HOUR)).toEqual([]);
  });

  it('alerts and critical notices are never held', () => {
    expect(isImmediate(notice('breaker_opened', 'warning'))).toBe(false);
    expect(isImmediate(notice('breaker_closed', 'info'))).toBe(false);
    expect(isImmediate(notice('gateway_down', 'critical'))).toBe(true);
    expect(isImmediate(notice('gateway_up', 'info'))).toBe(true);
    expect(isImmediate(notice('incident_opened', 'warning'))).toBe(true);
    expect(isImmediate(notice('incident_resolved', 'info'))).toBe(true);
  });
});
