/**
 * Words looked up by a name the data gives (a restart result, a decision kind,
 * a config path): the catalogue's entry when it has one, else the caller's
 * fallback, so a value the catalogue does not know yet still shows, as itself.
 */
import { CATALOGUES, type Translator } from '../main/words/messages/index.js';

/** The plain message `key` in the translator's language (English when only English has it), or null. */
export function lookup(t: Pick<Translator, 'language'>, key: string): string | null {
  const text = CATALOGUES[t.language][key] ?? CATALOGUES.en[key];
  return typeof text === 'string' ? text : null;
}

export function wordOr(t: Pick<Translator, 'language'>, key: string, fallback: string): string {
  return lookup(t, key) ?? fallback;
}
