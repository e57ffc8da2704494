/**
 * Every built-in rehearsal scenario passes against BreakerBar's real core with
 * compressed time (each about 8 s of wall time), across the record formats; and
 * a deliberately broken policy makes the flapping scenario fail, proving the
 * expectations can fail. Run one after another: they measure timing.
 */
import { describe, expect, it } from 'vitest';
import { type Format, type RehearsalReport, runRehearsal } from '../../main/rehearse/runner.js';
import { BUILT_IN_SCENARIOS, builtInScenario } from '../../main/rehearse/scenarios.js';

const PLAN: Record<string, { scale: number; format: Format }> = {
  'original-429-storm': { scale: 110, format: 'jsonl' },
  '503-injection': { scale: 36, format: 'all' },
  'two-deps-failing': { scale: 30, format: 'gatewaylog' },
  'flapping-gateway': { scale: 75, format: 'jsonl' },
  'slow-start': { scale: 75, format: 'sqlite' },
  'retry-after-defers': { scale: 52, format: 'jsonl' },
  'healthy-control': { scale: 36, format: 'all' },
};

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
      const scenario = builtInScenario(name);
      if (!scenario) throw new Error(`no built-in ${name}`);
      const report = await runRehearsal(scenario, { timeScale: scale, format });
      expect(failures(report)).toBe('');
      expect(report.passed).toBe(true);
      expect(report.calls.total).toBeGreaterThan(scenario.durationSec * scenario.rate * 0.8);
      if (name === 'healthy-control') {
        expect(report.timeline.filter((e) => ['transition', 'restart', 'notice'].includes(e.type))).toEqual([]);
      }
    }, 30_000);
  }

  it('a broken policy (restart budget and spacing disabled) makes the flapping scenario fail', async () => {
    const scenario = builtInScenario('flapping-gateway');
    if (!scenario) throw new Error('no flapping-gateway');
    const report = await runRehearsal(scenario, {
      timeScale: 75,
      configOverride: { watchdog: { maxRestartsPerHour: 1000, restartSpacingSec: 1 } },
    });
    expect(report.passed).toBe(false);
    const budget = report.expectations.find((e) => e.expectation.startsWith('restarts: at least 1, at most 4'));
    expect(budget?.passed).toBe(false);
    expect(report.timeline.filter((e) => e.type === 'restart').length).toBeGreaterThan(4);
  }, 30_000);
});
