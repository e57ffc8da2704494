/**
 * Every built-in rehearsal scenario passes against BreakerBar's real core with
 * compressed time (each about 8–9 s of wall time), across the record formats;
 * and a deliberately broken rule makes each watchdog scenario fail, proving
 * the expectations can fail: a broken policy (flapping), no deadAfter
 * (in-process restart), durations on the wall clock (clock step, both ways),
 * the hung rule off (hung gateway), a gateway once seen healthy (no gateway),
 * a forced instead of a safe CLI restart (deferred restart), a job launchd
 * kept loaded (LaunchAgent unloaded), no OpenClaw cooldown (storm during
 * cooldown).
 * A scenario the core fails today (a gap the rehearsal found) is checked to
 * fail exactly as recorded in its plan. Run one after another: they measure timing.
 */
import { describe, expect, it } from 'vitest';
import { runRehearsal } from '../../main/rehearse/rehearsal.js';
import type { Scenario } from '../../main/rehearse/scenario.js';
import { BUILT_IN_SCENARIOS, builtInScenario } from '../../main/rehearse/scenarios.js';
import type { Format, RehearsalReport } from '../../main/rehearse/types.js';

const PLAN: Record<string, { scale: number; format: Format }> = {
  'original-429-storm': { scale: 110, format: 'jsonl' },
  '503-injection': { scale: 36, format: 'all' },
  'two-deps-failing': { scale: 30, format: 'gatewaylog' },
  'flapping-gateway': { scale: 75, format: 'jsonl' },
  'slow-start': { scale: 75, format: 'sqlite' },
  'retry-after-defers': { scale: 52, format: 'jsonl' },
  'healthy-control': { scale: 36, format: 'all' },
  'in-process-restart': { scale: 22, format: 'all' },
  'clock-step': { scale: 75, format: 'jsonl' },
  'hung-gateway': { scale: 90, format: 'jsonl' },
  'no-gateway': { scale: 75, format: 'jsonl' },
  'safe-restart-deferred': { scale: 45, format: 'jsonl' },
  'launchagent-unloaded': { scale: 25, format: 'jsonl' },
  'storm-during-cooldown': { scale: 50, format: 'jsonl' },
};

function scenarioNamed(name: string): Scenario {
  const scenario = builtInScenario(name);
  if (!scenario) throw new Error(`no built-in ${name}`);
  return scenario;
}

const failed = (report: RehearsalReport) => report.expectations.filter((e) => !e.passed).map((e) => e.expectation);

function failures(report: RehearsalReport): string {
  return report.expectations
    .filter((e) => !e.passed)
    .map((e) => `${e.expectation}: ${e.detail}`)
    .join('\n');
}

