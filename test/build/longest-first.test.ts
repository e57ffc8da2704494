import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { LONGEST_FILES, LongestFirst } from '../helpers/longest-first.js';

const ROOT = join(import.meta.dirname, '..', '..');

function sequencer(seed: number): LongestFirst {
  return new LongestFirst({ config: { root: ROOT, sequence: { seed } } } as unknown as ConstructorParameters<
    typeof LongestFirst
  >[0]);
}

const spec = (path: string) => ({ moduleId: join(ROOT, path) }) as TestSpecification;
const paths = (specs: TestSpecification[]) => specs.map((s) => s.moduleId.slice(ROOT.length + 1));

describe('the unit suite starts its longest files first', () => {
  it('names files that exist', () => {
    for (const file of LONGEST_FILES) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });

  it('puts them first, the rest shuffled by the seed: the same seed, the same order', async () => {
    const others = Array.from({ length: 30 }, (_, i) => `test/short-${i}.test.ts`);
    const files = [...others.slice(0, 10), ...LONGEST_FILES, ...others.slice(10)].map(spec);
    const once = paths(await sequencer(42).sort(files));
    expect(once.slice(0, LONGEST_FILES.length)).toEqual(LONGEST_FILES);
    expect([...once.slice(LONGEST_FILES.length)].sort()).toEqual([...others].sort());
    expect(once.slice(LONGEST_FILES.length)).not.toEqual(others);
    expect(paths(await sequencer(42).sort(files))).toEqual(once);
    expect(paths(await sequencer(43).sort(files))).not.toEqual(once);
  });
});
