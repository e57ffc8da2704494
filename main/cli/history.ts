import { loadConfig } from '../core/config/index.js';
import { Store } from '../core/store/db.js';
import { type Command, parseTimeOption, stringOption } from './command.js';
import { renderSummary } from './render.js';

export const historyCommand: Command = {
  name: 'history',
  summary: 'Print what BreakerBar has stored in its own database (safe while the daemon runs)',
  help: `Usage: breakerbar history [--json] [--since TIME] [--until TIME] [--config FILE]

Counts the model calls BreakerBar has stored, by outcome and dependency, in the
same JSON shape as \`breakerbar scan\` (calls, outcomes, byDependency, tokens, turns), so
what was recorded can be held against what is on disk. Opens the database
read-only; the daemon may keep running.

Options:
  --json           Print one JSON object
  --since TIME     Only calls at or after TIME (ISO 8601, or 24h, 7d ...)
  --until TIME     Only calls before TIME
  --config FILE    Config file naming the data directory
  -h, --help       Show this help
`,
  options: {
    json: { type: 'boolean' },
    since: { type: 'string' },
    until: { type: 'string' },
    config: { type: 'string' },
  },
  positionals: false,
  async run(args, io) {
    const since = parseTimeOption('--since', stringOption(args, 'since'));
    const until = parseTimeOption('--until', stringOption(args, 'until'));
    const loaded = loadConfig(stringOption(args, 'config'));
    const store = Store.open(loaded.dbPath, { readonly: true });
    try {
      const summary = store.summary({ since, until });
      if (args.values.json) {
        io.out(`${JSON.stringify(summary, null, 2)}\n`);
      } else {
        const range = `${since ? ` since ${new Date(since).toISOString()}` : ''}${until ? ` until ${new Date(until).toISOString()}` : ''}`;
        io.out(`Stored in ${loaded.dbPath}${range}: ${summary.calls} model calls.\n\n`);
        io.out(renderSummary(summary));
        const duplicates = store.counter('ingest.duplicates');
        if (duplicates > 0) io.out(`\nRecords seen twice and stored once: ${duplicates}\n`);
      }
    } finally {
      store.close();
    }
    return 0;
  },
};
