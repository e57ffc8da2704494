/**
 * What `breakerbar doctor` reports: findings, each one line a human can act
 * on. Checks are small functions returning findings; report.ts runs them and
 * the CLI renders them. Nothing here changes anything on disk or the network.
 */

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

export function summarize(findings: readonly Finding[]): DoctorReport['summary'] {
  const summary = { ok: 0, info: 0, warn: 0, error: 0 };
  for (const f of findings) summary[f.level]++;
  return summary;
}
