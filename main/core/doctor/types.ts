/**
 * What `breakerbar doctor` reports: findings, each one line a human can act
 * on. Checks are small functions returning findings; report.ts runs them and
 * the CLI renders them. Nothing here changes anything on disk or the network.
 */

import { type Message, translator } from '../../words/messages/index.js';

export type Level = 'ok' | 'info' | 'warn' | 'error';

export const LEVELS: readonly Level[] = ['ok', 'info', 'warn', 'error'];

/** In the order the report shows them. */
export const AREAS = ['config', 'openclaw', 'sources', 'gateway', 'restart', 'notifications', 'breakerbar'] as const;

export type Area = (typeof AREAS)[number];

export interface Finding {
  area: Area;
  level: Level;
  /** One line: what was found. */
  title: string;
  /** Where it came from, what it means. */
  detail?: string;
  /** What to do about it, when something is missing or wrong. */
  fix?: string;
  /**
   * The same texts as catalogue messages, for a reader of another language (the CLI's, the dashboard's);
   * `title`, `detail` and `fix` above are their English wording. A part without a message (a probe's own
   * detail, a file path) is shown as it is.
   */
  words?: { title: Message; detail?: Message; fix?: Message };
}

export interface DoctorReport {
  findings: Finding[];
  summary: { ok: number; info: number; warn: number; error: number };
}

/** A finding without undefined members, so `--json` output and test expectations stay tidy. */
export function finding(area: Area, level: Level, title: string, detail?: string, fix?: string): Finding {
  const out: Finding = { area, level, title };
  if (detail !== undefined && detail !== '') out.detail = detail;
  if (fix !== undefined && fix !== '') out.fix = fix;
  return out;
}

const EN = translator('en');

/**
 * A finding worded from the catalogue: English in `title`/`detail`/`fix` (stored, `--json`, tests), the
 * messages in `words`. `detail` and `fix` may be plain text instead (a probe's detail, a path).
 */
export function saidFinding(
  area: Area,
  level: Level,
  title: Message,
  detail?: Message | string,
  fix?: Message | string,
): Finding {
  const text = (part: Message | string | undefined) =>
    part === undefined ? undefined : typeof part === 'string' ? part : EN.say(part);
  const out = finding(area, level, EN.say(title), text(detail), text(fix));
  const words: NonNullable<Finding['words']> = { title };
  if (detail !== undefined && typeof detail !== 'string') words.detail = detail;
  if (fix !== undefined && typeof fix !== 'string') words.fix = fix;
  out.words = words;
  return out;
}

export function summarize(findings: readonly Finding[]): DoctorReport['summary'] {
  const summary = { ok: 0, info: 0, warn: 0, error: 0 };
  for (const f of findings) summary[f.level]++;
  return summary;
}
