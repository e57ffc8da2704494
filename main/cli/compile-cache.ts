/**
 * Node's on-disk cache of compiled modules, for the `breakerbar` command. Every run loads the modules of its
 * subcommand (and a scan's or a daemon's worker threads load theirs); compiling them again at each start was
 * about a fifth of an empty `breakerbar scan` (measured: 0.17–0.21 s without the cache, 0.14–0.17 s with it).
 *
 * The cache lives in this user's own cache directory, made private: compiled code read back from a directory
 * another local user can write to would run as this user. Node drops an entry whose source changed (an upgrade)
 * and honours `NODE_DISABLE_COMPILE_CACHE=1`; a cache that cannot be made (a read-only home), or a Node without
 * one (older than `engines.node`, started by hand), is simply not used.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the platform keeps a user's caches. */
export function compileCacheDir(
  env: NodeJS.ProcessEnv = process.env,
  home = homedir(),
  platform = process.platform,
): string {
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'BreakerBar', 'compiled');
  if (platform === 'win32') {
    return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'BreakerBar', 'Cache', 'compiled');
  }
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), 'breakerbar', 'compiled');
}

/**
 * Turns the cache on for this process and the worker threads it starts; never fails the command. A cache the
 * user chose (`NODE_COMPILE_CACHE`) is Node's already, and kept.
 */
export function useCompileCache(dir = compileCacheDir()): void {
  // Looked up, not imported by name: a Node without it would refuse to load this module at all.
  const enable = (nodeModule as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  if (process.env.NODE_COMPILE_CACHE || typeof enable !== 'function') return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Made private even if it was there already; a directory this user does not own fails here and is not used.
    chmodSync(dir, 0o700);
    enable(dir);
    // Worker threads take the cache from the environment, not from this call (so do the commands the daemon runs:
    // a Node program among them keeps its entries beside these, each keyed by its file and content).
    process.env.NODE_COMPILE_CACHE = dir;
  } catch {
    // No cache: every module is compiled, as without one.
  }
}
