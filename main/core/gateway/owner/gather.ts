/**
 * Gathers the facts decide-owner.ts judges: the gateway's service as its
 * manager shows it, the service's declared environment, the process listening
 * on the gateway's port (its command line, parent and, on Linux, environment),
 * the openclaw CLI and OpenClaw.app. Inspection only, through the strategies'
 * injected command runner (and an injected file reader for /proc), so tests
 * replay recorded outputs. Whatever cannot be read is left out, never guessed.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { inspectService } from '../control.js';
import type { CommandResult } from '../run-command.js';
import { findExecutable } from '../strategies/environment.js';
import { fileExists, StepRunner, succeeded } from '../strategies/steps.js';
import type { CommandRunner, ServiceState, StrategyEnvironment } from '../strategies/types.js';
import { SUPERVISOR_MODE_VARIABLE } from './decide-owner.js';
import {
  parseEnviron,
  parseLsofListen,
  parsePlutilEnvironment,
  parseProcCmdline,
  parseProcStatParent,
  parsePsComm,
  parsePsParentArgs,
  parseSsListen,
  parseSystemdEnvironment,
  ssListensOn,
} from './process-output.js';
import type { ListenerProcess, OwnerFacts } from './types.js';

/**
 * Only the variable the decision reads is kept: a gateway's environment (process, plist, unit) holds its
 * tokens and keys, which BreakerBar has no business holding.
 */
function keepSupervisorMode(environment: Record<string, string> | null): Record<string, string> | null {
  if (environment === null) return null;
  const value = environment[SUPERVISOR_MODE_VARIABLE];
  return value === undefined ? {} : { [SUPERVISOR_MODE_VARIABLE]: value };
}

export interface OwnerGatherOptions {
  environment: StrategyEnvironment;
  run: CommandRunner;
  /** The environment the commands run with (default: the strategy environment's). */
  commandEnv?: NodeJS.ProcessEnv;
  /** Reads a /proc file; null when it cannot (another user's process, no /proc). */
  readFile?: (path: string) => string | null;
  now?: () => number;
  /** Budget for every command together (default 15 s). */
  timeoutMs?: number;
}

export interface OwnerQuestion {
  port: number | null;
  /** The service as a strategy's verification already read it; undefined reads it here. */
  service?: ServiceState | null;
  /** Whether the gateway answered its last probe, when known. */
  answering?: boolean | null;
}

const GATHER_TIMEOUT_MS = 15_000;

