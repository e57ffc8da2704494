import { defineConfig } from 'vitest/config';

/**
 * The real-OpenClaw suite, on its own after the rest: it runs real gateways and OpenClaw CLI processes, which a
 * 2-core machine should not share with the other suites' timing-sensitive tests. The recovery scenarios
 * (watchdog live) are part of it; `npm run test:recovery` runs them alone (vitest.recovery.config.ts).
 *
 * Most of its files run side by side, three at a time: their time is mostly waiting on OpenClaw (a Retry-After,
 * a cooldown, a six-minute stall report, ten minutes of healthy traffic), not computing. The setup installs both
 * OpenClaw versions once before any file starts.
 *
 * `restart-behaviour.test.ts` runs afterwards, alone: it pins down the order of what OpenClaw itself does around
 * a restart (which runs it aborts, what its CLI falls back to), and OpenClaw 2026.7.1's CLI took another path on
 * a machine busy with the other files' gateways.
 */
const ALONE = 'test/e2e/openclaw/restart-behaviour.test.ts';

export default defineConfig({
  test: {
    globalSetup: ['test/e2e/openclaw/harness/suite-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 900_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'side by side',
          include: ['test/e2e/openclaw/**/*.test.ts'],
          exclude: [ALONE, '**/node_modules/**'],
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: [ALONE], maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
