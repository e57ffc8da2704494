/**
 * `npm run bench -- [name ...] [options]`: runs benchmarks, records their
 * figures in docs/benchmarks.md and prints a summary table at the end.
 * Names: scan, agentdb, latency, detection, idle, api, resume, store, rehearsal, load, recovery, faults (or
 * all, the default: every one in that order). recovery runs two kinds of 429 storm on the real OpenClaw
 * gateway, each with the watchdog acting and off (about 20 min; it needs dbus, dunst, xvfb-run and libnotify's
 * notify-send, and skips without them). faults replays the hardening's faults (odd records, named pipes, slow
 * bodies, a stale address, a full disk; the last needs root, to mount a small file system).
 *
 * Options:
 *   --quick        shrink every corpus so the whole suite runs in a few minutes
 *                  (a smoke test, e.g. in CI: figures are printed, not recorded); recovery has no
 *                  corpus to shrink and is skipped
 *   --size-mb N    resume: size of the generated state directory (default 1024)
 *   --events N     store: events stored before the history query (default 10,000,000)
 *   --rate N       load: calls a second appended in the live phase (default 10,000; 0 skips it)
 *   --seconds N    load: length of the live phase (default 30)
 *   --backfill-mb N  load: size of the first-start backfill (default 1024; 0 skips it)
 *   --sessions N   idle: sessions followed (default 1,000)
 *   --quiet-seconds N  idle: length of the quiet interval (default 600)
 * Environment (kept for compatibility): BENCH_SCAN_MB, BENCH_ROUNDS for scan; BENCH_AGENTDB_MB (and BENCH_ROUNDS) for agentdb;
 * BENCH_CPU_PROF=<dir> makes load's and idle's daemons write a V8 CPU profile there.
 */
import { apiBench } from './api.js';
import { detectionBench } from './detection.js';
import { faultsBench } from './faults.js';
import { idleBench } from './idle.js';
import { latencyBench } from './latency.js';
import { loadBench } from './load.js';
import { recoveryBench } from './recovery.js';
import { rehearsalBench } from './rehearsal.js';
import { setRecording, summaryTable } from './report.js';
import { resumeBench } from './resume.js';
import { scanBench } from './scan.js';
import { agentDbBench } from './scan-agentdb.js';
import { storeBench } from './store.js';

const args = process.argv.slice(2);
const names: string[] = [];
const options = new Map<string, string | true>();
for (let i = 0; i < args.length; i++) {
  const arg = args[i] as string;
  if (!arg.startsWith('--')) {
    names.push(arg);
    continue;
  }
  const [key, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
  if (key === 'quick') options.set(key, true);
  else if (inline !== undefined) options.set(key, inline);
  else if (args[i + 1] !== undefined) options.set(key, args[++i] as string);
  else fail(`--${key} needs a value`);
}
for (const key of options.keys()) {
  if (!['quick', 'size-mb', 'events', 'rate', 'seconds', 'backfill-mb', 'sessions', 'quiet-seconds'].includes(key))
    fail(`unknown option --${key}`);
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

function numberOption(key: string, fallback: number): number {
  const value = options.get(key);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) fail(`--${key} must be a positive number`);
  return n;
}

/** A count where 0 means "skip this part". */
function countOption(key: string, fallback: number): number {
  const value = options.get(key);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) fail(`--${key} must be 0 or a positive number`);
  return n;
}

const quick = options.has('quick');
if (quick) setRecording(false);

const BENCHES: Record<string, () => Promise<void>> = {
  scan: () =>
    scanBench(
      Number(process.env.BENCH_SCAN_MB ?? (quick ? 50 : 540)),
      Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 3)),
    ),
  agentdb: () =>
    agentDbBench(
      Number(process.env.BENCH_AGENTDB_MB ?? (quick ? 30 : 300)),
      Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 3)),
    ),
  latency: () => latencyBench(),
  detection: () => detectionBench({ quick }),
  idle: () =>
    idleBench({
      sessions: numberOption('sessions', quick ? 100 : 1000),
      quietSeconds: numberOption('quiet-seconds', quick ? 10 : 600),
      trafficSeconds: quick ? 10 : 60,
      callsPerSecond: 100,
    }),
  api: () => (quick ? apiBench(200) : apiBench()),
  resume: () => resumeBench({ sizeMb: numberOption('size-mb', quick ? 50 : 1024), restarts: quick ? 3 : 10 }),
  store: () =>
    storeBench({
      events: numberOption('events', quick ? 200_000 : 10_000_000),
      ingestEvents: quick ? 20_000 : 200_000,
      queryRuns: quick ? 5 : 20,
    }),
  rehearsal: () => rehearsalBench({ quick }),
  load: () =>
    loadBench({
      callsPerSecond: countOption('rate', quick ? 2000 : 10_000),
      durationSec: countOption('seconds', quick ? 5 : 30),
      backfillMb: countOption('backfill-mb', quick ? 50 : 1024),
      sessions: 100,
    }),
  recovery: () => recoveryBench({ quick }),
  faults: () => faultsBench(),
};

const chosen = names.length === 0 || names.includes('all') ? Object.keys(BENCHES) : names;
for (const name of chosen) {
  if (!BENCHES[name]) fail(`unknown benchmark "${name}"; choose from: ${Object.keys(BENCHES).join(', ')}, all`);
}
const started = performance.now();
for (const name of chosen) {
  process.stdout.write(`\n== ${name}${quick ? ' (quick)' : ''}\n`);
  await (BENCHES[name] as () => Promise<void>)();
}
process.stdout.write(
  `\n== summary (${chosen.join(', ')}; ${((performance.now() - started) / 60_000).toFixed(1)} min${quick ? ', quick: not recorded' : ''})\n\n${summaryTable()}\n`,
);
