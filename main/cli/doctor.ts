import { processEnvironment } from '../core/config/index.js';
import { type Area, type DoctorReport, type Level, runDoctor } from '../core/doctor/index.js';
import { type Command, stringOption } from './command.js';

const HEADINGS: Record<Area, string> = {
  config: 'Configuration',
  openclaw: 'OpenClaw',
  sources: 'Sources',
  gateway: 'Gateway',
  restart: 'Restart',
  notifications: 'Notifications',
  breakerbar: 'BreakerBar',
};

export const MARKS: Record<Level, string> = { ok: '✓', info: '·', warn: '!', error: '✗' };

const COLORS: Record<Level, string> = { ok: '\x1b[32m', info: '\x1b[2m', warn: '\x1b[33m', error: '\x1b[31m' };

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "2 problems, 1 warning", or that nothing needs attention. */
export function summaryLine(summary: DoctorReport['summary']): string {
  if (summary.error === 0 && summary.warn === 0) return `No problems found (${summary.ok} ok).`;
  const parts: string[] = [];
  if (summary.error > 0) parts.push(plural(summary.error, 'problem', 'problems'));
  if (summary.warn > 0) parts.push(plural(summary.warn, 'warning', 'warnings'));
  return `${parts.join(', ')}.`;
}

/** The report for a human: grouped by area, one line per finding, detail and fix indented below. */
export function renderReport(report: DoctorReport, color = false): string {
  const lines: string[] = [];
  let area: Area | null = null;
  for (const f of report.findings) {
    if (f.area !== area) {
      if (area !== null) lines.push('');
      area = f.area;
      lines.push(HEADINGS[f.area]);
    }
    const mark = color ? `${COLORS[f.level]}${MARKS[f.level]}\x1b[0m` : MARKS[f.level];
    lines.push(`  ${mark} ${f.title}`);
    if (f.detail) lines.push(`      ${f.detail}`);
    if (f.fix) lines.push(`      fix: ${f.fix}`);
  }
  lines.push('', summaryLine(report.summary));
  return `${lines.join('\n')}\n`;
}

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'Check what BreakerBar finds and will use, with a fix for whatever is missing',
  help: `Usage: breakerbar doctor [--config FILE] [--json]

The first thing to run when something looks wrong. Checks, without changing
anything (no database created, no lock taken, nothing sent to webhooks):
  - the config file read (or the defaults)
  - the OpenClaw state directory, profile and openclaw.json
  - agents, JSONL transcripts, SQLite agent databases and their schema, the
    gateway log directory and today's log
  - the gateway URL, where its port and token come from, and one health probe
  - how the gateway would be restarted, and whether that program exists
  - desktop notifications and webhooks (URLs shown redacted)
  - BreakerBar's data directory, database, and a running daemon's API

Exit code 0 when nothing is an error, 1 otherwise.

Options:
  --config FILE   Config file (default: $BREAKERBAR_CONFIG, else config.json in
                  BreakerBar's home)
  --json          Print the report as one JSON object (findings, summary)
  -h, --help      Show this help
`,
  options: {
    config: { type: 'string' },
    json: { type: 'boolean' },
  },
  positionals: false,
  async run(args, io) {
    const report = await runDoctor({ configFile: stringOption(args, 'config'), environment: processEnvironment() });
    if (args.values.json) {
      io.out(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      const color = io.isTTY && !process.env.NO_COLOR;
      io.out(renderReport(report, color));
    }
    return report.summary.error > 0 ? 1 : 0;
  },
};
