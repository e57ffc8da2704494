/**
 * electron-builder `beforeBuild` hook (electron-builder.yml: beforeBuild), run once per
 * platform and arch just before electron-builder rebuilds the native modules for
 * Electron's ABI.
 *
 * electron-builder 26 runs @electron/rebuild in the project's own node_modules. That
 * rebuilder skips a module whose build/Release/.forge-meta says "already built for this
 * platform, arch and ABI". `npm rebuild better-sqlite3`, which puts Node's ABI back for
 * the tests and the daemon after a dist, goes through prebuild-install and leaves that
 * marker in place; the next `npm run dist` for the same platform would then skip the
 * rebuild and ship the Node-ABI binary, which fails inside the app with
 * "was compiled against a different Node.js version". Deleting the marker makes every
 * dist rebuild for real. Returning true lets electron-builder go on with its rebuild.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Production dependencies with a native part (keep in step with asarUnpack). */
export const NATIVE_MODULES = ['better-sqlite3'];

export async function beforeBuild(context) {
  for (const name of NATIVE_MODULES) {
    await rm(join(context.appDir, 'node_modules', name, 'build', 'Release', '.forge-meta'), { force: true });
  }
  return true;
}

export default beforeBuild;
