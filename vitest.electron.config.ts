import { defineConfig } from 'vitest/config';

/**
 * The menu-bar app under the real Electron runtime, driven by Playwright's `_electron`. Only where that
 * runtime can be installed (a desktop, or the hosted workflow .github/workflows/app.yml): machines without
 * access to Electron's download host type-check these files with the rest and never run them.
 */
export default defineConfig({
  test: {
    include: ['test/electron/**/*.electron.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
