/** `breakerbar restart`, `pause` and `resume` as text: the watchdog's answer in the reader's language. */
import { describe, expect, it } from 'vitest';
import type { WatchdogResponse } from '../../main/api/types.js';
import { answerLine, restartEndLine } from '../../main/cli/watchdog-control.js';
import { translator } from '../../main/words/messages/index.js';
import { restartRow, watchdog } from '../app/fixtures.js';
import { englishSentences } from '../helpers/english-sentences.js';

/** A run of three lowercase English words: an English sentence left in a Chinese line. */
const zh = translator('zh-CN');
const en = translator('en');

const answer = (overrides: Partial<WatchdogResponse>): WatchdogResponse => ({
  decision: 'restart',
  reason: 'restart requested by the user',
  status: watchdog(),
  ...overrides,
});

const restart = answer({ why: { code: 'manual', note: null } });
const inFlight = answer({
  decision: 'in_flight',
  reason: 'a manual restart is already running (since 12 s)',
  why: { code: 'in-flight', trigger: 'manual', sinceMs: 12_000 },
});
const paused = answer({
  decision: 'paused',
  reason: 'watchdog paused for 15 min',
  why: { code: 'paused', forMs: 900_000, another: false },
});
const resumed = answer({
  decision: 'quiet',
  reason: 'watchdog resumed; restart budget reset',
  why: { code: 'resumed' },
});

describe('the watchdog answer of restart, pause and resume', () => {
  it('is worded in Chinese from its code, with no English sentence left', () => {
    expect(answerLine(restart, zh)).toBe('重启：用户请求重启');
    expect(answerLine(inFlight, zh)).toBe('未重启：已有一次手动重启正在进行（已进行 12 秒）');
    expect(answerLine(paused, zh)).toContain('看门狗已暂停');
    expect(answerLine(resumed, zh)).toBe('已恢复：看门狗已恢复；重启额度已重置');
    for (const a of [restart, inFlight, paused, resumed]) expect(englishSentences(answerLine(a, zh))).toEqual([]);
  });

  it('keeps the English line as it was: the decision and the policy line', () => {
    expect(answerLine(restart, en)).toBe('restart: restart requested by the user');
    expect(answerLine(inFlight, en)).toBe('in_flight: a manual restart is already running (since 12 s)');
  });

  it('an answer without a code (an older BreakerBar) shows its line', () => {
    expect(answerLine(answer({ reason: 'an old line kept as sent' }), zh)).toBe('重启：an old line kept as sent');
  });
});

describe('the end of a restart waited for (--wait)', () => {
  const recovered = restartRow({
    result: 'recovered',
    recoveryMs: 48_000,
    detail: 'gateway started and answers its probes 48 s after the restart',
    detailWhy: { code: 'recovered', self: false, afterMs: 48_000 },
  });

  it('is worded in Chinese from the code that settled it', () => {
    const line = restartEndLine(recovered, zh);
    expect(line).toContain('已恢复');
    expect(line).toContain('网关在重启后 48 秒 完成启动并通过探测');
    expect(englishSentences(line)).toEqual([]);
  });

  it('keeps the English line as it was', () => {
    expect(restartEndLine(recovered, en)).toBe(
      'restart recovered in 48 s: gateway started and answers its probes 48 s after the restart',
    );
    expect(restartEndLine(null, en)).toBe('restart finished');
  });
});
