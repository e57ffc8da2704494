import { defineConfig } from 'vitest/config';

/**
 * The recovery scenarios on the real gateway, watchdog live (docs/recovery-on-the-real-gateway.md), alone:
 * `npm run test:recovery`. `npm test` runs them with the rest of the real-OpenClaw suite
 * (vitest.openclaw.config.ts). The storms and the other scenarios run side by side.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/openclaw/recovery*.test.ts'],
    globalSetup: ['test/e2e/openclaw/harness/suite-setup.ts'],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    pool: 'forks',
    // Both files at once (vitest's default on a 2-core machine is one at a time).
    maxWorkers: 2,
  },
});
