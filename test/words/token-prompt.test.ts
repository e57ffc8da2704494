/**
 * The dashboard's token prompt says where the token comes from in the reader's language, with the command and
 * the paths as code: each language's sentence marks every one of them, once, and the Chinese says it without an
 * English sentence.
 */
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../main/words/i18n.js';
import { translator } from '../../main/words/messages/index.js';
import { englishSentences } from '../helpers/english-sentences.js';

const KEYS = [
  'dashboard.token.title.missing',
  'dashboard.token.title.refused',
  'dashboard.token.why.missing',
  'dashboard.token.why.refused',
  'dashboard.token.where',
  'dashboard.token.label',
  'dashboard.token.use',
  'dashboard.token.cancel',
  'dashboard.token.shape',
] as const;

describe('the token prompt, worded', () => {
  it.each(LANGUAGES)(
    '%s: the sentence that says where the token is marks the command and each path once',
    (language) => {
      const marks =
        translator(language)
          .t('dashboard.token.where')
          .match(/\{\w+\}/g) ?? [];
      expect([...marks].sort()).toEqual(['{command}', '{file}', '{linux}', '{mac}']);
    },
  );

  it('Chinese: no English sentence in any of its words (the marks aside)', () => {
    const zh = translator('zh-CN');
    for (const key of KEYS) expect(englishSentences(zh.t(key).replace(/\{\w+\}/g, '')), key).toEqual([]);
  });

  it('English: the rule finds what the Chinese must not have', () => {
    expect(englishSentences(translator('en').t('dashboard.token.why.missing')).length).toBeGreaterThan(0);
  });
});
