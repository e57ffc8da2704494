/**
 * The scenario's expectations, judged as predicates over the recorded timeline (and the restarts table and the
 * faked programs' calls at the end), each with a sentence saying what it expects and a detail saying what
 * happened instead or how: the verdict a rehearsal passes or fails on.
 */
import type { FakeCall } from './fake-tools.js';
import { fmt } from './report-words.js';
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
