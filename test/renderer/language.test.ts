/** The dashboard's language setting: stored, resolved against the browser's languages, and refused storage. */
import { describe, expect, it } from 'vitest';
import { LANGUAGE_KEY, languageOf, storedSetting, storeSetting } from '../../renderer/language.js';

function memory(initial: Record<string, string> = {}) {
  const values = new Map(Object.entries(initial));
  return {
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, value),
    values,
  };
}

describe('dashboard language', () => {
  it('reads the stored choice, and anything unknown or missing as the system language', () => {
    expect(storedSetting({ storage: memory({ [LANGUAGE_KEY]: 'zh-CN' }), languages: [] })).toBe('zh-CN');
    expect(storedSetting({ storage: memory({ [LANGUAGE_KEY]: 'fr' }), languages: [] })).toBe('auto');
    expect(storedSetting({ storage: memory(), languages: [] })).toBe('auto');
    expect(storedSetting({ storage: null, languages: [] })).toBe('auto');
  });

  it("follows the browser's first language for auto, any Chinese reading Simplified Chinese", () => {
    expect(languageOf('auto', { storage: null, languages: ['zh-TW', 'en-US'] })).toBe('zh-CN');
    expect(languageOf('auto', { storage: null, languages: ['de-DE', 'zh-CN'] })).toBe('en');
    expect(languageOf('auto', { storage: null, languages: [] })).toBe('en');
    expect(languageOf('en', { storage: null, languages: ['zh-CN'] })).toBe('en');
  });

  it('keeps the choice, and shrugs off a storage that refuses it', () => {
    const storage = memory();
    storeSetting({ storage, languages: [] }, 'zh-CN');
    expect(storage.values.get(LANGUAGE_KEY)).toBe('zh-CN');
    const refusing = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(() => storeSetting({ storage: refusing, languages: [] }, 'en')).not.toThrow();
    expect(storedSetting({ storage: refusing, languages: [] })).toBe('auto');
  });
});
