/**
 * A rehearsal's incidents as its report shows them, in the text table and on the HTML page: each one's span
 * of the timeline (from the incident events the recorder kept), its title, and its course in words.
 */
import { fmt } from './report-words.js';
import type { TimelineEvent } from './types.js';

/** One incident as the rehearsal saw it: from its opening to its close (null: still open at the end). */
export interface IncidentSpan {
  id: number;
  openedAt: number;
  closedAt: number | null;
  severity: string;
  causes: string[];
  deps: string[];
  summary: string;
}

/** The incidents of a timeline, in the order they opened, each with its last known summary. */
export function incidentSpans(timeline: readonly TimelineEvent[]): IncidentSpan[] {
  const spans = new Map<number, IncidentSpan>();
  for (const e of timeline) {
    if (e.type !== 'incident') continue;
    const span = spans.get(e.id) ?? {
      id: e.id,
      openedAt: e.openedAtSec,
      closedAt: null,
      severity: e.severity,
      causes: [],
      deps: [],
      summary: '',
    };
    Object.assign(span, { severity: e.severity, causes: e.causes, deps: e.deps, summary: e.summary });
    if (e.change === 'closed') span.closedAt = e.closedAtSec ?? e.t;
    spans.set(e.id, span);
  }
  return [...spans.values()];
}

/** The span an event belongs to: the incident open at its time (opening and closing included). */
export function spanOf(t: number, spans: readonly IncidentSpan[]): IncidentSpan | null {
  return spans.find((s) => t >= s.openedAt && (s.closedAt === null || t <= s.closedAt)) ?? null;
}

/** "Incident #1 · 429 storm on zhipu/glm-5.1 (warning)". */
export function incidentTitle(span: IncidentSpan): string {
  return `Incident #${span.id} · ${span.summary || span.causes.join(', ')} (${span.severity})`;
}

/** When it opened and how it ended, in scenario seconds; what it touched. */
export function incidentMeta(span: IncidentSpan, durationSec: number): string {
  const end =
    span.closedAt === null
      ? `still open when the scenario ended at ${durationSec} s`
      : `resolved at ${span.closedAt.toFixed(1)} s after ${fmt(span.closedAt - span.openedAt)}`;
  const deps = span.deps.length > 0 ? ` · ${span.deps.join(', ')}` : '';
  return `opened at ${span.openedAt.toFixed(1)} s · ${end} · causes: ${span.causes.join(', ')}${deps}`;
}