describe.sequential('built-in scenarios', () => {
  it('every built-in has a plan here', () => {
    expect(BUILT_IN_SCENARIOS.map((s) => s.name).sort()).toEqual(Object.keys(PLAN).sort());
  });

  for (const [name, { scale, format }] of Object.entries(PLAN)) {
    it(`${name} passes at time scale ${scale} (${format})`, async () => {
      const scenario = scenarioNamed(name);
      const report = await runRehearsal(scenario, { timeScale: scale, format });
      expect(failures(report)).toBe('');
      expect(report.passed).toBe(true);
      // Stalled phases make no calls, by design (and no-gateway none at all); elsewhere the workload keeps its rate.
      if (scenario.rate > 0 && !scenario.phases.some((p) => p.stalled)) {
        expect(report.calls.total).toBeGreaterThan(scenario.durationSec * scenario.rate * 0.8);
      }
      if (name === 'healthy-control') {
        expect(report.timeline.filter((e) => ['transition', 'restart', 'notice'].includes(e.type))).toEqual([]);
      }
      if (name === 'hung-gateway') {
        // Calls resumed after the restart ended the stall (about 600 before it).
        expect(report.calls.total).toBeGreaterThan(scenario.rate * 120);
      }
    }, 30_000);
  }

  it('a broken policy (restart budget and spacing disabled) makes the flapping scenario fail', async () => {
    const scenario = builtInScenario('flapping-gateway');
    if (!scenario) throw new Error('no flapping-gateway');
    const report = await runRehearsal(scenario, {
      timeScale: 75,
      // Every outage a death at once (no deadAfter) and a short grace, so that only the budget and the spacing
      // could hold restarts back.
      configOverride: {
        watchdog: { maxRestartsPerHour: 1000, restartSpacingSec: 1, deadAfterSec: 0, startupGraceSec: 20 },
      },
    });
    expect(report.passed).toBe(false);
    const budget = report.expectations.find((e) => e.expectation.startsWith('restarts: at least 1, at most 4'));
    expect(budget?.passed).toBe(false);
    expect(report.timeline.filter((e) => e.type === 'restart').length).toBeGreaterThan(4);
  }, 30_000);

  it('without deadAfter, the in-process restart the log does not announce is taken for a death', async () => {
    const report = await runRehearsal(scenarioNamed('in-process-restart'), {
      timeScale: 22,
      configOverride: { watchdog: { deadAfterSec: 0 } },
    });
    expect(failed(report)).toEqual(
      expect.arrayContaining(['no restart (not even a dry run)', 'no notification gateway_down']),
    );
    // The announced one is still held: the gateway said it was restarting.
    expect(failed(report)).not.toContain('watchdog decision gateway_restarted during phase 0');
    expect(report.restarts.map((r) => r.evidence)).toContain('dead');
  }, 30_000);

  it('with durations on the wall clock, the step back holds the next restart for hours', async () => {
    const report = await runRehearsal(scenarioNamed('clock-step'), { timeScale: 75, durationsOnWallClock: true });
    expect(failed(report)).toContain('exactly 1 restart during phase 2');
    // Held by the last restart seen "in the future": its spacing, or its recovery grace if that was still running.
    const held = report.timeline.filter(
      (e) => e.type === 'decision' && e.t > 140 && (e.decision === 'spacing' || e.decision === 'recovering'),
    );
    expect(held.length).toBeGreaterThan(0);
  }, 30_000);

  it('with durations on the wall clock, the step forward forgets the budget and restarts once too often', async () => {
    const both = scenarioNamed('clock-step');
    // The same deaths and the forward step, without the step back before it.
    const forwardOnly: Scenario = {
      ...both,
      phases: both.phases.map(({ clockStepSec, ...phase }) =>
        clockStepSec !== undefined && clockStepSec < 0 ? phase : { ...phase, clockStepSec },
      ),
    };
    const report = await runRehearsal(forwardOnly, { timeScale: 75, durationsOnWallClock: true });
    expect(failed(report)).toEqual(
      expect.arrayContaining([
        'exactly 3 restarts',
        'exactly 0 restarts during phase 5',
        'notification restart_budget_exhausted raised exactly once',
      ]),
    );
    expect(report.timeline.filter((e) => e.type === 'restart').length).toBe(4);
  }, 30_000);

  it('with the hung rule off, the hung gateway is never restarted and the scenario fails', async () => {
    const report = await runRehearsal(scenarioNamed('hung-gateway'), {
      timeScale: 90,
      configOverride: { watchdog: { hungAfterSec: 86_400 } },
    });
    expect(failed(report)).toEqual(
      expect.arrayContaining(['exactly 1 restart', 'every restart stored with evidence hung (1)']),
    );
  }, 30_000);

  it('a storm restart through the openclaw CLI with --force instead of --safe fails the deferred-restart scenario', async () => {
    const report = await runRehearsal(scenarioNamed('safe-restart-deferred'), {
      timeScale: 45,
      configOverride: { watchdog: { stormRestart: 'force' } },
    });
    expect(failed(report)).toEqual([
      'openclaw called with "gateway restart --json --safe", and nothing else naming them',
    ]);
    expect(report.commands.map((c) => c.args.join(' '))).toEqual(['gateway restart --json --force']);
  }, 30_000);

  it('a gateway that dies while its LaunchAgent stays loaded is restarted as dead, with kickstart -k', async () => {
    const unloaded = scenarioNamed('launchagent-unloaded');
    const loaded: Scenario = {
      ...unloaded,
      phases: unloaded.phases.map(({ launchdUnloads, ...phase }) => phase),
    };
    const report = await runRehearsal(loaded, { timeScale: 25 });
    expect(failed(report)).toEqual(
      expect.arrayContaining([
        'every restart stored with evidence unloaded (1)',
        'launchctl called with "bootstrap gui/", then "kickstart gui/", and nothing else naming them',
      ]),
    );
    expect(report.restarts.map((r) => r.evidence)).toEqual(['dead']);
    expect(report.commands.some((c) => c.args[0] === 'kickstart' && c.args[1] === '-k')).toBe(true);
  }, 30_000);

  it("without OpenClaw's cooldown in its state, the storm restarts while it would have held", async () => {
    const { cooldowns, ...withoutCooldown } = scenarioNamed('storm-during-cooldown');
    const report = await runRehearsal(withoutCooldown, { timeScale: 50 });
    expect(failed(report)).toEqual(
      expect.arrayContaining([
        'exactly 0 restarts during phase 0',
        'watchdog decision deferred saying "OpenClaw holds" during phase 0',
        'notification restart_deferred raised exactly once',
      ]),
    );
  }, 30_000);

  it('a gateway seen healthy once is reported down when it goes: the no-gateway expectations tell the two apart', async () => {
    const absent = scenarioNamed('no-gateway');
    const lost: Scenario = {
      ...absent,
      phases: absent.phases.map((p) => ({ ...p, atSec: 60, durationSec: absent.durationSec - 60 })),
    };
    const report = await runRehearsal(lost, { timeScale: 75 });
    expect(failed(report)).toEqual(['no notification gateway_down']);
    // Still nothing restarted: there is nothing to restart it with.
    expect(report.restarts).toEqual([]);
  }, 30_000);
});
