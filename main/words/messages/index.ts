/**
 * The message catalogue: every area's messages in every language, and the
 * translator the product's surfaces (dashboard, tray, notifications, webhooks,
 * `status`, `doctor`) take their words from. A key missing in one language is a
 * compile error (see area.ts) and a failing test (test/words/messages.test.ts).
 */
import { type Formatters, formatters, type Language } from '../i18n.js';
import { alerts } from './alerts.js';
import type { MessageText } from './area.js';
import { cli } from './cli.js';
import { common } from './common.js';
import { confirm } from './confirm.js';
import { dashboard } from './dashboard.js';
import { decision } from './decision.js';
import { doctor } from './doctor.js';
import { headline } from './headline.js';
import { incidents } from './incidents.js';
import { notices } from './notices.js';
import { probe } from './probe.js';
import { spend } from './spend.js';
import { tray } from './tray.js';
import { views } from './views.js';

/** Every area, in the order their keys were declared (keys are prefixed by area, so they never collide). */
export const AREAS = {
  common,
  headline,
  dashboard,
  views,
  incidents,
  spend,
  alerts,
  notices,
  probe,
  decision,
  tray,
  cli,
  doctor,
  confirm,
} as const;

type Areas = typeof AREAS;
type EnglishOf<A> = A extends Record<Language, infer E> ? E : never;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
export type Catalogue = UnionToIntersection<EnglishOf<Areas[keyof Areas]>>;
export type MessageKey = keyof Catalogue & string;
export type ParamsOf<K extends MessageKey> = Catalogue[K] extends (params: infer P, f: Formatters) => string
  ? P
  : undefined;

/** A message to be worded later, by whoever knows the reader's language (the headline, a notice). */
export type Message<K extends MessageKey = MessageKey> = K extends MessageKey
  ? ParamsOf<K> extends undefined
    ? { key: K; params?: undefined }
    : { key: K; params: ParamsOf<K> }
  : never;

function merged(language: Language): Record<string, MessageText> {
  const all: Record<string, MessageText> = {};
  for (const a of Object.values(AREAS)) Object.assign(all, a[language]);
  return all;
}

export const CATALOGUES: Record<Language, Record<string, MessageText>> = {
  en: merged('en'),
  'zh-CN': merged('zh-CN'),
};

export interface Translator extends Formatters {
  t<K extends MessageKey>(key: K, ...params: ParamsOf<K> extends undefined ? [] : [ParamsOf<K>]): string;
  /** Words a structured message (`{key, params}`) in this language. */
  say(message: Message): string;
}

const cache = new Map<Language, Translator>();

/** The translator for a language (made once per language). */
export function translator(language: Language): Translator {
  const cached = cache.get(language);
  if (cached) return cached;
  const f = formatters(language);
  const messages = CATALOGUES[language];
  const word = (key: string, params: unknown): string => {
    const text = messages[key] ?? CATALOGUES.en[key];
    if (text === undefined) return key;
    return typeof text === 'string' ? text : text(params, f);
  };
  const made: Translator = {
    ...f,
    t: (key, ...params) => word(key, params[0]),
    say: (message) => word(message.key, message.params),
  };
  cache.set(language, made);
  return made;
}
