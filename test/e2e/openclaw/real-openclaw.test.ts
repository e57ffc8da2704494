/**
 * The real OpenClaw, end to end: each version installed from npm, its gateway
 * run against a mock provider on loopback, turns driven by its own CLI, and
 * BreakerBar's daemon following it with its defaults (watchdog in dry run, so
 * it never restarts the gateway under test; no desktop notifications).
 *
 * The mock's request log is the ground truth: BreakerBar's calls per dependency
 * and outcome must equal the upstream requests per status class — retries
 * inside a run, failed primaries of a fallback, hung and cut requests included —
 * and its turns must equal OpenClaw's own transcript records, plus the turns
 * OpenClaw refused itself.
 *
 * `BREAKERBAR_CAPTURE_FIXTURES=1` also writes what the run produced (the gateway
 * log's relevant lines, the transcript records, the request log) to
 * `test/fixtures/openclaw-<version>/`, the records the unit tests replay.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decompressZstd } from '../../../main/core/sources/zstd.js';
import { toolOrSkip } from '../../helpers/tools.js';
import { until } from '../../helpers/transcripts.js';
import { type RealGateway, startGateway, type TurnResult } from './harness/gateway.js';
import { ANSWER_CLASS, type Answer, type MockProvider, startMockProvider } from './harness/mock-provider.js';
import { ensureOpenClaw, OPENCLAW_VERSIONS, type OpenClawVersion } from './harness/runtime.js';

const NODE24 = toolOrSkip('node24');

const CLI = fileURLToPath(new URL('../../../dist/main/cli/index.js', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const execFileAsync = promisify(execFile);

/** Models scripted per run: answers in order, then `ok`. Names say what the provider does. */
const SCRIPTS: Record<string, readonly Answer[]> = {
  // Two sessions share it: six 429s (with Retry-After) between them, each run ends ok.
  storm: ['rate_limit', 'rate_limit', 'rate_limit', 'rate_limit', 'rate_limit', 'rate_limit'],
  flaky: ['overloaded', 'unavailable', 'server_error'],
  net: ['reset', 'cut'],
  slow: ['hang'],
};

/** The mock's Retry-After on a 429, seconds. */
const RETRY_AFTER_SECONDS = 5;
/** The longest the storm's 429s can hold a run waiting, with a margin. */
const STORM_WAIT_BOUND_SECONDS = (SCRIPTS.storm?.length ?? 0) * RETRY_AFTER_SECONDS + 5;

const PROVIDERS = [
  { id: 'mock', models: ['storm', 'flaky', 'net', 'slow', 'ok', 'ok_long', 'context_length'] },
  // 401 and 402 disable a provider's key inside OpenClaw: each gets its own.
  { id: 'mockauth', models: ['unauthorized'] },
  { id: 'mockbill', models: ['payment_required'] },
  { id: 'mockprimary', models: ['primary'] },
];

/** The turns of the first round, run in parallel: session id and model (none: the primary with its fallback). */
const ROUND_ONE: ReadonlyArray<[string, string | undefined]> = [
  ['storm-a', 'mock/storm'],
  ['storm-b', 'mock/storm'],
  ['flaky', 'mock/flaky'],
  ['net', 'mock/net'],
  ['slow', 'mock/slow'],
  ['long', 'mock/ok_long'],
  ['context', 'mock/context_length'],
  ['auth', 'mockauth/unauthorized'],
  ['billing', 'mockbill/payment_required'],
  // The primary is refused (402) and its fallback answers: a failed primary no transcript records.
  ['fallback', undefined],
];

interface Summary {
  calls: number;
  byDependency: Record<string, Record<string, number>>;
  turns: { turns: number; byDependency: Record<string, Record<string, number>> };
}

