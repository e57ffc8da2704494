/**
 * Benchmarks print their figures and record them in docs/benchmarks.md, each in
 * its own marked section, so running one benchmark refreshes only its part.
 */

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

const DOC = new URL('../../docs/benchmarks.md', import.meta.url);

const PREAMBLE = `# Benchmarks

Figures measured by \`npm run bench -- <name>\` (sources in \`bench/\`). Each section is rewritten by its
benchmark with the figures of its latest run; ratios compare measurements taken in the same run on the same
machine, so they hold better across machines than the absolute numbers.

\`npm run bench\` (or \`npm run bench -- all\`) runs every benchmark in turn and prints a summary table; \`--quick\`
shrinks every corpus for a smoke test whose figures are printed, never recorded here.
`;

export function machine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return `${cpus().length} × ${cpu.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
}

let recording = true;

/** `--quick` runs are smoke tests: their figures are printed, never recorded. */
export function setRecording(on: boolean): void {
  recording = on;
}

export function recordSection(name: string, markdown: string): void {
  if (!recording) {
    process.stdout.write(`\n(not recorded in docs/benchmarks.md: quick run)\n`);
    return;
  }
  const path = DOC;
  let doc = existsSync(path) ? readFileSync(path, 'utf8') : PREAMBLE;
  const begin = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const section = `${begin}\n${markdown.trim()}\n${end}`;
  const from = doc.indexOf(begin);
  const to = doc.indexOf(end);
  doc =
    from >= 0 && to > from
      ? doc.slice(0, from) + section + doc.slice(to + end.length)
      : `${doc.trimEnd()}\n\n${section}\n`;
  writeFileSync(path, doc);
  process.stdout.write(`\n(recorded in docs/benchmarks.md, section "${name}")\n`);
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export function distribution(values: readonly number[]): {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  n: number;
} {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    n: sorted.length,
  };
}

export interface SummaryRow {
  bench: string;
  figure: string;
  value: string;
  goal: string;
}

const summaryRows: SummaryRow[] = [];

/** Adds a headline figure to the table `npm run bench` prints at the end. */
export function summarize(bench: string, figure: string, value: string, goal = ''): void {
  summaryRows.push({ bench, figure, value, goal });
}

export function summaryTable(): string {
  const header = ['benchmark', 'figure', 'value', 'goal'];
  const rows = summaryRows.map((r) => [r.bench, r.figure, r.value, r.goal]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
