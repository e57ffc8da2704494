/**
 * ccusage's OpenClaw report as a reader in the scan benchmark:
 * `ccusage openclaw daily --json --offline` (npm package `ccusage`, pinned
 * below) over the same generated state directory as `breakerbar scan`.
 *
 * ccusage 20 is a native binary behind a small Node launcher (`src/cli.js`,
 * which spawns the platform package `@ccusage/ccusage-<os>-<arch>`), so the
 * timed run includes a node start-up, as `breakerbar scan --json` does, and
 * the launcher's spawn of the binary. The binary reads files on several
 * threads unless given `--single-thread`.
 *
 * How it finds the data: `--open-claw-path <dir>[,<dir>…]`, else the
 * environment variable `OPENCLAW_DIR` (same syntax), else `~/.openclaw`,
 * `~/.clawdbot`, `~/.moltbot` and `~/.moldbot`. It walks each root
 * recursively for `*.jsonl`, `*.jsonl.deleted.<ts>` and `*.jsonl.reset.<ts>`,
 * and also reads `agents/<id>/agent/openclaw-agent.sqlite` (table
 * `transcript_events`) where one exists. The run here passes the flag, and
 * sets HOME and the working directory to an empty directory so no ccusage
 * config file (`~/.config/claude/ccusage.json`, `.ccusage/…`) or real
 * OpenClaw home can change what it reads.
 *
 * What it counts (established by running version 20.0.24 on small hand-made
 * transcripts; `CcusageExpectation` below is the same rule as code):
 * - Only lines that contain one of the byte strings `"usage"`,
 *   `"model_change"` or `"model-snapshot"` are parsed at all; each is parsed
 *   alone with a strict JSON parser. A line that does not parse (cut short,
 *   garbage, or invalid UTF-8 anywhere in it) is skipped silently, and
 *   nothing reports how many were. Whitespace after `:` and `,` changes
 *   nothing, since the prefilter looks for the quoted key alone. An
 *   unterminated last line is parsed like any other.
 * - A call is a line with `type: "message"`, `message.role: "assistant"` and
 *   an object `message.usage`. Each of `input`, `output`, `cacheRead`,
 *   `cacheWrite` and `totalTokens` counts when it is a non-negative integer
 *   JSON number and is 0 otherwise (a string, a fraction, a negative number).
 * - When `output` is 0 and `totalTokens` exceeds input + cacheRead +
 *   cacheWrite, the difference becomes the output. A call whose four counts
 *   are then all 0 is skipped: failed calls written with zero usage never
 *   appear. The call's total is max(totalTokens, input + output + cacheRead +
 *   cacheWrite); the corpus generator writes `totalTokens` = input + output,
 *   so there the total is the sum of the four (while `breakerbar scan`'s
 *   `tokens` is the sum of `totalTokens`, i.e. ccusage's input + output).
 * - The day is the date, in `--timezone` (UTC here), of `message.timestamp`
 *   when it is an integer (epoch ms) or a date string, else of the entry's
 *   `timestamp`, else of the file's modification time.
 * - Calls are deduplicated over the whole run on (session id = file name up to
 *   `.jsonl`, timestamp in ms, model, the four counts, the total, the cost):
 *   the same line twice in one file, or a session and its `.jsonl.reset.<ts>`
 *   copy, count once; the same line in two sessions counts twice.
 * - `--json` reports token sums per day and in total, and a cost; it has no
 *   call count, so the benchmark can only check the token sums and the days.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The one version measured; the rules above were established on it, so check them again when bumping it. */
export const CCUSAGE_VERSION = '20.0.24';

const run = promisify(execFile);

/** The checkout: the nearest directory above this module with a package.json (from bench/ or dist/bench/). */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

export function ccusageCacheDir(): string {
  return process.env.BREAKERBAR_CCUSAGE_CACHE ?? join(repoRoot(), '.cache', 'ccusage-bench');
}

/**
 * Installs the pinned ccusage into the cache once (an install counts only once
 * its marker file exists, so an interrupted one is redone) and resolves to its
 * bin entry, to be run with `process.execPath`.
 */
