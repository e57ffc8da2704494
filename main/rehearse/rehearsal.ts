/**
 * Runs one rehearsal: a simulated gateway on loopback, a simulated agent
 * workload writing real OpenClaw records into a temporary state directory, and
 * BreakerBar's real core (an in-process Monitor, as the daemon runs it) with
 * the simulated gateway's restart as its restart command. Records what the
 * core did as a timeline and checks the scenario's expectations against it.
 *
 * Time compression: scenario seconds are divided by `timeScale` for wall time,
 * and every duration of the config is divided by the same factor (see time-scale.ts), so
 * the core takes the same decisions in seconds that it takes in minutes.
 *
 * This module puts the parts together, in order: the clocks (rehearsal-clock.ts), the sandbox (sandbox.ts)
 * and the config pointed at it (rehearsal-config.ts), the workload and its faults (agent-workload.ts,
 * fault-injection.ts), the core with the recorder listening (timeline-recorder.ts), the scenario's time
 * (phases.ts), and the verdict (rehearsal-verdict.ts); whatever happens, it tears the sandbox down.
 */

import { Monitor } from '../api/root/monitor.js';
import { silentLogger } from '../core/runtime/log.js';
import { seededRandom } from '../simulator/records.js';
import { AgentWorkload } from './agent-workload.js';
import { GatewayStall } from './fault-injection.js';
import { driveScenario } from './phases.js';
import { RehearsalClock } from './rehearsal-clock.js';
import { rehearsalConfig } from './rehearsal-config.js';
import { judgeRehearsal } from './rehearsal-verdict.js';
import { type ReplayPlan, ReplayWriter } from './replay.js';
import { Sandbox } from './sandbox.js';
import type { Scenario } from './scenario.js';
import { TimelineRecorder } from './timeline-recorder.js';
import type { Format, Progress, RehearsalReport } from './types.js';

export interface RehearsalOptions {
  /** Scenario seconds per wall second (default 1: real time). */
  timeScale?: number;
  format?: Format;
  /** Seed of the workload's random choices (default 1). */
  seed?: number;
  /**
   * Wall-clock allowance added to time-bounded expectations ("within 10 s"): file
   * watching and ingest take real milliseconds that compression cannot shrink.
   * Default 200 ms.
   */
  slackMs?: number;
  /**
   * Test hook: BreakerBar config merged over the scenario's (unscaled units), e.g.
   * a deliberately broken policy `{ watchdog: { maxRestartsPerHour: 1000, restartSpacingSec: 1 } }`.
   */
  configOverride?: Record<string, unknown>;
  /**
   * Test hook: the watchdog judges its durations on the wall clock instead of the monotonic one (as
   * before it had one), so a clock-step scenario can be shown to fail without it.
   */
  durationsOnWallClock?: boolean;
  /** Called about every 250 ms wall with the progress so far. */
  onProgress?: (progress: Progress) => void;
  /** Keep the temporary state directory (its path is in the report). */
  keepStateDir?: boolean;
  /** Replay a recorded directory instead of generating traffic (see replay.ts); time scale = speed. */
  replay?: ReplayPlan;
}

export async function runRehearsal(scenario: Scenario, options: RehearsalOptions = {}): Promise<RehearsalReport> {
  const scale = options.timeScale ?? 1;
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError('timeScale must be a positive number');
  const format = options.format ?? 'jsonl';
  const slackMs = options.slackMs ?? 200;
  const random = seededRandom(options.seed ?? 1);
  const clock = new RehearsalClock(scale);
  /** The run's timers (phases, deferred restarts): cleared at its end. */
  const timers: NodeJS.Timeout[] = [];
  const sandbox = await Sandbox.open(scenario, clock, timers);
  const { unscaled, loaded } = rehearsalConfig(sandbox, scenario.config, options.configOverride, scale);
  sandbox.prepare(scenario, clock);

  const recorder = new TimelineRecorder(clock);
  const stall = new GatewayStall(scenario.phases, sandbox, clock);
  const workload = new AgentWorkload(scenario, format, random, clock, sandbox);
  let monitor: Monitor | null = null;
  const startedAt = new Date().toISOString();
  let report: RehearsalReport;
  try {
    monitor = new Monitor(loaded, {
      log: silentLogger,
      desktop: null,
      serve: true,
      gateway: true,
      clock: clock.wallNow,
      monotonic: options.durationsOnWallClock ? clock.wallNow : clock.mono,
      // OpenClaw's cooldown state is polled every 5 s: compressed like every other period, when a scenario has one.
      ...(scenario.cooldowns ? { cooldownPollMs: Math.max(50, Math.round(5000 / scale)) } : {}),
      incidentsEvaluateMs: Math.max(50, Math.round(5000 / scale)),
      ...(sandbox.environment ? { environment: sandbox.environment } : {}),
    });
    await monitor.start();
    const side = monitor.gateway;
    const breakers = monitor.breakers;
    if (!side || !breakers) throw new Error('the monitor started without its gateway side or breakers');
    clock.start();
    recorder.listen(breakers, side, monitor.incidents);
    recorder.push({ t: 0, type: 'gateway', state: sandbox.gateway.state });
    const replay = options.replay
      ? new ReplayWriter(options.replay, { openclawDir: sandbox.openclawDir, logDir: sandbox.logDir }, scale)
      : null;
    await driveScenario({
      scenario,
      clock,
      sandbox,
      recorder,
      stall,
      workload,
      replay,
      timers,
      onProgress: options.onProgress,
    });
    // Let the pipeline catch up with the last writes before judging.
    await new Promise<void>((resolve) => setTimeout(resolve, slackMs));
    report = judgeRehearsal({
      scenario,
      format,
      slackMs,
      startedAt,
      stateDir: options.keepStateDir ? sandbox.root : null,
      clock,
      unscaled,
      history: side.history,
      recorder,
      workload,
      sandbox,
    });
  } finally {
    for (const timer of timers) clearTimeout(timer);
    await monitor?.stop().catch(() => {});
    await sandbox.stop();
    workload.close();
    sandbox.remove(Boolean(options.keepStateDir));
  }
  return report;
}
