/**
 * Judging and showing a rehearsal: the expectations as predicates over the
 * recorded timeline, the report as a text table, and as one self-contained
 * HTML page (inline CSS, an inline SVG timeline drawn from the data).
 */

import { toMs } from '../core/config/schema.js';
import { formatters } from '../shared/i18n.js';
import type { FakeCall } from './fake-tools.js';
import type { Expectation, Scenario } from './scenario.js';
import type { ExpectationResult, RehearsalReport, TimelineEvent } from './types.js';

type StoredRestart = RehearsalReport['restarts'][number];

export interface EvaluateContext {
  scale: number;
  /** Pipeline allowance in scenario seconds, added to "within" bounds. */
  slackSec: number;
  /** Retry-After values the workload wrote (scenario seconds). */
  written: Array<{ t: number; dep: string; retryAfterSec: number }>;
  maxDeferralSec: number;
  /** Every row of the restarts table at the end, dry runs included (default: none). */
  restarts?: StoredRestart[];
  /** Every call of the faked programs, in order (default: none). */
  commands?: FakeCall[];
}

const fmt = (n: number) => `${Math.round(n * 10) / 10} s`;

/** The report is English (as the scenarios are written); durations read as everywhere else. */
const EN = formatters('en');

/** `2 h`, `1 min 30 s`: a clock step's size (either way) in words. */
export function stepWords(sec: number): string {
  return EN.duration(toMs(Math.abs(sec), 'sec'));
}

const inPhase = (phase: number | undefined) => (phase === undefined ? '' : ` during phase ${phase}`);

export function describeExpectation(e: Expectation): string {
  switch (e.kind) {
    case 'breaker_state':
      return `${e.dep} breaker ${e.state === 'tripped' ? 'opens or throttles' : `goes ${e.state}`} within ${e.withinSec} s of phase ${e.afterPhase ?? 0}`;
    case 'restarts': {
      if (e.count !== undefined) return `exactly ${e.count} restart${e.count === 1 ? '' : 's'}${inPhase(e.phase)}`;
      const parts = [
        e.min === undefined ? null : `at least ${e.min}`,
        e.max === undefined ? null : `at most ${e.max} (budget)`,
      ];
      return `restarts${inPhase(e.phase)}: ${parts.filter(Boolean).join(', ')}`;
    }
    case 'restart_spacing':
      return `restarts at least ${e.minSec} s apart`;
    case 'no_restart_while_retry_after':
      return 'no restart while a Retry-After is in force';
    case 'no_restart_while_starting':
      return 'no restart while the gateway reports starting';
    case 'notification':
      return `notification ${e.notice}${e.dep ? ` for ${e.dep}` : ''}`;
    case 'notification_count':
      return `notification ${e.notice}${e.dep ? ` for ${e.dep}` : ''} raised exactly ${e.count === 1 ? 'once' : `${e.count} times`}`;
    case 'no_notification':
      return `no notification ${e.notice}${e.dep ? ` for ${e.dep}` : ''}`;
    case 'decision':
      return `watchdog decision ${e.decision}${e.reasonIncludes ? ` saying "${e.reasonIncludes}"` : ''}${inPhase(e.phase)}`;
    case 'no_decision':
      return `no watchdog decision ${e.decision}${inPhase(e.phase)}`;
    case 'restart_evidence':
      return `every restart stored with evidence ${e.evidence}${e.count === undefined ? '' : ` (${e.count})`}`;
    case 'restart_result':
      return `every restart ends ${e.result}`;
    case 'stays_closed':
      return `${e.dep} breaker stays closed`;
    case 'no_notifications':
      return 'no notification';
    case 'no_restart':
      return 'no restart (not even a dry run)';
    case 'commands':
      return `${e.program} called with ${e.sequence.map((s) => `"${s}"`).join(', then ')}, and nothing else naming them`;
  }
}

function restartsOf(timeline: TimelineEvent[]) {
  return timeline.filter((e): e is Extract<TimelineEvent, { type: 'restart' }> => e.type === 'restart');
}

