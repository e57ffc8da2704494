import { describe, expect, it } from 'vitest';
import { Coalescer, formatSpan } from '../../../main/core/notify/coalesce.js';
import type { Notice, NoticeKind } from '../../../main/core/notify/notice.js';

const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);
const FIVE_MIN = 5 * 60_000;

function notice(kind: NoticeKind, dep: string | null, ts: number, extra: Partial<Notice> = {}): Notice {
  return {
    kind,
    dep,
    title: `${kind} ${dep ?? 'gateway'}`,
    body: `event at ${ts - T0} ms.`,
    severity: 'warning',
    ts,
    count: 1,
    ...extra,
  };
}

describe('Coalescer', () => {
  it('a storm of 500 within an interval: 1 immediate + 1 summary with count 499', () => {
    const c = new Coalescer(FIVE_MIN);
    const sent: Notice[] = [];
    for (let i = 0; i < 500; i++) {
      const ts = T0 + i * 100; // 50 s of storm
      const out = c.offer(notice('breaker_opened', 'zhipu/glm-5.1', ts), ts);
      if (out) sent.push(out);
    }
    expect(sent).toHaveLength(1);
    expect(sent[0]?.count).toBe(1);
    expect(sent[0]?.ts).toBe(T0);
    expect(c.pending()).toBe(499);
    // Not yet: the interval has not ended.
    expect(c.due(T0 + FIVE_MIN - 1)).toEqual([]);
    const summaries = c.due(T0 + FIVE_MIN);
    expect(summaries).toHaveLength(1);
    const summary = summaries[0]!;
    expect(summary.count).toBe(499);
    // The latest folded notice is shown.
    expect(summary.ts).toBe(T0 + 499 * 100);
    expect(summary.body).toBe('event at 49900 ms. (+499 more in the last 5 min; this is the latest)');
    expect(c.pending()).toBe(0);
    // Nothing more to say until a new event.
    expect(c.due(T0 + 2 * FIVE_MIN)).toEqual([]);
  });

  it('a summary starts a new interval: events right after it are folded again', () => {
    const c = new Coalescer(FIVE_MIN);
    c.offer(notice('breaker_opened', 'a', T0), T0);
    c.offer(notice('breaker_opened', 'a', T0 + 1000), T0 + 1000);
    expect(c.due(T0 + FIVE_MIN)).toHaveLength(1);
    expect(c.offer(notice('breaker_opened', 'a', T0 + FIVE_MIN + 10), T0 + FIVE_MIN + 10)).toBeNull();
    expect(c.due(T0 + 2 * FIVE_MIN)[0]?.count).toBe(1);
  });

  it('different deps and kinds are independent', () => {
    const c = new Coalescer(FIVE_MIN);
    expect(c.offer(notice('breaker_opened', 'a', T0), T0)).not.toBeNull();
    expect(c.offer(notice('breaker_opened', 'b', T0 + 1), T0 + 1)).not.toBeNull();
    expect(c.offer(notice('breaker_closed', 'a', T0 + 2), T0 + 2)).not.toBeNull();
    expect(c.offer(notice('gateway_down', null, T0 + 3), T0 + 3)).not.toBeNull();
    // A null dep is its own key, not the same as a dep named "null".
    expect(c.offer(notice('gateway_down', 'null', T0 + 4), T0 + 4)).not.toBeNull();
    expect(c.offer(notice('breaker_opened', 'a', T0 + 5), T0 + 5)).toBeNull();
    expect(c.offer(notice('breaker_opened', 'b', T0 + 6), T0 + 6)).toBeNull();
    expect(c.offer(notice('breaker_opened', 'b', T0 + 7), T0 + 7)).toBeNull();
    const due = c.due(T0 + FIVE_MIN + 10);
    expect(due.map((n) => [n.kind, n.dep, n.count]).sort()).toEqual([
      ['breaker_opened', 'a', 1],
      ['breaker_opened', 'b', 2],
    ]);
  });

  it('after a quiet interval the next notice goes out immediately, and quiet keys are forgotten', () => {
    const c = new Coalescer(FIVE_MIN);
    expect(c.offer(notice('gateway_down', null, T0), T0)).not.toBeNull();
    expect(c.tracked()).toBe(1);
    expect(c.due(T0 + FIVE_MIN)).toEqual([]);
    expect(c.tracked()).toBe(0);
    const later = T0 + FIVE_MIN + 60_000;
    expect(c.offer(notice('gateway_down', null, later), later)?.count).toBe(1);
  });

  it('without a due() call, a notice after the interval still goes out (as a summary when some were folded)', () => {
    const c = new Coalescer(FIVE_MIN);
    c.offer(notice('gateway_down', null, T0), T0);
    expect(c.offer(notice('gateway_down', null, T0 + FIVE_MIN), T0 + FIVE_MIN)?.count).toBe(1);

    c.offer(notice('breaker_opened', 'a', T0), T0);
    c.offer(notice('breaker_opened', 'a', T0 + 1000), T0 + 1000);
    c.offer(notice('breaker_opened', 'a', T0 + 2000), T0 + 2000);
    const out = c.offer(notice('breaker_opened', 'a', T0 + 10 * 60_000), T0 + 10 * 60_000);
    expect(out?.count).toBe(3);
    expect(out?.ts).toBe(T0 + 10 * 60_000);
    expect(out?.body).toContain('+3 more in the last 10 min');
    // Those three are reported: nothing is left for due().
    expect(c.pending()).toBe(0);
    expect(c.due(T0 + 20 * 60_000)).toEqual([]);
  });

  it('a summary is as severe as its most severe folded notice, and counts folded counts', () => {
    const c = new Coalescer(FIVE_MIN);
    c.offer(notice('divergence', null, T0), T0);
    c.offer(notice('divergence', null, T0 + 1, { severity: 'critical', count: 10 }), T0 + 1);
    c.offer(notice('divergence', null, T0 + 2, { severity: 'info' }), T0 + 2);
    expect(c.pending()).toBe(11);
    const [summary] = c.due(T0 + FIVE_MIN);
    expect(summary?.severity).toBe('critical');
    expect(summary?.count).toBe(11);
  });

  it('an interval of 0 sends everything', () => {
    const c = new Coalescer(0);
    for (let i = 0; i < 5; i++) expect(c.offer(notice('breaker_opened', 'a', T0), T0)).not.toBeNull();
    expect(c.pending()).toBe(0);
  });
});

describe('formatSpan', () => {
  it('reads naturally', () => {
    expect(formatSpan(0)).toBe('1 s');
    expect(formatSpan(45_000)).toBe('45 s');
    expect(formatSpan(FIVE_MIN)).toBe('5 min');
    expect(formatSpan(3 * 3_600_000)).toBe('3 h');
  });
});
