import { defineConfig } from 'vitest/config';

/**
 * The recovery scenarios on the real gateway, watchdog live (docs/recovery-on-the-real-gateway.md): about
 * 25 minutes on a 2-core machine, so they run on their own, by `npm run test:recovery`, and are not yet part
 * of `npm test` (the docs say why). One gateway at a time besides the healthy one that runs throughout.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/openclaw/recovery.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