/** Scenario seconds from a phase's start to its end plus the pipeline allowance; null when it never started. */
function phaseWindow(
  index: number,
  scenario: Scenario,
  timeline: TimelineEvent[],
  ctx: EvaluateContext,
): { from: number; to: number } | null {
  const start = timeline.find((x) => x.type === 'phase' && x.index === index);
  const phase = scenario.phases[index];
  if (!start || !phase) return null;
  return { from: start.t, to: phase.atSec + phase.durationSec + ctx.slackSec };
}

/**
 * How often a notice was raised: for a watchdog alert, each time the watchdog raised it (before coalescing);
 * for any notice, the notices the notifier sent, a coalesced summary counting every notice it folds.
 */
function raised(kind: string, dep: string | undefined, timeline: TimelineEvent[]): { raised: number; sent: number } {
  let alerts = 0;
  let folded = 0;
  let sent = 0;
  for (const x of timeline) {
    if (x.type === 'decision' && (dep === undefined || x.dep === dep)) {
      alerts += x.alerts.filter((a) => a === kind).length;
    }
    if (x.type === 'notice' && x.notice === kind && (dep === undefined || x.dep === dep)) {
      sent++;
      folded += x.count;
    }
  }
  return { raised: Math.max(alerts, folded), sent };
}

const times = (n: number) => (n === 1 ? 'once' : `${n} times`);

