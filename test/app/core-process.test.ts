/**
 * Our own core in an Electron utility process: forked with the daemon's
 * arguments, its output kept in core.log, the last error it printed passed on
 * as the reason it stopped.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { failureLine, forkCore, spawnCoreWithNode } from '../../main/app/core-process.js';
import { until } from '../helpers/transcripts.js';
import { FakeUtilityProcess, reset, utilityProcess } from './fake-electron.js';

vi.mock('electron', async () => (await import('./fake-electron.js')).electron);

let dir: string;

beforeEach(() => {
  reset();
  dir = mkdtempSync(join(tmpdir(), 'bb-app-process-'));
});

// Retried: a core that exits at once ends its log stream, which may still be opening core.log (and so creating it)
// while the folder is being removed (ENOTEMPTY), most often on a busy machine.
afterEach(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));

describe('forkCore', () => {
  it('forks the daemon script with its arguments, piping its output to the log', async () => {
    const logFile = join(dir, 'logs', 'core.log');
    const child = forkCore(
      {
        modulePath: '/app/dist/main/cli/index.js',
        args: ['daemon', '--no-desktop'],
        serviceName: 'BreakerBar core',
      },
      logFile,
    );
    expect(utilityProcess.fork).toHaveBeenCalledWith(
      '/app/dist/main/cli/index.js',
      ['daemon', '--no-desktop'],
      expect.objectContaining({ serviceName: 'BreakerBar core', stdio: 'pipe' }),
    );
    expect(child.pid).toBe(4242);
    const fake = FakeUtilityProcess.forks[0]?.child as FakeUtilityProcess;
    const exits: Array<[number, string | null]> = [];
    child.onExit((code, last) => exits.push([code, last]));
    fake.stderr.write('{"time":"t","level":"info","msg":"following OpenClaw"}\n');
    fake.stderr.write('{"time":"t","level":"error","msg":"cannot start the API server","error":"port 18820 in use"}\n');
    fake.stdout.write('banner\n');
    fake.stderr.write('{"time":"t","level":"warn","msg":"slow"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    fake.exit(1);
    expect(exits).toEqual([[1, 'cannot start the API server: port 18820 in use']]);
    // The log stream opens asynchronously: the file may not exist yet.
    await until(() => existsSync(logFile) && readFileSync(logFile, 'utf8').includes('slow'));
    expect(readFileSync(logFile, 'utf8')).toContain('banner');
  });

  it('kills gracefully through the utility process', () => {
    const child = forkCore({ modulePath: '/x.js', args: [], serviceName: 's' }, join(dir, 'core.log'));
    expect(child.kill()).toBe(true);
    expect(FakeUtilityProcess.forks[0]?.child.kill).toHaveBeenCalled();
  });
});

describe('failureLine', () => {
  it('keeps errors and plain lines, not info or warnings', () => {
    expect(failureLine('{"level":"error","msg":"boom"}')).toBe('boom');
    expect(failureLine('{"level":"info","msg":"fine"}')).toBeNull();
    expect(failureLine('breakerbar: another BreakerBar (pid 7) is already running')).toBe(
      'another BreakerBar (pid 7) is already running',
    );
    expect(failureLine('   ')).toBeNull();
    expect(failureLine('x'.repeat(500))?.length).toBe(200);
  });
});

describe('spawnCoreWithNode (an unpackaged checkout: the core under Node, whose ABI its better-sqlite3 has)', () => {
  it('runs the script under Node with its arguments, logs its output, and says why it stopped', async () => {
    const script = join(dir, 'core.mjs');
    writeFileSync(
      script,
      "console.log('started ' + process.argv.slice(2).join(' ')); console.error('breakerbar daemon: port taken'); process.exit(3);\n",
    );
    const logFile = join(dir, 'logs', 'core.log');
    const child = spawnCoreWithNode(
      { modulePath: script, args: ['daemon', '--no-desktop'], serviceName: 'x' },
      logFile,
      process.execPath,
    );
    const exit = await new Promise<[number, string | null]>((resolve) =>
      child.onExit((code, last) => resolve([code, last])),
    );
    expect(exit).toEqual([3, 'breakerbar daemon: port taken']);
    await until(() => existsSync(logFile) && readFileSync(logFile, 'utf8').includes('port taken'));
    expect(readFileSync(logFile, 'utf8')).toContain('started daemon --no-desktop');
  });

  it('a missing node is an exit with a reason, not a crash of the app', async () => {
    const child = spawnCoreWithNode(
      { modulePath: '/x.js', args: [], serviceName: 'x' },
      join(dir, 'core.log'),
      join(dir, 'no-node'),
    );
    const [code] = await new Promise<[number, string | null]>((resolve) =>
      child.onExit((c, last) => resolve([c, last])),
    );
    expect(code).toBe(127);
  });
});
