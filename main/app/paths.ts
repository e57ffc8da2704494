/**
 * Where the app's files are at run time, relative to this compiled module
 * (`dist/main/app/paths.js`), in the development tree and inside the packaged
 * app alike (the asar keeps the same layout):
 *
 *   dist/main/app/        this host          dist/preload/index.cjs   the preload (CommonJS: sandboxed preloads cannot be ESM)
 *   dist/main/cli/index.js the core's entry  dist/renderer/index.html the dashboard
 *   main/app/assets/ or dist/main/app/assets/   tray icons
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface AppPaths {
  /** `dist/main/cli/index.js`: run as `daemon` in a utility process when no daemon is running. */
  coreScript: string;
  preload: string;
  rendererIndex: string;
  /** The renderer's `file:` URL without hash: the one origin IPC and navigation accept. */
  rendererUrl: string;
  assetsDir: string;
}

export function appPaths(here = dirname(fileURLToPath(import.meta.url)), exists = existsSync): AppPaths {
  const dist = join(here, '..', '..');
  const rendererIndex = join(dist, 'renderer', 'index.html');
  return {
    coreScript: join(here, '..', 'cli', 'index.js'),
    preload: join(dist, 'preload', 'index.cjs'),
    rendererIndex,
    rendererUrl: pathToFileURL(rendererIndex).href,
    assetsDir: assetsDir(here, exists),
  };
}

/** Icons copied next to the compiled host win; else the source folder (development tree, `dist/..`). */
export function assetsDir(here: string, exists: (path: string) => boolean): string {
  const beside = join(here, 'assets');
  if (exists(beside)) return beside;
  return join(here, '..', '..', '..', 'main', 'app', 'assets');
}
