import { defineConfig } from 'vitest/config';

/**
 * The real-OpenClaw suite, on its own after the rest: it runs real gateways and OpenClaw CLI processes, which a
 * 2-core machine should not share with the other suites' timing-sensitive tests. The recovery scenarios
 * (watchdog live) are part of it; `npm run test:recovery` runs them alone (vitest.recovery.config.ts).
 *
 * One file at a time. Three at once took the suite from 27 to 12 minutes, but loaded the machine until
 * BreakerBar's own event loop ran 1.5 s late and OpenClaw 2026.7.1's CLI took another fallback path: the
 * scenarios judge timing, so their files keep the machine to themselves. Within a file, scenarios that mostly
 * wait run side by side (the storms; the healthy and hung gateways beside the rest). The setup installs both
 * OpenClaw versions once, before any file starts.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/openclaw/**/*.test.ts'],
    globalSetup: ['test/e2e/openclaw/harness/suite-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 900_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
