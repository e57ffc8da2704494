/**
 * How a part of the product declares its messages: one module per area (the
 * headline, the tray, the dashboard, notices, the CLI…), each with English and
 * Simplified Chinese side by side, so a translator sees both and the compiler
 * refuses a key or a parameter that one language lacks.
 */
import type { Formatters, Language } from '../i18n.js';

/**
 * One message: plain text, or a function of its parameters and the language's
 * formatters (plurals, numbers, times). Parameters are data, never pre-formatted
 * text in another language.
 */
// biome-ignore lint/suspicious/noExplicitAny: a message's parameter type is whatever its key declares.
export type MessageText = string | ((params: any, f: Formatters) => string);

export type AreaMessages = Record<string, MessageText>;

/** Both languages of an area; the Chinese side must have every key, with the same parameters. */
export function area<E extends AreaMessages>(en: E, zhCN: { [K in keyof E]: E[K] }): Record<Language, E> {
  return { en, 'zh-CN': zhCN };
}
