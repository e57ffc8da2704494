import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Io } from '../../main/cli/command.js';
import { COMMAND_NAMES } from '../../main/cli/commands.js';
import { main } from '../../main/cli/main.js';
import { emptyOutcomeCounts, OUTCOMES, type Outcome } from '../../main/core/calls/classify.js';
import type { TurnOutcome } from '../../main/core/calls/events.js';
import { isLocked } from '../../main/core/runtime/lock.js';
import { QUIET_GATEWAY } from '../helpers/quiet-gateway.js';
import { until } from '../helpers/transcripts.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'main', 'cli', 'index.js');

// ---------------------------------------------------------------------------
// Running the CLI: in-process through main(), or as the built executable.

interface Run {
  code: number;
  out: string;
  err: string;
}

/** `breakerbar ...argv` in this process, with a capturing Io. */
async function run(...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (text) => out.push(text), err: (text) => err.push(text), isTTY: false };
  const code = await main(argv, io);
  return { code, out: out.join(''), err: err.join('') };
}

let tmp: string;
let stateDir: string;
let bbHome: string;

/** The environment of a spawned CLI: temp state dir and temp BreakerBar home, never the real ones. */
function testEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, BREAKERBAR_HOME: bbHome, OPENCLAW_STATE_DIR: stateDir };
  delete env.BREAKERBAR_CONFIG;
  delete env.OPENCLAW_HOME;
  return env;
}

/** `node dist/main/cli/index.js ...args`, to completion. */
function cli(...args: string[]): Run {
  const child = spawnSync(process.execPath, [CLI, ...args], { env: testEnv(), encoding: 'utf8', timeout: 30_000 });
  return { code: child.status ?? -1, out: child.stdout, err: child.stderr };
}

function json(result: Run): Record<string, unknown> {
  expect(result.code, result.err).toBe(0);
  return JSON.parse(result.out) as Record<string, unknown>;
}

// ---------------------------------------------------------------------------
// Generated OpenClaw transcripts.

const T = Date.UTC(2026, 10, 30, 8, 0, 0);
const SECOND = 1000;
const iso = (ts: number) => new Date(ts).toISOString();
let entryCount = 0;

const header = (id: string) => ({ type: 'session', version: 3, id, timestamp: iso(T), cwd: '/home/u/project' });

function entry(ts: number, message: Record<string, unknown>, type = 'message') {
  return { type, id: `e${++entryCount}`, parentId: null, timestamp: iso(ts), message: { ...message, timestamp: ts } };
}

const user = (ts: number, text: string) => entry(ts, { role: 'user', content: [{ type: 'text', text }] });

const toolResult = (ts: number, text: string) =>
  entry(ts, { role: 'toolResult', toolCallId: 'call-1', toolName: 'exec', content: [{ type: 'text', text }] });

interface CallSpec {
  stopReason?: string;
  tokens?: number;
  errorMessage?: string;
  errorCode?: string;
  content?: unknown[];
}

/** An assistant message: one model call to `dep` ("provider/model"). */
function assistant(ts: number, dep: string, spec: CallSpec = {}) {
  const [provider, model] = dep.split('/');
  const { stopReason = 'stop', tokens = 0, content = [], ...error } = spec;
  return entry(ts, {
    role: 'assistant',
    content,
    api: 'openai-completions',
    provider,
    model,
    usage: { input: tokens, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: tokens, cost: { total: 0 } },
    stopReason,
    ...error,
  });
}

/** The zhipu GLM rate limit of the seed watchdog's story. */
const zhipu429 = (ts: number) =>
  assistant(ts, 'zhipu/glm-5.1', {
    stopReason: 'error',
    errorMessage: '429 该模型当前访问量过大，请您稍后再试',
    errorCode: '1305',
  });

type Line = string | object;

/** Writes a transcript, one JSON object (or raw string) per line; `terminated: false` leaves the last line open. */
function writeTranscript(path: string, lines: Line[], { terminated = true } = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  const text = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
  writeFileSync(path, terminated ? `${text}\n` : text);
}

const sessions = (agent: string) => join(stateDir, 'agents', agent, 'sessions');

