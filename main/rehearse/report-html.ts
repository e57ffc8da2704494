/**
 * A rehearsal's report as one self-contained HTML page (inline CSS, an inline SVG timeline drawn from the
 * data), each scenario read as its incidents: when one opened, what BreakerBar saw and did meanwhile, when
 * it was resolved.
 */
import { incidentMeta, incidentSpans, incidentTitle, spanOf } from './report-incidents.js';
import { clip, describeEvent, restartRows, shownDecision } from './report-words.js';
import type { RehearsalReport, TimelineEvent } from './types.js';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const COLORS: Record<string, string> = {
  closed: '#2e9d5b',
  half_open: '#d9a400',
  open: '#d64541',
  throttled: '#e67e22',
};

/** One lane per dependency (its breaker state over time), a lane of phases, and markers for restarts and notices. */
function svgTimeline(report: RehearsalReport): string {
  const width = 960;
  const left = 190;
  const lane = 26;
  const duration = report.scenario.durationSec;
  const x = (t: number) => left + (Math.max(0, Math.min(t, duration)) / duration) * (width - left - 10);
  const deps = [
    ...new Set([
      ...Object.keys(report.calls.byDep),
      ...report.timeline.flatMap((e) => (e.type === 'transition' ? [e.dep] : [])),
    ]),
  ];
  const rows = ['faults', 'incidents', 'gateway', ...deps, 'restarts', 'notices'];
  const height = rows.length * lane + 40;
  const parts: string[] = [];
  rows.forEach((name, i) => {
    const y = 10 + i * lane;
    parts.push(
      `<text x="${left - 8}" y="${y + 17}" text-anchor="end" class="lbl">${escapeHtml(clip(name, 28))}</text>`,
    );
    parts.push(`<line x1="${left}" y1="${y + lane}" x2="${width - 10}" y2="${y + lane}" class="grid"/>`);
  });
  const rowY = (name: string) => 10 + rows.indexOf(name) * lane;
  for (const e of report.timeline) {
    if (e.type !== 'phase') continue;
    const end = report.timeline.find((p) => p.type === 'phase_end' && p.index === e.index)?.t ?? duration;
    parts.push(
      `<rect x="${x(e.t)}" y="${rowY('faults') + 4}" width="${Math.max(2, x(end) - x(e.t))}" height="${lane - 8}" class="fault"><title>${escapeHtml(`${e.label} (${e.t} s → ${end} s)`)}</title></rect>`,
    );
  }
  for (const span of incidentSpans(report.timeline)) {
    const end = span.closedAt ?? duration;
    parts.push(
      `<rect x="${x(span.openedAt)}" y="${rowY('incidents') + 4}" width="${Math.max(2, x(end) - x(span.openedAt))}" height="${lane - 8}" class="span ${escapeHtml(span.severity)}"><title>${escapeHtml(`${incidentTitle(span)}: ${incidentMeta(span, duration)}`)}</title></rect>`,
    );
  }
  const gatewayStates = report.timeline.filter((e) => e.type === 'gateway');
  gatewayStates.forEach((e, i) => {
    if (e.type !== 'gateway') return;
    const end = gatewayStates[i + 1]?.t ?? duration;
    const color =
      e.state === 'up' ? '#2e9d5b' : e.state === 'starting' || e.state === 'draining' ? '#d9a400' : '#d64541';
    parts.push(
      `<rect x="${x(e.t)}" y="${rowY('gateway') + 6}" width="${Math.max(1, x(end) - x(e.t))}" height="${lane - 12}" fill="${color}"><title>${escapeHtml(`gateway ${e.state} from ${e.t} s`)}</title></rect>`,
    );
  });
  for (const dep of deps) {
    const changes = report.timeline.filter((e) => e.type === 'transition' && e.dep === dep);
    let state = 'closed';
    let since = 0;
    const segment = (until: number) =>
      parts.push(
        `<rect x="${x(since)}" y="${rowY(dep) + 6}" width="${Math.max(1, x(until) - x(since))}" height="${lane - 12}" fill="${COLORS[state] ?? '#888'}"><title>${escapeHtml(`${dep} ${state} ${since} s → ${until} s`)}</title></rect>`,
      );
    for (const c of changes) {
      if (c.type !== 'transition') continue;
      segment(c.t);
      state = c.to;
      since = c.t;
    }
    segment(duration);
  }
  for (const e of report.timeline) {
    if (e.type === 'restart' || e.type === 'dry_run') {
      const what = e.type === 'dry_run' ? 'dry run' : 'restart';
      parts.push(
        `<path d="M${x(e.t)} ${rowY('restarts') + 5} l6 8 l-6 8 l-6 -8 z" class="${e.type === 'dry_run' ? 'dry' : 'restart'}"><title>${escapeHtml(`${what} #${e.id} (${e.trigger}${e.evidence ? `, evidence ${e.evidence}` : ''}) at ${e.t} s: ${e.reason}`)}</title></path>`,
      );
    } else if (e.type === 'clock_step') {
      parts.push(
        `<line x1="${x(e.t)}" y1="10" x2="${x(e.t)}" y2="${height - 24}" class="step"><title>${escapeHtml(`wall clock stepped ${e.stepSec} s at ${e.t} s`)}</title></line>`,
      );
    } else if (e.type === 'notice') {
      parts.push(
        `<circle cx="${x(e.t)}" cy="${rowY('notices') + 13}" r="5" class="notice ${escapeHtml(e.severity)}"><title>${escapeHtml(`${e.notice} at ${e.t} s: ${e.title}`)}</title></circle>`,
      );
    }
  }
  for (let t = 0; t <= duration; t += niceStep(duration)) {
    parts.push(`<text x="${x(t)}" y="${height - 8}" text-anchor="middle" class="tick">${t} s</text>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="rehearsal timeline">${parts.join('')}</svg>`;
}

function niceStep(duration: number): number {
  for (const step of [10, 15, 30, 60, 120, 300, 600, 1800, 3600]) if (duration / step <= 12) return step;
  return Math.ceil(duration / 12);
}

export function renderHtml(reports: RehearsalReport[]): string {
  const sections = reports.map((r) => {
    const row = (e: TimelineEvent) => {
      const [what, detail] = describeEvent(e);
      return `<tr class="${e.type}"><td>${e.t.toFixed(1)} s</td><td>${escapeHtml(what)}</td><td>${escapeHtml(detail)}</td></tr>`;
    };
    const listed = r.timeline.filter((e) => e.type !== 'incident' && (e.type !== 'decision' || shownDecision(e)));
    const spans = incidentSpans(r.timeline);
    const incidents = spans.map((span) => {
      const inside = listed.filter((e) => spanOf(e.t, spans) === span);
      return `<article class="incident ${escapeHtml(span.severity)}"><h4>${escapeHtml(incidentTitle(span))}</h4>
<p class="meta">${escapeHtml(incidentMeta(span, r.scenario.durationSec))}</p>
<table><tr><th>time</th><th>what</th><th>detail</th></tr>${inside.map(row).join('')}</table></article>`;
    });
    const outside = listed.filter((e) => spanOf(e.t, spans) === null);
    const expectations = r.expectations
      .map(
        (e) =>
          `<tr class="${e.passed ? 'pass' : 'fail'}"><td>${e.passed ? '✓' : '✗'}</td><td>${escapeHtml(e.expectation)}</td><td>${escapeHtml(e.detail)}</td></tr>`,
      )
      .join('');
    const latencies = r.latencies
      .map(
        (l) =>
          `<tr><td>${l.phase}</td><td>${escapeHtml(l.target)}</td><td>${l.faultAtSec} s</td><td>${l.transitionSec === null ? '—' : `${l.transitionSec} s (${l.transitionWallMs} ms)`}</td><td>${l.noticeSec === null ? '—' : `${l.noticeSec} s (${l.noticeWallMs} ms)`}</td></tr>`,
      )
      .join('');
    const restarts = restartRows(r)
      .map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`)
      .join('');
    return `<section><h2>${escapeHtml(r.scenario.name)} <span class="${r.passed ? 'pass' : 'fail'}">${r.passed ? 'passed' : 'failed'}</span></h2>
<p>${escapeHtml(r.scenario.description)}</p>
<p class="meta">${r.scenario.durationSec} s at ${r.scenario.rate} calls/s · time scale ${r.timeScale} (${(r.wallMs / 1000).toFixed(1)} s wall) · format ${escapeHtml(r.format)} · ${r.calls.total} calls, ${r.calls.failed} failed · started ${escapeHtml(r.startedAt)}</p>
${svgTimeline(r)}
<h3>Expectations</h3><table>${expectations}</table>
${restarts ? `<h3>Restarts (as stored)</h3><table><tr><th>#</th><th>trigger</th><th>evidence</th><th>result</th><th>reason</th></tr>${restarts}</table>` : ''}
${latencies ? `<h3>Detection latency</h3><table><tr><th>phase</th><th>fault on</th><th>at</th><th>→ transition</th><th>→ notification</th></tr>${latencies}</table>` : ''}
<h3>Incidents</h3>${incidents.length > 0 ? incidents.join('\n') : '<p>No incident opened.</p>'}
<h3>${spans.length > 0 ? 'Outside the incidents' : 'Timeline'}</h3><table><tr><th>time</th><th>what</th><th>detail</th></tr>${outside.map(row).join('')}</table></section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>BreakerBar rehearsal</title>
<style>
body{font:14px/1.45 -apple-system,system-ui,"Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;margin:24px;color:#222;background:#fff}
.incident{border-left:4px solid #e67e22;padding:2px 0 2px 12px;margin:10px 0}.incident.critical{border-color:#c62828}.incident.info{border-color:#2e7d32}
.incident h4{margin:4px 0;font-size:14px}.span{fill:#e67e22;opacity:.8}.span.critical{fill:#c62828}
h1{font-size:20px}h2{font-size:17px;margin-top:32px}h3{font-size:14px}
table{border-collapse:collapse;margin:6px 0 12px}td,th{padding:2px 10px 2px 0;text-align:left;vertical-align:top}
.pass{color:#2e7d32}.fail{color:#c62828;font-weight:600}.meta{color:#666}
.lbl,.tick{font-size:11px;fill:#444}.grid{stroke:#eee}.fault{fill:#f4c7c3}.restart{fill:#6a1b9a}
.dry{fill:none;stroke:#6a1b9a}.step{stroke:#555;stroke-dasharray:4 3}
.notice{fill:#1565c0}.notice.critical{fill:#c62828}.notice.info{fill:#2e7d32}
@media (prefers-color-scheme:dark){body{background:#1e1e1e;color:#ddd}.lbl,.tick{fill:#bbb}.grid{stroke:#333}.meta{color:#999}}
</style></head><body>
<h1>BreakerBar rehearsal</h1>
<p>${reports.filter((r) => r.passed).length} of ${reports.length} scenario(s) passed. Each scenario reads as its incidents: when one opened, what BreakerBar saw and did while it was open, when it was resolved. Times are scenario seconds; lanes: incidents (orange, red when critical), breakers green closed, yellow half-open, orange throttled, red open; ◆ restarts (◇ dry runs), ● notifications, dashed lines wall-clock steps.</p>
${sections.join('\n')}
</body></html>
`;
}
