/**
 * `breakerbar breaker open|close|reset DEP`: an operator's hand on one breaker,
 * sent to the running instance's control route (recorded with its reason, and
 * replayed at start, so a forced state survives BreakerBar's restarts).
 */
import type { ControlResponse } from '../api/types.js';
import type { OperatorAction } from '../core/breaker/types.js';
import { loadConfig } from '../core/config/index.js';
import { languageOf } from '../core/runtime/language.js';
import { type Translator, translator } from '../words/messages/index.js';
import { connect } from './api-client.js';
import { type Command, stringOption, UsageError } from './command.js';
import { breakerWords } from './reason-words.js';

/** The words an operator types → the API's actions. */
const ACTION_OF: Record<string, OperatorAction> = { open: 'force_open', close: 'force_closed', reset: 'reset' };

/**
 * The reason sent when the operator gives none: in their language, as a note they typed would be (it is
 * stored as their note, and read back so by everyone).
 */
export function defaultControlReason(t: Translator): string {
  return t.t('cli.breaker.defaultReason');
}

/** What a control did, one line per transition it caused (or one saying it changed nothing), in the reader's language. */
export function controlLines(dep: string, action: OperatorAction, answer: ControlResponse, t: Translator): string[] {
  if (answer.transitions.length === 0) return [t.t('cli.breaker.noChange', { dep, action })];
  return answer.transitions.map((moved) =>
    t.t('cli.breaker.transition', {
      dep: moved.dep,
      from: moved.from,
      to: moved.to,
      why: breakerWords(moved.reason, moved.why, t),
    }),
  );
}

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
  --reason TEXT    Why, for the transition log and notifications (default: "${defaultControlReason(translator('en'))}")
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
    const loaded = loadConfig(stringOption(args, 'config'));
    const t = translator(languageOf(loaded.config, process.env));
    const reason = stringOption(args, 'reason') ?? defaultControlReason(t);
    const answer = await connect(loaded).call('control', { dep, action, reason });
    if (args.values.json) io.out(`${JSON.stringify(answer, null, 2)}\n`);
    else for (const line of controlLines(dep, action, answer, t)) io.out(`${line}\n`);
    return 0;
  },
};
