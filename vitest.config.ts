import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real gateway runs on its own afterwards (vitest.openclaw.config.ts).
    exclude: ['test/e2e/openclaw/**', '**/node_modules/**'],
    // Tests spawn the built CLI and real processes; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
