import { defineConfig } from 'vitest/config';

/**
 * The recovery scenarios on the real gateway, watchdog live (docs/recovery-on-the-real-gateway.md), alone:
 * `npm run test:recovery`. `npm test` runs them with the rest of the real-OpenClaw suite
 * (vitest.openclaw.config.ts).
 */
export default defineConfig({
  test: {
    include: ['test/e2e/openclaw/recovery*.test.ts'],
    globalSetup: ['test/e2e/openclaw/harness/suite-setup.ts'],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    pool: 'forks',
    // One file at a time, as in the whole suite (vitest.openclaw.config.ts says why).
    fileParallelism: false,
  },
});