function readProcFile(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The port of a gateway URL (`http://127.0.0.1:18789` → 18789), or null. */
export function gatewayPort(url: string | null): number | null {
  if (url === null) return null;
  try {
    const parsed = new URL(url);
    const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
    return Number.isInteger(port) && port > 0 ? port : null;
  } catch {
    return null;
  }
}

export async function gatherOwnerFacts(question: OwnerQuestion, options: OwnerGatherOptions): Promise<OwnerFacts> {
  const env = options.environment;
  const steps = new StepRunner({
    environment: env,
    run: options.run,
    commandEnv: options.commandEnv ?? env.env,
    timeoutMs: options.timeoutMs ?? GATHER_TIMEOUT_MS,
    now: options.now ?? (() => performance.now()),
    sleep: () => Promise.resolve(),
  });
  const readFile = options.readFile ?? readProcFile;
  const service = question.service === undefined ? await inspectService(env, steps) : question.service;
  const serviceEnvironment = await readServiceEnvironment(service, env, steps);
  const { listener, looked } =
    question.port === null
      ? { listener: null, looked: false }
      : await findListener(question.port, env, steps, readFile);
  const app =
    env.platform === 'darwin'
      ? (['/Applications/OpenClaw.app', `${env.home}/Applications/OpenClaw.app`].find((path) =>
          fileExists(env, path),
        ) ?? null)
      : null;
  return {
    platform: env.platform,
    port: question.port,
    service,
    serviceEnvironment,
    listener,
    listenerLooked: looked,
    cli: findExecutable('openclaw', env),
    app,
    answering: question.answering ?? null,
  };
}

/** The plist's EnvironmentVariables (plutil) or the unit's Environment= (systemctl show). */
async function readServiceEnvironment(
  service: ServiceState | null,
  env: StrategyEnvironment,
  steps: StepRunner,
): Promise<Record<string, string> | null> {
  if (service === null) return null;
  if (service.manager === 'launchd') {
    const plutil = findExecutable('plutil', env);
    if (plutil === null || service.file === null || !service.fileExists) return null;
    const out = await steps.inspect([plutil, '-extract', 'EnvironmentVariables', 'json', '-o', '-', service.file]);
    // A plist without EnvironmentVariables makes plutil exit 1: no declared environment.
    return succeeded(out) ? keepSupervisorMode(parsePlutilEnvironment(out.stdout)) : null;
  }
  const systemctl = findExecutable('systemctl', env);
  if (systemctl === null || service.loaded !== true) return null;
  const out = await steps.inspect([systemctl, '--user', 'show', service.name, '--property=Environment']);
  return succeeded(out) ? keepSupervisorMode(parseSystemdEnvironment(out.stdout)) : null;
}

async function findListener(
  port: number,
  env: StrategyEnvironment,
  steps: StepRunner,
  readFile: (path: string) => string | null,
): Promise<{ listener: ListenerProcess | null; looked: boolean }> {
  if (env.platform === 'darwin') {
    const lsof = findExecutable('lsof', env);
    if (lsof === null) return { listener: null, looked: false };
    const out = await steps.inspect([lsof, '-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fpc']);
    // lsof exits 1 when nothing matches: a clean "nothing listens".
    if (!ran(out)) return { listener: null, looked: false };
    const found = parseLsofListen(out.stdout);
    if (found === null) return { listener: null, looked: true };
    return { listener: await describeWithPs(found, env, steps), looked: true };
  }
  if (env.platform === 'linux') {
    const ss = findExecutable('ss', env);
    if (ss === null) return { listener: null, looked: false };
    const out = await steps.inspect([ss, '-ltnpH']);
    if (!succeeded(out)) return { listener: null, looked: false };
    const found = parseSsListen(out.stdout, port);
    // Something listens, but it is another user's process: ss does not say whose.
    if (found === null) return { listener: null, looked: !ssListensOn(out.stdout, port) };
    return { listener: describeFromProc(found, readFile), looked: true };
  }
  return { listener: null, looked: false };
}

function ran(result: CommandResult): boolean {
  return result.spawnError === null && !result.timedOut && result.signal === null && result.exitCode !== null;
}

/** macOS: the command line and parent from ps (the environment of another process is not readable there). */
async function describeWithPs(
  found: { pid: number; command: string | null },
  env: StrategyEnvironment,
  steps: StepRunner,
): Promise<ListenerProcess> {
  const listener: ListenerProcess = { ...found, args: null, parent: null, environment: null };
  const ps = findExecutable('ps', env);
  if (ps === null) return listener;
  const self = await steps.inspect([ps, '-ww', '-o', 'ppid=,args=', '-p', String(found.pid)]);
  const read = succeeded(self) ? parsePsParentArgs(self.stdout) : null;
  if (read === null) return listener;
  listener.args = read.args;
  const parent = await steps.inspect([ps, '-o', 'comm=', '-p', String(read.ppid)]);
  listener.parent = { pid: read.ppid, name: succeeded(parent) ? parsePsComm(parent.stdout) : null };
  return listener;
}

/** Linux: the command line, parent and environment from /proc (the environment only for the same user). */
function describeFromProc(
  found: { pid: number; command: string | null },
  readFile: (path: string) => string | null,
): ListenerProcess {
  const proc = `/proc/${found.pid}`;
  const cmdline = readFile(`${proc}/cmdline`);
  const stat = readFile(`${proc}/stat`);
  const environ = readFile(`${proc}/environ`);
  const ppid = stat === null ? null : parseProcStatParent(stat);
  const parentName = ppid === null ? null : (readFile(`/proc/${ppid}/comm`)?.trim() ?? null);
  return {
    ...found,
    args: cmdline === null ? null : parseProcCmdline(cmdline),
    parent: ppid === null ? null : { pid: ppid, name: parentName || null },
    environment: environ === null ? null : keepSupervisorMode(parseEnviron(environ)),
  };
}
