/**
 * Runs the real OpenClaw gateway for a test: an isolated state dir (`HOME`,
 * `OPENCLAW_STATE_DIR`, `OPENCLAW_CONFIG_PATH`), an `openclaw.json` whose models
 * all live on the mock provider, the JSON log moved into the test's directory
 * under OpenClaw's dated name, `openclaw gateway run` in the foreground, and
 * turns driven through it by the real CLI (`openclaw agent … --json`), any other
 * CLI command run against it (`cli`), its JSON log read back as entries, and its
 * HTTP probes (`/healthz`, `/readyz`, `/startupz`) asked directly.
 *
 * OpenClaw creates `/tmp/openclaw` and `/tmp/openclaw-state-locks-<uid>` whatever
 * its config says; `stop()` removes the ones that were not there before, unless
 * the suite shares them among files running at once (`suite-setup.ts`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { until } from '../../../helpers/transcripts.js';
import type { MockProvider } from './mock-provider.js';
import type { OpenClawRuntime } from './runtime.js';

export interface ProviderSpec {
  id: string;
  models: readonly string[];
}

export interface GatewayOptions {
  runtime: OpenClawRuntime;
  root: string;
  mock: MockProvider;
  providers: readonly ProviderSpec[];
  /** `provider/model` used when a turn names none. */
  primary: string;
  fallbacks: readonly string[];
  /** The providers' request timeout, seconds (default 12); it bounds OpenClaw's idle timeout too. */
  providerTimeoutSeconds?: number;
  /**
   * The `--timeout` of each turn (default 300 s): OpenClaw aborts a run at its timeout, so a run meant to be
   * reported stalled (after 6 min without progress) needs a longer one.
   */
  turnTimeoutSeconds?: number;
}

export interface TurnResult {
  sessionId: string;
  model: string | null;
  exitCode: number | null;
  /** The CLI's JSON answer (or its error text), for failure messages. */
  output: string;
}

export interface CliResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Wall time of the command, ms (the CLI's own start-up included). */
  durationMs: number;
}

/** One line of the gateway's JSON file log, reduced to what a test reads. */
export interface GatewayLogEntry {
  /** Epoch ms of the line's `time`. */
  at: number;
  level: string;
  /** The logger's `subsystem` (or `module`) binding; null when it has neither. */
  subsystem: string | null;
  /** The message text: the last string argument. */
  message: string;
  /** The line as written. */
  raw: string;
}

export interface ProbeAnswer {
  /** HTTP status, or null when no answer came (refused, reset, timed out). */
  status: number | null;
  body: string;
  /** The transport error's code (`ECONNREFUSED`, …) when there was no answer. */
  error: string | null;
}

export interface RealGateway {
  readonly port: number;
  /** The `openclaw gateway run` process: an in-process restart keeps it. */
  readonly pid: number;
  readonly stateDir: string;
  readonly logDir: string;
  readonly configPath: string;
  /** The environment a process needs to talk about this gateway (BreakerBar's daemon gets it too). */
  readonly env: NodeJS.ProcessEnv;
  turn(sessionId: string, model?: string): Promise<TurnResult>;
  /** `openclaw <args>` with this gateway's environment. */
  cli(args: readonly string[]): Promise<CliResult>;
  /** Every line of the JSON file log so far, oldest first. */
  logEntries(): GatewayLogEntry[];
  /** GET a probe path on loopback (details included: the caller is local). */
  probe(path: string, timeoutMs?: number): Promise<ProbeAnswer>;
  /** Whether `gateway run` is still running. */
  alive(): boolean;
  /**
   * A command that starts this gateway again in the background, the way a user's own `restartCommand`
   * would (a script that runs `openclaw gateway run`, detached): for a gateway killed outright, which no
   * `openclaw gateway restart` can bring back. The gateways it starts are stopped with this one.
   */
  readonly startCommand: readonly string[];
  /** Sends `signal` to the gateway process running now (the first one, or the last the start command began). */
  kill(signal: NodeJS.Signals): void;
  output(): string;
  stop(): Promise<void>;
}

/** OpenClaw's own temp paths, outside any config's reach. */
export function openclawTempPaths(): string[] {
  return ['/tmp/openclaw', `/tmp/openclaw-${userInfo().uid}`, `/tmp/openclaw-state-locks-${userInfo().uid}`];
}

/**
 * OpenClaw 2026.9.6 refuses to start (exit 78) when the worker that heartbeats its state lease is not ready
 * within 5 s, which a 2-core machine running several gateways and their CLIs at once can exceed. That is
 * OpenClaw's start-up on a busy machine, not what a test looks at: such a start is tried again, at most
 * `START_ATTEMPTS` times in all. Any other failure to start fails at once.
 */
