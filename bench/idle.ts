/**
 * Idle cost: the daemon following 1,000 session files that do not change.
 * Measures the daemon process's CPU time (user + system, from /proc) over a
 * quiet interval after it has caught up.
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentDatabasePath, OpenClawAgentDb } from '../main/rehearse/openclaw-db.js';
import { seededRandom } from '../main/rehearse/records.js';
import { SessionScript } from '../main/rehearse/workload.js';
import { machine, recordSection } from './report.js';

const CLI = fileURLToPath(new URL('../main/cli/index.js', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Kernel clock ticks per second (USER_HZ), the unit of utime/stime in /proc/<pid>/stat. */
const TICKS_PER_SECOND = 100;

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // After "pid (comm) ", utime and stime are fields 12 and 13 (0-based).
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

interface IdleResult {
  used: number;
  percent: number;
  rss: number;
}

export async function idleBench(sessions = 1000, quietSeconds = 60): Promise<void> {
  const jsonl = await measureIdle('jsonl', sessions, quietSeconds);
  const sqlite = await measureIdle('sqlite', sessions, quietSeconds);
  const row = (what: string, r: IdleResult) =>
    `| ${what} | ${quietSeconds} s | ${r.used.toFixed(2)} s | ${r.percent.toFixed(2)} % | ${r.rss.toFixed(0)} MiB |`;
  const markdown = `## Idle (\`npm run bench -- idle\`)

The daemon (\`breakerbar daemon\`, default config: watcher plus a reconcile every 5 s, SQLite \`data_version\` checked every 50 ms; the gateway metrics
endpoint refused, as when the plugin is off) following ${sessions} sessions that do not change, after it has
caught up; measured on ${machine()}.

| followed | quiet interval | CPU time used | CPU (% of one core) | RSS |
|---|---:|---:|---:|---:|
${row(`${sessions} JSONL session files in 10 agents`, jsonl)}
${row(`${sessions} sessions in 10 SQLite agent databases`, sqlite)}

Resolution: CPU time is counted in ${1000 / TICKS_PER_SECOND} ms ticks.`;
  process.stdout.write(`\n${markdown}\n`);
  recordSection('idle', markdown);
}

/** Writes `sessions` idle sessions in 10 agents, in the given format. */
function writeInstallation(stateDir: string, format: 'jsonl' | 'sqlite', sessions: number): void {
  const random = seededRandom(5);
  const databases = new Map<string, OpenClawAgentDb>();
  for (let i = 0; i < sessions; i++) {
    const agent = `agent${i % 10}`;
    const id = `idle-${i.toString().padStart(5, '0')}-0000-4000-8000-000000000000`;
    const script = new SessionScript(id, random, { deps: ['zhipu/glm-5.1'], failureRate: 0.1, textChars: 200 });
    const lines = [script.header(Date.now() - 3600_000), ...script.turn(Date.now() - 3000_000).lines];
    if (format === 'jsonl') {
      const dir = join(stateDir, 'agents', agent, 'sessions');
      mkdirSync(dir, { recursive: true });
      appendFileSync(join(dir, `${id}.jsonl`), `${lines.join('\n')}\n`);
    } else {
      let db = databases.get(agent);
      if (!db) {
        db = new OpenClawAgentDb(agentDatabasePath(stateDir, agent));
        databases.set(agent, db);
      }
      db.append(id, agent, lines);
    }
  }
  for (const db of databases.values()) db.close();
}

async function measureIdle(format: 'jsonl' | 'sqlite', sessions: number, quietSeconds: number): Promise<IdleResult> {
  const root = mkdtempSync(join(tmpdir(), 'bb-idle-'));
  const stateDir = join(root, 'openclaw');
  writeInstallation(stateDir, format, sessions);
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  // Health probes keep running (their cost is part of idle); nothing is restarted or shown on this machine.
  const quiet = { gatewayUrl: 'http://127.0.0.1:1', watchdog: { enabled: false }, notifications: { desktop: false } };
  writeFileSync(join(home, 'config.json'), JSON.stringify(quiet));
  const env = { ...process.env, BREAKERBAR_HOME: home, OPENCLAW_STATE_DIR: stateDir };
  const daemon = spawn(process.execPath, [CLI, 'daemon', '--port', '0'], { env, stdio: 'ignore' });
  try {
    const expected = JSON.parse(
      execFileSync(process.execPath, [CLI, 'scan', '--json'], { env, encoding: 'utf8' }),
    ).calls;
    for (let waited = 0; waited < 60_000; waited += 500) {
      await sleep(500);
      try {
        const stored = JSON.parse(
          execFileSync(process.execPath, [CLI, 'history', '--json'], {
            env,
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'ignore'],
          }),
        ).calls;
        if (stored === expected) break;
      } catch {}
    }
    await sleep(5000);
    const pid = daemon.pid as number;
    const before = cpuSeconds(pid);
    await sleep(quietSeconds * 1000);
    const used = cpuSeconds(pid) - before;
    const percent = (100 * used) / quietSeconds;
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    process.stdout.write(
      `${format}: ${used.toFixed(2)} s CPU in ${quietSeconds} s (${percent.toFixed(2)} %), RSS ${rss.toFixed(0)} MiB\n`,
    );
    return { used, percent, rss };
  } finally {
    daemon.kill('SIGTERM');
    await sleep(500);
    rmSync(root, { recursive: true, force: true });
  }
}