/**
 * A state directory with two agents. Transcripts hold 16 lines (4 malformed) and 7 calls:
 * zhipu ok + 3 seed-rule 429s one minute apart (a storm), a deepseek tool call, an openai
 * timeout and an aborted call; user text, tool results, tool-call arguments and a compaction
 * summary mention 429 without being calls. Side files that must be skipped: a trajectory,
 * sessions.json, and an archive (one more ok call, 42 tokens) read only with --include-archives.
 */
function writeStateDir(): void {
  writeTranscript(
    join(sessions('main'), 'sess-a.jsonl'),
    [
      header('sess-a'),
      user(T, 'the API said 429 Too Many Requests, rate limit exceeded, please retry'),
      assistant(T + 5 * SECOND, 'zhipu/glm-5.1', {
        tokens: 1000,
        content: [{ type: 'text', text: 'a 429 is a rate limit' }],
      }),
      zhipu429(T + 10 * SECOND),
      toolResult(T + 20 * SECOND, 'HTTP 429 rate limit exceeded; ECONNRESET; 503 Service Unavailable'),
      zhipu429(T + 70 * SECOND),
      zhipu429(T + 130 * SECOND),
      assistant(T + 200 * SECOND, 'deepseek/deepseek-v4-pro', {
        stopReason: 'toolUse',
        tokens: 500,
        content: [{ type: 'toolCall', id: 'c2', name: 'grep', arguments: { pattern: '429|rate limit|timed out' } }],
      }),
      {
        type: 'compaction',
        id: 'c',
        timestamp: iso(T + 210 * SECOND),
        summary: 'many 429 rate limit errors',
        tokensBefore: 9,
      },
      '{"type":"message","id":"trunc","message":{"role":"assistant","stopReason":"error","errorMessage":"429',
      'garbage, not JSON at all \u0000',
      '',
      '[1,2,3]',
      assistant(T + 220 * SECOND, 'zhipu/glm-5.1', { tokens: 7 }),
    ],
    { terminated: false },
  );
  writeTranscript(join(sessions('ops'), 'sess-b.jsonl'), [
    header('sess-b'),
    assistant(T + 300 * SECOND, 'openai/gpt-5.5', { stopReason: 'error', errorMessage: 'Request timed out.' }),
    assistant(T + 360 * SECOND, 'openai/gpt-5.5', { stopReason: 'aborted', errorMessage: 'Request was aborted' }),
  ]);
  writeTranscript(join(sessions('main'), 'sess-a.trajectory.jsonl'), [zhipu429(T + 15 * SECOND)]);
  writeFileSync(
    join(sessions('main'), 'sessions.json'),
    JSON.stringify({ 'agent:main:main': { sessionId: 'sess-a' } }),
  );
  writeTranscript(join(sessions('main'), 'sess-old.jsonl.reset.2026-11-29T10-00-00.000Z'), [
    header('sess-old'),
    assistant(T - 86_400 * SECOND, 'zhipu/glm-5.1', { tokens: 42 }),
  ]);
}

/** All eleven outcomes, zero unless given. */
const outcomes = (counts: Partial<Record<Outcome, number>>) => ({ ...emptyOutcomeCounts(), ...counts });

/** A turn's outcomes: the eleven, then refused (OpenClaw refused the turn itself), zero unless given. */
const turnOutcomes = (counts: Partial<Record<TurnOutcome, number>>) => ({
  ...emptyOutcomeCounts(),
  refused: 0,
  ...counts,
});

const EXPECTED_BY_DEPENDENCY = {
  'deepseek/deepseek-v4-pro': outcomes({ ok: 1 }),
  'openai/gpt-5.5': outcomes({ timeout: 1, aborted: 1 }),
  'zhipu/glm-5.1': outcomes({ ok: 1, rate_limited: 3 }),
};

/** A database in BreakerBar home written by a future BreakerBar (schema version 999). */
function newerDatabase(): void {
  mkdirSync(bbHome, { recursive: true });
  const db = new Database(join(bbHome, 'breakerbar.sqlite'));
  db.pragma('user_version = 999');
  db.close();
}

