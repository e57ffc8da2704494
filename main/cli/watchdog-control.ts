/**
 * `breakerbar restart`, `pause` and `resume`: the same actions as the tray
 * menu, sent to the running instance, which decides through the watchdog's
 * own path (a restart already running is never doubled).
 */

import type { RestartRow, WatchdogResponse } from '../api/types.js';
import { type LoadedConfig, loadConfig } from '../core/config/index.js';
import { languageOf } from '../core/runtime/language.js';
import { type Translator, translator } from '../words/messages/index.js';
import { connect } from './api-client.js';
import { type Command, type Io, type Parsed, stringOption, UsageError } from './command.js';
import { decisionWords } from './reason-words.js';

const DURATION = /^(\d+)\s*(s|m|min|h|d)?$/;
const UNIT_SEC: Record<string, number> = { s: 1, m: 60, min: 60, h: 3600, d: 86400 };

/** `90s`, `15m`, `1h`, `2d` (a bare number is minutes) → seconds. */
export function parseDuration(text: string): number {
  const match = DURATION.exec(text.trim());
  const seconds = match ? Number(match[1]) * (UNIT_SEC[match[2] ?? 'm'] ?? 60) : Number.NaN;
  if (!Number.isInteger(seconds) || seconds < 1) {
    throw new UsageError(`"${text}" is not a duration: use 15m, 1h, 2d (or nothing: until resumed)`);
  }
  return seconds;
}

/** The watchdog's answer as one line: what it decided, and why, in the reader's language. */
export function answerLine(answer: WatchdogResponse, t: Translator): string {
  return t.t('cli.watchdog.answer', { decision: answer.decision, why: decisionWords(answer.reason, answer.why, t) });
}

/** How a restart waited for ended (`row`: the last restart; null when none is recorded). */
export function restartEndLine(row: RestartRow | null, t: Translator): string {
  return t.t('cli.watchdog.restartEnded', {
    result: row?.result ?? null,
    recoveryMs: row?.recoveryMs ?? null,
    detail: row?.detail ? decisionWords(row.detail, row.detailWhy, t) : null,
  });
}

/** The config and the reader's language of a command: each prints in the language BreakerBar speaks here. */
function setUp(args: Parsed): { loaded: LoadedConfig; t: Translator } {
  const loaded = loadConfig(stringOption(args, 'config'));
  return { loaded, t: translator(languageOf(loaded.config, process.env)) };
}

/** `--json` prints the API's answer untouched (for scripts); otherwise the worded line. */
function print(io: Io, json: boolean, answer: WatchdogResponse, t: Translator): void {
  io.out(json ? `${JSON.stringify(answer, null, 2)}\n` : `${answerLine(answer, t)}\n`);
}

const common = {
  json: { type: 'boolean' },
  config: { type: 'string' },
} as const;

export const restartCommand: Command = {
  name: 'restart',
  summary: 'Restart the gateway now, through the watchdog (recorded as manual)',
  help: `Usage: breakerbar restart [--force] [--reason TEXT] [--wait] [--json] [--config FILE]

Asks the running BreakerBar to restart the OpenClaw gateway. With the openclaw
CLI this drains active work first (\`--safe\`, at most 5 minutes); --force
restarts at once. A restart already running is not doubled. Pausing, dry run
and the restart budget hold only automatic restarts, never this one.

Options:
  --force          Skip the drain (openclaw gateway restart --force)
  --reason TEXT    Why, for the restart log and notifications
  --wait           Wait until the restart is verified (the restarted gateway reports started and
                   answers its probes) or has failed; a restart OpenClaw scheduled for once its
                   work has drained is waited for as well
  --json           Print the API's answer
  --config FILE    Config file naming the data directory
  -h, --help       Show this help
`,
  options: { ...common, force: { type: 'boolean' }, reason: { type: 'string' }, wait: { type: 'boolean' } },
  positionals: false,
  async run(args, io) {
    const { loaded, t } = setUp(args);
    const client = connect(loaded);
    const force = args.values.force === true;
    const reason = stringOption(args, 'reason');
    const answer = await client.call('restart', reason === undefined ? { force } : { force, reason });
    print(io, args.values.json === true, answer, t);
    if (answer.decision !== 'restart') return 1;
    if (!args.values.wait) return 0;
    // Poll the status (every second) until the restart record is final.
    let toldPending = false;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const status = await client.call('status');
      const w = status.watchdog;
      if (w?.recovering?.pending && !toldPending) {
        toldPending = true;
        io.out(`${t.t('cli.watchdog.restartPending')}\n`);
      }
      if (w && !w.restartInFlight && !w.recovering) {
        const last = w.lastRestart;
        io.out(`${restartEndLine(last, t)}\n`);
        return last && ['recovered', 'started'].includes(last.result) ? 0 : 1;
      }
    }
  },
};

export const pauseCommand: Command = {
  name: 'pause',
  summary: 'Pause automatic restarts (for a duration, or until resumed)',
  help: `Usage: breakerbar pause [DURATION] [--reason TEXT] [--json] [--config FILE]

Holds the watchdog's automatic restarts for DURATION (15m, 1h, 2d; a bare
number is minutes), or until \`breakerbar resume\`. Monitoring, breakers and
notifications continue; a manual restart still works. Survives a restart of
BreakerBar.

Options:
  --reason TEXT    Why, for the decision log
  --json           Print the API's answer
  --config FILE    Config file naming the data directory
  -h, --help       Show this help
`,
  options: { ...common, reason: { type: 'string' } },
  positionals: true,
  async run(args, io) {
    if (args.positionals.length > 1) throw new UsageError('pause takes one DURATION at most');
    const text = args.positionals[0];
    const durationSec = text === undefined ? null : parseDuration(text);
    const { loaded, t } = setUp(args);
    const client = connect(loaded);
    const reason = stringOption(args, 'reason');
    const request = reason === undefined ? { durationSec } : { durationSec, reason };
    print(io, args.values.json === true, await client.call('pause', request), t);
    return 0;
  },
};

export const resumeCommand: Command = {
  name: 'resume',
  summary: 'Resume automatic restarts (and reset a spent restart budget)',
  help: `Usage: breakerbar resume [--json] [--config FILE]

Ends a pause. Also counts as a human acting on a spent restart budget: the
watchdog starts counting afresh.

Options:
  --json           Print the API's answer
  --config FILE    Config file naming the data directory
  -h, --help       Show this help
`,
  options: common,
  positionals: false,
  async run(args, io) {
    const { loaded, t } = setUp(args);
    print(io, args.values.json === true, await connect(loaded).call('resume'), t);
    return 0;
  },
};
