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

/**
 * Files that judge time on the wall clock (a probe's timeout told from BreakerBar's own late timer, a signal
 * during a shutdown, the rehearsal's compressed minutes) are named `*.timing.test.ts`: they run after the
 * others, one at a time, so that no other file's work makes their timers late.
 */
const TIMING = 'test/**/*.timing.test.ts';

export default defineConfig({
  test: {
    // The real gateway runs on its own afterwards (vitest.openclaw.config.ts).
    exclude: ['test/e2e/openclaw/**', '**/node_modules/**'],
    // Tests spawn the built CLI and real processes; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    sequence: { shuffle: { files: false, tests: true }, sequencer: LongestFirst, seed },
    projects: [
      {
        extends: true,
        test: {
          name: 'side by side',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/openclaw/**', '**/node_modules/**', TIMING],
          // One file per core, and one worker more for the install test (test/install/), which starts first
          // (test/helpers/longest-first.ts) and builds better-sqlite3 three times at a low priority, taking only
          // the CPU the others leave. Most of these files wait on what they drive (a daemon, a browser, a
          // socket); those that judge the wall clock run apart (below). Measured on 2 cores: 12 min one file at
          // a time, 7 min one per core; two per core made busy-machine failures of cleanups and timers.
          maxWorkers: availableParallelism() + 1,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'timing',
          include: [TIMING],
          // One at a time: nothing else makes their timers late.
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
