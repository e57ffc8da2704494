/**
 * scripts/fixed-sleeps.mjs (run by `npm run lint`): it finds fixed waits of 50 ms or more,
 * literal or through a constant of the file, lets through the ones explained with
 * `// fixed wait: <why>`, and ignores short ticks, computed durations and deadline timers.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/fixed-sleeps.mjs', import.meta.url));

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Checks `source` as a test file. `§` splits the waits' names here, so this file is not listed itself. */
function check(source: string): { code: number | null; out: string } {
  dir = mkdtempSync(join(tmpdir(), 'bb-fixed-sleeps-'));
  writeFileSync(join(dir, 'a.test.ts'), source.replaceAll('§', ''));
  const run = spawnSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8', cwd: dir });
  return { code: run.status, out: `${run.stdout}${run.stderr}` };
}

describe('scripts/fixed-sleeps.mjs', () => {
  it('lists each unexplained fixed wait of 50 ms or more as file:line, and fails', () => {
    const { code, out } = check(
      [
        'const GAP_MS = 2 * 100;',
        'await sl§eep(250);',
        'await new Promise((resolve) => setTime§out(resolve, 1_000));',
        'await sl§eep(GAP_MS);',
        'setTime§out(() => resolve(true), 50);',
        'await page.waitFor§Timeout(2500);',
        'await setTime§out(75);',
      ].join('\n'),
    );
    expect(code).toBe(1);
    const listed = out.split('\n').filter((line) => line.startsWith('a.test.ts:'));
    expect(listed.map((line) => line.split(': ')[0])).toEqual([
      'a.test.ts:2',
      'a.test.ts:3',
      'a.test.ts:4',
      'a.test.ts:5',
      'a.test.ts:6',
      'a.test.ts:7',
    ]);
    expect(listed[2]).toContain('fixed wait of 200 ms');
  });

  it('passes waits explained on their line or the line above, short ticks, computed durations and deadlines', () => {
    const { code, out } = check(
      [
        '// fixed wait: paces the writes',
        'await sl§eep(150);',
        'await sl§eep(300); // fixed wait: past the follow-up timer',
        'await sl§eep(10);',
        'await sl§eep(ms);',
        'await sl§eep(Math.random() * 3);',
        "const killer = setTime§out(() => child.kill('SIGKILL'), 5000);",
        "setTime§out(() => reject(new Error('timeout')), 3000);",
        'socket.setTime§out(500, () => done(false));',
      ].join('\n'),
    );
    expect(out).toContain('none unexplained (2 explained');
    expect(code).toBe(0);
  });
});
