import { defineConfig } from 'vitest/config';

/**
 * The real-OpenClaw suite, on its own after the rest: it runs real gateways and OpenClaw CLI processes, which a
 * 2-core machine should not share with the other suites' timing-sensitive tests. The recovery scenarios
 * (watchdog live) are part of it; `npm run test:recovery` runs them alone (vitest.recovery.config.ts).
 *
 * Its files run side by side, three at a time: most of their time is waiting on OpenClaw (a Retry-After, a
 * cooldown, a six-minute stall report, ten minutes of healthy traffic), not computing. The setup installs both
 * OpenClaw versions once before any file starts.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/openclaw/**/*.test.ts'],
    globalSetup: ['test/e2e/openclaw/harness/suite-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 900_000,
    pool: 'forks',
    maxWorkers: 3,
  },
});
