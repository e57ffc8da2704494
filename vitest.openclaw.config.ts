import { defineConfig } from 'vitest/config';

/**
 * The real-OpenClaw suite, on its own after the rest: it runs two real gateways and
 * a dozen OpenClaw CLI processes, which a 2-core machine should not share with the
 * other suites' timing-sensitive tests.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/openclaw/**/*.test.ts'],
    // The recovery scenarios run on their own (vitest.recovery.config.ts, `npm run test:recovery`).
    exclude: ['test/e2e/openclaw/recovery.test.ts', '**/node_modules/**'],
    testTimeout: 180_000,
    hookTimeout: 900_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
