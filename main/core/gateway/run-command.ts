/**
 * Runs a restart command (argv, never through a shell: nothing in it is
 * interpreted) with a deadline. Restart commands can hang — a `--safe` restart
 * drains for minutes, a wedged launchctl never returns — so on timeout the
 * whole process group gets SIGTERM and, if anything survives the grace period,
 * SIGKILL: a shell wrapper's children die with it.
 *
 * A command that exits normally is left alone even if it started background
 * processes (a restart command may legitimately launch the new gateway): the
 * result is reported when the command itself exits, without waiting for
 * descendants that still hold its output pipes.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export interface CommandResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Why the command could not be started at all (ENOENT etc.), in words; null when it ran. */
  spawnError: string | null;
  /** The last 8 KB of output (the end is where the reason for a failure is). */
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface RunCommandOptions {
  timeoutMs: number;
  /** Environment of the command (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Time between SIGTERM and SIGKILL after a timeout (default 2000). */
  killGraceMs?: number;
}

export const OUTPUT_CAP_BYTES = 8 * 1024;
/** After the command exits, how long its output pipes may take to drain (descendants may hold them open). */
const DRAIN_MS = 200;

/** Keeps the last `cap` bytes written to it. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.cap && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const excess = this.size - this.cap;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  text(): string {
    let buffer = Buffer.concat(this.chunks);
    // The cut may land inside a UTF-8 sequence: drop its orphaned continuation bytes.
    let start = 0;
    while (start < buffer.length && start < 4 && ((buffer[start] ?? 0) & 0xc0) === 0x80) start++;
    buffer = buffer.subarray(start);
    return buffer.toString('utf8');
  }
}

function describeSpawnError(program: string, error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return `${program}: no such program (ENOENT)`;
    case 'EACCES':
      return `${program}: permission denied (EACCES)`;
    default:
      return `${program}: ${error.message}`;
  }
}

/** Signals the command's process group (POSIX) or the command alone (Windows). Never throws. */
function signalTree(pid: number, signal: NodeJS.Signals): void {
  try {
    if (process.platform === 'win32') process.kill(pid, signal);
    else process.kill(-pid, signal);
  } catch {
    // Already gone (ESRCH): nothing left to stop.
  }
}

export function runCommand(argv: readonly string[], options: RunCommandOptions): Promise<CommandResult> {
  const started = performance.now();
  const killGraceMs = options.killGraceMs ?? 2000;
  const elapsed = (): number => Math.round(performance.now() - started);
  const program = argv[0];
  if (program === undefined || program === '') {
    return Promise.resolve({
      exitCode: null,
      signal: null,
      timedOut: false,
      spawnError: 'empty command',
      stdout: '',
      stderr: '',
      durationMs: 0,
    });
  }

  return new Promise((resolve) => {
    const stdout = new TailBuffer(OUTPUT_CAP_BYTES);
    const stderr = new TailBuffer(OUTPUT_CAP_BYTES);
    let timedOut = false;
    let settled = false;
    let timeoutTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const child = spawn(program, argv.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
      shell: false,
      // Its own process group, so a timeout can take down everything it started.
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

    const settle = (result: Omit<CommandResult, 'stdout' | 'stderr' | 'durationMs' | 'timedOut'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(drainTimer);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({ ...result, timedOut, stdout: stdout.text(), stderr: stderr.text(), durationMs: elapsed() });
    };

    child.once('error', (error: NodeJS.ErrnoException) => {
      // 'error' also reports failed kills; only a missing pid means it never started.
      if (child.pid === undefined) {
        settle({ exitCode: null, signal: null, spawnError: describeSpawnError(program, error) });
      }
    });

    child.once('exit', (code, signal) => {
      // Exited on its own: what it left running in the background is not ours to kill.
      clearTimeout(timeoutTimer);
      const result = { exitCode: code, signal, spawnError: null };
      // Normally the pipes close right after exit; a background descendant may keep them open.
      drainTimer = setTimeout(() => settle(result), DRAIN_MS);
      child.once('close', () => settle(result));
    });

    if (child.pid !== undefined) {
      const pid = child.pid;
      timeoutTimer = setTimeout(() => {
        timedOut = true;
        signalTree(pid, 'SIGTERM');
        // Whatever ignores SIGTERM gets SIGKILL, even after the leader is gone; unref'd so it never holds the process.
        setTimeout(() => signalTree(pid, 'SIGKILL'), killGraceMs).unref();
      }, options.timeoutMs);
    }
  });
}
