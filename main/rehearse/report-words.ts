/**
 * How a rehearsal's report reads in words, the same in the text table and on the HTML page: durations, its
 * events, which watchdog decisions are worth showing, and the stored restarts as rows. The report is English,
 * as the scenarios are written.
 */
import { toMs } from '../core/config/schema.js';
import { formatters } from '../words/i18n.js';
import type { RehearsalReport, TimelineEvent } from './types.js';

/** Scenario seconds, to a tenth: `12.5 s`. */
export const fmt = (n: number) => `${Math.round(n * 10) / 10} s`;

/** The report is English (as the scenarios are written); durations read as everywhere else. */
const EN = formatters('en');

/** `2 h`, `1 min 30 s`: a clock step's size (either way) in words. */
export function stepWords(sec: number): string {
  return EN.duration(toMs(Math.abs(sec), 'sec'));
}

/** `text` cut to `max` characters, an ellipsis marking the cut. */
export const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function describeEvent(e: TimelineEvent): [string, string] {
  switch (e.type) {
    case 'phase':
      return ['fault', `phase ${e.index}: ${e.label}`];
    case 'phase_end':
      return ['fault end', `phase ${e.index}: ${e.label}`];
    case 'gateway':
      return ['gateway', e.state];
    case 'transition':
      return ['breaker', `${e.dep} ${e.from} → ${e.to} (${e.reason})`];
    case 'decision': {
      const alerts = e.alerts.length > 0 ? ` [alert: ${e.alerts.join(', ')}]` : '';
      return ['watchdog', `${e.decision}${e.dep ? ` ${e.dep}` : ''}: ${e.reason}${alerts}`];
    }
    case 'restart':
      return ['restart', `#${e.id} ${e.trigger}${e.evidence ? ` (evidence: ${e.evidence})` : ''}: ${e.reason}`];
    case 'dry_run':
      return ['dry run', `#${e.id} ${e.trigger}${e.evidence ? ` (evidence: ${e.evidence})` : ''}: ${e.reason}`];
    case 'clock_step':
      return [
        'clock',
        `wall clock stepped ${e.stepSec < 0 ? 'back' : 'forward'} ${stepWords(e.stepSec)} (now ${e.offsetSec < 0 ? '-' : '+'}${stepWords(e.offsetSec)} from the monotonic clock)`,
      ];
    case 'restart_result':
      return ['restart', `#${e.id} ${e.result}${e.detail ? `: ${e.detail}` : ''}`];
    case 'notice':
      return ['notice', `${e.notice}${e.dep ? ` ${e.dep}` : ''}: ${e.title}${e.count > 1 ? ` (×${e.count})` : ''}`];
    case 'incident':
      return ['incident', `#${e.id} ${e.change}: ${e.summary}`];
  }
}

/** Decisions shown in the summary (the others stay in the JSON): what an operator would want to see. */
const SHOWN_DECISIONS = new Set([
  'restart',
  'deferred',
  'budget_exhausted',
  'spacing',
  'fallback_answering',
  'divergence',
  'recovered',
  'not_recovered',
  'started_unconfirmed',
  'dry_run',
  'gateway_restarted',
  'unverified',
  'not_openclaw',
  // Once per dependency: a storm's first counted check, or stalled sessions counting toward a hung gateway.
  'counting',
]);

/** Decisions shown: the listed kinds, and any that raised an alert. */
export const shownDecision = (e: Extract<TimelineEvent, { type: 'decision' }>) =>
  SHOWN_DECISIONS.has(e.decision) || e.alerts.length > 0;

/** The stored restarts as table rows: what ran, on what evidence, and how it ended. */
export function restartRows(report: RehearsalReport): string[][] {
  return (report.restarts ?? []).map((r) => [`${r.id}`, r.trigger, r.evidence ?? '—', r.result, clip(r.reason, 100)]);
}
