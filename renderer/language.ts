/**
 * The dashboard's language: what the reader picked in the header (English,
 * 简体中文, or the system's), kept in localStorage so every window and reload
 * agrees, resolved against `navigator.languages` when it is `auto`.
 */
import { isLanguage, type Language, type LanguageSetting, resolveLanguage } from '../main/words/i18n.js';

export const LANGUAGE_KEY = 'breakerbar.language';

export interface LanguageEnvironment {
  storage: Pick<Storage, 'getItem' | 'setItem'> | null;
  /** The browser's preferences, most preferred first (`navigator.languages`). */
  languages: readonly string[];
}

/** The stored setting; anything unreadable or unknown is `auto`. */
export function storedSetting(env: LanguageEnvironment): LanguageSetting {
  let value: string | null = null;
  try {
    value = env.storage?.getItem(LANGUAGE_KEY) ?? null;
  } catch {
    value = null;
  }
  return value !== null && isLanguage(value) ? value : 'auto';
}

/** The language a setting means here: itself, or the first of the browser's languages we speak. */
export function languageOf(setting: LanguageSetting, env: LanguageEnvironment): Language {
  return setting === 'auto' ? resolveLanguage(env.languages) : setting;
}

export function storeSetting(env: LanguageEnvironment, setting: LanguageSetting): void {
  try {
    env.storage?.setItem(LANGUAGE_KEY, setting);
  } catch {
    // Storage refused (private mode, disabled): the choice lasts the page.
  }
}