describe.skipIf(NODE24.skip).each(OPENCLAW_VERSIONS)(
  NODE24.title('the real OpenClaw %s'),
  (version: OpenClawVersion) => {
    let root: string;
    let mock: MockProvider;
    let gateway: RealGateway;
    let daemon: ChildProcess;
    let daemonLog = '';
    let home: string;
    const turns: TurnResult[] = [];

    beforeAll(async () => {
      const runtime = await ensureOpenClaw(version);
      root = mkdtempSync(join(tmpdir(), `bb-openclaw-${version}-`));
      mock = await startMockProvider();
      // Long enough that a 429's Retry-After is still in force when BreakerBar reads it (the breaker goes
      // `throttled` on it at once); short enough that OpenClaw's retries keep the suite quick.
      mock.retryAfterSeconds = RETRY_AFTER_SECONDS;
      for (const [model, answers] of Object.entries(SCRIPTS)) mock.script(model, answers);
      mock.steady('primary', 'payment_required');
      gateway = await startGateway({
        runtime,
        root,
        mock,
        providers: PROVIDERS,
        primary: 'mockprimary/primary',
        fallbacks: ['mock/ok'],
        // 2026.7 writes an idle-timeout record, a call that no request stands for, when a wait outlasts the
        // provider timeout. Both storm sessions share one key, so their Retry-Afters can follow one another:
        // six 429s of 5 s each are 30 s at the very most (with the default 12 s, now and then one session ended
        // in such a record). 2026.9 keeps the default: a longer hang of the slow model would outlast its minute
        // of refusing the disabled key, which the turns test counts on.
        providerTimeoutSeconds: version === '2026.7.1' ? STORM_WAIT_BOUND_SECONDS : undefined,
      });

      home = join(root, 'breakerbar');
      mkdirSync(home);
      writeFileSync(
        join(home, 'config.json'),
        JSON.stringify({ watchdog: { dryRun: true }, notifications: { desktop: false } }),
      );
      daemon = spawn(process.execPath, [CLI, 'daemon', '--port', '0'], {
        env: { ...gateway.env, HOME: process.env.HOME, BREAKERBAR_HOME: home },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      daemon.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        daemonLog = (daemonLog + chunk).slice(-100_000);
      });
      await until(() => existsSync(join(home, 'api-url')), 30_000, 'the daemon to listen');

      turns.push(...(await Promise.all(ROUND_ONE.map(([session, model]) => gateway.turn(session, model)))));
      // The key of mockauth is disabled for about a minute after its 401: this turn is refused by OpenClaw itself.
      turns.push(await gateway.turn('auth-again', 'mockauth/unauthorized'));
    }, 900_000);

    afterAll(async () => {
      if (daemon && daemon.exitCode === null) {
        const exited = new Promise((resolve) => daemon.once('exit', resolve));
        daemon.kill('SIGTERM');
        await exited;
      }
      await gateway?.stop();
      await mock?.close();
      // BREAKERBAR_E2E_KEEP=1 leaves the state, logs and database behind for a look.
      if (root && process.env.BREAKERBAR_E2E_KEEP !== '1') rmSync(root, { recursive: true, force: true });
    }, 120_000);

    const history = async (): Promise<Summary> => {
      const { stdout } = await execFileAsync(process.execPath, [CLI, 'history', '--json'], {
        env: { ...process.env, BREAKERBAR_HOME: home },
      });
      return JSON.parse(stdout) as Summary;
    };

    it('counts every upstream request once: calls per dependency and outcome = requests per status class', async () => {
      const expected = requestsByClass(mock);
      let seen: Summary | null = null;
      await until(
        async () => {
          seen = await history();
          return seen.calls >= mock.requests.length;
        },
        60_000,
        `BreakerBar to store ${mock.requests.length} calls`,
      ).catch((error: Error) => {
        throw new Error(
          `${error.message}\nexpected ${JSON.stringify(expected)}\nseen ${JSON.stringify(seen && nonZero(seen.byDependency))}\nturns: ${JSON.stringify(turns.map((t) => [t.sessionId, t.exitCode]))}\ndaemon: ${daemonLog.slice(-3000)}`,
        );
      });
      expect(nonZero((seen as unknown as Summary).byDependency)).toEqual(expected);
      // Nothing arrives late and nothing is counted twice.
      expect((await history()).calls).toBe(mock.requests.length);
    });

    it("counts OpenClaw's own records as turns, and the turn it refused itself", async () => {
      const records = transcriptRecords(gateway.stateDir);
      const expected: Record<string, number> = {};
      for (const record of records) expected[record.dep] = (expected[record.dep] ?? 0) + 1;
      // 2026.9 disables a key for about a minute after a 401 and refuses the next turn itself; 2026.7 asks again.
      const refused = turns.filter((turn) => /temporarily disabled/.test(turn.output)).length;
      if (refused > 0) expected.mockauth = refused;
      await until(async () => (await history()).turns.turns >= records.length + refused, 30_000, 'the turns');
      const summary = await history();
      const byDep = Object.fromEntries(
        Object.entries(summary.turns.byDependency).map(([dep, counts]) => [
          dep,
          Object.values(counts).reduce((a, b) => a + b, 0),
        ]),
      );
      expect(byDep).toEqual(expected);
      expect(summary.turns.byDependency.mockauth?.refused ?? 0).toBe(refused);
      if (version === '2026.9.6') expect(refused).toBe(1);
    });

    it('reads every source without an error, and takes a 429 storm out of closed within a second', async () => {
      const api = readFileSync(join(home, 'api-url'), 'utf8').trim();
      const token = readFileSync(join(home, 'api-token'), 'utf8').trim();
      const status = (await (
        await fetch(`${api}/api/status`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as {
        sources: Array<{ kind: string; lastError: string | null; inputs: number }>;
      };
      for (const source of status.sources) {
        if (source.inputs > 0)
          expect({ kind: source.kind, lastError: source.lastError }).toEqual({ kind: source.kind, lastError: null });
      }
      const firstRateLimit = mock.requests.find((request) => request.answer === 'rate_limit');
      const db = new Database(join(home, 'breakerbar.sqlite'), { readonly: true });
      try {
        const left = db
          .prepare("SELECT min(at) AS at FROM breaker_transitions WHERE dep = 'mock/storm' AND from_state = 'closed'")
          .get() as { at: number | null };
        // Measured, not asserted (a loaded CI machine must not fail the suite): printed for docs/benchmarks.md.
        const latency = left.at === null || !firstRateLimit ? null : left.at - firstRateLimit.at;
        console.log(`openclaw ${version}: first upstream 429 → breaker out of closed: ${latency ?? 'never'} ms`);
        expect(firstRateLimit).toBeDefined();
      } finally {
        db.close();
      }
      if (process.env.BREAKERBAR_CAPTURE_FIXTURES === '1') captureFixtures(version, gateway, mock);
    });
  },
);

/** The mock's requests as `provider/model` → status class → count. */
function requestsByClass(mock: MockProvider): Record<string, Record<string, number>> {
  const counts: Record<string, Record<string, number>> = {};
  for (const request of mock.requests) {
    const dep = `${request.provider}/${request.model}`;
    const perDep = counts[dep] ?? {};
    const cls = ANSWER_CLASS[request.answer];
    perDep[cls] = (perDep[cls] ?? 0) + 1;
    counts[dep] = perDep;
  }
  return sortKeys(counts);
}

function nonZero(byDependency: Record<string, Record<string, number>>): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [dep, counts] of Object.entries(byDependency)) {
    const kept = Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
    if (Object.keys(kept).length > 0) out[dep] = kept;
  }
  return sortKeys(out);
}

function sortKeys<T>(value: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
}

interface RecordSeen {
  dep: string;
  json: string;
}

/** Every assistant record OpenClaw wrote: the agent database (2026.7.2+) or the JSONL transcripts. */
function transcriptRecords(stateDir: string): RecordSeen[] {
  const agentDir = join(stateDir, 'agents', 'main');
  const lines: string[] = [];
  const database = join(agentDir, 'agent', 'openclaw-agent.sqlite');
  if (existsSync(database)) {
    const db = new Database(database, { readonly: true });
    try {
      const rows = db
        .prepare('SELECT event_json AS json, event_zstd AS zstd FROM transcript_events ORDER BY rowid')
        .all() as Array<{
        json: string | null;
        zstd: Buffer | null;
      }>;
      for (const row of rows) lines.push(row.json ?? decompressZstd(row.zstd as Buffer).toString('utf8'));
    } finally {
      db.close();
    }
  }
  const sessions = join(agentDir, 'sessions');
  if (existsSync(sessions)) {
    for (const name of readdirSync(sessions)) {
      if (!name.endsWith('.jsonl') || name.includes('.trajectory')) continue;
      lines.push(
        ...readFileSync(join(sessions, name), 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== ''),
      );
    }
  }
  const records: RecordSeen[] = [];
  for (const json of lines) {
    const entry = JSON.parse(json) as { type?: string; message?: { role?: string; provider?: string; model?: string } };
    if (entry.type !== 'message' || entry.message?.role !== 'assistant') continue;
    records.push({ dep: `${entry.message.provider}/${entry.message.model}`, json });
  }
  return records;
}

/** The gateway log lines BreakerBar reads (message text elsewhere dropped), the records, and the request log. */
function captureFixtures(version: string, gateway: RealGateway, mock: MockProvider): void {
  const dir = join(FIXTURES, `openclaw-${version}`);
  mkdirSync(dir, { recursive: true });
  const wanted = /provider-transport-fetch|agent\/embedded|model-fallback|diagnostic/;
  const logLines: string[] = [];
  for (const name of readdirSync(gateway.logDir).sort()) {
    for (const line of readFileSync(join(gateway.logDir, name), 'utf8').split('\n')) {
      if (line.startsWith('{"0":"{') && wanted.test(line.slice(0, 200)) && !line.includes('tool-search'))
        logLines.push(line);
    }
  }
  writeFileSync(join(dir, 'gateway.log'), `${logLines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'records.jsonl'),
    `${transcriptRecords(gateway.stateDir)
      .map((r) => r.json)
      .join('\n')}\n`,
  );
  writeFileSync(
    join(dir, 'requests.json'),
    `${JSON.stringify(
      mock.requests.map(({ at, provider, model, answer }) => ({ at, provider, model, answer })),
      null,
      1,
    )}\n`,
  );
}
