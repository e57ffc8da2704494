/**
 * Rule: the daemon, as a real process, stops when its terminal goes away (SIGHUP), also when started
 * through `npm start`'s launcher; run as a service it re-reads its config on SIGHUP instead. Ctrl-C, however
 * often it arrives, stops it cleanly. When it cannot start, it says why in one line (port, disk, database) and
 * exits 1, without a stack trace.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QUIET_GATEWAY } from '../helpers/quiet-gateway.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'main', 'cli', 'index.js');
const START = join(ROOT, 'dist', 'main', 'start.js');

let tmp: string;
let dataDir: string;
let configFile: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  if (!existsSync(CLI) || !existsSync(START)) throw new Error('dist/ is missing: run `npm run build` first');
});

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-lifecycle-'));
  dataDir = join(tmp, 'data');
  mkdirSync(dataDir);
  mkdirSync(join(tmp, 'openclaw'));
  configFile = join(tmp, 'config.json');
  writeFileSync(configFile, JSON.stringify({ ...QUIET_GATEWAY, openclawDir: join(tmp, 'openclaw'), dataDir }));
});

afterEach(() => {
  // Only the processes this file started, by pid.
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  rmSync(tmp, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  stderr(): string;
  exit: Promise<number | null>;
}

function launch(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Started {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, BREAKERBAR_HOME: join(tmp, 'home'), ...env };
  delete childEnv.BREAKERBAR_CONFIG;
  delete childEnv.BREAKERBAR_SERVICE;
  Object.assign(childEnv, env);
  const child = spawn(process.execPath, [script, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout?.resume();
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, exit };
}

const daemon = (args: string[] = [], env: NodeJS.ProcessEnv = {}) =>
  launch(CLI, ['daemon', '--config', configFile, '--port', '0', ...args], env);

async function until<T>(what: string, probe: () => T | undefined, started: Started, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${started.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const apiUrlFile = () => join(dataDir, 'api-url');
const serving = (started: Started) =>
  until('the API URL file', () => (existsSync(apiUrlFile()) ? true : undefined), started);

async function exitOf(started: Started, timeoutMs = 20_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not exit; stderr:\n${started.stderr()}`)), timeoutMs);
  });
  try {
    return await Promise.race([started.exit, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The daemon's own words on stderr (its JSON log lines aside). */
const saidLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('breakerbar'));

describe('SIGHUP', () => {
  it('stops a daemon run from a terminal cleanly: exit 0, the API URL file removed', async () => {
    const started = daemon();
    await serving(started);
    started.child.kill('SIGHUP');
    expect(await exitOf(started)).toBe(0);
    expect(existsSync(apiUrlFile())).toBe(false);
  });

  it("reaches the daemon through npm start's launcher, which waits for it", async () => {
    const started = launch(START, ['--config', configFile, '--port', '0'], { BREAKERBAR_HEADLESS: '1' });
    await serving(started);
    started.child.kill('SIGHUP');
    expect(await exitOf(started)).toBe(0);
    // The launcher exited after the daemon: the daemon removed its file on the way out.
    expect(existsSync(apiUrlFile())).toBe(false);
    expect(existsSync(join(dataDir, 'breakerbar.pid'))).toBe(false);
  });

  it('re-reads the config of a daemon run as a service, which keeps running', async () => {
    const started = daemon([], { BREAKERBAR_SERVICE: '1' });
    await serving(started);
    // An invalid change: every re-read reports it, and says what triggered it.
    writeFileSync(configFile, JSON.stringify({ retention: { days: 'forever' } }));
    started.child.kill('SIGHUP');
    await until(
      'the re-read on SIGHUP',
      () => (/config change rejected[^\n]*SIGHUP/.test(started.stderr()) ? true : undefined),
      started,
    );
    expect(started.child.exitCode).toBeNull();
    expect(existsSync(apiUrlFile())).toBe(true);
    started.child.kill('SIGTERM');
    expect(await exitOf(started)).toBe(0);
  });
});

/** What a clean stop leaves in the data directory: the database, the token, the lock file; nothing of a run. */
function leftBehind(): string[] {
  const run = [
    'api-url',
    'breakerbar.pid',
    'breakerbar.sqlite-wal',
    'breakerbar.sqlite-shm',
    'breakerbar.lock-journal',
  ];
  return run.filter((name) => existsSync(join(dataDir, name)));
}