const LEASE_NOT_READY = /state lease heartbeat did not become ready/;
const START_ATTEMPTS = 3;

/** Set (to `1`) where the suite removes OpenClaw's temp paths at its end: no gateway removes them then. */
export const SHARED_TEMP_PATHS = 'BREAKERBAR_OPENCLAW_TEMP_SHARED';

export async function startGateway(options: GatewayOptions): Promise<RealGateway> {
  const { runtime, root } = options;
  const leftAlone = new Set(
    openclawTempPaths().filter((path) => process.env[SHARED_TEMP_PATHS] === '1' || existsSync(path)),
  );
  const home = join(root, 'home');
  const stateDir = join(root, 'state');
  const logDir = join(root, 'logs');
  for (const dir of [home, stateDir, logDir]) mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const configPath = join(stateDir, 'openclaw.json');
  writeFileSync(configPath, JSON.stringify(openclawConfig(options, port, logDir), null, 2));
  const env: NodeJS.ProcessEnv = {
    // OpenClaw goes quiet under a test runner (`VITEST=true` silences its file log): it must not know.
    ...withoutTestRunner(process.env),
    HOME: home,
    OPENCLAW_STATE_DIR: stateDir,
    OPENCLAW_CONFIG_PATH: configPath,
    OPENCLAW_GATEWAY_PORT: String(port),
    OPENCLAW_GATEWAY_TOKEN: 'e2e-token',
    TMPDIR: tmpdir(),
    NO_COLOR: '1',
  };
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-200_000);
  };
  const spawnGateway = () => {
    output = '';
    const started = spawn(
      runtime.node,
      [runtime.entry, 'gateway', 'run', '--port', String(port), '--allow-unconfigured'],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    started.stdout?.on('data', keep);
    started.stderr?.on('data', keep);
    return started;
  };
  const pidFile = join(root, 'gateway-started.pids');
  const startCommand = writeStartScript(runtime, env, port, root, pidFile);
  const startedLater = () =>
    existsSync(pidFile) ? readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number) : [];
  let child = spawnGateway();
  const stop = async () => {
    for (const pid of startedLater()) await stopPid(pid);
    await stopGateway(child, leftAlone);
  };
  for (let attempt = 1; ; attempt++) {
    try {
      await waitReady(port, child, () => output);
      break;
    } catch (error) {
      await stop();
      if (attempt >= START_ATTEMPTS || !LEASE_NOT_READY.test(output)) throw error;
      child = spawnGateway();
    }
  }
  return {
    port,
    pid: child.pid ?? -1,
    stateDir,
    logDir,
    configPath,
    env,
    turn: (sessionId, model) => turn(runtime, env, sessionId, options.turnTimeoutSeconds ?? 300, model),
    cli: (args) => cli(runtime, env, args),
    logEntries: () => readLogEntries(logDir),
    probe: (path, timeoutMs) => probe(port, path, timeoutMs),
    alive: () => child.exitCode === null && child.signalCode === null,
    startCommand,
    kill: (signal) => {
      const later = startedLater().at(-1);
      if (later !== undefined) process.kill(later, signal);
      else child.kill(signal);
    },
    output: () => output,
    stop,
  };
}

function openclawConfig(options: GatewayOptions, port: number, logDir: string) {
  const providers: Record<string, unknown> = {};
  for (const provider of options.providers) {
    providers[provider.id] = {
      baseUrl: options.mock.baseUrlFor(provider.id),
      apiKey: 'sk-e2e-dummy',
      api: 'openai-completions',
      // Short, so a hung request ends in seconds, not minutes (it bounds the idle timeout too), yet longer
      // than the mock's Retry-After: 2026.7 writes an idle-timeout record when a wait outlasts it.
      timeoutSeconds: options.providerTimeoutSeconds ?? 12,
      models: provider.models.map((id) => ({
        id,
        name: id,
        contextWindow: 128_000,
        maxTokens: 4096,
        cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
        input: ['text'],
      })),
    };
  }
  return {
    gateway: { port, bind: 'loopback', mode: 'local', auth: { mode: 'token', token: 'e2e-token' } },
    logging: { file: join(logDir, 'openclaw-YYYY-MM-DD.log') },
    models: { providers },
    // No turns of OpenClaw's own (heartbeats, cron jobs) among the ones the test drives.
    cron: { enabled: false },
    agents: {
      defaults: {
        model: { primary: options.primary, fallbacks: [...options.fallbacks] },
        heartbeat: { every: '0m' },
      },
    },
  };
}

