import { scanThreads, startScanWorkers } from '../core/scan/pool.js';
import type { ScanResult } from '../core/scan/scan.js';
import { type Command, parseTimeOption, positiveInt, stringList, stringOption } from './command.js';

export const scanCommand: Command = {
  name: 'scan',
  summary: 'Analyse OpenClaw state directories offline (never touches the live database)',
  help: `Usage: breakerbar scan [DIR ...] [--json] [--include-archives] [--since TIME]
                       [--gateway-logs DIR] [--config FILE]

Reads every OpenClaw source found under each DIR (default: the configured state
directory, else OPENCLAW_STATE_DIR, else ~/.openclaw) and counts the model calls
by outcome and dependency with the same code the daemon ingests with: JSONL
transcripts, agent databases (openclaw-agent.sqlite), and gateway JSON logs in
DIR, DIR/logs or --gateway-logs. A DIR may also be an agents/ or sessions/
directory, or one file. Never touches BreakerBar's own database.

Options:
  --json               Print one JSON object (files, lines, malformed, duplicates,
                       calls, outcomes, byDependency, tokens, turns, bySource)
  --include-archives   Also read *.jsonl.reset.*, *.jsonl.deleted.*, .corrupt-, .bak files
  --since TIME         Count only calls at or after TIME (ISO 8601, or 24h, 7d ...)
  --gateway-logs DIR   Also read gateway logs (openclaw-YYYY-MM-DD.log) in DIR;
                       repeatable
  --workers N          Threads reading in parallel (default: one per core, max 8)
  --config FILE        Config file (default state directory, profile, schema limit)
  -h, --help           Show this help
`,
  options: {
    json: { type: 'boolean' },
    'include-archives': { type: 'boolean' },
    since: { type: 'string' },
    'gateway-logs': { type: 'string', multiple: true },
    workers: { type: 'string' },
    config: { type: 'string' },
  },
  positionals: true,
  async run(args, io) {
    const since = parseTimeOption('--since', stringOption(args, 'since'));
    const workers = positiveInt('--workers', stringOption(args, 'workers'));
    // The reading threads first: they load their modules while this one loads the rest of the scan's.
    const pool = startScanWorkers(scanThreads(workers));
    const showProgress = !args.values.json && io.isTTY;
    let lastShown = 0;
    let result: ScanResult;
    try {
      const [{ loadConfig }, { scanInParallel }] = await Promise.all([
        import('../core/config/index.js'),
        import('../core/scan/scan.js'),
      ]);
      const loaded = loadConfig(stringOption(args, 'config'));
      const dirs = args.positionals.length > 0 ? args.positionals : [loaded.stateDir];
      result = await scanInParallel(dirs, {
        includeArchives: args.values['include-archives'] === true,
        since,
        maxLineBytes: loaded.config.ingest.maxLineBytes,
        profile: loaded.config.profile,
        gatewayLogDirs: stringList(args, 'gateway-logs'),
        pool,
        onProgress: showProgress
          ? (read, total) => {
              const now = Date.now();
              if (now - lastShown < 200) return;
              lastShown = now;
              io.err(`\rscanning ${Math.round((100 * read) / Math.max(total, 1))}% of ${(total / 1e6).toFixed(1)} MB`);
            }
          : undefined,
      });
    } finally {
      // Already ended by a scan that ran; not left waiting (and the process alive) by one that could not start.
      for (const worker of pool) void worker.terminate();
    }
    if (showProgress && lastShown > 0) io.err('\r\x1b[K');
    for (const problem of result.errors) io.err(`breakerbar scan: cannot read ${problem.path}: ${problem.error}\n`);
    for (const problem of result.warnings) io.err(`breakerbar scan: ${problem.path}: ${problem.warning}\n`);
    if (args.values.json) {
      // `undecodable` is left out of the documented JSON object for now; stderr says it when it is not 0.
      const { storms: _storms, errors: _errors, warnings: _warnings, undecodable: _undecodable, ...json } = result;
      io.out(`${JSON.stringify(json, null, 2)}\n`);
    } else {
      const { jsonl, sqlite, gatewaylog } = result.bySource;
      io.out(
        `Read ${jsonl.files} transcript file(s) and ${sqlite.databases} agent database(s): ${result.lines} records (${result.malformed} malformed${result.undecodable > 0 ? `, ${result.undecodable} undecodable` : ''}), ${result.calls} model calls.\n`,
      );
      if (gatewaylog.files > 0) {
        const reasons = Object.entries(gatewaylog.fallbackDecisions)
          .map(([reason, n]) => `${reason} ${n}`)
          .join(', ');
        io.out(
          `Gateway logs: ${gatewaylog.files} file(s), ${gatewaylog.lines} lines; fallback decisions: ${reasons || 'none'}; stalls ${gatewaylog.stalls}; run timeouts ${gatewaylog.runTimeouts}.\n`,
        );
      }
      const { renderStorms, renderSummary } = await import('./render.js');
      io.out('\n');
      io.out(renderSummary(result));
      io.out(`\n${renderStorms(result.storms)}`);
    }
    return result.files === 0 && result.errors.length > 0 ? 1 : 0;
  },
};
