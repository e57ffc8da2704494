import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { compileCacheDir } from '../../main/cli/compile-cache.js';

const MODULE = fileURLToPath(new URL('../../main/cli/compile-cache.ts', import.meta.url));

describe('compileCacheDir', () => {
  it("is in the platform's place for a user's caches", () => {
    expect(compileCacheDir({}, '/home/ana', 'linux')).toBe('/home/ana/.cache/breakerbar/compiled');
    expect(compileCacheDir({ XDG_CACHE_HOME: '/var/cache/ana' }, '/home/ana', 'linux')).toBe(
      '/var/cache/ana/breakerbar/compiled',
    );
    expect(compileCacheDir({}, '/Users/ana', 'darwin')).toBe('/Users/ana/Library/Caches/BreakerBar/compiled');
  });
});

describe('useCompileCache', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `script` in a fresh Node (this test's), after `useCompileCache(dir)`; returns what it prints. */
  function inFreshNode(dir: string, script: string, env: NodeJS.ProcessEnv = {}): string {
    const { NODE_COMPILE_CACHE: _, ...rest } = process.env;
    const source = `const { useCompileCache } = await import(${JSON.stringify(MODULE)});
useCompileCache(${JSON.stringify(dir)});
${script}`;
    return execFileSync(process.execPath, ['--input-type=module', '-e', source], {
      env: { ...rest, ...env },
      encoding: 'utf8',
    });
  }

  it('makes a private directory and turns the cache on for the process and its worker threads', () => {
    const root = mkdtempSync(join(tmpdir(), 'bb-compile-cache-'));
    dirs.push(root);
    const dir = join(root, 'cache', 'compiled');
    const printed = inFreshNode(
      dir,
      `const { getCompileCacheDir } = await import('node:module');
const { Worker } = await import('node:worker_threads');
const worker = new Worker(
  "import { parentPort } from 'node:worker_threads'; import { getCompileCacheDir } from 'node:module'; parentPort.postMessage(String(getCompileCacheDir()));",
  { eval: true },
);
const inWorker = await new Promise((resolve) => worker.once('message', resolve));
await worker.terminate();
console.log(JSON.stringify({ main: getCompileCacheDir(), worker: inWorker }));`,
    );
    const { main, worker } = JSON.parse(printed) as { main: string; worker: string };
    expect(main.startsWith(dir)).toBe(true);
    expect(worker.startsWith(dir)).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'cache')).mode & 0o777).toBe(0o700);
  });

  it('makes a directory that was there already private', () => {
    const root = mkdtempSync(join(tmpdir(), 'bb-compile-cache-'));
    dirs.push(root);
    const dir = join(root, 'compiled');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const printed = inFreshNode(dir, `console.log(String((await import('node:module')).getCompileCacheDir()));`);
    expect(printed.trim().startsWith(dir)).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('keeps the cache the user chose, and runs without one where it cannot be made', () => {
    const root = mkdtempSync(join(tmpdir(), 'bb-compile-cache-'));
    dirs.push(root);
    const chosen = join(root, 'chosen');
    const script = `console.log(String((await import('node:module')).getCompileCacheDir()));`;
    expect(inFreshNode(join(root, 'ours'), script, { NODE_COMPILE_CACHE: chosen }).trim().startsWith(chosen)).toBe(
      true,
    );
    // A file where the directory would go: nothing can be made there, and the command still runs.
    execFileSync('touch', [join(root, 'file')]);
    expect(inFreshNode(join(root, 'file', 'compiled'), script).trim()).toBe('undefined');
  });
});