describe('Ctrl-C', () => {
  it('a second SIGINT during the shutdown does not cut it short: exit 0, nothing of the run left', async () => {
    const started = daemon();
    await serving(started);
    started.child.kill('SIGINT');
    await until('the shutdown begun', () => (/stopping/.test(started.stderr()) ? true : undefined), started);
    started.child.kill('SIGINT');
    const code = await exitOf(started);
    expect(leftBehind()).toEqual([]);
    // On a busy machine the second signal can arrive after the shutdown finished, while Node itself exits with
    // its signal handlers already reset: then it ends the process by the signal, with nothing left to cut short.
    if (code !== 0) expect(started.stderr()).toMatch(/\bstopped\b/);
  });

  it("through npm start's launcher, as a terminal sends it: to the whole group, forwarded again by the launcher", async () => {
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      BREAKERBAR_HOME: join(tmp, 'home'),
      BREAKERBAR_HEADLESS: '1',
    };
    delete childEnv.BREAKERBAR_CONFIG;
    delete childEnv.BREAKERBAR_SERVICE;
    // A process group of its own, as a shell gives a foreground job: Ctrl-C signals every process in it.
    const child = spawn(process.execPath, [START, '--config', configFile, '--port', '0'], {
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(child);
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout?.resume();
    const started: Started = {
      child,
      stderr: () => stderr,
      exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
    };
    await serving(started);
    process.kill(-(child.pid as number), 'SIGINT');
    expect(await exitOf(started)).toBe(0);
    expect(leftBehind()).toEqual([]);
  });
});

describe('start-up errors', () => {
  it('a port in use: one line naming it, exit 1, no stack', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as AddressInfo).port;
      const started = daemon(['--port', String(port)]);
      expect(await exitOf(started)).toBe(1);
      expect(saidLines(started.stderr())).toEqual([
        `breakerbar daemon: cannot start the API server on 127.0.0.1:${port}: the port is already in use (another BreakerBar? set server.port, or --port)`,
      ]);
      expect(started.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      blocker.close();
    }
  });

  it.runIf(existsSync('/dev/full'))('a full disk: one line naming the data directory, exit 1, no stack', async () => {
    // /dev/full answers every write with ENOSPC: a data directory whose pid file lands there is a full disk.
    symlinkSync('/dev/full', join(dataDir, 'breakerbar.pid'));
    const started = daemon();
    expect(await exitOf(started)).toBe(1);
    expect(saidLines(started.stderr())).toEqual([
      `breakerbar daemon: the disk holding ${dataDir} is full (ENOSPC): free some space there, or set dataDir to another disk`,
    ]);
    expect(started.stderr()).not.toMatch(/\n\s+at /);
    expect(started.stderr()).not.toContain('another BreakerBar');
  });

  it.runIf(existsSync('/dev/full'))('a full disk met by the instance lock: the disk named, not the lock', async () => {
    // The lock is the first file a start writes: on a full disk, it is the one refused.
    const lockPath = join(dataDir, 'breakerbar.lock');
    symlinkSync('/dev/full', lockPath);
    const started = daemon();
    expect(await exitOf(started)).toBe(1);
    expect(saidLines(started.stderr())).toEqual([
      `breakerbar daemon: the disk holding ${dataDir} is full (SQLITE_FULL, writing ${lockPath}): free some space there, or set dataDir to another disk`,
    ]);
    expect(started.stderr()).not.toMatch(/\n\s+at /);
  });

  it.runIf(existsSync('/dev/full'))('a database that cannot grow: one line naming it, exit 1', async () => {
    const dbPath = join(dataDir, 'breakerbar.sqlite');
    symlinkSync('/dev/full', dbPath);
    const started = daemon();
    expect(await exitOf(started)).toBe(1);
    expect(saidLines(started.stderr())).toEqual([
      `breakerbar daemon: the database ${dbPath} cannot grow: the disk is full (SQLITE_FULL); free some space there, or set dataDir`,
    ]);
    expect(started.stderr()).not.toMatch(/\n\s+at /);
  });

  it('a database that cannot be opened: one line naming it, exit 1', async () => {
    const dbPath = join(dataDir, 'breakerbar.sqlite');
    mkdirSync(dbPath);
    const started = daemon();
    expect(await exitOf(started)).toBe(1);
    const [line, ...more] = saidLines(started.stderr());
    expect(more).toEqual([]);
    expect(line).toContain(`cannot open the database ${dbPath} (SQLITE_CANTOPEN)`);
    expect(started.stderr()).not.toMatch(/\n\s+at /);
  });
});
