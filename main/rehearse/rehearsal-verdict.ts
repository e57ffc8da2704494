/**
 * The end of a rehearsal: what the run recorded turned into its report. The restarts as the core stored
 * them, the detection latency of each injected fault, the calls of the faked programs, and the scenario's
 * expectations judged against all of it (see expectations.ts).
 */
import type { Config } from '../core/config/index.js';
import type { GatewayHistory } from '../core/store/gateway-history.js';
import type { AgentWorkload } from './agent-workload.js';
import { evaluate } from './expectations.js';
import { readFakeCalls } from './fake-tools.js';
import { describePhase } from './phases.js';
import type { RehearsalClock } from './rehearsal-clock.js';
import { policyOf } from './rehearsal-config.js';
import type { Sandbox } from './sandbox.js';
import { INJECTED_OUTCOMES, type Scenario } from './scenario.js';
import type { TimelineRecorder } from './timeline-recorder.js';
import type { Format, Latency, RehearsalReport, TimelineEvent } from './types.js';

const round = (n: number) => Math.round(n * 100) / 100;

/** Per injected fault: its start → the first transition of the affected dependency, → the first notice about it. */
function measureLatencies(
  scenario: Scenario,
  timeline: TimelineEvent[],
  wallTimes: WeakMap<TimelineEvent, number>,
): Latency[] {
  const out: Latency[] = [];
  scenario.phases.forEach((phase, index) => {
    const start = timeline.find((e) => e.type === 'phase' && e.index === index);
    if (!start) return;
    const startWall = wallTimes.get(start) ?? 0;
    const end = phase.atSec + phase.durationSec;
    const targets: string[] = Object.entries(phase.deps ?? {})
      .filter(([, fault]) => INJECTED_OUTCOMES.some((o) => (fault[o] ?? 0) >= 0.5))
      .map(([dep]) => dep);
    if (phase.gateway && phase.gateway !== 'up') targets.push('gateway');
    for (const target of targets) {
      const within = (e: TimelineEvent) => e.t >= start.t && e.t <= end + 60;
      const transition =
        target === 'gateway'
          ? timeline.find((e) => within(e) && e.type === 'decision' && ['dead', 'restart'].includes(e.decision))
          : timeline.find((e) => within(e) && e.type === 'transition' && e.dep === target && e.from === 'closed');
      const notice = timeline.find(
        (e) => within(e) && e.type === 'notice' && (target === 'gateway' ? e.dep === null : e.dep === target),
      );
      const wallOf = (e: TimelineEvent | undefined) =>
        e === undefined ? null : Math.max(0, Math.round((wallTimes.get(e) ?? 0) - startWall));
      out.push({
        phase: index,
        label: phase.label ?? describePhase(phase),
        target,
        faultAtSec: round(start.t),
        transitionSec: transition ? round(transition.t - start.t) : null,
        noticeSec: notice ? round(notice.t - start.t) : null,
        transitionWallMs: wallOf(transition),
        noticeWallMs: wallOf(notice),
      });
    }
  });
  return out;
}

/** A finished run, as the report needs it. */
export interface FinishedRun {
  scenario: Scenario;
  format: Format;
  slackMs: number;
  /** When the run started (ISO). */
  startedAt: string;
  /** The state directory, when it is kept. */
  stateDir: string | null;
  clock: RehearsalClock;
  /** The config in scenario units. */
  unscaled: Config;
  /** The core's restarts table. */
  history: GatewayHistory;
  recorder: TimelineRecorder;
  workload: AgentWorkload;
  sandbox: Pick<Sandbox, 'tools'>;
}

/** The report of a run that has just ended (its wall time is taken now). */
export function judgeRehearsal(run: FinishedRun): RehearsalReport {
  const { scenario, clock, unscaled, recorder, workload, slackMs } = run;
  const { scale } = clock;
  const { timeline } = recorder;
  const wallMs = Math.round(clock.elapsedMs());
  const policy = policyOf(unscaled);
  // The restarts table is the record: by insertion, whatever the wall clock did to their times.
  const restarts = run.history
    .restarts(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 100_000)
    .sort((a, b) => a.id - b.id)
    .map(({ id, trigger, evidence, result, reason, detail }) => ({ id, trigger, evidence, result, reason, detail }));
  const latencies = measureLatencies(scenario, timeline, recorder.wallTimes);
  const commands = run.sandbox.tools ? readFakeCalls(run.sandbox.tools) : [];
  const expectations = evaluate(scenario, timeline, {
    scale,
    slackSec: (slackMs * scale) / 1000,
    written: workload.written.map((w) => ({ t: w.t, dep: w.dep, retryAfterSec: (w.retryAfterMs * scale) / 1000 })),
    maxDeferralSec: unscaled.watchdog.maxDeferralSec,
    restarts,
    commands,
  });
  return {
    scenario: {
      name: scenario.name,
      description: scenario.description,
      durationSec: scenario.durationSec,
      rate: scenario.rate,
    },
    timeScale: scale,
    format: run.format,
    slackMs,
    startedAt: run.startedAt,
    wallMs,
    stateDir: run.stateDir,
    calls: workload.calls,
    policy,
    timeline: timeline.map((e) => ({ ...e, t: round(e.t) })),
    restarts,
    commands,
    latencies,
    expectations,
    passed: expectations.every((e) => e.passed),
  };
}
