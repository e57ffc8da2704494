/** `breakerbar breaker open|close|reset` as text: the transitions it caused, in the reader's language. */
import { describe, expect, it } from 'vitest';
import type { Transition } from '../../main/api/types.js';
import { controlLines, defaultControlReason } from '../../main/cli/breaker-control.js';
import { translator } from '../../main/words/messages/index.js';
import { NOW } from '../app/fixtures.js';
import { englishSentences } from '../helpers/english-sentences.js';

/** A run of three lowercase English words: an English sentence left in a Chinese line. */
const zh = translator('zh-CN');
const en = translator('en');
const DEP = 'zhipu/glm-5.1';

const opened: Transition = {
  dep: DEP,
  from: 'closed',
  to: 'open',
  reason: 'operator: provider maintenance',
  why: { code: 'operator', note: 'provider maintenance' },
  ts: NOW,
};

describe('breakerbar breaker', () => {
  it('words a transition in Chinese from its code: the states and why, no English sentence left', () => {
    const lines = controlLines(DEP, 'force_open', { transitions: [opened] }, zh);
    expect(lines).toEqual(['zhipu/glm-5.1：闭合 → 断开（手动设置：provider maintenance）']);
  });

  it('says in Chinese that nothing changed, and which control was recorded', () => {
    const [line] = controlLines(DEP, 'reset', { transitions: [] }, zh);
    expect(line).toBe('zhipu/glm-5.1：没有变化（已记录：重置）');
    expect(englishSentences(line ?? '')).toEqual([]);
  });

  it('sends a default reason in the reader language, so the recorded transition reads in it too', () => {
    expect(englishSentences(defaultControlReason(zh))).toEqual([]);
    const note = defaultControlReason(zh);
    const noted: Transition = { ...opened, reason: `operator: ${note}`, why: { code: 'operator', note } };
    const [line] = controlLines(DEP, 'force_open', { transitions: [noted] }, zh);
    expect(englishSentences(line ?? '')).toEqual([]);
  });

  it('keeps the English lines as they were', () => {
    expect(controlLines(DEP, 'force_open', { transitions: [opened] }, en)).toEqual([
      'zhipu/glm-5.1: closed → open (operator: provider maintenance)',
    ]);
    expect(controlLines(DEP, 'reset', { transitions: [] }, en)).toEqual(['zhipu/glm-5.1: no change (reset recorded)']);
    expect(defaultControlReason(en)).toBe('set from the command line');
  });

  it('a transition without its code (an older BreakerBar) shows its line', () => {
    const old = { ...opened, why: undefined, reason: 'an old line kept as sent' };
    expect(controlLines(DEP, 'force_open', { transitions: [old] }, zh)[0]).toContain('（an old line kept as sent）');
  });
});
