/**
 * Words in the reader's language: which languages there are, which one a
 * reader gets, and the formatters (numbers, money, times, durations, lists,
 * plurals) every message uses. Shared by the core, the CLI, the tray and the
 * dashboard (which loads this file as it is), so it imports nothing at run time
 * and uses only what both Node and a browser have: `Intl`.
 */

export const LANGUAGES = ['en', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];

/** What a user picks in config or in the dashboard: a language, or `auto` (the system's). */
export type LanguageSetting = Language | 'auto';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/**
 * The language for a list of candidates, most preferred first: a setting
 * (`auto` passes), `LANG`/`LC_ALL` values (`zh_CN.UTF-8`), `app.getLocale()`
 * or `navigator.languages` (`zh-Hans-CN`, `en-GB`). Any Chinese reads the
 * simplified catalogue (it is closer to a Traditional reader than English);
 * the first candidate that names a language decides; English otherwise.
 */
export function resolveLanguage(candidates: ReadonlyArray<string | null | undefined>): Language {
  for (const candidate of candidates) {
    if (!candidate || candidate === 'auto') continue;
    const tag = candidate.split('.')[0]?.replace(/_/g, '-').toLowerCase() ?? '';
    if (tag === '' || tag === 'c' || tag === 'posix') continue;
    if (tag === 'zh' || tag.startsWith('zh-')) return 'zh-CN';
    return 'en';
  }
  return 'en';
}

/** The plural forms a message gives; `other` is always required, `#` stands for the number. */
export interface PluralForms {
  zero?: string;
  one?: string;
  two?: string;
  few?: string;
  many?: string;
  other: string;
}

/** How a duration is written: `rounded` (whole units, the default) or `precise` (tenths of a second under a minute). */
export type DurationStyle = 'rounded' | 'precise';

/** Everything a message needs to put numbers and times into words, in one language. */
export interface Formatters {
  readonly language: Language;
  /** 12345 → "12,345". */
  integer(n: number): string;
  /** 0.625 → "63%"; a small share keeps a decimal so 0.4% does not read as 0%. */
  percent(share: number): string;
  /** Tokens, compact: 72000 → "72K" ("7.2万" in Chinese). */
  compact(n: number): string;
  /** US dollars, as providers bill them: "$1.24"; a fraction of a cent keeps its digits. */
  usd(amount: number): string;
  /** A wall time of day, hours and minutes ("14:05"), in the process's (or browser's) time zone. */
  clock(ts: number): string;
  /** A date and time ("Dec 1, 14:05"). */
  dateTime(ts: number): string;
  /**
   * A length of time, two units at most, rounded down: "850 ms", "12 s", "3 min 20 s", "2 h 5 min", "3 d 4 h".
   * `precise` keeps tenths of a second under a minute ("1.5 s"), for timeouts and Retry-After values.
   */
  duration(ms: number, style?: DurationStyle): string;
  /** "just now", "3 min ago", "in 42 s". */
  relative(ts: number, now: number): string;
  /** "a, b and c". */
  list(items: readonly string[]): string;
  /** Picks the plural form for `n` and puts the number in place of `#`. */
  plural(n: number, forms: PluralForms): string;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Unit words per language: short, as a glance reads them. */
const UNITS: Record<Language, { ms: string; s: string; min: string; h: string; d: string; sep: string }> = {
  en: { ms: ' ms', s: ' s', min: ' min', h: ' h', d: ' d', sep: ' ' },
  'zh-CN': { ms: ' 毫秒', s: ' 秒', min: ' 分钟', h: ' 小时', d: ' 天', sep: ' ' },
};

const RELATIVE: Record<Language, { now: string; ago: (d: string) => string; in: (d: string) => string }> = {
  en: { now: 'just now', ago: (d) => `${d} ago`, in: (d) => `in ${d}` },
  'zh-CN': { now: '刚刚', ago: (d) => `${d}前`, in: (d) => `${d}后` },
};

/** A time in a sentence: the time of day when it is within 20 hours of now, else date and time. */
export function moment(ts: number, now: number, f: Formatters): string {
  return Math.abs(ts - now) < 20 * HOUR ? f.clock(ts) : f.dateTime(ts);
}

/** Formatters for one language, built once and reused (Intl objects are costly to make). */
export function formatters(language: Language): Formatters {
  const integer = new Intl.NumberFormat(language, { maximumFractionDigits: 0 });
  const compact = new Intl.NumberFormat(language, { notation: 'compact', maximumFractionDigits: 1 });
  const clock = new Intl.DateTimeFormat(language, { hour: '2-digit', minute: '2-digit', hour12: false });
  const dateTime = new Intl.DateTimeFormat(language, {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
  });
  const plurals = new Intl.PluralRules(language);
  const lists = new Intl.ListFormat(language, { style: 'long', type: 'conjunction' });
  const units = UNITS[language];
  const relative = RELATIVE[language];
  const two = (a: number, ua: string, b: number, ub: string) =>
    b === 0 ? `${a}${ua}` : `${a}${ua}${units.sep}${b}${ub}`;
  const tenths = new Intl.NumberFormat(language, { maximumFractionDigits: 1, useGrouping: false });
  const duration = (ms: number, style: DurationStyle = 'rounded'): string => {
    const abs = Math.max(0, ms);
    if (abs < SECOND) return `${Math.round(abs)}${units.ms}`;
    if (abs < MINUTE) {
      // Precise: tenths rounded down, like every other unit here, so a timeout never reads longer than it is.
      if (style === 'precise') return `${tenths.format(Math.floor(abs / 100) / 10)}${units.s}`;
      return `${Math.floor(abs / SECOND)}${units.s}`;
    }
    if (abs < HOUR) {
      const min = Math.floor(abs / MINUTE);
      return min >= 10 ? `${min}${units.min}` : two(min, units.min, Math.floor((abs % MINUTE) / SECOND), units.s);
    }
    if (abs < DAY) return two(Math.floor(abs / HOUR), units.h, Math.floor((abs % HOUR) / MINUTE), units.min);
    return two(Math.floor(abs / DAY), units.d, Math.floor((abs % DAY) / HOUR), units.h);
  };
  return {
    language,
    integer: (n) => integer.format(Math.round(n)),
    percent(share) {
      const value = share * 100;
      return value > 0 && value < 10 ? `${value.toFixed(1)}%` : `${Math.round(value)}%`;
    },
    compact: (n) => compact.format(n),
    usd(amount) {
      const digits = amount !== 0 && Math.abs(amount) < 0.01 ? 4 : 2;
      return `$${amount.toLocaleString(language, { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;
    },
    clock: (ts) => clock.format(ts),
    dateTime: (ts) => dateTime.format(ts),
    duration,
    relative(ts, now) {
      const delta = ts - now;
      if (Math.abs(delta) < 5 * SECOND) return relative.now;
      return delta > 0 ? relative.in(duration(delta)) : relative.ago(duration(-delta));
    },
    list: (items) => lists.format(items),
    plural(n, forms) {
      const rule = n === 0 && forms.zero !== undefined ? 'zero' : plurals.select(n);
      const form = forms[rule as keyof PluralForms] ?? forms.other;
      return form.replace(/#/g, integer.format(n));
    },
  };
}