function check(e: Expectation, scenario: Scenario, timeline: TimelineEvent[], ctx: EvaluateContext): [boolean, string] {
  const restarts = restartsOf(timeline);
  const stored = (ctx.restarts ?? []).filter((r) => r.result !== 'dry_run');
  const at = (list: Array<{ t: number }>) => list.map((r) => fmt(r.t)).join(', ') || 'none';
  const windowed = <T extends { t: number }>(list: T[], phase: number | undefined): T[] | null => {
    if (phase === undefined) return list;
    const w = phaseWindow(phase, scenario, timeline, ctx);
    return w === null ? null : list.filter((x) => x.t >= w.from && x.t <= w.to);
  };
  switch (e.kind) {
    case 'breaker_state': {
      const index = e.afterPhase ?? scenario.phases.findIndex((p) => p.deps?.[e.dep] !== undefined);
      const start = timeline.find((x) => x.type === 'phase' && x.index === Math.max(0, index));
      if (!start) return [false, `phase ${index} never started`];
      const states = e.state === 'tripped' ? ['open', 'throttled'] : [e.state];
      const hit = timeline.find(
        (x) => x.type === 'transition' && x.dep === e.dep && states.includes(x.to) && x.t >= start.t,
      );
      if (!hit) return [false, `no transition of ${e.dep} to ${states.join('/')} after ${fmt(start.t)}`];
      const latency = hit.t - start.t;
      return [
        latency <= e.withinSec + ctx.slackSec,
        `${hit.type === 'transition' ? `${hit.from} → ${hit.to}` : ''} after ${fmt(latency)} (bound ${e.withinSec} s + ${fmt(ctx.slackSec)} pipeline allowance)`,
      ];
    }
    case 'restarts': {
      const list = windowed(restarts, e.phase);
      if (list === null) return [false, `phase ${e.phase} never started`];
      const n = list.length;
      const ok =
        (e.count === undefined || n === e.count) &&
        (e.min === undefined || n >= e.min) &&
        (e.max === undefined || n <= e.max);
      const all = e.phase === undefined ? '' : ` (all restarts: ${at(restarts)})`;
      return [ok, `${n} restart${n === 1 ? '' : 's'} at ${at(list)}${all}`];
    }
    case 'restart_spacing': {
      let closest = Number.POSITIVE_INFINITY;
      for (let i = 1; i < restarts.length; i++) {
        closest = Math.min(closest, (restarts[i]?.t ?? 0) - (restarts[i - 1]?.t ?? 0));
      }
      if (!Number.isFinite(closest)) return [true, `${restarts.length} restart(s): nothing to space`];
      // Both ends are the core's own decisions: no pipeline allowance, 1 % for timer granularity.
      return [closest >= e.minSec * 0.99, `closest restarts ${fmt(closest)} apart (at ${at(restarts)})`];
    }
    case 'no_restart_while_retry_after': {
      const storm = restarts.filter((r) => r.trigger === 'storm');
      const firstDeferral = timeline.find((x) => x.type === 'decision' && x.decision === 'deferred');
      for (const r of storm) {
        // Retry-Afters the core could know of: written at least the pipeline allowance before the restart.
        const deadline = Math.max(
          0,
          ...ctx.written.filter((w) => w.t <= r.t - ctx.slackSec).map((w) => w.t + w.retryAfterSec),
        );
        const capped = firstDeferral !== undefined && r.t - firstDeferral.t >= ctx.maxDeferralSec - ctx.slackSec;
        if (r.t < deadline - ctx.slackSec && !capped) {
          return [false, `storm restart at ${fmt(r.t)} while a Retry-After ran until ${fmt(deadline)}`];
        }
      }
      const lastDeadline = Math.max(0, ...ctx.written.map((w) => w.t + w.retryAfterSec));
      return [
        true,
        `${storm.length} storm restart(s) at ${at(storm)}; Retry-After in force until ${fmt(lastDeadline)}`,
      ];
    }
    case 'no_restart_while_starting': {
      for (const r of restarts) {
        const state = [...timeline].reverse().find((x) => x.type === 'gateway' && x.t <= r.t - ctx.slackSec);
        if (state?.type === 'gateway' && state.state === 'starting') {
          return [false, `restart at ${fmt(r.t)} while the gateway was starting (since ${fmt(state.t)})`];
        }
      }
      return [true, `${restarts.length} restart(s), none while starting`];
    }
    case 'notification': {
      const hit = timeline.find(
        (x) => x.type === 'notice' && x.notice === e.notice && (e.dep === undefined || x.dep === e.dep),
      );
      return hit ? [true, `at ${fmt(hit.t)}${hit.type === 'notice' ? `: ${hit.title}` : ''}`] : [false, 'never sent'];
    }
    case 'notification_count':
    case 'no_notification': {
      const want = e.kind === 'no_notification' ? 0 : e.count;
      const n = raised(e.notice, e.dep, timeline);
      const first = timeline.find((x) => x.type === 'notice' && x.notice === e.notice);
      const detail =
        n.raised === 0
          ? 'never raised'
          : `raised ${times(n.raised)}, sent as ${n.sent} notification${n.sent === 1 ? '' : 's'}${first?.type === 'notice' ? `, first at ${fmt(first.t)}: ${first.title}` : ''}`;
      return [n.raised === want, detail];
    }
    case 'decision':
    case 'no_decision': {
      const wanted = e.kind === 'decision' ? e.reasonIncludes : undefined;
      const list = windowed(
        timeline.filter(
          (x) =>
            x.type === 'decision' && x.decision === e.decision && (wanted === undefined || x.reason.includes(wanted)),
        ),
        e.phase,
      );
      if (list === null) return [false, `phase ${e.phase} never started`];
      const first = list[0];
      const detail =
        first?.type === 'decision' ? `${list.length}×, first at ${fmt(first.t)}: ${first.reason}` : 'never decided';
      return [e.kind === 'decision' ? list.length > 0 : list.length === 0, detail];
    }
    case 'restart_evidence': {
      const matching = stored.filter((r) => r.evidence === e.evidence);
      const other = stored.filter((r) => r.evidence !== e.evidence);
      const list = stored.map((r) => `#${r.id} ${r.evidence ?? '(none)'}`).join(', ') || 'no restart';
      const countOk = e.count === undefined ? matching.length > 0 : matching.length === e.count;
      return [countOk && other.length === 0, `stored evidence: ${list}`];
    }
    case 'restart_result': {
      const list = stored.map((r) => `#${r.id} ${r.result}`).join(', ') || 'no restart';
      return [stored.length > 0 && stored.every((r) => r.result === e.result), `stored results: ${list}`];
    }
    case 'stays_closed': {
      const hit = timeline.find((x) => x.type === 'transition' && x.dep === e.dep);
      return hit?.type === 'transition'
        ? [false, `${hit.from} → ${hit.to} at ${fmt(hit.t)}: ${hit.reason}`]
        : [true, 'no transition'];
    }
    case 'no_notifications': {
      const sent = timeline.filter((x) => x.type === 'notice');
      return [
        sent.length === 0,
        sent.length === 0
          ? 'none sent'
          : `${sent.length} sent: ${sent.map((x) => (x.type === 'notice' ? x.notice : '')).join(', ')}`,
      ];
    }
    case 'commands': {
      const calls = (ctx.commands ?? []).filter((c) => c.program === e.program).map((c) => c.args.join(' '));
      const relevant = calls.filter((line) => e.sequence.some((s) => line.includes(s)));
      const ok =
        relevant.length === e.sequence.length && relevant.every((line, i) => line.includes(e.sequence[i] as string));
      const shown = relevant.map((line) => `"${line}"`).join(', ') || 'none';
      return [ok, `${calls.length} call${calls.length === 1 ? '' : 's'} of ${e.program}; matching: ${shown}`];
    }
    case 'no_restart': {
      const rows = ctx.restarts ?? [];
      const dry = timeline.filter((x) => x.type === 'dry_run');
      const none = restarts.length === 0 && dry.length === 0 && rows.length === 0;
      if (none) return [true, 'none (no restart row stored)'];
      const parts = [
        restarts.length > 0 ? `${restarts.length} at ${at(restarts)}` : null,
        dry.length > 0 ? `${dry.length} dry run${dry.length === 1 ? '' : 's'} at ${at(dry)}` : null,
        `${rows.length} restart row${rows.length === 1 ? '' : 's'} stored (${rows.map((r) => `#${r.id} ${r.result}`).join(', ')})`,
      ];
      return [false, parts.filter(Boolean).join('; ')];
    }
  }
}

