/**
 * Rehearsal: time from injected fault to notification, per built-in scenario.
 *
 * HOOK TO FILL: `breakerbar rehearse` (main/rehearse/) is being written; when
 * it exposes a programmatic runner, make `loadRunner` return it. Until then
 * this benchmark looks for a module `main/rehearse/runner.js` exporting
 * `runBuiltInScenarios` with the `RehearsalRunner` shape below, and otherwise
 * says it was skipped (the suite goes on; nothing is recorded).
 */
import { machine, recordSection, summarize } from './report.js';

export interface RehearsalResult {
  scenario: string;
  passed: boolean;
  /** Injected fault → notification sent, in scenario (unscaled) ms; null when the scenario notifies nothing. */
  faultToNotificationMs: number | null;
}

export type RehearsalRunner = (options: { quick: boolean }) => Promise<RehearsalResult[]>;

async function loadRunner(): Promise<RehearsalRunner | null> {
  // Specifier in a variable: the module may not exist yet, and tsc must not require it.
  const specifier = '../main/rehearse/runner.js';
  try {
    const module = (await import(specifier)) as { runBuiltInScenarios?: RehearsalRunner };
    return typeof module.runBuiltInScenarios === 'function' ? module.runBuiltInScenarios : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return null;
    throw error;
  }
}

export async function rehearsalBench({ quick }: { quick: boolean }): Promise<void> {
  const run = await loadRunner();
  if (!run) {
    process.stdout.write('skipped: no programmatic rehearsal runner yet (see the hook in bench/rehearsal.ts)\n');
    summarize('rehearsal', 'fault → notification', 'skipped (no runner yet)', '');
    return;
  }
  const results = await run({ quick });
  const rows = results.map(
    (r) =>
      `| ${r.scenario} | ${r.passed ? 'yes' : '**NO**'} | ${r.faultToNotificationMs === null ? '—' : (r.faultToNotificationMs / 1000).toFixed(1)} |`,
  );
  for (const r of results) {
    summarize(
      'rehearsal',
      `${r.scenario}: fault → notification`,
      r.faultToNotificationMs === null ? '—' : `${(r.faultToNotificationMs / 1000).toFixed(1)} s`,
      r.passed ? 'passed' : 'FAILED',
    );
  }
  const markdown = `## Rehearsal (\`npm run bench -- rehearsal\`)

Built-in scenarios run against the simulated gateway; time from the injected fault to the notification, per
scenario, measured on ${machine()}.

| scenario | passed | fault → notification (s) |
|---|---|---:|
${rows.join('\n')}`;
  process.stdout.write(`\n${markdown}\n`);
  recordSection('rehearsal', markdown);
  if (results.some((r) => !r.passed)) process.exitCode = 1;
}
