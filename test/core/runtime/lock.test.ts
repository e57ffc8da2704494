/**
 * Rule: one BreakerBar core per data directory, and a crashed owner never
 * leaves a lock behind (the lock is the kernel's, released when its process dies).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLocked, LockError, lockDataDir, lockOwner } from '../../../main/core/runtime/lock.js';

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'breakerbar-lock-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts a separate process holding the lock of `dataDir`; resolves once it holds it. */
async function holdInChild(): Promise<import('node:child_process').ChildProcess> {
  // The child runs plain Node, so it loads the built module (npm test builds first).
  const built = new URL('../../../dist/main/core/runtime/lock.js', import.meta.url).pathname;
  const script = `
    const { lockDataDir } = await import(${JSON.stringify(built)});
    // The lock is not kept in a variable, and a collection runs: the lock must outlive both.
    lockDataDir(${JSON.stringify(dataDir)});
    globalThis.gc();
    process.stdout.write('held\\n');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`lock holder exited with ${code}`)));
  });
  return child;
}

describe('lockDataDir', () => {
  it('records the owner pid for humans and removes it on release', () => {
    const lock = lockDataDir(dataDir);
    expect(lockOwner(dataDir)).toBe(process.pid);
    lock.release();
    expect(lockOwner(dataDir)).toBeNull();
    // Releasing twice is harmless.
    lock.release();
  });

  it('refuses a second holder in the same process, naming the pid and the dir', () => {
    const lock = lockDataDir(dataDir);
    expect(() => lockDataDir(dataDir, 4242)).toThrow(LockError);
    expect(() => lockDataDir(dataDir, 4242)).toThrow(
      `another BreakerBar (pid ${process.pid}) is already running for ${dataDir}`,
    );
    lock.release();
    lockDataDir(dataDir).release();
  });

  it('refuses while another process holds it, and is free the moment that process is killed -9', async () => {
    const child = await holdInChild();
    try {
      expect(isLocked(dataDir)).toBe(true);
      expect(() => lockDataDir(dataDir)).toThrow(`(pid ${child.pid})`);
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    // The dead owner's pid file is still there, but the lock is not.
    expect(lockOwner(dataDir)).toBe(child.pid);
    expect(isLocked(dataDir)).toBe(false);
    const lock = lockDataDir(dataDir);
    expect(lockOwner(dataDir)).toBe(process.pid);
    lock.release();
  });

  it('ignores a leftover pid file of any content', () => {
    writeFileSync(join(dataDir, 'breakerbar.pid'), 'garbage');
    expect(lockOwner(dataDir)).toBeNull();
    const lock = lockDataDir(dataDir);
    expect(readFileSync(join(dataDir, 'breakerbar.pid'), 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
  });

  it('release leaves alone a pid file that names someone else', () => {
    const lock = lockDataDir(dataDir);
    writeFileSync(join(dataDir, 'breakerbar.pid'), '12345\n');
    lock.release();
    expect(lockOwner(dataDir)).toBe(12345);
  });

  it('says clearly when the lock cannot even be created', () => {
    const missing = join(dataDir, 'no', 'such', 'dir');
    expect(() => lockDataDir(missing)).toThrow(/cannot create the lock/);
    expect(existsSync(missing)).toBe(false);
  });
});
