/**
 * Running a restart's commands in order, without a shell, each under what is
 * left of the restart's budget, and folding them into one result for history.
 */
import { existsSync } from 'node:fs';
import { posix, win32 } from 'node:path';
import type { CommandResult } from '../run-command.js';
import type { ExecutionContext, StepRecord, StrategyEnvironment } from './types.js';

/** Inspection commands answer at once or are stuck: they never get more than this. */
export const INSPECT_TIMEOUT_MS = 10_000;

/** A step never gets less than this, so a nearly spent budget still yields a clear timeout. */
const MIN_STEP_MS = 1000;

/** Tracks the restart's budget and records every command it runs. */
export class StepRunner {
  readonly records: StepRecord[] = [];
  private readonly started: number;

  constructor(private readonly ctx: ExecutionContext) {
    this.started = ctx.now();
  }

  remainingMs(): number {
    return this.ctx.timeoutMs - (this.ctx.now() - this.started);
  }

  /** Whole milliseconds: restart records keep durations as integers. */
  elapsedMs(): number {
    return Math.round(this.ctx.now() - this.started);
  }

  /**
   * Runs one command; `cap` bounds it further (inspections). A command whose
   * turn comes after the budget is spent is not started at all.
   */
  async run(argv: string[], cap = Number.POSITIVE_INFINITY): Promise<CommandResult> {
    const remaining = this.remainingMs();
    const result =
      remaining <= 0
        ? notRun(`the restart's ${(this.ctx.timeoutMs / 1000).toFixed(1)} s were used up before it could run`)
        : await this.ctx.run(argv, {
            timeoutMs: Math.max(MIN_STEP_MS, Math.min(cap, remaining)),
            env: this.ctx.commandEnv,
          });
    this.records.push({ argv, result });
    return result;
  }

  inspect(argv: string[]): Promise<CommandResult> {
    return this.run(argv, INSPECT_TIMEOUT_MS);
  }
}

function notRun(why: string): CommandResult {
  return { exitCode: null, signal: null, timedOut: false, spawnError: why, stdout: '', stderr: '', durationMs: 0 };
}

/** Whether a command ran and exited 0. */
export function succeeded(result: CommandResult): boolean {
  return result.spawnError === null && !result.timedOut && result.signal === null && result.exitCode === 0;
}

/**
 * Why a command did not succeed, as the rest of a sentence that starts with
 * what was run: "could not start: …", "failed with exit code 1: …". `reason`
 * replaces the command's last line of output.
 */
export function failureOf(result: CommandResult, reason?: string | null): string {
  if (result.spawnError !== null) return `could not start: ${result.spawnError}`;
  if (result.timedOut) return `still running after ${(result.durationMs / 1000).toFixed(1)} s: stopped it (timeout)`;
  if (result.signal !== null) return `was killed by ${result.signal}`;
  const line = reason || lastLine(result.stderr) || lastLine(result.stdout);
  return `failed with exit code ${result.exitCode}${line ? `: ${line}` : ''}`;
}

/** How a command ended, in a word or two: for transcripts. */
function statusOf(result: CommandResult): string {
  if (result.spawnError !== null) return `could not start: ${result.spawnError}`;
  if (result.timedOut) return 'timed out';
  if (result.signal !== null) return `killed by ${result.signal}`;
  return `exit code ${result.exitCode}`;
}

const LINE_MAX = 200;

export function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > LINE_MAX ? `${line.slice(0, LINE_MAX - 1)}…` : line;
}

/** The last non-empty line of some output, shortened. */
export function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  return shorten(lines[lines.length - 1] ?? '');
}

/**
 * All steps as one CommandResult: the deciding step's exit (the failing one,
 * else the last), and a transcript of every step's output in order, so the
 * restart history shows what was run and what each command said.
 */
export function combineSteps(records: readonly StepRecord[], deciding?: StepRecord): CommandResult | null {
  const last = deciding ?? records[records.length - 1];
  if (!last) return null;
  const transcript = records
    .map(({ argv, result }) => {
      const output = [result.stdout.trim(), result.stderr.trim()].filter((s) => s !== '').join('\n');
      const status = succeeded(result) ? '' : ` (${statusOf(result)})`;
      return `$ ${argv.join(' ')}${status}${output ? `\n${output}` : ''}`;
    })
    .join('\n');
  return {
    exitCode: last.result.exitCode,
    signal: last.result.signal,
    timedOut: last.result.timedOut,
    spawnError: last.result.spawnError,
    stdout: transcript,
    stderr: last.result.stderr,
    durationMs: records.reduce((sum, { result }) => sum + result.durationMs, 0),
  };
}

export function pathFor(platform: NodeJS.Platform): typeof posix {
  return platform === 'win32' ? win32 : posix;
}

/** Whether a (not necessarily executable) file exists: plists, unit files. */
export function fileExists(env: StrategyEnvironment, path: string): boolean {
  return env.fileExists ? env.fileExists(path) : existsSync(path);
}

/** `~/x` under the environment's home; other paths as given. */
export function tildeFor(env: StrategyEnvironment, path: string): string {
  return path.startsWith(`${env.home}/`) ? `~/${path.slice(env.home.length + 1)}` : path;
}
