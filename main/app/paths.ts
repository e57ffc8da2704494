/**
 * Where the app's files are at run time, relative to this compiled module
 * (`dist/main/app/paths.js`), in the development tree and inside the packaged
 * app alike (the asar keeps the same layout):
 *
 *   dist/main/app/        this host          dist/preload/index.cjs   the preload (CommonJS: sandboxed preloads cannot be ESM)
 *   dist/main/cli/index.js the core's entry  dist/renderer/             the dashboard (served as app://dashboard/)
 *   main/app/assets/ or dist/main/app/assets/   tray icons
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DASHBOARD_URL } from './app-protocol.js';

export interface AppPaths {
  /** `dist/main/cli/index.js`: run as `daemon` in a utility process when no daemon is running. */
  coreScript: string;
  preload: string;
  /** The built dashboard (`index.html`, `assets/`): the only files the `app://` scheme serves. */
  rendererDir: string;
  /** The dashboard's page, `app://dashboard/index.html`: the one page IPC and navigation accept. */
  rendererUrl: string;
  assetsDir: string;
}

export function appPaths(here = dirname(fileURLToPath(import.meta.url)), exists = existsSync): AppPaths {
  const dist = join(here, '..', '..');
  return {
    coreScript: join(here, '..', 'cli', 'index.js'),
    preload: join(dist, 'preload', 'index.cjs'),
    rendererDir: join(dist, 'renderer'),
    rendererUrl: DASHBOARD_URL,
    assetsDir: assetsDir(here, exists),
  };
}

/**
 * Icons copied next to the compiled host win; else `main/app/assets` at the app's root (the development
 * tree, and the packaged app, which ships that folder). Inside a packaged app the icons are unpacked
 * from the asar (electron-builder.yml): the real files are used, because a tray icon inside an archive
 * reaches the OS only through a temporary copy (electron/electron#30911).
 */
export function assetsDir(here: string, exists: (path: string) => boolean): string {
  const beside = join(here, 'assets');
  if (exists(beside)) return unpacked(beside, exists);
  return unpacked(join(here, '..', '..', '..', 'main', 'app', 'assets'), exists);
}

/** `…/app.asar/…` as `…/app.asar.unpacked/…` when that real directory exists. */
export function unpacked(path: string, exists: (path: string) => boolean): string {
  const real = path.replace(/([\\/])app\.asar(?=[\\/])/, '$1app.asar.unpacked');
  return real !== path && exists(real) ? real : path;
}
