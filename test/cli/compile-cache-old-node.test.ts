/**
 * useCompileCache on a Node without a compile cache (older than package.json's `engines.node`, started by
 * hand): the command still runs, and nothing is made or set.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

// node:module as Node 20 has it: no enableCompileCache.
vi.mock('node:module', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:module')>()),
  enableCompileCache: undefined,
}));

const { useCompileCache } = await import('../../main/cli/compile-cache.js');

describe('useCompileCache without a compile cache in node:module', () => {
  const saved = process.env.NODE_COMPILE_CACHE;
  afterEach(() => {
    if (saved === undefined) delete process.env.NODE_COMPILE_CACHE;
    else process.env.NODE_COMPILE_CACHE = saved;
  });

  it('does nothing, and does not throw', () => {
    delete process.env.NODE_COMPILE_CACHE;
    const root = mkdtempSync(join(tmpdir(), 'bb-compile-cache-'));
    try {
      expect(() => useCompileCache(join(root, 'compiled'))).not.toThrow();
      expect(existsSync(join(root, 'compiled'))).toBe(false);
      expect(process.env.NODE_COMPILE_CACHE).toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
