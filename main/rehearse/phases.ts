/**
 * Drives a scenario's time: each phase's start and end on wall timers (its faults, the gateway's state, a
 * self-restart, a stall, a clock step), and the tick loop that runs the workload (or a replay) until the
 * scenario's end, recording the gateway's state changes and reporting progress on the way.
 */

import { gatewayRestartLine } from '../simulator/gateway-log-lines.js';
import type { AgentWorkload } from './agent-workload.js';
import { setLaunchdJob } from './fake-tools.js';
import type { GatewayStall } from './fault-injection.js';
import type { RehearsalClock } from './rehearsal-clock.js';
import type { ReplayWriter } from './replay.js';
import { stepWords } from './report-words.js';
import type { Sandbox } from './sandbox.js';
import { INJECTED_OUTCOMES, type Scenario } from './scenario.js';
import type { TimelineRecorder } from './timeline-recorder.js';
import type { Progress } from './types.js';

/** What the phases and the tick loop act on. */
export interface ScenarioRun {
  scenario: Scenario;
  clock: RehearsalClock;
  sandbox: Sandbox;
  recorder: TimelineRecorder;
  stall: GatewayStall;
  workload: AgentWorkload;
  /** Replays a recorded directory instead of the workload's traffic. */
  replay: ReplayWriter | null;
  /** The run's timers, cleared at its end. */
  timers: NodeJS.Timeout[];
  onProgress?: ((progress: Progress) => void) | undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function describePhase(phase: Scenario['phases'][number]): string {
  const parts = Object.entries(phase.deps ?? {}).map(([dep, fault]) => {
    const mix = INJECTED_OUTCOMES.filter((o) => (fault[o] ?? 0) > 0)
      .map((o) => `${o} ${Math.round((fault[o] ?? 0) * 100)}%`)
      .join(', ');
    return `${dep}: ${mix || 'healthy'}${fault.retryAfterSec ? ` (Retry-After ${fault.retryAfterSec} s)` : ''}`;
  });
  if (phase.gateway) parts.push(`gateway ${phase.gateway}`);
  if (phase.selfRestart) {
    const { refuseSec, startingSec, announce } = phase.selfRestart;
    parts.push(
      `gateway restarts itself (refuses ${refuseSec} s, starting ${startingSec} s${announce ? ', logged' : ', not logged'})`,
    );
  }
  if (phase.stalled) parts.push('gateway stalled: no upstream calls, sessions reported stalled');
  if (phase.clockStepSec)
    parts.push(`wall clock stepped ${phase.clockStepSec < 0 ? 'back' : 'forward'} ${stepWords(phase.clockStepSec)}`);
  return parts.join('; ') || 'no faults';
}

/**
 * Phases: fault injections at their start, the gateway back up at their end (unless restarted meanwhile).
 * Returns the label of the phase in force (null: none).
 */
function schedulePhases(run: ScenarioRun): () => string | null {
  const { scenario, clock, sandbox, recorder, stall, timers } = run;
  const { gateway } = sandbox;
  const now = () => clock.now();
  let currentPhase: string | null = null;
  scenario.phases.forEach((phase, index) => {
    const label = phase.label ?? describePhase(phase);
    let restartsAtStart = 0;
    timers.push(
      setTimeout(() => {
        currentPhase = label;
        restartsAtStart = gateway.restarts;
        if (phase.restartSec !== undefined) sandbox.gatewayOptions.restartMs = clock.toWallMs(phase.restartSec);
        recorder.push({
          t: now(),
          type: 'phase',
          index,
          label,
          deps: Object.keys(phase.deps ?? {}),
          gateway: phase.gateway ?? null,
        });
        if (phase.clockStepSec) {
          clock.step(phase.clockStepSec);
          recorder.push({
            t: now(),
            type: 'clock_step',
            stepSec: phase.clockStepSec,
            offsetSec: clock.offsetMs / 1000,
          });
        }
        if (phase.launchdUnloads && sandbox.tools) setLaunchdJob(sandbox.tools, 'unloaded');
        if (phase.gateway) gateway.state = phase.gateway;
        if (phase.selfRestart) {
          const { refuseSec, startingSec, announce } = phase.selfRestart;
          // OpenClaw logs the signal first, then its port goes away.
          if (announce) sandbox.appendGatewayLog(clock.wallNow(), [gatewayRestartLine(clock.wallNow())]);
          void gateway.restart({ refuseMs: clock.toWallMs(refuseSec), startingMs: clock.toWallMs(startingSec) });
        }
        if (phase.stalled) stall.begin(index, now());
      }, clock.toWallMs(phase.atSec)),
      setTimeout(
        () => {
          recorder.push({ t: now(), type: 'phase_end', index, label });
          if (currentPhase === label) currentPhase = null;
          const nextSetsGateway = scenario.phases.some(
            (p) => p !== phase && p.gateway && Math.abs(p.atSec - (phase.atSec + phase.durationSec)) < 1e-9,
          );
          // A fault lasting to the scenario's end stays in force while the run is judged.
          const toTheEnd = phase.atSec + phase.durationSec >= scenario.durationSec;
          if (
            phase.gateway &&
            !toTheEnd &&
            !nextSetsGateway &&
            gateway.state === phase.gateway &&
            gateway.restarts === restartsAtStart
          ) {
            gateway.state = 'up';
          }
        },
        clock.toWallMs(Math.min(phase.atSec + phase.durationSec, scenario.durationSec)),
      ),
    );
  });
  return () => currentPhase;
}

/** Runs the scenario from its second 0 (now) to its end: phases on their timers, the workload on every tick. */
export async function driveScenario(run: ScenarioRun): Promise<void> {
  const { scenario, clock, sandbox, recorder, stall, workload, replay, onProgress } = run;
  const { gateway } = sandbox;
  const currentPhase = schedulePhases(run);

  // The workload: due requests every tick, at the compressed rate; the gateway's state watched.
  const endWall = clock.toWallMs(scenario.durationSec);
  let lastState = gateway.state;
  let lastProgress = 0;
  while (clock.elapsedMs() < endWall) {
    const sec = clock.now();
    if (replay) {
      // The replay's start on the wall clock as it reads now (a step moves it too).
      replay.writeUntil(sec, clock.wallNow() - clock.elapsedMs());
      workload.calls.total = replay.calls;
    }
    workload.tick(sec, !replay, stall);
    if (gateway.state !== lastState) {
      lastState = gateway.state;
      recorder.push({ t: clock.now(), type: 'gateway', state: lastState });
    }
    if (onProgress && Date.now() - lastProgress >= 250) {
      lastProgress = Date.now();
      onProgress({
        scenario: scenario.name,
        sec: Math.min(sec, scenario.durationSec),
        durationSec: scenario.durationSec,
        calls: workload.calls.total,
        transitions: recorder.transitions,
        restarts: recorder.restarts(),
        notices: recorder.notices,
        phase: currentPhase(),
      });
    }
    await sleep(10);
  }
}
