import { describe, expect, it } from 'vitest';
import { type FoundCalls, FoundCallsBuilder, foundCallAt, keyHash, SeenKeys } from '../../../main/core/scan/calls.js';

const call = (key: string, i = 0) => ({
  key,
  ts: 1_000 + i,
  dep: i % 2 === 0 ? 'zhipu/glm-5.1' : 'openai/gpt-5.5',
  outcome: i % 3 === 0 ? ('rate_limited' as const) : ('ok' as const),
  tokens: 10 * i,
  seed: i % 3 === 0,
  upstream: i !== 4,
  runId: i === 2 ? 'run-2' : null,
});

function built(keys: string[]): FoundCalls {
  const builder = new FoundCallsBuilder();
  keys.forEach((key, i) => {
    builder.add(call(key, i));
  });
  return builder.finish();
}

describe('FoundCalls: calls as columns', () => {
  it('gives every call back as it was added', () => {
    const keys = ['main/a@1', 'main/b@2', '', 'coder/ü@3', 'main/a@1', 'x'.repeat(300)];
    const calls = built(keys);
    expect(calls.count).toBe(keys.length);
    keys.forEach((key, i) => {
      expect(foundCallAt(calls, i)).toEqual(call(key, i));
    });
  });

  it('survives a copy to another thread (structured clone)', () => {
    const calls = built(['a', 'b']);
    const copy = structuredClone(calls);
    expect(foundCallAt(copy, 1)).toEqual(call('b', 1));
  });
});

describe('SeenKeys: each key counted once, whatever the hashes', () => {
  it('tells the first copy of a key from later ones, across inputs', () => {
    const seen = new SeenKeys();
    const one = seen.input(built(['k1', 'k2', 'k1']));
    const two = seen.input(built(['k2', 'k3']));
    expect([seen.add(one, 0), seen.add(one, 1), seen.add(one, 2), seen.add(two, 0), seen.add(two, 1)]).toEqual([
      true,
      true,
      false,
      false,
      true,
    ]);
  });

  it('never drops a call when two different keys share a hash', () => {
    // Forge a collision: every key of these inputs claims the same hash.
    const collide = (keys: string[]) => {
      const calls = built(keys);
      calls.hashes.fill(42);
      return calls;
    };
    const seen = new SeenKeys();
    const a = seen.input(collide(['x', 'y', 'x', 'z', 'y']));
    const b = seen.input(collide(['z', 'w']));
    const firsts = [0, 1, 2, 3, 4].map((i) => seen.add(a, i));
    expect(firsts).toEqual([true, true, false, true, false]);
    expect([seen.add(b, 0), seen.add(b, 1)]).toEqual([false, true]);
  });

  it('agrees with a Set of the keys over many inputs, while its table grows, and with hashes that share low bits', () => {
    const seen = new SeenKeys();
    const reference = new Set<string>();
    let agreed = 0;
    for (let input = 0; input < 40; input++) {
      // Two keys in three were seen before, in this input or an earlier one, as forked and imported sessions do.
      const keys = Array.from({ length: 500 }, (_, i) => {
        const n = (input * 157 + i) % 9_000;
        return `main/${n}@${n % 13}`;
      });
      const calls = built(keys);
      // A quarter of the keys forged to hashes that differ only above bit 32: all start at the same slot
      // (and some share a hash outright, which the keys' text must tell apart).
      keys.forEach((key, i) => {
        if (key.endsWith('@0') || key.endsWith('@4') || key.endsWith('@8')) {
          calls.hashes[i] = 2 ** 32 * ((keyHash(key) % 2 ** 12) + 1) + 7;
        }
      });
      const id = seen.input(calls);
      keys.forEach((key, i) => {
        const first = !reference.has(key);
        reference.add(key);
        if (seen.add(id, i) === first) agreed++;
      });
    }
    expect(agreed).toBe(40 * 500);
    // Past 2,048 and 4,096 keys: the table has grown twice.
    expect(reference.size).toBeGreaterThan(4_096);
  });

  it('hashes exactly within 53 bits, and differently for near keys', () => {
    const h = keyHash('main/f026b21f@1796020210396');
    expect(Number.isSafeInteger(h)).toBe(true);
    expect(h).toBe(keyHash('main/f026b21f@1796020210396'));
    expect(h).not.toBe(keyHash('main/f026b21f@1796020210397'));
  });
});
