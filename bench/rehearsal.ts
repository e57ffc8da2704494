/**
 * Rehearsal: time from each injected fault to the breaker transition and to
 * the notification, per built-in scenario, run against the simulated gateway
 * with the real core. Time is compressed so each scenario takes ~8 s of wall
 * time; the pipeline (file watch → store → breaker → notifier) is not
 * compressed, so the wall milliseconds are the figures that mean something.
 */

import { runRehearsal } from '../main/rehearse/rehearsal.js';
import { BUILT_IN_SCENARIOS } from '../main/rehearse/scenarios.js';
import { machine, recordSection, summarize } from './report.js';

/** Wall seconds per scenario (quick: shorter, so the suite's smoke run stays short). */
const WALL_SEC = { full: 8, quick: 4 };

const ms = (value: number | null) => (value === null ? '—' : `${Math.round(value)}`);

export async function rehearsalBench({ quick }: { quick: boolean }): Promise<void> {
  const rows: string[] = [];
  let failed = false;
  for (const scenario of BUILT_IN_SCENARIOS) {
    const timeScale = Math.max(1, scenario.durationSec / (quick ? WALL_SEC.quick : WALL_SEC.full));
    const report = await runRehearsal(scenario, { timeScale, format: 'jsonl' });
    failed ||= !report.passed;
    if (report.latencies.length === 0) {
      rows.push(
        `| ${scenario.name} | ${Math.round(timeScale)}× | ${report.passed ? 'yes' : '**NO**'} | (no fault) | — | — |`,
      );
    }
    for (const latency of report.latencies) {
      rows.push(
        `| ${scenario.name} | ${Math.round(timeScale)}× | ${report.passed ? 'yes' : '**NO**'} | ${latency.label} | ${ms(latency.transitionWallMs)} | ${ms(latency.noticeWallMs)} |`,
      );
      summarize(
        'rehearsal',
        `${scenario.name}: ${latency.label} → notification`,
        latency.noticeWallMs === null ? '—' : `${Math.round(latency.noticeWallMs)} ms`,
        report.passed ? 'passed' : 'FAILED',
      );
    }
  }
  const markdown = `## Rehearsal (\`npm run bench -- rehearsal\`)

Every built-in scenario of \`breakerbar rehearse\`, compressed to about ${quick ? WALL_SEC.quick : WALL_SEC.full} s of wall time each
(JSONL transcripts), against the simulated gateway with the real core; wall milliseconds from the injected fault
to the first breaker transition of the affected dependency and to the first notification about it. Gateway
faults are detected by the health policy (probe interval, two dead probes, read timeout), so theirs are policy
time, not pipeline time. Measured on ${machine()}.

| scenario | scale | passed | fault | → transition (ms) | → notification (ms) |
|---|---:|---|---|---:|---:|
${rows.join('\n')}`;
  process.stdout.write(`\n${markdown}\n`);
  recordSection('rehearsal', markdown);
  if (failed) process.exitCode = 1;
}
