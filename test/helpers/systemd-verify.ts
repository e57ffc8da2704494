/**
 * `systemd-analyze verify`: systemd itself parses a unit file. It checks that the executable exists (so a
 * mis-quoted path shows up as "not executable") and reports bad quoting, unknown specifiers and unknown
 * settings. Callers gate their tests on `toolOrSkip('systemd-analyze')`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Verifies `unitText` as breakerbar.service in a fresh folder under `tmp`: user mode if it can run here, else system mode. */
export function verifyUnit(unitText: string, tmp: string): { code: number; output: string; mode: string } {
  const dir = mkdtempSync(join(tmp, 'unit-'));
  const file = join(dir, 'breakerbar.service');
  writeFileSync(file, unitText);
  const run = (args: string[]) => spawnSync('systemd-analyze', ['verify', ...args, file], { encoding: 'utf8' });
  let result = run(['--user']);
  let mode = 'user';
  // Without a user runtime directory (containers, CI) user mode cannot start its manager.
  if (result.status !== 0 && /Failed to initialize manager|RuntimeDirectory|XDG_RUNTIME_DIR/.test(result.stderr)) {
    result = run([]);
    mode = 'system';
  }
  return { code: result.status ?? -1, output: `${result.stdout}${result.stderr}`, mode };
}

/** Lines of verify output about our unit file (other units on the machine may have complaints of their own). */
export function aboutOurUnit(output: string): string[] {
  return output.split('\n').filter((line) => line.includes('breakerbar.service'));
}
