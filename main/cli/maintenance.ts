/**
 * `breakerbar maintenance start|stop|status`: a maintenance window on the
 * running instance. While it lasts no notification goes out (each is recorded
 * as suppressed) and the watchdog restarts nothing by itself; a manual restart
 * still works. It survives a restart of BreakerBar.
 */

import type { MaintenanceResponse } from '../api/types.js';
import { loadConfig } from '../core/config/index.js';
import { languageOf } from '../core/runtime/language.js';
import { type Translator, translator } from '../words/messages/index.js';
import { connect } from './api-client.js';
import { type Command, type Io, stringOption, UsageError } from './command.js';
import { parseDuration } from './watchdog-control.js';

/** One line: what holds notifications now, and until when. */
export function describeMaintenance(
  answer: MaintenanceResponse,
  now: number,
  t: Translator = translator('en'),
): string {
  const quiet = answer.quiet;
  if (quiet === null) return t.t('cli.maintenance.none');
  const params = { until: quiet.until, now, reason: quiet.reason };
  if (quiet.kind === 'quiet_hours') return t.t('cli.maintenance.quietHours', params);
  return t.t('cli.maintenance.window', { ...params, manual: answer.manual !== null });
}

export const maintenanceCommand: Command = {
  name: 'maintenance',
  summary: 'Start, stop or show a maintenance window (no notifications, no automatic restarts)',
  help: `Usage: breakerbar maintenance start [--for DURATION] [--reason TEXT] [--json] [--config FILE]
       breakerbar maintenance stop [--json] [--config FILE]
       breakerbar maintenance status [--json] [--config FILE]

A maintenance window tells BreakerBar someone is working on the gateway: no
notification goes out (each is kept in the history as suppressed) and the
watchdog restarts nothing by itself. Monitoring, breakers and manual restarts
go on. Without --for it lasts until \`breakerbar maintenance stop\`. It
survives a restart of BreakerBar. Recurring windows are configured under
alerts.maintenance.

Options:
  --for DURATION   How long: 90s, 15m, 2h, 1d (a bare number is minutes)
  --reason TEXT    Why, for the history and the status
  --json           Print the API's answer
  --config FILE    Config file naming the data directory
  -h, --help       Show this help
`,
  options: {
    for: { type: 'string' },
    reason: { type: 'string' },
    json: { type: 'boolean' },
    config: { type: 'string' },
  },
  positionals: true,
  async run(args, io) {
    const [action, ...rest] = args.positionals;
    if (rest.length > 0) throw new UsageError('maintenance takes one action: start, stop or status');
    if (action !== 'start' && action !== 'stop' && action !== 'status') {
      throw new UsageError('maintenance needs an action: start, stop or status');
    }
    const forText = stringOption(args, 'for');
    const reason = stringOption(args, 'reason');
    if (action !== 'start' && (forText !== undefined || reason !== undefined)) {
      throw new UsageError('--for and --reason go with `maintenance start`');
    }
    const loaded = loadConfig(stringOption(args, 'config'));
    const client = connect(loaded);
    const t = translator(languageOf(loaded.config, process.env));
    let answer: MaintenanceResponse;
    if (action === 'start') {
      const durationSec = forText === undefined ? null : parseDuration(forText);
      answer = await client.call('startMaintenance', reason === undefined ? { durationSec } : { durationSec, reason });
    } else if (action === 'stop') {
      answer = await client.call('stopMaintenance');
    } else {
      answer = await client.call('maintenance');
    }
    print(io, args.values.json === true, answer, action, t);
    return 0;
  },
};

function print(io: Io, json: boolean, answer: MaintenanceResponse, action: string, t: Translator): void {
  if (json) {
    io.out(`${JSON.stringify(answer, null, 2)}\n`);
    return;
  }
  if (action === 'stop' && answer.stopped === false) io.out(`${t.t('cli.maintenance.noneStopped')}\n`);
  io.out(`${describeMaintenance(answer, Date.now(), t)}\n`);
}
