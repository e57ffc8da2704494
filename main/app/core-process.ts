/**
 * Our own core, in an Electron utility process: the very `breakerbar daemon`
 * (dist/main/cli/index.js), as a Chromium-managed child with Node. A crash
 * there (a native module, an out-of-memory) does not take the tray down, and
 * the main process stays free for the menu and the window.
 * https://www.electronjs.org/docs/latest/api/utility-process
 *
 * Its stdout and stderr go to `core.log` in the logs folder (what "Open Logs
 * Folder" opens); the last error it printed is kept to say why it stopped.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, statSync, truncateSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { utilityProcess } from 'electron';
import type { CoreChild, ForkRequest } from './core-supervisor.js';

/** The core's log is started afresh when it grew past this (the dashboard keeps the history that matters). */
const MAX_LOG_BYTES = 10 * 1024 * 1024;

export function forkCore(request: ForkRequest, logFile: string): CoreChild {
  const child = utilityProcess.fork(request.modulePath, request.args, {
    serviceName: request.serviceName,
    stdio: 'pipe',
    env: { ...process.env },
  });
  return follow(child, logFile);
}

/**
 * Development (an unpackaged checkout): the core runs under the system's Node,
 * because the checkout's better-sqlite3 is built for Node's ABI (the tests and
 * the CLI need it so); only a packaged app carries an Electron-ABI build
 * (docs/packaging.md). `node` is on PATH wherever `npm start` ran.
 */
export function spawnCoreWithNode(request: ForkRequest, logFile: string, node = 'node'): CoreChild {
  const child = spawn(node, [request.modulePath, ...request.args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ELECTRON_RUN_AS_NODE: undefined },
  });
  // A missing `node` is an exit with its reason, like any core that cannot start.
  child.on('error', (error) => child.emit('exit', 127, null, error));
  return follow(child, logFile);
}

interface ChildLike {
  readonly pid?: number | undefined;
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  kill(): boolean;
  once(event: 'exit', listener: (code: number | null) => void): unknown;
}

function follow(child: ChildLike, logFile: string): CoreChild {
  const log = openLog(logFile);
  let lastOutput: string | null = null;
  let partial = '';
  const onData = (chunk: Buffer | string) => {
    const text = partial + chunk.toString();
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const reason = failureLine(line);
      if (reason !== null) lastOutput = reason;
    }
  };
  child.stdout?.on('data', (chunk: Buffer) => log?.write(chunk));
  child.stderr?.on('data', (chunk: Buffer) => {
    log?.write(chunk);
    onData(chunk);
  });
  child.once('exit', () => {
    if (partial) onData('\n');
    log?.end();
  });
  return {
    get pid() {
      return child.pid;
    },
    kill: () => child.kill(),
    onExit(listener) {
      // Registered after the one above: the last line is read by the time the listener runs.
      child.once('exit', (code) => listener(code ?? 1, lastOutput));
    },
  };
}

function openLog(path: string): WriteStream | null {
  try {
    mkdirSync(dirname(path), { recursive: true });
    try {
      if (statSync(path).size > MAX_LOG_BYTES) truncateSync(path, 0);
    } catch {}
    const stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
    // A log that cannot be written (disk full, folder removed) must not take the app down with it.
    stream.on('error', () => {});
    return stream;
  } catch {
    return null;
  }
}

/**
 * A line that says why the core stopped, or null: an error-level JSON log line (`msg: error`), or a plain
 * line (the CLI's fatal `breakerbar: …` message). Info and warning lines are not reasons.
 */
export function failureLine(line: string): string | null {
  const text = line.trim();
  if (text === '') return null;
  if (text.startsWith('{')) {
    try {
      const entry = JSON.parse(text) as { level?: unknown; msg?: unknown; error?: unknown };
      if (entry.level !== 'error' || typeof entry.msg !== 'string') return null;
      return clip(typeof entry.error === 'string' ? `${entry.msg}: ${entry.error}` : entry.msg);
    } catch {
      // Not JSON after all: a plain line.
    }
  }
  return clip(text.replace(/^breakerbar: /, ''));
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