export async function installCcusage(): Promise<string> {
  const prefix = join(ccusageCacheDir(), `ccusage-${CCUSAGE_VERSION}`);
  const marker = join(prefix, '.installed');
  if (existsSync(marker)) {
    const bin = binEntry(prefix);
    if (bin) return bin;
  }
  rmSync(prefix, { recursive: true, force: true });
  mkdirSync(prefix, { recursive: true });
  await npm(['install', '--prefix', prefix, '--no-audit', '--no-fund', `ccusage@${CCUSAGE_VERSION}`]);
  const bin = binEntry(prefix);
  if (!bin) throw new Error(`ccusage@${CCUSAGE_VERSION} installed into ${prefix}, but its bin entry is missing`);
  // The launcher needs its platform's binary, an optional dependency npm may have skipped.
  const reported = await run(process.execPath, [bin, '--version']).then(
    ({ stdout }) => stdout.trim(),
    (error: { stderr?: string; message: string }) => {
      throw new Error(
        `ccusage@${CCUSAGE_VERSION} installed into ${prefix} but does not run: ${error.stderr || error.message}`,
      );
    },
  );
  if (!reported.includes(CCUSAGE_VERSION)) {
    throw new Error(`ccusage installed into ${prefix} reports version "${reported}", not ${CCUSAGE_VERSION}`);
  }
  writeFileSync(marker, `${new Date().toISOString()}\n`);
  return bin;
}

/** The installed package's `bin.ccusage`, when the pinned version is what is there. */
function binEntry(prefix: string): string | undefined {
  const dir = join(prefix, 'node_modules', 'ccusage');
  let manifest: { version?: string; bin?: string | Record<string, string> };
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof manifest;
  } catch {
    return undefined;
  }
  if (manifest.version !== CCUSAGE_VERSION) return undefined;
  const relative = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.ccusage;
  if (!relative) return undefined;
  const bin = join(dir, relative);
  return existsSync(bin) ? bin : undefined;
}

/** npm as the bench was started (`npm run bench` names its own npm-cli.js), else the one on PATH. */
async function npm(args: string[]): Promise<void> {
  const npmCli = process.env.npm_execpath;
  const [cmd, argv] = npmCli?.endsWith('.js') ? [process.execPath, [npmCli, ...args]] : ['npm', args];
  try {
    await run(cmd, argv, {
      maxBuffer: 64 << 20,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.slice(-2000) || (error as Error).message;
    throw new Error(`npm ${args.join(' ')} failed:\n${detail}`);
  }
}

// ---- the timed run ----

/** Token sums as ccusage's `--json` names them, plus the number of days it reports. */
export interface CcusageTotals {
  days: number;
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  totalTokens: number;
}

export interface CcusageTiming {
  /** spawn to exit: node start-up, the launcher, the native binary */
  seconds: number;
  totals: CcusageTotals;
  /** the sum of the embedded `usage.cost.total`: reported, not checked (float sums depend on order) */
  costUsd: number;
}

/**
 * The command line after the bin entry. `--timezone UTC` makes the days
 * independent of the machine; `singleThread` adds `--single-thread` (one
 * thread reads every file), for a row next to `breakerbar scan --workers 1`.
 */
export function ccusageArgs(stateDir: string, options: { singleThread?: boolean } = {}): string[] {
  return [
    'openclaw',
    'daily',
    '--json',
    '--offline',
    '--timezone',
    'UTC',
    '--open-claw-path',
    stateDir,
    ...(options.singleThread ? ['--single-thread'] : []),
  ];
}

interface DailyJson {
  daily: unknown[];
  totals: Omit<CcusageTotals, 'days'> & { totalCost?: number };
}

export async function timeCcusage(
  stateDir: string,
  bin: string,
  options: { singleThread?: boolean } = {},
): Promise<CcusageTiming> {
  const home = mkdtempSync(join(tmpdir(), 'bb-ccusage-home-'));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, USERPROFILE: home, NO_COLOR: '1' };
    for (const key of ['OPENCLAW_DIR', 'XDG_CONFIG_HOME', 'CLAUDE_CONFIG_DIR']) delete env[key];
    const t0 = performance.now();
    const stdout = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [bin, ...ccusageArgs(stateDir, options)], {
        cwd: home,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const out: Buffer[] = [];
      let err = '';
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => {
        err = (err + c.toString()).slice(-4000);
      });
      child.on('error', reject);
      child.on('close', (code, signal) =>
        code === 0
          ? resolve(Buffer.concat(out).toString())
          : reject(new Error(`ccusage exited with ${code ?? signal}: ${err.trim()}`)),
      );
    });
    const seconds = (performance.now() - t0) / 1000;
    let report: DailyJson;
    try {
      report = JSON.parse(stdout) as DailyJson;
    } catch {
      throw new Error(`ccusage printed no JSON: ${stdout.slice(0, 500)}`);
    }
    if (!Array.isArray(report.daily) || typeof report.totals !== 'object' || report.totals === null) {
      throw new Error(`ccusage's JSON has no daily/totals: ${stdout.slice(0, 500)}`);
    }
    const t = report.totals;
    return {
      seconds,
      totals: {
        days: report.daily.length,
        inputTokens: t.inputTokens,
        outputTokens: t.outputTokens,
        cacheCreationTokens: t.cacheCreationTokens,
        cacheReadTokens: t.cacheReadTokens,
        totalTokens: t.totalTokens,
      },
      costUsd: t.totalCost ?? 0,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

// ---- what ccusage should report ----

/** One assistant message as the corpus generator writes it. */
export interface CcusageCall {
  /** the transcript's file name up to `.jsonl` */
  sessionId: string;
  /** `message.timestamp`, epoch ms */
  timestamp: number;
  /** `message.model` */
  model: string;
  /** `message.usage`, as written */
  usage: {
    input?: unknown;
    output?: unknown;
    cacheRead?: unknown;
    cacheWrite?: unknown;
    totalTokens?: unknown;
    cost?: { total?: unknown };
  };
}

/** A usage field as ccusage reads it: a non-negative integer, anything else 0. */
function count(v: unknown): number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0;
}

