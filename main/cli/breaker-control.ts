/**
 * `breakerbar breaker open|close|reset DEP`: an operator's hand on one breaker,
 * sent to the running instance's control route (recorded with its reason, and
 * replayed at start, so a forced state survives BreakerBar's restarts).
 */
import type { OperatorAction } from '../core/breaker/types.js';
import { loadConfig } from '../core/config/index.js';
import { connect } from './api-client.js';
import { type Command, stringOption, UsageError } from './command.js';

/** The words an operator types → the API's actions. */
const ACTION_OF: Record<string, OperatorAction> = { open: 'force_open', close: 'force_closed', reset: 'reset' };

const DEFAULT_REASON = 'set from the command line';

export const breakerCommand: Command = {
  name: 'breaker',
  summary: 'Force a breaker open or closed, or hand it back to the policy',
  help: `Usage: breakerbar breaker open|close|reset DEP [--reason TEXT] [--json] [--config FILE]

Sets one dependency's breaker on the running BreakerBar. DEP is the key shown
by \`breakerbar status\` (for example zhipu/glm-5.1).

  open     Hold the breaker open (a provider's maintenance window): no
           trial or success closes it.
  close    Hold it closed whatever the calls say.
  reset    Drop a forced state and start the breaker afresh from closed.

A forced state holds until reset, and survives a restart of BreakerBar. Only
\`open\` works for a dependency BreakerBar has not seen a call to yet.

Options:
  --reason TEXT    Why, for the transition log and notifications (default: "${DEFAULT_REASON}")
  --json           Print the API's answer
  --config FILE    Config file naming the data directory
  -h, --help       Show this help
`,
  options: { reason: { type: 'string' }, json: { type: 'boolean' }, config: { type: 'string' } },
  positionals: true,
  async run(args, io) {
    const [word, dep, ...extra] = args.positionals;
    const action = word === undefined ? undefined : ACTION_OF[word];
    if (action === undefined) {
      throw new UsageError(
        word === undefined ? 'say open, close or reset, then the dependency' : `"${word}" is not open, close or reset`,
      );
    }
    if (dep === undefined || dep.trim() === '') throw new UsageError(`name the dependency to ${word}`);
    if (extra.length > 0) throw new UsageError(`one dependency at a time (got also ${extra.join(', ')})`);
    const client = connect(loadConfig(stringOption(args, 'config')));
    const reason = stringOption(args, 'reason') ?? DEFAULT_REASON;
    const answer = await client.call('control', { dep, action, reason });
    if (args.values.json) {
      io.out(`${JSON.stringify(answer, null, 2)}\n`);
    } else if (answer.transitions.length === 0) {
      io.out(`${dep}: no change (${action} recorded)\n`);
    } else {
      for (const t of answer.transitions) io.out(`${t.dep}: ${t.from} → ${t.to} (${t.reason})\n`);
    }
    return 0;
  },
};
