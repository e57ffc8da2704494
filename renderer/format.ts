/**
 * Numbers and times for humans: "3 min ago", "in 45 s", "3 restarts in the
 * last hour". The words come from the shared formatters and catalogue
 * (main/words), in the language the dashboard speaks now: the page speaks one
 * language at a time, so it is kept here once (`useLanguage`, set by the shell's
 * language switch) and every helper reads it, and a switch re-renders every view.
 * Apart from that language they are pure functions of their arguments (the caller
 * passes "now"), so they are tested without a browser and the 1 s ticker
 * re-renders them cheaply.
 */
import type { Language } from '../main/words/i18n.js';
import { type Translator, translator } from '../main/words/messages/index.js';

let current: Translator = translator('en');

/** The dashboard's language from now on (the shell calls it on start and on a switch). */
export function useLanguage(language: Language): void {
  current = translator(language);
}

/** The words of the dashboard's current language. */
export function words(): Translator {
  return current;
}

/** "1 restart", "3 restarts"; `plural` for irregular words. English only: new text uses the catalogue. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${integer(n)} ${n === 1 ? singular : plural}`;
}

/** 12345 → "12,345" (grouped as the dashboard's language does). */
export function integer(n: number): string {
  return current.integer(n);
}

/** 0.625 → "63%"; small shares keep a decimal so 0.4% does not read as 0%. */
export function percent(share: number): string {
  return current.percent(share);
}

/** "just now", "40 s ago", "3 min 59 s ago", "in 2 min". */
export function relativeTime(ts: number, now: number): string {
  return current.relative(ts, now);
}

/** Time left until `until`: "in 1 min 5 s", or "now" once reached. */
export function countdown(until: number, now: number): string {
  return until <= now ? current.t('dashboard.time.now') : current.relative(until, now);
}

/** Time left until `until` as a remainder: "4 min left", or "over" once reached. */
export function timeLeft(until: number, now: number): string {
  return until <= now
    ? current.t('dashboard.time.over')
    : current.t('dashboard.time.left', { left: current.duration(until - now) });
}

/** Local wall-clock time; with the date once it is not today ("Mar 3, 14:05"). */
export function clockTime(ts: number, now: number): string {
  const date = new Date(ts);
  const sameDay = new Date(now).toDateString() === date.toDateString();
  const locale = current.language;
  return sameDay
    ? date.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false })
    : current.dateTime(ts);
}

/** "3 restarts in the last hour", "no restarts in the last hour". English only: new text uses the catalogue. */
export function inLast(n: number, singular: string, span: string): string {
  return `${n === 0 ? `no ${singular}s` : count(n, singular)} in the last ${span}`;
}

/** Breaker states as people say them ("half-open", "半开"). */
export function stateLabel(state: string): string {
  const key = `common.state.${state}`;
  return key === 'common.state.closed' ||
    key === 'common.state.open' ||
    key === 'common.state.half_open' ||
    key === 'common.state.throttled'
    ? current.t(key)
    : state.replace(/_/g, '-');
}

/** Token counts, short: 950, 12.5K, 3.2M (7.2万 in Chinese). */
export function compact(n: number): string {
  return current.compact(n);
}