/**
 * The totals ccusage reports for these calls, by the rules in this module's
 * header. Feed it every well-formed assistant message the generator writes
 * (failed calls included: the zero-usage rule drops them here as ccusage does);
 * malformed lines are not calls and are left out. Days are UTC dates, matching
 * `ccusageArgs`.
 */
export class CcusageExpectation {
  private readonly seen = new Set<string>();
  private readonly days = new Set<string>();
  private readonly sums = {
    inputTokens: 0,
    outputTokens: 0,
    cacheCreationTokens: 0,
    cacheReadTokens: 0,
    totalTokens: 0,
  };

  add(call: CcusageCall): void {
    const u = call.usage;
    const input = count(u.input);
    let output = count(u.output);
    const cacheRead = count(u.cacheRead);
    const cacheWrite = count(u.cacheWrite);
    const reported = count(u.totalTokens);
    if (output === 0 && reported > input + cacheRead + cacheWrite) output = reported - input - cacheRead - cacheWrite;
    const parts = input + output + cacheRead + cacheWrite;
    if (parts === 0) return;
    const total = Math.max(reported, parts);
    const cost = typeof u.cost?.total === 'number' ? u.cost.total : null;
    const key = [call.sessionId, call.timestamp, call.model, input, output, cacheWrite, cacheRead, total, cost].join(
      '\u0000',
    );
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.days.add(new Date(call.timestamp).toISOString().slice(0, 10));
    this.sums.inputTokens += input;
    this.sums.outputTokens += output;
    this.sums.cacheCreationTokens += cacheWrite;
    this.sums.cacheReadTokens += cacheRead;
    this.sums.totalTokens += total;
  }

  totals(): CcusageTotals {
    return { days: this.days.size, ...this.sums };
  }
}

export function expectedCcusageTotals(calls: Iterable<CcusageCall>): CcusageTotals {
  const expectation = new CcusageExpectation();
  for (const call of calls) expectation.add(call);
  return expectation.totals();
}

/** "counts exact" for ccusage: every token sum and the number of days agree. */
export function sameCcusageTotals(a: CcusageTotals, b: CcusageTotals): boolean {
  return (
    a.days === b.days &&
    a.inputTokens === b.inputTokens &&
    a.outputTokens === b.outputTokens &&
    a.cacheCreationTokens === b.cacheCreationTokens &&
    a.cacheReadTokens === b.cacheReadTokens &&
    a.totalTokens === b.totalTokens
  );
}
