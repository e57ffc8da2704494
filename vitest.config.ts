import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/helpers/longest-first.js';

/**
 * Every run shuffles the files and the tests within them, so a test that leans on another's leftovers
 * fails here rather than on someone else's machine. The seed is printed; BREAKERBAR_TEST_SEED=N repeats
 * an order. (A suite that is one story over one daemon keeps its steps in order with `shuffle: false`.)
 * The files that take minutes start first, in the shuffled order (test/helpers/longest-first.ts).
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
    // Most files spend their time waiting on the processes, servers and timers they drive, not computing:
    // two files per core keep the cores busy (vitest's default, one fewer than the cores, runs a 2-core
    // machine's suite one file at a time, twice as long).
    maxWorkers: availableParallelism() * 2,
    sequence: { shuffle: { files: false, tests: true }, sequencer: LongestFirst, seed },
  },
});
