/**
 * Idle cost: the daemon following 1,000 sessions that do not change, then the same daemon while the gateway
 * writes 100 calls a second. Measures the daemon process's CPU time (user + system of all its threads and of the
 * commands it runs, from /proc) and its resident memory (sampled every second; the largest is kept). A bare Node process with one
 * timer (`node -e 'setInterval(()=>{},1000)'`, the same Node) is measured over the same quiet interval, so
 * the figures stand beside what any Node program costs on this machine; so is the runtime floor of the
 * daemon's shape: the same Node with better-sqlite3 holding a WAL database open, an HTTP server on loopback
 * and a second thread that holds a connection too (what the daemon needs before any code of its own runs).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentDatabasePath, OpenClawAgentDb } from '../main/simulator/openclaw-db.js';
import { seededRandom } from '../main/simulator/records.js';
import { SessionScript } from '../main/simulator/workload.js';
import { machine, recordSection, summarize } from './report.js';

const CLI = fileURLToPath(new URL('../main/cli/index.js', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Kernel clock ticks per second (USER_HZ), the unit of utime/stime in /proc/<pid>/stat. */
const TICKS_PER_SECOND = 100;
const AGENTS = 10;
/** The targets: idle, and with traffic. */
const IDLE_CPU_TARGET = 0.3;
const IDLE_RSS_TARGET_MB = 70;
const TRAFFIC_CPU_TARGET = 5;
/** Sessions the traffic is written to (the rest stay quiet). */
const ACTIVE_SESSIONS = 50;

export interface IdleOptions {
  sessions: number;
  /** The quiet interval (default 600 s). */
  quietSeconds: number;
  /** The traffic interval (default 60 s) and its rate. */
  trafficSeconds: number;
  callsPerSecond: number;
}

interface Usage {
  /** CPU seconds over the interval. */
  used: number;
  /** Of one core. */
  percent: number;
  /** The largest RSS sampled over the interval, MiB. */
  rssMb: number;
  seconds: number;
}

interface FormatResult {
  quiet: Usage;
  baseline: Usage;
  floor: Usage;
  traffic: Usage & { calls: number };
}

/** CPU seconds of `pid`'s threads and of the commands it ran and waited for (`systemctl`, `ss`, `openclaw`). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // After "pid (comm) ", utime, stime, cutime and cstime are fields 11 to 14 (0-based).
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/** CPU and peak RSS of each process over the same `seconds`, while `during` runs (it must end by then). */
async function measure(pids: number[], seconds: number, during?: (until: number) => Promise<void>): Promise<Usage[]> {
  const before = pids.map(cpuSeconds);
  const peak = pids.map(rssMb);
  const end = Date.now() + seconds * 1000;
  const work = during?.(end);
  while (Date.now() < end) {
    await sleep(Math.min(1000, Math.max(0, end - Date.now())));
    pids.forEach((pid, i) => {
      peak[i] = Math.max(peak[i] ?? 0, rssMb(pid));
    });
  }
  await work;
  return pids.map((pid, i) => {
    const used = cpuSeconds(pid) - (before[i] ?? 0);
    return { used, percent: (100 * used) / seconds, rssMb: peak[i] ?? 0, seconds };
  });
}

