import { loadConfig } from '../core/config/index.js';
import { scan } from '../core/scan.js';
import { type Command, parseTimeOption, stringOption } from './command.js';
import { renderStorms, renderSummary } from './render.js';

export const scanCommand: Command = {
  name: 'scan',
  summary: 'Analyse OpenClaw state directories offline (never touches the live database)',
  help: `Usage: breakerbar scan [DIR ...] [--json] [--include-archives] [--since TIME] [--config FILE]

Reads every OpenClaw source found under each DIR (default: the configured state
directory, else OPENCLAW_STATE_DIR, else ~/.openclaw) and counts the model calls
by outcome and dependency with the same code the daemon ingests with.
A DIR may be a state directory, an agents/ or sessions/ directory, or one file.

Options:
  --json               Print one JSON object (files, lines, malformed, calls,
                       outcomes, byDependency, tokens, bySource)
  --include-archives   Also read *.jsonl.reset.*, *.jsonl.deleted.*, .corrupt-, .bak files
  --since TIME         Count only calls at or after TIME (ISO 8601, or 24h, 7d ...)
  --config FILE        Config file used to find the default state directory
  -h, --help           Show this help
`,
  options: {
    json: { type: 'boolean' },
    'include-archives': { type: 'boolean' },
    since: { type: 'string' },
    config: { type: 'string' },
  },
  positionals: true,
  async run(args, io) {
    const since = parseTimeOption('--since', stringOption(args, 'since'));
    const loaded = loadConfig(stringOption(args, 'config'));
    const dirs = args.positionals.length > 0 ? args.positionals : [loaded.stateDir];
    const showProgress = !args.values.json && io.isTTY;
    let lastShown = 0;
    const result = scan(dirs, {
      includeArchives: args.values['include-archives'] === true,
      since,
      maxSchemaVersion: loaded.config.ingest.sqliteMaxSchemaVersion,
      onProgress: showProgress
        ? (read, total) => {
            const now = Date.now();
            if (now - lastShown < 200) return;
            lastShown = now;
            io.err(`\rscanning ${Math.round((100 * read) / Math.max(total, 1))}% of ${(total / 1e6).toFixed(1)} MB`);
          }
        : undefined,
    });
    if (showProgress && lastShown > 0) io.err('\r\x1b[K');
    for (const problem of result.errors) io.err(`breakerbar scan: cannot read ${problem.path}: ${problem.error}\n`);
    if (args.values.json) {
      const { storms: _storms, errors: _errors, ...json } = result;
      io.out(`${JSON.stringify(json, null, 2)}\n`);
    } else {
      io.out(
        `Read ${result.files} transcript file(s), ${result.lines} lines (${result.malformed} malformed): ${result.calls} model calls.\n\n`,
      );
      io.out(renderSummary(result));
      io.out(`\n${renderStorms(result.storms)}`);
    }
    return result.files === 0 && result.errors.length > 0 ? 1 : 0;
  },
};