export function evaluate(scenario: Scenario, timeline: TimelineEvent[], ctx: EvaluateContext): ExpectationResult[] {
  return scenario.expectations.map((e) => {
    const [passed, detail] = check(e, scenario, timeline, ctx);
    return { expectation: describeExpectation(e), passed, detail };
  });
}

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
function spanOf(t: number, spans: readonly IncidentSpan[]): IncidentSpan | null {
  return spans.find((s) => t >= s.openedAt && (s.closedAt === null || t <= s.closedAt)) ?? null;
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
const shownDecision = (e: Extract<TimelineEvent, { type: 'decision' }>) =>
  SHOWN_DECISIONS.has(e.decision) || e.alerts.length > 0;

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

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

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

/** The stored restarts as table rows: what ran, on what evidence, and how it ended. */
function restartRows(report: RehearsalReport): string[][] {
  return (report.restarts ?? []).map((r) => [`${r.id}`, r.trigger, r.evidence ?? '—', r.result, clip(r.reason, 100)]);
}

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

/** "Incident #1 · 429 storm on zhipu/glm-5.1 (warning)". */
function incidentTitle(span: IncidentSpan): string {
  return `Incident #${span.id} · ${span.summary || span.causes.join(', ')} (${span.severity})`;
}

/** When it opened and how it ended, in scenario seconds; what it touched. */
function incidentMeta(span: IncidentSpan, durationSec: number): string {
  const end =
    span.closedAt === null
      ? `still open when the scenario ended at ${durationSec} s`
      : `resolved at ${span.closedAt.toFixed(1)} s after ${fmt(span.closedAt - span.openedAt)}`;
  const deps = span.deps.length > 0 ? ` · ${span.deps.join(', ')}` : '';
  return `opened at ${span.openedAt.toFixed(1)} s · ${end} · causes: ${span.causes.join(', ')}${deps}`;
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
