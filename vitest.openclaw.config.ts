import { defineConfig } from 'vitest/config';

/**
 * The real-OpenClaw suite, on its own after the rest: it runs two real gateways and
 * a dozen OpenClaw CLI processes, which a 2-core machine should not share with the
 * other suites' timing-sensitive tests. The recovery scenarios (watchdog live) are
 * part of it; `npm run test:recovery` runs them alone (vitest.recovery.config.ts).
 * One file at a time: each one's gateways have the machine to themselves.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/openclaw/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 900_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
