/**
 * Rule: a one-time code works once, before it expires, and only for what it was issued for; wrong
 * guesses use up the tries of that binding alone; one code per binding when asked.
 */
import { describe, expect, it } from 'vitest';
import { createOneTimeCodes, type OneTimeCodesOptions } from '../../../main/api/server/one-time-codes.js';

function store(options: Partial<OneTimeCodesOptions> = {}) {
  let now = 0;
  let n = 0;
  const codes = createOneTimeCodes({
    clock: () => now,
    ttlMs: 1000,
    generate: () => String(++n).padStart(4, '0'),
    shape: /^\d{4}$/,
    maxOutstanding: 4,
    ...options,
  });
  return { codes, advance: (ms: number) => (now += ms) };
}

describe('one-time codes', () => {
  it('works once, before its expiry, for its own binding only', () => {
    const { codes, advance } = store();
    const a = codes.issue('change-a');
    expect(codes.redeem(a.code, 'change-b')).toBe(false);
    expect(codes.redeem(a.code)).toBe(false);
    expect(codes.redeem(a.code, 'change-a')).toBe(true);
    expect(codes.redeem(a.code, 'change-a')).toBe(false);
    const b = codes.issue('change-a');
    advance(1000);
    expect(codes.redeem(b.code, 'change-a')).toBe(false);
    expect(codes.outstanding).toBe(0);
  });

  it('burns the codes of a binding after its wrong tries, and leaves other bindings alone', () => {
    const { codes } = store({ wrongTries: 2 });
    const a = codes.issue('a');
    const b = codes.issue('b');
    expect(codes.redeem('9999', 'a')).toBe(false);
    expect(codes.redeem(42, 'a')).toBe(false);
    expect(codes.redeem(a.code, 'a')).toBe(false);
    expect(codes.redeem(b.code, 'b')).toBe(true);
  });

  it('never burns without a limit on tries', () => {
    const { codes } = store();
    const a = codes.issue();
    for (let i = 0; i < 100; i++) codes.redeem('9999');
    expect(codes.redeem(a.code)).toBe(true);
  });

  it('keeps one code per binding when asked, and a bounded number in all', () => {
    const { codes } = store({ onePerBinding: true });
    const first = codes.issue('a');
    const second = codes.issue('a');
    expect(codes.outstanding).toBe(1);
    expect(codes.redeem(first.code, 'a')).toBe(false);
    expect(codes.redeem(second.code, 'a')).toBe(true);
    const many = ['p', 'q', 'r', 's', 't'].map((binding) => ({ binding, ...codes.issue(binding) }));
    expect(codes.outstanding).toBe(4);
    expect(codes.redeem(many[0]!.code, 'p')).toBe(false);
    expect(codes.redeem(many[4]!.code, 't')).toBe(true);
  });
});
