/**
 * Once before the real-OpenClaw suite's files: both OpenClaw versions installed and started once, and
 * OpenClaw's own temp paths handed to the suite as a whole. A gateway's `stop()` cannot remove those while a
 * gateway running beside it still uses them; the paths this run created are removed here once every file is done.
 */
import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { openclawTempPaths, SHARED_TEMP_PATHS } from './gateway.js';
import { ensureOpenClaw, OPENCLAW_VERSIONS } from './runtime.js';

export default async function setup(): Promise<() => void> {
  const before = new Set(openclawTempPaths().filter((path) => existsSync(path)));
  // Set before the files' processes start, which inherit it.
  process.env[SHARED_TEMP_PATHS] = '1';
  for (const version of OPENCLAW_VERSIONS) {
    const runtime = await ensureOpenClaw(version);
    // OpenClaw finishes its package's install steps at its first start (it was installed without scripts), under
    // a lock a second process meeting it refuses to wait on ("package lifecycle is incomplete"): done here, once,
    // before two gateways can start at the same time.
    await promisify(execFile)(runtime.node, [runtime.entry, '--version']);
  }
  return () => {
    for (const path of openclawTempPaths()) if (!before.has(path)) rmSync(path, { recursive: true, force: true });
  };
}