async function waitReady(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the gateway exited (${child.exitCode}) while starting:\n${output().slice(-4000)}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    // Between checks: a refused connection to loopback costs next to nothing.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the gateway did not become ready in 180 s:\n${output().slice(-4000)}`);
}

function turn(
  runtime: OpenClawRuntime,
  env: NodeJS.ProcessEnv,
  sessionId: string,
  timeoutSeconds: number,
  model?: string,
): Promise<TurnResult> {
  const args = [
    ...[runtime.entry, 'agent', '--agent', 'main', '--session-id', sessionId],
    ...['--json', '--timeout', String(timeoutSeconds)],
  ];
  if (model) args.push('--model', model);
  args.push('--message', 'Say something short.');
  return new Promise((resolve) => {
    const child = spawn(runtime.node, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('exit', (exitCode) => resolve({ sessionId, model: model ?? null, exitCode, output: output.slice(-4000) }));
  });
}

function cli(runtime: OpenClawRuntime, env: NodeJS.ProcessEnv, args: readonly string[]): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(runtime.node, [runtime.entry, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('exit', (exitCode) => resolve({ exitCode, stdout, stderr, durationMs: Date.now() - started }));
  });
}

/** The log files OpenClaw wrote (one per day under its dated name), read in name order. */
function readLogEntries(logDir: string): GatewayLogEntry[] {
  const entries: GatewayLogEntry[] = [];
  if (!existsSync(logDir)) return entries;
  for (const name of readdirSync(logDir).sort()) {
    for (const raw of readFileSync(join(logDir, name), 'utf8').split('\n')) {
      const entry = parseLogLine(raw);
      if (entry) entries.push(entry);
    }
  }
  return entries;
}

/**
 * A tslog line: `"0"` is the logger's bindings as a JSON string, then either the
 * message text or structured fields followed by it. A line still being written
 * (no closing brace yet) is skipped; it is read whole on the next call.
 */
export function parseLogLine(raw: string): GatewayLogEntry | null {
  let line: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    line = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  let subsystem: string | null = null;
  if (typeof line['0'] === 'string') {
    try {
      const bindings = JSON.parse(line['0']) as Record<string, unknown>;
      const name = bindings.subsystem ?? bindings.module;
      subsystem = typeof name === 'string' ? name : null;
    } catch {
      // A plain first argument (the CLI's own error lines): no subsystem.
    }
  }
  const texts = Object.keys(line)
    .filter((key) => /^[1-9]\d*$/.test(key) && typeof line[key] === 'string')
    .sort((a, b) => Number(a) - Number(b));
  const meta = line._meta as { logLevelName?: unknown } | undefined;
  return {
    at: typeof line.time === 'string' ? Date.parse(line.time) : Number.NaN,
    level: typeof meta?.logLevelName === 'string' ? meta.logLevelName : '',
    subsystem,
    message: texts.length > 0 ? (line[texts[texts.length - 1] as string] as string) : '',
    raw,
  };
}

async function probe(port: number, path: string, timeoutMs = 2000): Promise<ProbeAnswer> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, body: await res.text(), error: null };
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    const code = typeof cause?.code === 'string' ? cause.code : (error as Error).name;
    return { status: null, body: '', error: code };
  }
}

/** `sh <root>/start-gateway.sh`: starts `openclaw gateway run` detached, with this gateway's environment. */
function writeStartScript(
  runtime: OpenClawRuntime,
  env: NodeJS.ProcessEnv,
  port: number,
  root: string,
  pidFile: string,
): string[] {
  const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
  const exports = Object.entries(env)
    .filter(([name, value]) => value !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    .map(([name, value]) => `export ${name}=${quote(value as string)}`);
  const script = join(root, 'start-gateway.sh');
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      ...exports,
      `nohup ${quote(runtime.node)} ${quote(runtime.entry)} gateway run --port ${port} --allow-unconfigured >> ${quote(join(root, 'gateway-started.out'))} 2>&1 < /dev/null &`,
      `echo $! >> ${quote(pidFile)}`,
      '',
    ].join('\n'),
  );
  return ['sh', script];
}

/** Stops a gateway this helper did not spawn itself (one the start script began). */
async function stopPid(pid: number): Promise<void> {
  const running = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!running()) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 20_000;
  await until(() => !running() || Date.now() > deadline, 25_000, `gateway ${pid} to stop`, 100);
  if (running()) process.kill(pid, 'SIGKILL');
}

async function stopGateway(child: ChildProcess, leftAlone: ReadonlySet<string>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
  for (const path of openclawTempPaths()) if (!leftAlone.has(path)) rmSync(path, { recursive: true, force: true });
}

function withoutTestRunner(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('VITEST') && name !== 'NODE_ENV'));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}
