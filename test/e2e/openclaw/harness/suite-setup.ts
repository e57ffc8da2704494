/**
 * Once before the real-OpenClaw suite's files, which run side by side: both OpenClaw versions installed (two
 * files installing the same version at once would race in its cache folder), and OpenClaw's own temp paths
 * handed to the suite as a whole. A gateway's `stop()` cannot remove those while another file's gateway still
 * uses them; the paths this run created are removed here once every file is done.
 */
import { existsSync, rmSync } from 'node:fs';
import { openclawTempPaths, SHARED_TEMP_PATHS } from './gateway.js';
import { ensureOpenClaw, OPENCLAW_VERSIONS } from './runtime.js';

export default async function setup(): Promise<() => void> {
  const before = new Set(openclawTempPaths().filter((path) => existsSync(path)));
  // Set before the files' processes start, which inherit it.
  process.env[SHARED_TEMP_PATHS] = '1';
  for (const version of OPENCLAW_VERSIONS) await ensureOpenClaw(version);
  return () => {
    for (const path of openclawTempPaths()) if (!before.has(path)) rmSync(path, { recursive: true, force: true });
  };
}
