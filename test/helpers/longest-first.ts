/**
 * The unit suite's file order: shuffled with the run's seed (so a file that leans on another's leftovers fails
 * here), then the few files that take minutes moved to the front, in that shuffled order. Started last, one of
 * them would run alone at the end while the other workers sit idle; started first, the short files fill in
 * around it.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The files that take minutes of a 2-core machine (each builds, installs or replays a lot). */
export const LONGEST_FILES = [
  'test/install/npm-global.test.ts',
  'test/rehearse/scenarios.timing.test.ts',
  'test/e2e/exactly-once.test.ts',
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seed = this.ctx.config.sequence.seed;
    const shuffled = seededShuffle(files, seed);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FILES.indexOf(relative(this.ctx.config.root, spec.moduleId));
      return at < 0 ? LONGEST_FILES.length : at;
    };
    // Array.prototype.sort is stable: the rest keep their shuffled order.
    return shuffled.sort((a, b) => rank(a) - rank(b));
  }
}

/** Fisher–Yates with a small seeded generator (mulberry32): the same seed, the same order. */
function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
