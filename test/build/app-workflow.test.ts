/**
 * The hosted workflow (.github/workflows/app.yml) runs what cannot run here: the app under the real
 * Electron, packaging, reading the fuses back from the packaged binary, and the npm install test on macOS. It is checked here against
 * the repository, so it cannot drift: the files it runs exist, and every fuse it expects in the binary
 * is the value electron-builder.yml sets.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FuseV1Options } from '@electron/fuses';
import type { Configuration } from 'app-builder-lib';
import { getConfig } from 'app-builder-lib/out/util/config/config.js';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKFLOW = readFileSync(join(ROOT, '.github', 'workflows', 'app.yml'), 'utf8');

/** electron-builder's `electronFuses` key for a fuse as @electron/fuses names it: `RunAsNode` → `runAsNode`. */
const builderKey = (fuse: string) => fuse[0]?.toLowerCase() + fuse.slice(1);

describe('the hosted app workflow', () => {
  it('runs files that exist: the Electron suite, its config, and Electron’s installer', () => {
    const configs = [...WORKFLOW.matchAll(/--config (\S+)/g)].map((match) => match[1] as string);
    expect(configs).toEqual(['vitest.electron.config.ts', 'vitest.electron.config.ts']);
    for (const file of configs) expect(existsSync(join(ROOT, file)), file).toBe(true);
    expect(WORKFLOW).toContain('node node_modules/electron/install.js');
    expect(existsSync(join(ROOT, 'node_modules', 'electron', 'install.js'))).toBe(true);
    expect(existsSync(join(ROOT, 'test', 'electron', 'app.electron.ts'))).toBe(true);
  });

  it('runs the npm install test that exists, with the Nodes that test reads from the environment', () => {
    const tests = [...WORKFLOW.matchAll(/npx vitest run (test\/\S+\.test\.ts)/g)].map((match) => match[1] as string);
    expect(tests).toEqual(['test/install/npm-global.test.ts']);
    const test = readFileSync(join(ROOT, tests[0] as string), 'utf8');
    for (const name of ['BREAKERBAR_INSTALL_TEST_NODE22', 'BREAKERBAR_INSTALL_TEST_NODE24']) {
      expect(WORKFLOW).toContain(`echo "${name}=`);
      expect(test).toContain(`'${name}'`);
    }
  });

  it('expects in the packaged binary exactly the fuses electron-builder.yml sets', async () => {
    const config = (await getConfig(ROOT, null, null)) as Configuration;
    const fuses = (config.electronFuses ?? {}) as Record<string, boolean | undefined>;
    const expected = [...WORKFLOW.matchAll(/grep -q '(\w+) is (Enabled|Disabled)'/g)].map((match) => ({
      fuse: match[1] as string,
      enabled: match[2] === 'Enabled',
    }));
    // The security-relevant ones, at least: running as Node, NODE_OPTIONS, --inspect, the asar's integrity.
    expect(expected.map((e) => e.fuse)).toEqual(
      expect.arrayContaining([
        'RunAsNode',
        'EnableNodeOptionsEnvironmentVariable',
        'EnableNodeCliInspectArguments',
        'EnableEmbeddedAsarIntegrityValidation',
        'OnlyLoadAppFromAsar',
      ]),
    );
    for (const { fuse, enabled } of expected) {
      // A name the fuses tool would print (it prints FuseV1Options' names).
      expect(Object.values(FuseV1Options), fuse).toContain(fuse);
      expect(fuses[builderKey(fuse)], fuse).toBe(enabled);
    }
  });
});