export async function idleBench(options: IdleOptions): Promise<void> {
  const jsonl = await measureFormat('jsonl', options);
  const sqlite = await measureFormat('sqlite', options);
  const verdict = (met: boolean) => (met ? 'met' : '**not met**');
  const row = (what: string, interval: string, u: Usage) =>
    `| ${what} | ${interval} | ${u.used.toFixed(2)} s | ${u.percent.toFixed(2)} % | ${u.rssMb.toFixed(0)} MiB |`;
  const quiet = `${options.quietSeconds} s quiet`;
  const traffic = `${options.trafficSeconds} s at ${options.callsPerSecond} calls/s`;
  const rows = (name: string, r: FormatResult) =>
    [
      row(`daemon, ${options.sessions} ${name}`, quiet, r.quiet),
      row(`daemon, ${options.sessions} ${name}`, `${traffic} (${r.traffic.calls} stored)`, r.traffic),
      row("`node -e 'setInterval(()=>{},1000)'`, beside it", quiet, r.baseline),
      row('the runtime floor (Node + SQLite + HTTP server + a second thread), beside it', quiet, r.floor),
    ].join('\n');
  const judge = (name: string, r: FormatResult) =>
    `- ${name}: idle ${r.quiet.percent.toFixed(2)} % of a core (≤ ${IDLE_CPU_TARGET} %: ${verdict(r.quiet.percent <= IDLE_CPU_TARGET)}; ` +
    `${(r.quiet.percent / Math.max(r.baseline.percent, 0.01)).toFixed(0)}× the bare Node process), ` +
    `RSS ${r.quiet.rssMb.toFixed(0)} MiB (≤ ${IDLE_RSS_TARGET_MB}: ${verdict(r.quiet.rssMb <= IDLE_RSS_TARGET_MB)}; ` +
    `the bare Node process ${r.baseline.rssMb.toFixed(0)} MiB, the runtime floor ${r.floor.rssMb.toFixed(0)} MiB); ` +
    `${options.callsPerSecond} calls/s ${r.traffic.percent.toFixed(2)} % (≤ ${TRAFFIC_CPU_TARGET} %: ${verdict(r.traffic.percent <= TRAFFIC_CPU_TARGET)}).`;
  const markdown = `## Idle (\`npm run bench -- idle\`)

The daemon (\`breakerbar daemon\`, default config; the gateway refuses connections, so its probes and the metrics
scrapes keep failing, as when OpenClaw is stopped) following ${options.sessions} sessions in ${AGENTS} agents, after it
has caught up: first quiet, then while ${ACTIVE_SESSIONS} of the sessions receive ${options.callsPerSecond} model calls a
second. CPU is the daemon's user + system time over all its threads and the commands it runs (\`systemctl\`, \`ss\`,
\`openclaw\` while it checks the restart strategy and who owns the gateway); RSS the largest of one sample a second.
Measured on ${machine()}.

| what | interval | CPU time used | CPU (% of one core) | RSS (peak) |
|---|---|---:|---:|---:|
${rows('JSONL session files', jsonl)}
${rows('sessions in SQLite agent databases', sqlite)}

${judge('JSONL', jsonl)}
${judge('SQLite', sqlite)}

Resolution: CPU time is counted in ${1000 / TICKS_PER_SECOND} ms ticks.`;
  process.stdout.write(`\n${markdown}\n`);
  recordSection('idle', markdown);
  for (const [name, r] of [
    ['JSONL', jsonl],
    ['SQLite', sqlite],
  ] as const) {
    summarize('idle', `${name}: CPU quiet`, `${r.quiet.percent.toFixed(2)} %`, `≤ ${IDLE_CPU_TARGET} %`);
    summarize('idle', `${name}: RSS quiet`, `${r.quiet.rssMb.toFixed(0)} MiB`, `≤ ${IDLE_RSS_TARGET_MB} MiB`);
    summarize(
      'idle',
      `${name}: CPU at ${options.callsPerSecond} calls/s`,
      `${r.traffic.percent.toFixed(2)} %`,
      `≤ ${TRAFFIC_CPU_TARGET} %`,
    );
  }
}

/**
 * A Node program with what the daemon's shape needs and nothing of its own: better-sqlite3 holding a WAL
 * database open, an HTTP server listening on loopback, and a worker thread with a connection of its own.
 */
function runtimeFloor(dbPath: string): string {
  const sqlite = JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'));
  const db = JSON.stringify(dbPath);
  const open = `const D = require(${sqlite}); const db = new D(${db}); db.pragma('journal_mode = WAL'); db.exec('create table if not exists t (x)');`;
  return [
    open,
    `require('node:http').createServer((q, r) => r.end()).listen(0, '127.0.0.1');`,
    `new (require('node:worker_threads').Worker)(${JSON.stringify(`${open} setInterval(() => {}, 1000);`)}, { eval: true });`,
    'setInterval(() => {}, 1000);',
  ].join('\n');
}

const sessionId = (i: number) => `idle-${i.toString().padStart(5, '0')}-0000-4000-8000-000000000000`;
const agentOf = (i: number) => `agent${i % AGENTS}`;

/** Writes `sessions` idle sessions in the agents, in the given format. */
function writeInstallation(stateDir: string, format: 'jsonl' | 'sqlite', sessions: number): void {
  const random = seededRandom(5);
  const databases = new Map<string, OpenClawAgentDb>();
  for (let i = 0; i < sessions; i++) {
    const script = new SessionScript(sessionId(i), random, {
      deps: ['zhipu/glm-5.1'],
      failureRate: 0.1,
      textChars: 200,
    });
    const lines = [script.header(Date.now() - 3600_000), ...script.turn(Date.now() - 3000_000).lines];
    appendTo(stateDir, format, databases, i, lines);
  }
  for (const db of databases.values()) db.close();
}

function appendTo(
  stateDir: string,
  format: 'jsonl' | 'sqlite',
  databases: Map<string, OpenClawAgentDb>,
  session: number,
  lines: readonly string[],
): void {
  const agent = agentOf(session);
  if (format === 'jsonl') {
    const dir = join(stateDir, 'agents', agent, 'sessions');
    mkdirSync(dir, { recursive: true });
    appendFileSync(join(dir, `${sessionId(session)}.jsonl`), `${lines.join('\n')}\n`);
    return;
  }
  let db = databases.get(agent);
  if (!db) {
    db = new OpenClawAgentDb(agentDatabasePath(stateDir, agent));
    databases.set(agent, db);
  }
  db.append(sessionId(session), agent, lines);
}

