/**
 * Rule: after SIGKILL at any instant, during backfill and during live following,
 * a restarted daemon neither loses nor duplicates a call and never re-reads
 * what it already stored: `history --json` equals `scan --json` on the same
 * directory, and the store never saw the same record twice.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../main/simulator/records.js';
import { SessionScript } from '../../main/simulator/workload.js';
import { QUIET_GATEWAY } from '../helpers/quiet-gateway.js';
import { until } from '../helpers/transcripts.js';

const CLI = fileURLToPath(new URL('../../dist/main/cli/index.js', import.meta.url));
const DEPS = ['zhipu/glm-5.1', 'deepseek/deepseek-v4-pro', 'anthropic/claude-sonnet-4-5'];

let root: string;
let stateDir: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'bb-exactly-once-'));
  stateDir = join(root, 'openclaw');
  const home = join(root, 'breakerbar');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'config.json'), JSON.stringify({ ...QUIET_GATEWAY, ingest: { reconcileIntervalMs: 300 } }));
  env = { ...process.env, BREAKERBAR_HOME: home, OPENCLAW_STATE_DIR: stateDir };
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Sessions spread over agents, appended to turn by turn, sometimes a line in two writes. */
class Workload {
  private readonly random = seededRandom(42);
  private readonly sessions: Array<{ path: string; script: SessionScript }> = [];
  private clock = Date.now() - 2 * 24 * 3600 * 1000;
  private pending: Array<() => void> = [];

  addSession(agent: string): void {
    const dir = join(stateDir, 'agents', agent, 'sessions');
    mkdirSync(dir, { recursive: true });
    const id = `${agent}-${this.sessions.length.toString().padStart(4, '0')}-0000-4000-8000-000000000000`;
    const script = new SessionScript(id, this.random, { deps: DEPS, failureRate: 0.3, textChars: 4000 });
    const path = join(dir, `${id}.jsonl`);
    appendFileSync(path, `${script.header(this.clock)}\n`);
    this.sessions.push({ path, script });
  }

  /** Appends one turn to a random session; a quarter of the time the last line arrives in two pieces. */
  appendTurn(): void {
    const session = this.sessions[Math.floor(this.random() * this.sessions.length)];
    if (!session) return;
    this.clock += 1000;
    const lines = session.script.turn(this.clock).lines;
    const last = lines.pop() as string;
    appendFileSync(session.path, lines.map((line) => `${line}\n`).join(''));
    if (this.random() < 0.25) {
      const cut = Math.floor(last.length / 2);
      appendFileSync(session.path, last.slice(0, cut));
      this.pending.push(() => appendFileSync(session.path, `${last.slice(cut)}\n`));
    } else {
      appendFileSync(session.path, `${last}\n`);
    }
  }

  /** Completes lines left half-written. */
  flush(): void {
    for (const finish of this.pending.splice(0)) finish();
  }
}

function cli(...args: string[]): unknown {
  // stderr piped: `history` before the first database is expected to fail, quietly.
  return JSON.parse(execFileSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', stdio: 'pipe' }));
}

function comparable(summary: unknown) {
  const { calls, outcomes, byDependency, tokens } = summary as Record<string, unknown>;
  return { calls, outcomes, byDependency, tokens };
}

/** Calls stored so far (0 before the daemon created its database). */
function storedCalls(): number {
  try {
    return (cli('history', '--json') as { calls: number }).calls;
  } catch {
    return 0;
  }
}

function startDaemon(): ChildProcess {
  return spawn(process.execPath, [CLI, 'daemon', '--port', '0'], { env, stdio: 'ignore' });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('exactly-once ingestion under SIGKILL', () => {
  it('history equals scan after many kills during backfill and live following', async () => {
    const workload = new Workload();
    for (const agent of ['main', 'ops', 'research']) for (let i = 0; i < 4; i++) workload.addSession(agent);
    // A backlog big enough that the first kills land in the middle of the backfill.
    for (let i = 0; i < 6000; i++) workload.appendTurn();
    workload.flush();
    const backlog = (comparable(cli('scan', '--json')) as { calls: number }).calls;
    const storedAfterKill: number[] = [];

    const kill = seededRandom(7);
    const killAfter = async (ms: number) => {
      const daemon = startDaemon();
      await sleep(ms);
      daemon.kill('SIGKILL');
      await exited(daemon);
      storedAfterKill.push(storedCalls());
    };
    // Backfill: a life grows only when the one before it stored nothing new, so lives
    // settle just past the daemon's start-up time and each stores a slice of the
    // backlog. However fast this machine backfills, several lives end mid-backfill.
    let life = 250;
    for (let round = 0; round < 100 && storedAfterKill.at(-1) !== backlog; round++) {
      const before = storedAfterKill.at(-1) ?? 0;
      await killAfter(life + Math.floor(kill() * 25));
      if ((storedAfterKill.at(-1) ?? 0) === before) life += 25;
    }
    // Live: the gateway keeps writing while the daemon dies and restarts.
    const live = setInterval(() => {
      workload.flush();
      workload.appendTurn();
      if (kill() < 0.05) workload.addSession('late');
    }, 15);
    for (let round = 0; round < 10; round++) await killAfter(200 + Math.floor(kill() * 1000));
    clearInterval(live);
    workload.flush();

    const expected = comparable(cli('scan', '--json'));
    const daemon = spawn(process.execPath, [CLI, 'daemon', '--port', '0'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    // Its banner: the daemon is up and its stop is the one asked for below, not a kill during start-up.
    let banner = '';
    const started = new Promise<void>((resolve) =>
      daemon.stderr?.on('data', (chunk: Buffer) => {
        banner += chunk.toString();
        if (banner.includes('BreakerBar daemon')) resolve();
      }),
    );
    // Each look runs the CLI, a process of its own: that is the pace of this poll. A timeout falls through
    // to the comparison below, which shows the difference, once the daemon is stopped.
    let stored: unknown = null;
    await until(
      () => {
        stored = comparable(cli('history', '--json'));
        return JSON.stringify(stored) === JSON.stringify(expected);
      },
      30_000,
      'the history to equal the scan',
      0,
    ).catch(() => {});
    await started;
    daemon.kill('SIGTERM');
    expect(await exited(daemon)).toBe(0);

    expect(stored).toEqual(expected);
    expect((expected as { calls: number }).calls).toBeGreaterThan(backlog);
    // The test proves something only if some kills interrupted the backfill itself.
    expect(storedAfterKill.filter((n) => n > 0 && n < backlog).length).toBeGreaterThan(1);
    const db = new Database(join(env.BREAKERBAR_HOME as string, 'breakerbar.sqlite'), { readonly: true });
    const duplicates = db.prepare("SELECT value FROM meta WHERE key = 'ingest.duplicates'").get() as
      | { value: string }
      | undefined;
    db.close();
    // A re-read record would have been rejected by its unique key and counted here.
    expect(Number(duplicates?.value ?? 0)).toBe(0);
  }, 180_000);
});
