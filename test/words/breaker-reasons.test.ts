import { describe, expect, it } from 'vitest';
import {
  BREAKER_REASON_CODES,
  type BreakerReason,
  breakerReasonLine,
  decodeBreakerReason,
  encodeBreakerReason,
  wordBreakerReason,
} from '../../main/words/breaker-reasons.js';
import { translator } from '../../main/words/messages/index.js';

const en = translator('en');
const zh = translator('zh-CN');

/** One reason of every code, and how each reads: the engine's line, English, Chinese. */
const EXAMPLES: Array<[BreakerReason, string, string, string]> = [
  [{ code: 'initial' }, 'initial state', 'No failures: calls pass through', '没有失败：调用正常通过'],
  [{ code: 'cooldown-over' }, 'cooldown over', 'The wait is over: trial calls decide', '等待结束：由试探调用决定'],
  [
    { code: 'retry-after-over' },
    'Retry-After over',
    'Retry-After is over: trial calls decide',
    'Retry-After 已结束：由试探调用决定',
  ],
  [
    { code: 'answered', while: 'throttled' },
    'answered while throttled',
    'The provider answered while the breaker was open: trial calls decide',
    '断路器打开期间服务商已有应答：由试探调用决定',
  ],
  [{ code: 'consecutive-failures', n: 6 }, '6 consecutive failures', '6 failures in a row', '连续失败 6 次'],
  [
    { code: 'failure-rate', failures: 3, calls: 4, windowMs: 60_000 },
    '3 of 4 calls failed (75%) in 60 s',
    '3 of 4 calls failed (75%) in 1 min',
    '1 分钟内 4 次调用失败 3 次（75%）',
  ],
  [
    { code: 'retry-after', askedMs: 7_200_000, cappedMs: 3_600_000 },
    'rate limited, Retry-After 7200 s (capped at 3600 s)',
    'The provider rate-limited it and asked to wait 2 h',
    '服务商限流，要求等待 2 小时',
  ],
  [
    { code: 'trials-passed', n: 1 },
    '1 successful trial',
    'Recovered: 1 trial call succeeded',
    '已恢复：1 次试探调用成功',
  ],
  [
    { code: 'trial-failed', outcome: 'rate_limited', askedMs: 5000, cappedMs: null },
    'trial failed: rate_limited, Retry-After 5 s',
    'A trial call failed (rate limited)',
    '试探调用失败（限流）',
  ],
  [
    { code: 'operator', note: 'maintenance' },
    'operator: maintenance',
    'Set by hand: maintenance',
    '手动设置：maintenance',
  ],
  [
    { code: 'peer', state: 'open', host: 'mini-2', said: '5 consecutive failures' },
    'open on mini-2: 5 consecutive failures',
    'open on mini-2: 5 failures in a row',
    '主机 mini-2 上已断开：连续失败 5 次',
  ],
  [
    { code: 'text', text: 'peer host-b tripped it' },
    'peer host-b tripped it',
    'peer host-b tripped it',
    'peer host-b tripped it',
  ],
];

describe('breaker reasons: codes and facts, worded when read', () => {
  it('has an example of every code', () => {
    expect(EXAMPLES.map(([r]) => r.code).sort()).toEqual([...BREAKER_REASON_CODES].sort());
  });

  it.each(EXAMPLES)('%o reads as the engine line, in English and in Chinese', (reason, line, english, chinese) => {
    expect(breakerReasonLine(reason)).toBe(line);
    expect(wordBreakerReason(reason, en)).toBe(english);
    expect(wordBreakerReason(reason, zh)).toBe(chinese);
  });

  it('is stored as its code and facts, and read back the same', () => {
    for (const [reason] of EXAMPLES) expect(decodeBreakerReason(encodeBreakerReason(reason))).toEqual(reason);
    expect(JSON.parse(encodeBreakerReason({ code: 'consecutive-failures', n: 6 }))).toEqual({
      code: 'consecutive-failures',
      n: 6,
    });
  });

  it('reads a row stored before reasons were codes: known engine lines are worded again, any other text kept', () => {
    for (const [reason, line] of EXAMPLES) {
      const stored = decodeBreakerReason(line);
      expect(stored).toEqual({ code: 'text', text: line });
      expect(wordBreakerReason(stored, zh)).toBe(wordBreakerReason(reason, zh));
    }
    expect(decodeBreakerReason('{not json')).toEqual({ code: 'text', text: '{not json' });
    expect(decodeBreakerReason('{"code":"unheard-of"}')).toEqual({ code: 'text', text: '{"code":"unheard-of"}' });
  });
});
