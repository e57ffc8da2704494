/**
 * A rehearsal's report as a text table for the terminal: the verdict, the incidents, the timeline (repetitive
 * decisions folded, the rest in --json / --html), the stored restarts, the faked programs' calls, detection
 * latencies and the expectations.
 */
import { incidentMeta, incidentSpans, incidentTitle } from './report-incidents.js';
import { clip, describeEvent, restartRows, shownDecision } from './report-words.js';
import type { RehearsalReport, TimelineEvent } from './types.js';

/** Rows as aligned columns; the first row is the header. */
function columns(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, [...cell].length);
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell + ' '.repeat(Math.max(0, (widths[i] ?? 0) - [...cell].length)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Whether an event belongs in the printed timeline (repetitive decisions are folded). */
function shown(e: TimelineEvent, seen: Set<string>): boolean {
  if (e.type === 'decision') {
    if (!shownDecision(e)) return false;
    const key = `${e.decision}:${e.dep}`;
    if (seen.has(key) && e.decision !== 'restart' && e.alerts.length === 0) return false;
    seen.add(key);
  }
  return true;
}

export function renderText(report: RehearsalReport, options: { maxEvents?: number } = {}): string {
  const out: string[] = [];
  const status = report.passed ? 'PASSED' : 'FAILED';
  out.push(
    `Rehearsal ${report.scenario.name}: ${status} — ${report.scenario.durationSec} s at ${report.scenario.rate} calls/s, time scale ${report.timeScale} (${(report.wallMs / 1000).toFixed(1)} s wall), format ${report.format}, ${report.calls.total} calls (${report.calls.failed} failed)`,
  );
  const spans = incidentSpans(report.timeline);
  if (spans.length > 0) {
    out.push(
      '',
      'Incidents',
      ...spans.map((s) => `${incidentTitle(s)}: ${incidentMeta(s, report.scenario.durationSec)}`),
    );
  }
  const seen = new Set<string>();
  const events = report.timeline.filter((e) => shown(e, seen));
  const max = options.maxEvents ?? 40;
  const rows = events.slice(0, max).map((e) => [`${e.t.toFixed(1)} s`, ...describeEvent(e)].map((c) => clip(c, 120)));
  out.push('', 'Timeline (scenario time)', columns([['time', 'what', 'detail'], ...rows]));
  if (events.length > max) out.push(`… ${events.length - max} more in --json / --html`);
  const restarts = restartRows(report);
  if (restarts.length > 0) {
    out.push('', 'Restarts (as stored)', columns([['#', 'trigger', 'evidence', 'result', 'reason'], ...restarts]));
  }
  // The faked programs' calls other than reads (launchctl print is polled on every check).
  const acted = (report.commands ?? []).filter((c) => !(c.program === 'launchctl' && c.args[0]?.startsWith('print')));
  if (acted.length > 0) {
    out.push(
      '',
      'Commands run (faked programs, reads left out)',
      ...acted.map((c) => clip(`${c.program} ${c.args.join(' ')}`, 140)),
    );
  }
  if (report.latencies.length > 0) {
    const lat = report.latencies.map((l) => [
      `${l.phase}`,
      l.target,
      `${l.faultAtSec} s`,
      l.transitionSec === null ? '—' : `${l.transitionSec} s (${l.transitionWallMs} ms)`,
      l.noticeSec === null ? '—' : `${l.noticeSec} s (${l.noticeWallMs} ms)`,
    ]);
    out.push(
      '',
      'Detection latency (scenario s, wall ms)',
      columns([['phase', 'fault on', 'at', '→ transition', '→ notification'], ...lat]),
    );
  }
  out.push(
    '',
    'Expectations',
    columns(report.expectations.map((e) => [e.passed ? '✓' : '✗', e.expectation, clip(e.detail, 140)])),
  );
  return `${out.join('\n')}\n`;
}
