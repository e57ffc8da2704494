/**
 * Load: the daemon as shipped (`breakerbar daemon` from dist/) under heavy
 * traffic, with the watchdog on (dry run) and a simulated gateway answering
 * its health probes on loopback. Two phases, each with a fresh data directory:
 *
 * - live: a separate writer process appends OpenClaw JSONL records at a steady
 *   rate of calls (10,000 a second by default) for a while; meanwhile the
 *   benchmark polls the daemon's database for each call's ingest lag, asks the
 *   daemon's `/healthz` every 20 ms, and collects the daemon's event-loop delay;
 * - backfill: a first start over a large state directory (1 GB by default):
 *   time until every call is stored, and the same event-loop and `/healthz`
 *   figures while it reads.
 *
 * In both, the watchdog decisions of kind `dead` are counted: the gateway
 * answered throughout, so any would be the daemon's own blind spot.
 *
 * The daemon's event loop is watched from inside it without its help: the
 * benchmark loads loop-delay-reporter.js with `node --import`. With
 * BENCH_CPU_PROF=<dir>, the daemon also writes a V8 CPU profile there.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { readApiUrl } from '../main/core/api-files/address.js';
import { loadConfig } from '../main/core/config/index.js';
import type { WriterCommand } from './latency-writer.js';
import type { LoopDelayReport } from './loop-delay-reporter.js';
import { distribution, machine, recordSection, summarize } from './report.js';
import { type CorpusStats, generateCorpus } from './scan-corpus.js';

const CLI = fileURLToPath(new URL('../main/cli/index.js', import.meta.url));
const REPORTER = pathToFileURL(fileURLToPath(new URL('./loop-delay-reporter.js', import.meta.url))).href;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Kernel clock ticks per second (USER_HZ), the unit of utime/stime in /proc/<pid>/stat. */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system) a process has used, in seconds, or with `thread` its main thread alone (the one
 * running the event loop); NaN where /proc is not there.
 */
function cpuSeconds(pid: number | undefined, thread = false): number {
  try {
    const path = thread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
    const fields = readFileSync(path, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** `/healthz` asked this often (one request at a time). */
const HEALTHZ_EVERY_MS = 20;
/** The database polled this often for newly stored calls (the lag figures' resolution). */
const POLL_EVERY_MS = 50;

export interface LoadOptions {
  /** Calls a second appended during the live phase; 0 skips it. */
  callsPerSecond: number;
  durationSec: number;
  /** Size of the first-start state directory; 0 skips the backfill phase. */
  backfillMb: number;
  /** Sessions the live traffic is spread over. */
  sessions: number;
}

type Dist = ReturnType<typeof distribution>;

interface Watch {
  /** CPU time the daemon used over the phase, s (all its threads)… */
  daemonCpu: number;
  /** …and its main thread (the event loop), s. */
  mainThreadCpu: number;
  /** The machine's 1-minute load average at the end of the phase (other work shares the cores). */
  loadAverage: number;
  healthz: Dist;
  healthzFailures: number;
  loopMaxMs: number;
  /** Per-second maxima of the event-loop delay. */
  loopSeconds: Dist;
  probes: Record<string, number>;
  decisions: Record<string, number>;
}

interface LiveResult extends Watch {
  written: number;
  writeSeconds: number;
  stored: number;
  /** Calls stored per second from the first write until the last call was stored. */
  storedRate: number;
  lag: Dist;
  /** Calls still unstored when the writer stopped, and how long they took to drain. */
  drainMs: number;
  lagBySecond: number[];
}

export interface BackfillResult extends Watch {
  files: number;
  mb: number;
  expected: number;
  stored: number;
  /** Daemon spawned → every call stored. */
  doneMs: number;
  /** Largest event-loop delay in the daemon's first second (module loading, store opening), reported apart. */
  startupLoopMs: number;
}

// ── processes ─────────────────────────────────────────────────────────────

export interface GatewayProcess {
  baseUrl: string;
  child: ChildProcess;
}

export async function startGateway(): Promise<GatewayProcess> {
  const child = fork(fileURLToPath(new URL('./gateway-process.js', import.meta.url)), [], { stdio: 'inherit' });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`simulated gateway exited (${code})`)));
  });
  return { baseUrl: `http://127.0.0.1:${port}`, child };
}

