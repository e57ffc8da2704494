/** Human renderings shared by `scan` and `history`. */
import { OUTCOMES } from '../core/calls/classify.js';
import type { CallSummary } from '../core/calls/summary.js';
import type { Storm } from '../core/scan/storms.js';
import { table } from './command.js';

/** Calls per dependency with the outcomes that occurred, then the totals. */
export function renderSummary(summary: CallSummary): string {
  const columns = OUTCOMES.filter((outcome) => summary.outcomes[outcome] > 0);
  if (summary.calls === 0) return 'No model calls found.\n';
  const rows: Array<Array<string | number>> = [['dependency', 'calls', ...columns]];
  for (const [dep, outcomes] of Object.entries(summary.byDependency)) {
    const calls = OUTCOMES.reduce((sum, outcome) => sum + outcomes[outcome], 0);
    rows.push([dep, calls, ...columns.map((outcome) => outcomes[outcome])]);
  }
  rows.push(['total', summary.calls, ...columns.map((outcome) => summary.outcomes[outcome])]);
  return `${table(rows)}\n\nTokens: ${summary.tokens.toLocaleString('en-US')}\n`;
}

export function renderStorms(storms: readonly Storm[]): string {
  if (storms.length === 0)
    return 'Seed watchdog replay: no window in which the old cron watchdog would have restarted the gateway.\n';
  const lines = storms.map((storm) => {
    const restarts = storm.restarts.map((t) => new Date(t).toISOString().slice(11, 16)).join(', ');
    return `  ${iso(storm.start)} – ${iso(storm.end)}  ${storm.rateLimits} rate limits, restart at ${restarts}`;
  });
  return `Seed watchdog replay: ${storms.length} storm(s) in which the old cron watchdog would have restarted the gateway:\n${lines.join('\n')}\n`;
}

function iso(t: number): string {
  return new Date(t).toISOString().replace('T', ' ').slice(0, 16);
}
