/**
 * The catalogue is complete in every language: the same keys, each a message of
 * the same kind, and every function message words its parameters without
 * throwing. A key added in one language only fails here (and in the compiler).
 */
import { describe, expect, it } from 'vitest';
import { LANGUAGES, resolveLanguage } from '../../main/words/i18n.js';
import { AREAS, CATALOGUES, translator } from '../../main/words/messages/index.js';

describe('message catalogue', () => {
  it('has every key in every language, as the same kind of message', () => {
    const english = Object.keys(CATALOGUES.en).sort();
    expect(english.length).toBeGreaterThan(40);
    for (const language of LANGUAGES) {
      const keys = Object.keys(CATALOGUES[language]).sort();
      expect(keys, language).toEqual(english);
      for (const key of keys)
        expect(typeof CATALOGUES[language][key], `${language} ${key}`).toBe(typeof CATALOGUES.en[key]);
    }
  });

  it('prefixes every key with its area, so areas never overwrite each other', () => {
    let total = 0;
    for (const [name, messages] of Object.entries(AREAS)) {
      for (const key of Object.keys(messages.en)) expect(key.startsWith(`${name}.`), key).toBe(true);
      total += Object.keys(messages.en).length;
    }
    expect(Object.keys(CATALOGUES.en)).toHaveLength(total);
  });

  it('words Chinese in Chinese: no message is left in English', () => {
    const same = Object.keys(CATALOGUES.en).filter((key) => {
      const en = CATALOGUES.en[key];
      const zh = CATALOGUES['zh-CN'][key];
      return typeof en === 'string' && en === zh && /[a-z]{4,}/.test(en) && !key.startsWith('common.language.');
    });
    expect(same).toEqual([]);
  });

  it('resolves the language from settings, locale variables and browser tags', () => {
    expect(resolveLanguage(['auto', 'zh_CN.UTF-8'])).toBe('zh-CN');
    expect(resolveLanguage([undefined, '', 'zh-Hans-CN'])).toBe('zh-CN');
    expect(resolveLanguage(['C', 'en_GB.UTF-8', 'zh_CN'])).toBe('en');
    expect(resolveLanguage(['en', 'zh_CN.UTF-8'])).toBe('en');
    expect(resolveLanguage(['POSIX'])).toBe('en');
    expect(resolveLanguage([])).toBe('en');
  });

  it('formats plurals, durations and relative times per language', () => {
    const en = translator('en');
    const zh = translator('zh-CN');
    expect(en.t('common.calls', { n: 1 })).toBe('1 call');
    expect(en.t('common.calls', { n: 1200 })).toBe('1,200 calls');
    expect(zh.t('common.calls', { n: 1200 })).toBe('1,200 次调用');
    expect(en.duration(7 * 60_000 + 5_000)).toBe('7 min 5 s');
    expect(zh.duration(2 * 3_600_000 + 5 * 60_000)).toBe('2 小时 5 分钟');
    expect(en.relative(0, 180_000)).toBe('3 min ago');
    expect(zh.relative(180_000, 0)).toBe('3 分钟后');
    expect(en.list(['a', 'b', 'c'])).toBe('a, b, and c');
    expect(zh.list(['a', 'b'])).toBe('a和b');
  });
});