interface Daemon {
  child: ChildProcess;
  loop: LoopDelayReport[];
  /** The last lines the daemon wrote to stderr (shown when it fails). */
  tail: string[];
  exited: Promise<void>;
}

function startDaemon(env: NodeJS.ProcessEnv): Daemon {
  const profileDir = process.env.BENCH_CPU_PROF;
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(profileDir)] : [];
  const child = spawn(
    process.execPath,
    ['--import', REPORTER, ...profile, CLI, 'daemon', '--port', '0', '--no-desktop'],
    { env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
  );
  const loop: LoopDelayReport[] = [];
  const tail: string[] = [];
  child.on('message', (report: LoopDelayReport) => {
    if (report.kind === 'loop-delay') loop.push(report);
  });
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    tail.push(...text.split('\n').filter(Boolean));
    tail.splice(0, Math.max(0, tail.length - 30));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, loop, tail, exited };
}

async function stopDaemon(daemon: Daemon): Promise<void> {
  if (daemon.child.exitCode !== null) return;
  daemon.child.kill('SIGTERM');
  const killed = setTimeout(() => daemon.child.kill('SIGKILL'), 15_000);
  await daemon.exited;
  clearTimeout(killed);
}

/** Waits until the daemon has written where its API listens and answers there. */
async function apiOf(daemon: Daemon, dataDir: string, timeoutMs = 60_000): Promise<string> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (daemon.child.exitCode !== null) throw new Error(`daemon exited:\n${daemon.tail.join('\n')}`);
    const url = readApiUrl(dataDir);
    if (url) {
      try {
        if ((await fetch(`${url}/healthz`)).ok) return url;
      } catch {}
    }
    await sleep(50);
  }
  throw new Error(`daemon API not up after ${timeoutMs} ms:\n${daemon.tail.join('\n')}`);
}

// ── what is measured ──────────────────────────────────────────────────────

/** Asks `/healthz` back to back, every HEALTHZ_EVERY_MS, until stopped. */
function sampleHealthz(apiUrl: string): { stop: () => Promise<{ ms: number[]; failures: number }> } {
  const ms: number[] = [];
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const response = await fetch(`${apiUrl}/healthz`);
        await response.arrayBuffer();
        if (response.ok) ms.push(performance.now() - t0);
        else failures++;
      } catch {
        failures++;
      }
      await sleep(Math.max(0, HEALTHZ_EVERY_MS - (performance.now() - t0)));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { ms, failures };
    },
  };
}

