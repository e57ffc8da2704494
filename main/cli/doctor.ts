import { loadConfig, processEnvironment } from '../core/config/index.js';
import { type Area, type DoctorReport, type Finding, type Level, runDoctor } from '../core/doctor/index.js';
import { languageOf } from '../core/runtime/language.js';
import { type Language, resolveLanguage } from '../words/i18n.js';
import { type Translator, translator } from '../words/messages/index.js';
import { type Command, stringOption } from './command.js';

const EN = translator('en');

export const MARKS: Record<Level, string> = { ok: '✓', info: '·', warn: '!', error: '✗' };

const COLORS: Record<Level, string> = { ok: '\x1b[32m', info: '\x1b[2m', warn: '\x1b[33m', error: '\x1b[31m' };

/** "2 problems, 1 warning", or that nothing needs attention. */
export function summaryLine(summary: DoctorReport['summary'], t: Translator = EN): string {
  return t.t('cli.doctor.summary', summary);
}

/** A finding's texts in the reader's language: its messages where it has them, else its own words. */
function worded(f: Finding, t: Translator): { title: string; detail?: string; fix?: string } {
  const words = f.words;
  return {
    title: words ? t.say(words.title) : f.title,
    detail: words?.detail ? t.say(words.detail) : f.detail,
    fix: words?.fix ? t.say(words.fix) : f.fix,
  };
}

/** The report for a human: grouped by area, one line per finding, detail and fix indented below. */
export function renderReport(report: DoctorReport, color = false, t: Translator = EN): string {
  const lines: string[] = [];
  let area: Area | null = null;
  for (const f of report.findings) {
    if (f.area !== area) {
      if (area !== null) lines.push('');
      area = f.area;
      lines.push(t.t('cli.doctor.heading', { area: f.area }));
    }
    const mark = color ? `${COLORS[f.level]}${MARKS[f.level]}\x1b[0m` : MARKS[f.level];
    const text = worded(f, t);
    lines.push(`  ${mark} ${text.title}`);
    if (text.detail) lines.push(`      ${text.detail}`);
    if (text.fix) lines.push(`      ${t.t('cli.doctor.fix', { fix: text.fix })}`);
  }
  lines.push('', summaryLine(report.summary, t));
  return `${lines.join('\n')}\n`;
}

/**
 * The doctor's language: the config's `ui.language`, else the locale variables. A config that does not
 * load is itself one of the doctor's findings, so it never stops the report: the locale decides then.
 */
export function doctorLanguage(configFile: string | undefined, env: NodeJS.ProcessEnv): Language {
  try {
    return languageOf(loadConfig(configFile).config, env);
  } catch {
    return resolveLanguage([env.LC_ALL, env.LC_MESSAGES, env.LANG]);
  }
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
      const t = translator(doctorLanguage(stringOption(args, 'config'), process.env));
      io.out(renderReport(report, color, t));
    }
    return report.summary.error > 0 ? 1 : 0;
  },
};