/** Appends turns to the active sessions at `callsPerSecond` until `until`, in steps of 100 ms; the calls written. */
async function writeTraffic(
  stateDir: string,
  format: 'jsonl' | 'sqlite',
  callsPerSecond: number,
  until: number,
): Promise<number> {
  const random = seededRandom(11);
  const scripts = Array.from(
    { length: ACTIVE_SESSIONS },
    (_, i) => new SessionScript(sessionId(i), random, { deps: ['zhipu/glm-5.1', 'openai/gpt-5'], failureRate: 0.02 }),
  );
  const databases = new Map<string, OpenClawAgentDb>();
  const start = Date.now();
  let written = 0;
  let next = 0;
  try {
    while (Date.now() < until) {
      const due = Math.floor(((Date.now() - start) / 1000) * callsPerSecond);
      while (written < due) {
        const session = next++ % ACTIVE_SESSIONS;
        const turn = (scripts[session] as SessionScript).turn(Date.now());
        appendTo(stateDir, format, databases, session, turn.lines);
        written += turn.calls.length;
      }
      await sleep(100);
    }
  } finally {
    for (const db of databases.values()) db.close();
  }
  return written;
}

function storedCalls(env: NodeJS.ProcessEnv): number | null {
  try {
    return JSON.parse(
      execFileSync(process.execPath, [CLI, 'history', '--json'], {
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ).calls;
  } catch {
    return null;
  }
}

/** Polls until the daemon has stored `expected` calls (at most `ms`). */
async function caughtUp(env: NodeJS.ProcessEnv, expected: number, ms: number): Promise<number | null> {
  let stored: number | null = null;
  for (let waited = 0; waited < ms; waited += 500) {
    await sleep(500);
    stored = storedCalls(env);
    if (stored === expected) break;
  }
  return stored;
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

async function measureFormat(format: 'jsonl' | 'sqlite', options: IdleOptions): Promise<FormatResult> {
  const root = mkdtempSync(join(tmpdir(), 'bb-idle-'));
  const stateDir = join(root, 'openclaw');
  writeInstallation(stateDir, format, options.sessions);
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  // Health probes keep running (their cost is part of idle); nothing is restarted or shown on this machine. The
  // gateway log directory is an empty one of its own: another gateway's log on this machine is not read.
  const quiet = {
    gatewayUrl: 'http://127.0.0.1:1',
    gatewayLogDir: join(root, 'gateway-logs'),
    watchdog: { enabled: false },
    notifications: { desktop: false },
  };
  writeFileSync(join(home, 'config.json'), JSON.stringify(quiet));
  const env = { ...process.env, BREAKERBAR_HOME: home, OPENCLAW_STATE_DIR: stateDir };
  const profileDir = process.env.BENCH_CPU_PROF;
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(profileDir)] : [];
  const daemon = spawn(process.execPath, [...profile, CLI, 'daemon', '--port', '0'], { env, stdio: 'ignore' });
  const bare = spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], { stdio: 'ignore' });
  const floor = spawn(process.execPath, ['-e', runtimeFloor(join(root, 'floor.sqlite'))], { stdio: 'ignore' });
  try {
    const expected = JSON.parse(
      execFileSync(process.execPath, [CLI, 'scan', '--json'], { env, encoding: 'utf8' }),
    ).calls;
    const stored = await caughtUp(env, expected, 120_000);
    if (stored !== expected) throw new Error(`${format}: the daemon stored ${stored} of ${expected} calls`);
    // Settled: the start's work (and the first minute's compiling and collecting) is not idle.
    await sleep(10_000);
    const pid = daemon.pid as number;
    const [quietUsage, baseline, floorUsage] = (await measure(
      [pid, bare.pid as number, floor.pid as number],
      options.quietSeconds,
    )) as [Usage, Usage, Usage];
    let written = 0;
    const [trafficUsage] = (await measure([pid], options.trafficSeconds, async (until) => {
      written = await writeTraffic(stateDir, format, options.callsPerSecond, until);
    })) as [Usage];
    const total = await caughtUp(env, expected + written, 30_000);
    process.stdout.write(
      `${format}: quiet ${quietUsage.percent.toFixed(2)} % (bare Node ${baseline.percent.toFixed(2)} %), RSS ${quietUsage.rssMb.toFixed(0)} MiB; ` +
        `${options.callsPerSecond} calls/s ${trafficUsage.percent.toFixed(2)} %, ${(total ?? 0) - expected} of ${written} stored\n`,
    );
    return {
      quiet: quietUsage,
      baseline,
      floor: floorUsage,
      traffic: { ...trafficUsage, calls: (total ?? 0) - expected },
    };
  } finally {
    await Promise.all([stop(daemon), stop(bare), stop(floor)]);
    rmSync(root, { recursive: true, force: true });
  }
}