/** Opens the daemon's database read-only once it exists with its schema. */
async function openStore(dbPath: string, timeoutMs = 60_000): Promise<Database.Database> {
  const started = Date.now();
  for (;;) {
    try {
      const db = new Database(dbPath, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      db.prepare('SELECT 1 FROM calls LIMIT 1').all();
      return db;
    } catch (error) {
      if (Date.now() - started > timeoutMs) throw error;
      await sleep(50);
    }
  }
}

function countsBy(db: Database.Database, sql: string, since: number, until: number): Record<string, number> {
  const rows = db.prepare(sql).all(since, until) as Array<{ k: string; n: number }>;
  return Object.fromEntries(rows.map((row) => [row.k, row.n]));
}

function watched(
  db: Database.Database,
  daemon: Daemon,
  healthz: { ms: number[]; failures: number },
  from: number,
  to: number,
  cpu: { daemon: number; mainThread: number },
): Watch {
  const seconds = daemon.loop.filter((r) => r.at > from && r.at <= to + 1000).map((r) => r.maxMs);
  return {
    daemonCpu: cpu.daemon,
    mainThreadCpu: cpu.mainThread,
    loadAverage: loadavg()[0] ?? Number.NaN,
    healthz: distribution(healthz.ms),
    healthzFailures: healthz.failures,
    loopMaxMs: Math.max(0, ...seconds),
    loopSeconds: distribution(seconds),
    probes: countsBy(
      db,
      'SELECT status AS k, count(*) AS n FROM health_probes WHERE ts >= ? AND ts <= ? GROUP BY status',
      from,
      to,
    ),
    decisions: countsBy(
      db,
      'SELECT decision AS k, count(*) AS n FROM watchdog_decisions WHERE ts >= ? AND ts <= ? GROUP BY decision',
      from,
      to,
    ),
  };
}

// ── set-up ────────────────────────────────────────────────────────────────

export function installation(root: string, gatewayUrl: string) {
  const stateDir = join(root, 'openclaw');
  const home = join(root, 'home');
  const logs = join(root, 'logs');
  for (const dir of [stateDir, home, logs]) mkdirSync(dir, { recursive: true });
  const config = {
    gatewayUrl,
    gatewayLogDir: logs,
    gatewayMetrics: { enabled: false },
    // Probes every second with the shortest timeouts allowed: the most chances for a late probe to look dead.
    health: { intervalSec: 1, connectTimeoutSec: 1, readTimeoutMinSec: 1, readTimeoutMaxSec: 2 },
    watchdog: { enabled: true, dryRun: true },
    notifications: { desktop: false },
  };
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  const env = { ...process.env, BREAKERBAR_HOME: home, OPENCLAW_STATE_DIR: stateDir };
  const loaded = loadConfig(undefined, { env, home: root, platform: process.platform });
  return { stateDir, env, dataDir: loaded.dataDir, dbPath: loaded.dbPath };
}

// ── phases ────────────────────────────────────────────────────────────────

async function livePhase(gateway: GatewayProcess, options: LoadOptions): Promise<LiveResult> {
  const root = mkdtempSync(join(tmpdir(), 'bb-load-'));
  const writer = fork(fileURLToPath(new URL('./latency-writer.js', import.meta.url)), [], { stdio: 'inherit' });
  const send = (command: WriterCommand) =>
    new Promise<number>((resolve) => {
      writer.once('message', (reply: { calls: number }) => resolve(reply.calls));
      writer.send(command);
    });
  let daemon: Daemon | null = null;
  try {
    const { stateDir, env, dataDir, dbPath } = installation(root, gateway.baseUrl);
    await send({
      kind: 'setup',
      stateDir,
      sessions: options.sessions,
      format: 'jsonl',
      agents: 10,
      textChars: 400,
      failureRate: 0.02,
    });
    daemon = startDaemon(env);
    const api = await apiOf(daemon, dataDir);
    const db = await openStore(dbPath);
    await sleep(3000); // the first probes and checks, the start-up behind

    const healthz = sampleHealthz(api);
    let lastId = 0;
    const lag: number[] = [];
    const lagBySecond = new Map<number, number>();
    const newCalls = db.prepare('SELECT id, ts FROM calls WHERE id > ? ORDER BY id');
    const poll = () => {
      const now = Date.now();
      for (const row of newCalls.all(lastId) as Array<{ id: number; ts: number }>) {
        lastId = row.id;
        lag.push(now - row.ts);
        const second = Math.floor(row.ts / 1000);
        lagBySecond.set(second, Math.max(lagBySecond.get(second) ?? 0, now - row.ts));
      }
    };
    const poller = setInterval(poll, POLL_EVERY_MS);

    const from = Date.now();
    const cpuFrom = cpuSeconds(daemon.child.pid);
    const mainFrom = cpuSeconds(daemon.child.pid, true);
    process.stdout.write(
      `live: ${options.callsPerSecond} calls/s for ${options.durationSec} s over ${options.sessions} sessions\n`,
    );
    const written = await send({
      kind: 'rate',
      callsPerSecond: options.callsPerSecond,
      durationMs: options.durationSec * 1000,
    });
    const writeEnd = Date.now();
    const writeSeconds = (writeEnd - from) / 1000;
    // Drain: until every call written is stored (or clearly never will be).
    while (lag.length < written && Date.now() - writeEnd < 60_000) await sleep(POLL_EVERY_MS);
    clearInterval(poller);
    poll();
    const to = Date.now();
    const cpu = {
      daemon: cpuSeconds(daemon.child.pid) - cpuFrom,
      mainThread: cpuSeconds(daemon.child.pid, true) - mainFrom,
    };
    const drainMs = to - writeEnd;
    const samples = await healthz.stop();
    await sleep(1500); // the last loop report
    const watch = watched(db, daemon, samples, from, to, cpu);
    db.close();
    const seconds = [...lagBySecond.entries()].sort((a, b) => a[0] - b[0]).map(([, ms]) => ms);
    return {
      ...watch,
      written,
      writeSeconds,
      stored: lag.length,
      storedRate: lag.length / ((to - from) / 1000),
      lag: distribution(lag),
      drainMs,
      lagBySecond: seconds,
    };
  } finally {
    writer.kill();
    if (daemon) await stopDaemon(daemon);
    rmSync(root, { recursive: true, force: true });
  }
}

async function backfillPhase(gateway: GatewayProcess, options: LoadOptions): Promise<BackfillResult> {
  const root = mkdtempSync(join(tmpdir(), 'bb-load-backfill-'));
  try {
    const { stateDir } = installation(root, gateway.baseUrl);
    const g0 = performance.now();
    const stats = await generateCorpus(stateDir, options.backfillMb * 1e6);
    process.stdout.write(
      `backfill: ${stats.files} files, ${(stats.bytes / 1e6).toFixed(0)} MB, ${stats.assistant} calls (${((performance.now() - g0) / 1000).toFixed(1)} s to write)\n`,
    );
    return await firstStart(gateway, root, stats);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The daemon's first start over the corpus already written into the state
 * directory of `installation(root)`: spawned on a fresh data directory, timed
 * until every call is stored, watched meanwhile (event loop, `/healthz`).
 */
export async function firstStart(gateway: GatewayProcess, root: string, stats: CorpusStats): Promise<BackfillResult> {
  let daemon: Daemon | null = null;
  try {
    const { env, dataDir, dbPath } = installation(root, gateway.baseUrl);
    const mb = stats.bytes / 1e6;
    const spawned = Date.now();
    daemon = startDaemon(env);
    const pid = daemon.child.pid;
    const api = await apiOf(daemon, dataDir);
    const healthz = sampleHealthz(api);
    const db = await openStore(dbPath);
    const count = db.prepare('SELECT count(*) FROM calls').pluck();
    let stored = 0;
    let doneAt = 0;
    while (Date.now() - spawned < 30 * 60_000) {
      stored = count.get() as number;
      if (stored >= stats.assistant) {
        doneAt = Date.now();
        break;
      }
      if (daemon.child.exitCode !== null) throw new Error(`daemon exited:\n${daemon.tail.join('\n')}`);
      await sleep(100);
    }
    if (doneAt === 0) doneAt = Date.now();
    const cpu = { daemon: cpuSeconds(pid), mainThread: cpuSeconds(pid, true) };
    const samples = await healthz.stop();
    await sleep(1500); // the last loop report
    // The first report covers the daemon's own start (modules, store): shown apart from the reading.
    const first = daemon.loop[0];
    const watch = watched(db, daemon, samples, (first?.at ?? spawned) + 1, doneAt, cpu);
    db.close();
    return {
      ...watch,
      files: stats.files,
      mb,
      expected: stats.assistant,
      stored,
      doneMs: doneAt - spawned,
      startupLoopMs: first?.maxMs ?? 0,
    };
  } finally {
    if (daemon) await stopDaemon(daemon);
  }
}

// ── report ────────────────────────────────────────────────────────────────

const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 1 : 0) : 'n/a');
const classes = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || 'none';

function liveMarkdown(r: LiveResult, o: LoadOptions): string {
  const rate = r.written / r.writeSeconds;
  const dead = r.decisions.dead ?? 0;
  const met =
    r.stored === r.written &&
    rate >= o.callsPerSecond * 0.95 &&
    r.storedRate >= o.callsPerSecond * 0.95 &&
    r.lag.max <= 1000 &&
    r.healthz.p99 < 50 &&
    dead === 0 &&
    r.healthzFailures === 0;
  return `**Live: ${o.callsPerSecond} calls/s for ${o.durationSec} s.** A separate process appends OpenClaw JSONL
records (user message, assistant call, tool result, second call; 400-character answers, 2 % of calls failing) to
${o.sessions} session files in 10 agents, one write per line, paced every 2 ms: 32 turns per session built by the rehearsal's
session script, replayed with fresh entry ids and times (so that the writer's own CPU stays small beside the
daemon's); each call's record time is stamped just before its line is written. The benchmark polls the daemon's database every ${POLL_EVERY_MS} ms (read-only) and takes each new call's
lag as poll time − record time (an upper bound: up to ${POLL_EVERY_MS} ms of it is the poll's own period).

| figure | value |
|---|---:|
| calls written (rate achieved) | ${r.written} in ${r.writeSeconds.toFixed(1)} s (**${rate.toFixed(0)} calls/s**) |
| calls stored | ${r.stored} (drained ${(r.drainMs / 1000).toFixed(1)} s after the writer stopped: **${r.storedRate.toFixed(0)} calls/s** stored from the first write to the last call) |
| ingest lag p50 / p99 / max | **${ms(r.lag.p50)} / ${ms(r.lag.p99)} / ${ms(r.lag.max)} ms** |
| worst lag of any second of traffic | ${ms(Math.max(0, ...r.lagBySecond))} ms |
| \`/healthz\` p50 / p99 / max (${r.healthz.n} requests, ${r.healthzFailures} failed) | **${ms(r.healthz.p50)} / ${ms(r.healthz.p99)} / ${ms(r.healthz.max)} ms** |
| daemon event-loop delay, max / p99 of the per-second maxima | **${ms(r.loopMaxMs)}** / ${ms(r.loopSeconds.p99)} ms |
| daemon CPU time, per call stored: all threads / the event loop's | ${r.daemonCpu.toFixed(1)} s, ${((1e6 * r.daemonCpu) / r.stored).toFixed(0)} µs / ${r.mainThreadCpu.toFixed(1)} s, ${((1e6 * r.mainThreadCpu) / r.stored).toFixed(0)} µs |
| machine load average (1 min) at the end | ${r.loadAverage.toFixed(1)} on ${cpus().length} cores |
| gateway probes (class: count) | ${classes(r.probes)} |
| watchdog decisions (kind: count) | ${classes(r.decisions)} |
| watchdog decisions \`dead\` while the gateway answered | **${dead}** |

Target: ${o.callsPerSecond} calls/s written and stored (within 5 %: the writer paces itself every 2 ms), every call stored with lag
≤ 1 s, \`/healthz\` p99 < 50 ms, no \`dead\` decision — ${met ? '**met**' : '**not met**'}.`;
}

function backfillMarkdown(r: BackfillResult): string {
  const dead = r.decisions.dead ?? 0;
  const met = r.stored >= r.expected && r.loopMaxMs <= 100 && dead === 0;
  return `**First-start backfill of ${r.mb.toFixed(0)} MB.** The scan benchmark's generator writes ${r.files} JSONL transcripts
(${r.expected} model calls in long text with escapes and non-ASCII, all within the 7-day backfill); then the daemon
starts on a fresh data directory. Time from spawning it until every call is stored (\`count(*)\` polled every 100 ms);
event-loop delay from its second second on (the first covers loading modules and opening the store:
${ms(r.startupLoopMs)} ms); \`/healthz\` asked every ${HEALTHZ_EVERY_MS} ms once the API is up.

| figure | value |
|---|---:|
| calls stored | ${r.stored} of ${r.expected} |
| spawned → all stored | **${(r.doneMs / 1000).toFixed(1)} s** (${(r.mb / (r.doneMs / 1000)).toFixed(0)} MB/s, ${(r.stored / (r.doneMs / 1000)).toFixed(0)} calls/s) |
| daemon event-loop delay, max / p99 of the per-second maxima | **${ms(r.loopMaxMs)}** / ${ms(r.loopSeconds.p99)} ms |
| \`/healthz\` p50 / p99 / max (${r.healthz.n} requests, ${r.healthzFailures} failed) | ${ms(r.healthz.p50)} / ${ms(r.healthz.p99)} / ${ms(r.healthz.max)} ms |
| daemon CPU time (start included), per call stored: all threads / the event loop's | ${r.daemonCpu.toFixed(1)} s, ${((1e6 * r.daemonCpu) / r.stored).toFixed(0)} µs / ${r.mainThreadCpu.toFixed(1)} s, ${((1e6 * r.mainThreadCpu) / r.stored).toFixed(0)} µs |
| machine load average (1 min) at the end | ${r.loadAverage.toFixed(1)} on ${cpus().length} cores |
| gateway probes (class: count) | ${classes(r.probes)} |
| watchdog decisions \`dead\` while the gateway answered | **${dead}** |

Target: no event-loop stall over 100 ms while backfilling, every call stored, no \`dead\` decision — ${met ? '**met**' : '**not met**'}.`;
}

export async function loadBench(options: LoadOptions): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} not built (npm run build)`);
  const gateway = await startGateway();
  try {
    const live = options.callsPerSecond > 0 && options.durationSec > 0 ? await livePhase(gateway, options) : null;
    if (live) process.stdout.write(`\n${liveMarkdown(live, options)}\n`);
    const backfill = options.backfillMb > 0 ? await backfillPhase(gateway, options) : null;
    if (backfill) process.stdout.write(`\n${backfillMarkdown(backfill)}\n`);

    const markdown = `## Load (\`npm run bench -- load\`)

