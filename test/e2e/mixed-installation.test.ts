/**
 * Rule: an installation mid-upgrade — one agent still on JSONL transcripts, one
 * on an SQLite agent database, plus the gateway's JSON log — is scanned and
 * followed live with exact counts: the daemon's history equals scan, gateway
 * fallback decisions count as calls only for the agent without transcripts, and
 * every signal is stored once.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentDatabasePath, OpenClawAgentDb } from '../../main/simulator/openclaw-db.js';
import { seededRandom } from '../../main/simulator/records.js';
import { SessionScript } from '../../main/simulator/workload.js';
import { fallbackDecision, type LogLine, stalledSession } from '../helpers/gateway-log.js';
import { QUIET_GATEWAY } from '../helpers/quiet-gateway.js';
import { until } from '../helpers/transcripts.js';

const CLI = fileURLToPath(new URL('../../dist/main/cli/index.js', import.meta.url));
const DEPS = ['zhipu/glm-5.1', 'deepseek/deepseek-v4-pro'];

let root: string;
let stateDir: string;
let logDir: string;
let home: string;
let env: NodeJS.ProcessEnv;
let daemon: ChildProcess | null = null;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'bb-mixed-'));
  stateDir = join(root, 'openclaw');
  logDir = join(root, 'gateway-logs');
  home = join(root, 'breakerbar');
  mkdirSync(home, { recursive: true });
  mkdirSync(logDir, { recursive: true });
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      ...QUIET_GATEWAY,
      gatewayLogDir: logDir,
      gatewayMetrics: { enabled: false },
      ingest: { reconcileIntervalMs: 300 },
    }),
  );
  env = { ...process.env, BREAKERBAR_HOME: home, OPENCLAW_STATE_DIR: stateDir };
});

afterAll(() => {
  daemon?.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

function cli(...args: string[]): Record<string, unknown> {
  return JSON.parse(execFileSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8' }));
}

const summaryOf = ({ calls, outcomes, byDependency, tokens }: Record<string, unknown>) => ({
  calls,
  outcomes,
  byDependency,
  tokens,
});

/** The agents of the installation and the writes they make. */
class Installation {
  private readonly random = seededRandom(21);
  private clock = Date.now() - 3600_000;
  private readonly legacy = new SessionScript('legacy-session-0000', this.random, { deps: DEPS, failureRate: 0.3 });
  private readonly modern = new SessionScript('modern-session-0000', this.random, { deps: DEPS, failureRate: 0.3 });
  private readonly legacyFile = join(stateDir, 'agents', 'legacy', 'sessions', 'legacy-session-0000.jsonl');
  private readonly db: OpenClawAgentDb;
  private readonly logFile = join(logDir, 'openclaw-2026-11-30.log');
  private logged = 0;

  constructor() {
    mkdirSync(join(stateDir, 'agents', 'legacy', 'sessions'), { recursive: true });
    appendFileSync(this.legacyFile, `${this.legacy.header(this.clock)}\n`);
    this.db = new OpenClawAgentDb(agentDatabasePath(stateDir, 'modern'));
    this.db.append(this.modern.sessionId, 'modern', [this.modern.header(this.clock)]);
  }

  /** A turn for each agent, and gateway log lines: fallback decisions for both agents and for one without transcripts. */
  step(): void {
    this.clock += 5000;
    appendFileSync(
      this.legacyFile,
      this.legacy
        .turn(this.clock)
        .lines.map((line) => `${line}\n`)
        .join(''),
    );
    this.db.append(this.modern.sessionId, 'modern', this.modern.turn(this.clock).lines);
    const n = this.logged++;
    const lines: LogLine[] = [
      fallbackDecision(this.clock + 1, n % 2 === 0 ? 'fields' : 'text', {
        decision: 'candidate_failed',
        requested: 'zhipu/glm-5.1',
        candidate: 'zhipu/glm-5.1',
        reason: 'rate_limit',
        httpCode: 429,
        next: 'deepseek/deepseek-v4-pro',
        sessionKey: `agent:${n % 3 === 0 ? 'modern' : 'ghost'}:main`,
      }),
      fallbackDecision(this.clock + 2, 'fields', {
        decision: 'candidate_succeeded',
        requested: 'zhipu/glm-5.1',
        candidate: 'deepseek/deepseek-v4-pro',
        reason: null,
        final: 'succeeded',
        sessionKey: 'agent:ghost:main',
      }),
      stalledSession(this.clock + 3, 'text', {
        sessionId: 'ghost-session',
        sessionKey: 'agent:ghost:main',
        state: 'processing',
        age: '216s',
        ageMs: 216_000,
        reason: 'active_work_without_progress',
        classification: 'stalled_agent_run',
      }),
    ];
    appendFileSync(this.logFile, lines.map((entry) => `${entry.line}\n`).join(''));
  }

  close(): void {
    this.db.close();
  }
}

describe('a mixed installation: JSONL agent, SQLite agent, gateway logs', () => {
  it('is scanned and followed live with exact counts', async () => {
    const installation = new Installation();
    for (let i = 0; i < 30; i++) installation.step();

    daemon = spawn(process.execPath, [CLI, 'daemon', '--port', '0'], { env, stdio: 'ignore' });
    // Live: all three keep being written while the daemon follows them.
    for (let i = 0; i < 30; i++) {
      installation.step();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    installation.close();

    const scan = cli('scan', stateDir, '--gateway-logs', logDir, '--json');
    const bySource = scan.bySource as Record<string, Record<string, unknown>>;
    expect(bySource.jsonl?.files).toBe(1);
    expect(bySource.sqlite?.databases).toBe(1);
    expect(bySource.gatewaylog?.files).toBe(1);
    // 60 steps: two fallback decisions for `ghost` (no transcripts) count as calls in 40 of them, one in the rest.
    expect(bySource.gatewaylog?.calls).toBe(60 + 40);
    expect(bySource.gatewaylog?.stalls).toBe(60);

    await until(() => {
      try {
        return JSON.stringify(summaryOf(cli('history', '--json'))) === JSON.stringify(summaryOf(scan));
      } catch {
        return false;
      }
    }, 20_000);
    expect(summaryOf(cli('history', '--json'))).toEqual(summaryOf(scan));

    const db = new Database(join(home, 'breakerbar.sqlite'), { readonly: true });
    const signals = db.prepare('SELECT kind, count(*) AS n FROM signals GROUP BY kind ORDER BY kind').all();
    const sources = db.prepare('SELECT source, count(*) AS n FROM calls GROUP BY source ORDER BY source').all();
    db.close();
    expect(signals).toEqual([
      { kind: 'fallback_decision', n: 120 },
      { kind: 'stall', n: 60 },
    ]);
    expect(sources).toEqual([
      { source: 'gatewaylog', n: 100 },
      { source: 'jsonl', n: bySource.jsonl?.calls },
      { source: 'sqlite', n: bySource.sqlite?.calls },
    ]);

    daemon.kill('SIGTERM');
    await new Promise((resolve) => daemon?.once('exit', resolve));
    daemon = null;
  }, 60_000);
});
