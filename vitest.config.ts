import { defineConfig } from 'vitest/config';

/**
 * Every run shuffles the files and the tests within them, so a test that leans on another's leftovers
 * fails here rather than on someone else's machine. The seed is printed; BREAKERBAR_TEST_SEED=N repeats
 * an order. (A suite that is one story over one daemon keeps its steps in order with `shuffle: false`.)
 */
const seed = Number(process.env.BREAKERBAR_TEST_SEED ?? Math.floor(Math.random() * 1_000_000));
console.log(`test order shuffled with seed ${seed} (BREAKERBAR_TEST_SEED=${seed} repeats it)`);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real gateway runs on its own afterwards (vitest.openclaw.config.ts).
    exclude: ['test/e2e/openclaw/**', '**/node_modules/**'],
    // Tests spawn the built CLI and real processes; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    sequence: { shuffle: true, seed },
  },
});