The daemon as shipped (\`breakerbar daemon\` from dist/, its own process) on ${machine()}, with the watchdog
enabled in dry run, probing a simulated gateway (its own process, always up) every second with the shortest
timeouts the config allows (1 s connect, 1–2 s read). The daemon's event-loop delay is read from inside it by
\`perf_hooks.monitorEventLoopDelay\` at 10 ms resolution (loaded with \`node --import\`, reported once a second);
\`/healthz\` of its API is asked every ${HEALTHZ_EVERY_MS} ms over loopback (keep-alive), one request at a time; the watchdog's
decisions and the probes are read from its database afterwards.

${live ? liveMarkdown(live, options) : '(live phase not run)'}

${backfill ? backfillMarkdown(backfill) : '(backfill phase not run)'}`;
    recordSection('load', markdown);
    if (live) {
      summarize(
        'load',
        `live ${options.callsPerSecond}/s: calls/s written / stored`,
        `${(live.written / live.writeSeconds).toFixed(0)} / ${live.storedRate.toFixed(0)}`,
        'stored keeps up',
      );
      summarize('load', 'live: ingest lag max', `${ms(live.lag.max)} ms`, '≤ 1000 ms');
      summarize('load', 'live: /healthz p99', `${ms(live.healthz.p99)} ms`, '< 50 ms');
      summarize('load', 'live: dead decisions', String(live.decisions.dead ?? 0), '0');
    }
    if (backfill) {
      summarize(
        'load',
        `backfill ${backfill.mb.toFixed(0)} MB: all stored`,
        `${(backfill.doneMs / 1000).toFixed(1)} s`,
      );
      summarize('load', 'backfill: event-loop max', `${ms(backfill.loopMaxMs)} ms`, '≤ 100 ms');
      summarize('load', 'backfill: dead decisions', String(backfill.decisions.dead ?? 0), '0');
    }
  } finally {
    gateway.child.disconnect();
    gateway.child.kill();
  }
}