// ---------------------------------------------------------------------------

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does) first`);
});

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-cli-'));
  stateDir = join(tmp, 'openclaw');
  bbHome = join(tmp, 'bb-home');
  mkdirSync(bbHome, { recursive: true });
  writeFileSync(join(bbHome, 'config.json'), JSON.stringify(QUIET_GATEWAY));
});

afterEach(() => {
  stopAllDaemons();
  rmSync(tmp, { recursive: true, force: true });
});

describe('help and usage errors', () => {
  it('--help on the top level lists every command (exit 0)', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const { code, out } = await run(flag);
      expect(code).toBe(0);
      expect(out).toMatch(/^Usage: breakerbar <command>/);
      for (const command of ['daemon', 'scan', 'history']) expect(out).toContain(`  ${command}`);
    }
  });

  it('no arguments prints the help and exits 2', async () => {
    const { code, out } = await run();
    expect(code).toBe(2);
    expect(out).toContain('Usage: breakerbar <command>');
  });

  it('--version prints the package version', () => {
    const { code, out } = cli('--version');
    expect(code).toBe(0);
    expect(out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('--version works in-process, from the sources', async () => {
    const { code, out } = await run('--version');
    expect(code).toBe(0);
    expect(out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it.each([...COMMAND_NAMES])('%s --help prints its usage and options (exit 0)', async (name) => {
    for (const flag of ['--help', '-h']) {
      const { code, out, err } = await run(name, flag);
      expect(code).toBe(0);
      expect(err).toBe('');
      expect(out).toMatch(new RegExp(`^Usage: breakerbar ${name}`));
      expect(out).toContain('Options:');
      expect(out).toContain('-h, --help');
    }
  });

  it('--help wins over other flags, even invalid-looking values', async () => {
    expect((await run('history', '--since', 'whenever', '--help')).code).toBe(0);
  });

  it('an unknown command exits 2 and lists the commands', async () => {
    const { code, out, err } = await run('scna');
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain('unknown command "scna"');
    expect(err).toContain(
      'Commands: daemon, status, restart, pause, resume, maintenance, breaker, doctor, dashboard, rehearse, scan, history, incidents, spend, service',
    );
  });

  it('an unknown flag exits 2, names the flag and points to the command help', async () => {
    const { code, err } = await run('scan', '--jsn');
    expect(code).toBe(2);
    expect(err).toContain("Unknown option '--jsn'");
    expect(err).toContain('breakerbar scan --help');
    expect(err).not.toContain('To specify a positional argument');
  });

  it('a flag missing its value exits 2', async () => {
    const { code, err } = await run('history', '--since');
    expect(code).toBe(2);
    expect(err).toContain('--since');
  });

  it('positionals where a command takes none exit 2', async () => {
    const { code, err } = await run('history', 'extra');
    expect(code).toBe(2);
    expect(err).toContain("Unexpected argument 'extra'");
  });

  it.each(['scan', 'history'])('%s with a bad --since exits 2 and says what a time looks like', async (name) => {
    const { code, err } = await run(name, '--since', 'yesterday-ish');
    expect(code).toBe(2);
    expect(err).toContain('--since "yesterday-ish" is not a time');
    expect(err).toContain('ISO 8601');
    expect(err).toContain(`breakerbar ${name} --help`);
  });

  it('history with a bad --until exits 2', async () => {
    const { code, err } = await run('history', '--until', 'later');
    expect(code).toBe(2);
    expect(err).toContain('--until "later" is not a time');
  });

  it('the built executable answers the same way (exit codes through process.exitCode)', () => {
    expect(cli('--help')).toMatchObject({ code: 0 });
    expect(cli('scan', '--jsn')).toMatchObject({ code: 2 });
    expect(cli('bogus').err).toContain('unknown command "bogus"');
  });

  it('the built scan ends its reading threads when it cannot start: a missing config file exits 1, not hangs', () => {
    const missing = join(tmpdir(), 'bb-no-such-config.json');
    const result = cli('scan', '--workers', '2', '--config', missing, tmpdir());
    expect(result.code).toBe(1);
    expect(result.err).toContain(`config file ${missing} does not exist`);
  });
});

describe('scan', () => {
  beforeEach(writeStateDir);

  it('--json prints the documented object, all eleven outcomes included', async () => {
    const result = json(await run('scan', '--json', stateDir));
    expect(Object.keys(result)).toEqual([
      'files',
      'lines',
      'malformed',
      'duplicates',
      'calls',
      'outcomes',
      'byDependency',
      'tokens',
      'turns',
      'bySource',
    ]);
    expect(result).toEqual({
      files: 2,
      lines: 16,
      malformed: 4,
      duplicates: 0,
      calls: 7,
      outcomes: outcomes({ ok: 2, rate_limited: 3, timeout: 1, aborted: 1 }),
      byDependency: EXPECTED_BY_DEPENDENCY,
      tokens: 1500,
      // Every assistant record is a turn; with no gateway log each is also the call it reports.
      turns: {
        turns: 7,
        outcomes: turnOutcomes({ ok: 2, rate_limited: 3, timeout: 1, aborted: 1 }),
        byDependency: {
          'deepseek/deepseek-v4-pro': turnOutcomes({ ok: 1 }),
          'openai/gpt-5.5': turnOutcomes({ timeout: 1, aborted: 1 }),
          'zhipu/glm-5.1': turnOutcomes({ ok: 1, rate_limited: 3 }),
        },
        tokens: 1500,
      },
      bySource: {
        jsonl: { files: 2, calls: 7, outcomes: outcomes({ ok: 2, rate_limited: 3, timeout: 1, aborted: 1 }) },
        sqlite: { databases: 0, calls: 0, outcomes: outcomes({}) },
        gatewaylog: {
          files: 0,
          lines: 0,
          malformed: 0,
          unknown: 0,
          signals: {
            fallback_decision: 0,
            failover_decision: 0,
            lane_error: 0,
            stall: 0,
            run_timeout: 0,
            gateway_restart: 0,
          },
          fallbackDecisions: {},
          stalls: 0,
          runTimeouts: 0,
          attemptLines: 0,
          calls: 0,
          outcomes: outcomes({}),
        },
      },
    });
    for (const counts of [result.outcomes, ...Object.values(result.byDependency as object)]) {
      expect(Object.keys(counts as object)).toEqual([...OUTCOMES]);
    }
    const turns = result.turns as { outcomes: object; byDependency: object };
    for (const counts of [turns.outcomes, ...Object.values(turns.byDependency)]) {
      expect(Object.keys(counts as object)).toEqual([...OUTCOMES, 'refused']);
    }
  });

  it('the built executable prints the same JSON', async () => {
    expect(json(cli('scan', '--json', stateDir))).toEqual(json(await run('scan', '--json', stateDir)));
  });

  it('defaults to the OpenClaw state directory (OPENCLAW_STATE_DIR)', () => {
    expect(json(cli('scan', '--json'))).toMatchObject({ files: 2, calls: 7 });
  });

  it('accepts an agents/ or sessions/ directory, or one file', async () => {
    expect(json(await run('scan', '--json', join(stateDir, 'agents')))).toMatchObject({ files: 2, calls: 7 });
    expect(json(await run('scan', '--json', sessions('ops')))).toMatchObject({ files: 1, calls: 2, lines: 3 });
    expect(json(await run('scan', '--json', join(sessions('main'), 'sess-a.jsonl')))).toMatchObject({
      files: 1,
      calls: 5,
      malformed: 4,
    });
  });

  it('counts a file named twice once', async () => {
    expect(json(await run('scan', '--json', stateDir, sessions('main')))).toMatchObject({ files: 2, calls: 7 });
  });

  it('--include-archives also reads archived transcripts', async () => {
    const result = json(await run('scan', '--json', '--include-archives', stateDir));
    expect(result).toMatchObject({ files: 3, lines: 18, calls: 8, tokens: 1542 });
    expect(result.outcomes).toEqual(outcomes({ ok: 3, rate_limited: 3, timeout: 1, aborted: 1 }));
  });

  it('--since counts only calls at or after the time (every line is still read)', async () => {
    const result = json(await run('scan', '--json', '--since', iso(T + 70 * SECOND), stateDir));
    expect(result).toMatchObject({ files: 2, lines: 16, malformed: 4, calls: 5, tokens: 500 });
    expect(result.outcomes).toEqual(outcomes({ ok: 1, rate_limited: 2, timeout: 1, aborted: 1 }));
  });

  it('a relative --since far back counts everything, one in the future nothing', async () => {
    expect(json(await run('scan', '--json', '--since', '36500d', stateDir))).toMatchObject({ calls: 7 });
    expect(json(await run('scan', '--json', '--since', '2999-01-01', stateDir))).toMatchObject({ calls: 0 });
  });

  it('without --json prints a table, the totals and the seed watchdog replay', async () => {
    const { code, out } = await run('scan', stateDir);
    expect(code).toBe(0);
    expect(out).toContain(
      'Read 2 transcript file(s) and 0 agent database(s): 16 records (4 malformed), 7 model calls.',
    );
    expect(out).toMatch(/zhipu\/glm-5\.1\s+4\s/);
    expect(out).toMatch(/total\s+7\s/);
    expect(out).toContain('Tokens: 1,500');
    // 429s at 08:00:10, 08:01:10, 08:02:10: the cron checks at 08:01, 08:02, 08:03 see them.
    expect(out).toContain('Seed watchdog replay: 1 storm(s)');
    expect(out).toContain('3 rate limits, restart at 08:03');
  });

  it('without a storm, the replay says the old watchdog would not have fired', async () => {
    const { code, out } = await run('scan', sessions('ops'));
    expect(code).toBe(0);
    expect(out).toContain('Seed watchdog replay: no window');
  });

  it('never crashes on malformed lines and never counts them as calls', async () => {
    const file = join(tmp, 'broken', 'agents', 'x', 'sessions', 'broken.jsonl');
    writeTranscript(
      file,
      [
        '{"type":"session","id":"br',
        '\u00ff\u00fe garbage',
        '{"type":"message","message":{"role":"assistant","stopReason":"error"}}',
        '}{',
        '{"type":"message","timestamp":"2026-11-30T08:00:00Z","message":{"role":"assistant","stopReason":"stop"',
      ],
      { terminated: false },
    );
    const result = json(await run('scan', '--json', file));
    // The third line is valid JSON but a call without a time: unusable, so malformed too.
    expect(result).toMatchObject({ files: 1, lines: 5, malformed: 5, calls: 0, tokens: 0 });
  });

  it('an empty state directory is zero files, exit 0', async () => {
    const empty = join(tmp, 'empty');
    mkdirSync(empty);
    expect(json(await run('scan', '--json', empty))).toMatchObject({ files: 0, lines: 0, calls: 0, byDependency: {} });
  });

  it('a directory that does not exist is a clear error with a non-zero exit', async () => {
    const missing = join(tmp, 'no-such-dir');
    const { code, err } = await run('scan', '--json', missing);
    expect(code).toBe(1);
    expect(err).toContain(`breakerbar scan: cannot read ${missing}`);
    expect(err).toContain('ENOENT');
    const spawned = cli('scan', missing);
    expect(spawned.code).toBe(1);
    expect(spawned.err).toContain(`cannot read ${missing}`);
  });

  it('does not create BreakerBar home or a database', () => {
    rmSync(bbHome, { recursive: true, force: true });
    cli('scan', '--json', stateDir);
    expect(existsSync(bbHome)).toBe(false);
  });
});

describe('history', () => {
  it('without a database exits 1 telling to run the daemon', () => {
    const { code, out, err } = cli('history', '--json');
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toContain(`no BreakerBar database at ${join(bbHome, 'breakerbar.sqlite')} yet`);
    expect(err).toContain('run `breakerbar daemon` first');
    expect(existsSync(join(bbHome, 'breakerbar.sqlite'))).toBe(false);
  });

  it('a database from a newer BreakerBar exits 1 asking to upgrade', () => {
    newerDatabase();
    const { code, err } = cli('history', '--json');
    expect(code).toBe(1);
    expect(err).toContain('newer than this BreakerBar understands');
    expect(err).not.toContain('unexpected error');
  });

  it('a database file without the schema yet is a clear error, not a crash', () => {
    mkdirSync(bbHome, { recursive: true });
    writeFileSync(join(bbHome, 'breakerbar.sqlite'), '');
    const { code, err } = cli('history', '--json');
    expect(code).toBe(1);
    expect(err).not.toContain('unexpected error');
  });

  it('a config file with an error exits 1 naming the key', () => {
    mkdirSync(bbHome, { recursive: true });
    const config = join(tmp, 'bad.json');
    writeFileSync(config, JSON.stringify({ retention: { dayz: 3 } }));
    const { code, err } = cli('history', '--config', config);
    expect(code).toBe(1);
    expect(err).toContain('unknown config key "retention.dayz" (did you mean "retention.days"?)');
  });
});

// ---------------------------------------------------------------------------
// The daemon, end to end.

interface Daemon {
  child: ChildProcess;
  stderr(): string;
  exit: Promise<number | null>;
}

const daemons: Daemon[] = [];

function startDaemon(...args: string[]): Daemon {
  const child = spawn(process.execPath, [CLI, 'daemon', '--port', '0', ...args], {
    env: testEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout?.resume();
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const daemon = { child, stderr: () => stderr, exit };
  daemons.push(daemon);
  return daemon;
}

/** Kills (by pid) the daemons this file started that are still running. */
function stopAllDaemons(): void {
  for (const { child } of daemons.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function exitCode(daemon: Daemon, timeoutMs = 15_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`daemon did not exit; stderr:\n${daemon.stderr()}`)), timeoutMs);
  });
  try {
    return await Promise.race([daemon.exit, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until the daemon has printed its banner (its lock is taken and its store open by then). */
const running = (daemon: Daemon) =>
  waitFor('the daemon banner', () => (daemon.stderr().includes('BreakerBar daemon') ? true : undefined));

/** `history --json` once it reports `calls` calls. */
const historyWith = (calls: number) =>
  waitFor(`history to show ${calls} calls`, () => {
    const result = cli('history', '--json');
    if (result.code !== 0) return undefined;
    const summary = JSON.parse(result.out) as { calls: number };
    return summary.calls === calls ? summary : undefined;
  });

describe('daemon', () => {
  const live = () => join(sessions('main'), 'live.jsonl');

  it('follows the state directory, stores an appended call, and stops on SIGTERM with exit 0', async () => {
    const now = Date.now();
    writeTranscript(live(), [
      header('live'),
      user(now - 1000, 'hi, 429?'),
      assistant(now - 900, 'zhipu/glm-5.1', { tokens: 10 }),
    ]);
    const daemon = startDaemon();
    await running(daemon);
    expect(daemon.stderr()).toContain('no Electron needed');
    expect(daemon.stderr()).toContain(`following  ${stateDir}`);
    expect(daemon.stderr()).toContain(`storing in ${join(bbHome, 'breakerbar.sqlite')}`);

    // Backfill stores the existing call.
    await historyWith(1);
    // A line appended live shows up.
    appendFileSync(live(), `${JSON.stringify(zhipu429(Date.now()))}\n`);
    const summary = await historyWith(2);
    expect(summary).toEqual({
      calls: 2,
      outcomes: outcomes({ ok: 1, rate_limited: 1 }),
      byDependency: { 'zhipu/glm-5.1': outcomes({ ok: 1, rate_limited: 1 }) },
      tokens: 10,
      // Both records are turns too; with no gateway log the failed one is its own call.
      turns: {
        turns: 2,
        outcomes: turnOutcomes({ ok: 1, rate_limited: 1 }),
        byDependency: { 'zhipu/glm-5.1': turnOutcomes({ ok: 1, rate_limited: 1 }) },
        tokens: 10,
      },
    });
    // What the daemon stored is what scan finds on disk.
    const {
      files: _f,
      lines: _l,
      malformed: _m,
      duplicates: _d,
      bySource: _s,
      ...onDisk
    } = json(cli('scan', '--json'));
    expect(summary).toEqual(onDisk);

    daemon.child.kill('SIGTERM');
    expect(await exitCode(daemon)).toBe(0);
    expect(isLocked(bbHome)).toBe(false);
    expect(existsSync(join(bbHome, 'breakerbar.pid'))).toBe(false);

    // The stored history outlives the daemon; the human form says where it is stored.
    const human = cli('history');
    expect(human.code).toBe(0);
    expect(human.out).toContain(`Stored in ${join(bbHome, 'breakerbar.sqlite')}: 2 model calls.`);
    expect(json(cli('history', '--json', '--since', '2999-01-01'))).toMatchObject({ calls: 0 });
  });

  it('a second daemon for the same data dir exits 1 saying another BreakerBar is running', async () => {
    const first = startDaemon();
    await running(first);
    const second = startDaemon();
    expect(await exitCode(second)).toBe(1);
    expect(second.stderr()).toContain(`another BreakerBar (pid ${first.child.pid}) is already running`);
    // The first one is unaffected.
    expect(first.child.exitCode).toBeNull();
    first.child.kill('SIGTERM');
    expect(await exitCode(first)).toBe(0);
  });

  it('a bad config file makes the daemon exit 1 naming the key', async () => {
    mkdirSync(bbHome, { recursive: true });
    writeFileSync(join(bbHome, 'config.json'), JSON.stringify({ ingest: { backfillDays: -3 } }));
    const daemon = startDaemon();
    expect(await exitCode(daemon)).toBe(1);
    expect(daemon.stderr()).toContain('config key "ingest.backfillDays" is -3, expected an integer from 0 to 3650');
    expect(daemon.stderr()).toContain(join(bbHome, 'config.json'));
  });

  it('follows its config file: a wrong type is reported and changes nothing, a valid change applies live, and "down since" goes on', async () => {
    const daemon = startDaemon();
    await running(daemon);
    const status = async () => {
      const url = readFileSync(join(bbHome, 'api-url'), 'utf8').trim();
      return (await (await fetch(`${url}/api/status`)).json()) as {
        watchdog: { dryRun: boolean; threshold: number };
        gateway: { downSince: number | null } | null;
      };
    };
    expect((await status()).watchdog.dryRun).toBe(false);
    // Nothing listens at the configured gateway: down from the first probe, and still down after the reload.
    await until(async () => (await status()).gateway?.downSince != null, 10_000, 'the first failed probe', 100);
    const downSince = (await status()).gateway?.downSince;

    writeFileSync(join(bbHome, 'config.json'), JSON.stringify({ ...QUIET_GATEWAY, watchdog: { threshold: 'three' } }));
    await until(() => daemon.stderr().includes('config change rejected'), 10_000);
    expect(daemon.stderr()).toContain('config key \\"watchdog.threshold\\" is \\"three\\"');
    expect(daemon.child.exitCode).toBeNull();
    expect((await status()).watchdog.threshold).toBe(3);

    writeFileSync(
      join(bbHome, 'config.json'),
      JSON.stringify({ ...QUIET_GATEWAY, watchdog: { enabled: false, dryRun: true, threshold: 5 } }),
    );
    await until(async () => (await status().catch(() => null))?.watchdog.threshold === 5, 10_000);
    expect((await status()).watchdog.dryRun).toBe(true);
    expect((await status()).gateway?.downSince).toBe(downSince);
    // (SIGHUP: stops a daemon run from a terminal, re-reads a service's config; see daemon-lifecycle.timing.test.ts.)
    expect(daemon.stderr().match(/restarting the monitor/g)).toHaveLength(1);
    daemon.child.kill('SIGTERM');
    expect(await exitCode(daemon)).toBe(0);
  });

  it('incidents asks the running daemon; an unknown id and bad arguments are explained', async () => {
    expect(cli('incidents')).toMatchObject({ code: 1, err: expect.stringContaining('no BreakerBar is running') });
    expect(cli('incidents', 'abc')).toMatchObject({
      code: 2,
      err: expect.stringContaining('"abc" is not an incident id'),
    });
    expect(cli('incidents', '--limit', '0')).toMatchObject({ code: 2, err: expect.stringContaining('--limit') });
    const daemon = startDaemon();
    await running(daemon);
    await waitFor('the local API', () => (existsSync(join(bbHome, 'api-url')) ? true : undefined));
    expect(json(cli('incidents', '--json', '--limit', '5'))).toEqual({ incidents: [] });
    const table = cli('incidents');
    expect(table.code, table.err).toBe(0);
    expect(table.out.trim().length).toBeGreaterThan(0);
    expect(cli('incidents', '42')).toMatchObject({ code: 1, err: expect.stringContaining('no incident 42') });
    daemon.child.kill('SIGTERM');
    expect(await exitCode(daemon)).toBe(0);
  });

  it('breaker open/close/reset set a breaker on the running daemon; mistakes are explained', async () => {
    const now = Date.now();
    writeTranscript(live(), [header('live'), assistant(now - 900, 'zhipu/glm-5.1', { tokens: 10 })]);
    expect(cli('breaker', 'open', 'zhipu/glm-5.1')).toMatchObject({
      code: 1,
      err: expect.stringContaining('no BreakerBar is running'),
    });
    const daemon = startDaemon();
    await running(daemon);
    await historyWith(1);
    const breaker = async (dep: string) => {
      const url = readFileSync(join(bbHome, 'api-url'), 'utf8').trim();
      const status = (await (await fetch(`${url}/api/status`)).json()) as {
        breakers: Array<{ dep: string; state: string; forced: string | null; reason: string }>;
      };
      return status.breakers.find((b) => b.dep === dep);
    };
    await until(async () => (await breaker('zhipu/glm-5.1')) !== undefined, 10_000);

    const opened = cli('breaker', 'open', 'zhipu/glm-5.1', '--reason', 'provider maintenance');
    expect(opened).toMatchObject({ code: 0, out: 'zhipu/glm-5.1: closed → open (operator: provider maintenance)\n' });
    expect(await breaker('zhipu/glm-5.1')).toMatchObject({ state: 'open', forced: 'open' });

    const closed = cli('breaker', 'close', 'zhipu/glm-5.1', '--json');
    expect(closed.code, closed.err).toBe(0);
    expect(JSON.parse(closed.out)).toMatchObject({
      transitions: [
        { dep: 'zhipu/glm-5.1', from: 'open', to: 'closed', reason: 'operator: set from the command line' },
      ],
    });
    expect(await breaker('zhipu/glm-5.1')).toMatchObject({ state: 'closed', forced: 'closed' });
    expect(cli('breaker', 'reset', 'zhipu/glm-5.1').code).toBe(0);
    expect(await breaker('zhipu/glm-5.1')).toMatchObject({ state: 'closed', forced: null });

    // A dependency never seen can only be forced open; the daemon's refusal reaches the user.
    const unseen = cli('breaker', 'close', 'nobody/none');
    expect(unseen.code).toBe(1);
    expect(unseen.err).toContain('no breaker for "nobody/none" yet');
    // Usage mistakes exit 2 before anything is sent.
    expect(cli('breaker').code).toBe(2);
    expect(cli('breaker', 'shut', 'zhipu/glm-5.1')).toMatchObject({
      code: 2,
      err: expect.stringContaining('"shut" is not open, close or reset'),
    });
    expect(cli('breaker', 'open')).toMatchObject({
      code: 2,
      err: expect.stringContaining('name the dependency to open'),
    });
    expect(cli('breaker', 'open', 'a/b', 'c/d').code).toBe(2);

    daemon.child.kill('SIGTERM');
    expect(await exitCode(daemon)).toBe(0);
  });

  it('refuses a bad --port with exit 2, and says which port is taken with exit 1, releasing its lock', async () => {
    const bad = startDaemon('--port', '99999');
    expect(await exitCode(bad)).toBe(2);
    expect(bad.stderr()).toContain('--port "99999" is not a port number');

    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const daemon = startDaemon('--port', String(port));
      expect(await exitCode(daemon)).toBe(1);
      expect(daemon.stderr()).toContain(`cannot start the API server on 127.0.0.1:${port}: the port is already in use`);
      expect(isLocked(bbHome)).toBe(false);
    } finally {
      taken.close();
    }
  });

  it('a database from a newer BreakerBar makes the daemon exit 1 and release its lock', async () => {
    newerDatabase();
    const daemon = startDaemon();
    expect(await exitCode(daemon)).toBe(1);
    expect(daemon.stderr()).toContain('newer than this BreakerBar understands');
    expect(isLocked(bbHome)).toBe(false);
    expect(existsSync(join(bbHome, 'breakerbar.pid'))).toBe(false);
  });

  it('an explicit --config that does not exist makes the daemon exit 1', async () => {
    const missing = join(tmp, 'missing.json');
    const daemon = startDaemon('--config', missing);
    expect(await exitCode(daemon)).toBe(1);
    expect(daemon.stderr()).toContain(`config file ${missing} does not exist`);
  });

  it('--data-dir and --state-dir override the configured directories', async () => {
    const dataDir = join(tmp, 'elsewhere');
    const otherState = join(tmp, 'other-openclaw');
    writeTranscript(join(otherState, 'agents', 'a', 'sessions', 's.jsonl'), [
      header('s'),
      assistant(Date.now(), 'p/m'),
    ]);
    const daemon = startDaemon('--data-dir', dataDir, '--state-dir', otherState);
    await running(daemon);
    expect(daemon.stderr()).toContain(`following  ${otherState}`);
    expect(daemon.stderr()).toContain(`storing in ${join(dataDir, 'breakerbar.sqlite')}`);
    await waitFor('the database in --data-dir', () =>
      existsSync(join(dataDir, 'breakerbar.sqlite')) ? true : undefined,
    );
    daemon.child.kill('SIGTERM');
    expect(await exitCode(daemon)).toBe(0);
    expect(existsSync(join(bbHome, 'breakerbar.sqlite'))).toBe(false);
  });
});
