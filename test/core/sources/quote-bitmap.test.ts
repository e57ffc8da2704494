/**
 * The quote bitmap against a plain byte-by-byte reference: which quotes are
 * unescaped (an even run of backslashes, counted from the start of the indexed
 * range, right before them) and which bytes a string decoder must look at.
 * Backslash runs that cross the 64-byte blocks the SIMD code works in are where
 * its carry logic can go wrong, so they are tried at every boundary.
 */
import { describe, expect, it } from 'vitest';
import {
  type QuoteBits,
  QuoteIndexer,
  quoteModuleBytes,
  sharedQuoteIndexer,
} from '../../../main/core/sources/quote-bitmap.js';
import { seededRandom } from '../../../main/simulator/records.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Quote, backslash, plain, newline, control, a UTF-8 lead byte, an invalid byte. */
const ALPHABET = [QUOTE, BACKSLASH, 0x61, 0x0a, 0x01, 0xc3, 0xff];

/** The reference: per byte of buf[from, to), is it an unescaped quote, is it special. */
function reference(buf: Buffer, from: number, to: number): { quotes: boolean[]; special: boolean[] } {
  const quotes: boolean[] = [];
  const special: boolean[] = [];
  let run = 0; // backslashes right before the current byte, within the range
  for (let i = from; i < to; i++) {
    const b = buf[i] as number;
    quotes.push(b === QUOTE && run % 2 === 0);
    special.push(b < 0x20 || b === BACKSLASH || b >= 0x80);
    run = b === BACKSLASH ? run + 1 : 0;
  }
  return { quotes, special };
}

const bit = (words: Int32Array, i: number): boolean => ((words[i >> 5] as number) >>> (i & 31)) % 2 === 1;

/** The first byte where the bitmaps and the reference disagree, or null. */
function mismatch(bits: QuoteBits, buf: Buffer, from: number, to: number): string | null {
  const want = reference(buf, from, to);
  for (let i = 0; i < to - from; i++) {
    if (bit(bits.words, i) !== want.quotes[i]) return `quote bit ${i} is ${bit(bits.words, i)}`;
    if (bit(bits.special, i) !== want.special[i]) return `special bit ${i} is ${bit(bits.special, i)}`;
  }
  return null;
}

function indexer(capacity = 64 * 1024): QuoteIndexer {
  const made = QuoteIndexer.create(capacity);
  if (made === null) throw new Error('this runtime has WebAssembly SIMD; create must not return null');
  return made;
}

function randomBytes(r: () => number, n: number): Buffer {
  const buf = Buffer.alloc(n);
  for (let i = 0; i < n; i++) buf[i] = ALPHABET[Math.floor(r() * ALPHABET.length)] as number;
  return buf;
}

/** Indexes buf[from, to) and checks it against the reference, naming the case on failure. */
function check(ix: QuoteIndexer, buf: Buffer, from: number, to: number, what: string): void {
  const bits = ix.index(buf, from, to);
  if (bits === null) throw new Error(`${what}: index returned null`);
  expect(bits.buf).toBe(buf);
  expect([bits.from, bits.to]).toEqual([from, to]);
  const d = mismatch(bits, buf, from, to);
  if (d !== null) expect.fail(`${what}: ${d} in ${JSON.stringify(buf.subarray(from, to).toString('latin1'))}`);
}

describe('quote bitmap', () => {
  it('is a valid WebAssembly module, and this runtime can run it', () => {
    expect(WebAssembly.validate(new Uint8Array(quoteModuleBytes()))).toBe(true);
    expect(sharedQuoteIndexer()).toBeInstanceOf(QuoteIndexer);
    expect(sharedQuoteIndexer()).toBe(sharedQuoteIndexer());
  });

  it('equals the reference on random buffers of every length up to 300, at offsets into a larger buffer', () => {
    const ix = indexer();
    const r = seededRandom(11);
    for (let n = 0; n <= 300; n++) {
      for (let trial = 0; trial < 4; trial++) {
        // backslashes before `from` must not escape anything inside the range
        const from = trial === 0 ? 0 : 1 + Math.floor(r() * 70);
        const buf = randomBytes(r, from + n + Math.floor(r() * 10));
        if (trial === 3 && from > 0) buf[from - 1] = BACKSLASH;
        check(ix, buf, from, from + n, `length ${n} from ${from}`);
      }
    }
  });

  it('carries backslash runs of every parity across 64-byte blocks', () => {
    const ix = indexer();
    const r = seededRandom(12);
    for (const last of [62, 63, 64, 65, 126, 127, 128, 129, 191, 192]) {
      for (const run of [1, 2, 3, 4, 5, 63, 64, 65, 66, 129]) {
        const first = last - run + 1;
        if (first < 0) continue;
        for (const from of [0, 5]) {
          const buf = randomBytes(r, from + last + 8);
          // a non-backslash before the run, so the run is exactly `run` long
          if (first > 0) buf[from + first - 1] = 0x61;
          buf.fill(BACKSLASH, from + first, from + last + 1);
          buf[from + last + 1] = QUOTE;
          check(ix, buf, from, buf.length, `run of ${run} ending at ${last}, from ${from}`);
          const bits = ix.index(buf, from, buf.length) as QuoteBits;
          expect(bit(bits.words, last + 1), `run ${run} → quote escaped iff odd`).toBe(run % 2 === 0);
        }
      }
    }
  });

  it('indexes text read into its scratch buffer in place, the same as a copy', () => {
    const ix = indexer(4096);
    const r = seededRandom(13);
    for (let n = 0; n <= 300; n += 7) {
      const text = randomBytes(r, n);
      const scratch = ix.scratch(n);
      expect(scratch.length).toBe(n);
      text.copy(scratch);
      check(ix, scratch, 0, n, `in place, length ${n}`);
      expect(scratch.equals(text)).toBe(true);
    }
    expect(ix.scratch(1 << 20).length).toBe(ix.capacity); // never more than the capacity
  });

  it('leaves text in its scratch buffer unchanged when indexing a range that does not start at 0', () => {
    const ix = indexer(4096);
    const r = seededRandom(14);
    for (const [from, n] of [
      [1, 100],
      [7, 64],
      [64, 200],
      [300, 10],
    ] as const) {
      const text = randomBytes(r, n);
      const scratch = ix.scratch(from + n);
      text.copy(scratch, from);
      check(ix, scratch, from, from + n, `scratch from ${from}, length ${n}`);
      expect(scratch.subarray(from, from + n).equals(text), `scratch from ${from}: text unchanged`).toBe(true);
    }
  });

  it('returns null for a range longer than its capacity (rounded up to 64) or reversed', () => {
    const ix = indexer(100);
    expect(ix.capacity).toBe(128);
    const buf = randomBytes(seededRandom(15), 200);
    check(ix, buf, 0, 128, 'exactly the capacity');
    check(ix, buf, 72, 200, 'the capacity at an offset');
    expect(ix.index(buf, 0, 129)).toBeNull();
    expect(ix.index(buf, 10, 5)).toBeNull();
  });

  it('keeps no bits of a longer input when reused for a shorter one', () => {
    const ix = indexer(1024);
    const loud = Buffer.alloc(600, QUOTE);
    loud.fill(0xff, 300); // quotes and special bytes everywhere
    check(ix, loud, 0, loud.length, 'the longer input');
    for (const n of [0, 1, 31, 32, 33, 63, 64, 65, 200]) {
      const quiet = Buffer.alloc(n + 3, 0x61);
      const bits = ix.index(quiet, 3, n + 3) as QuoteBits;
      for (let i = 0; i < n; i++) {
        if (bit(bits.words, i) || bit(bits.special, i)) expect.fail(`stale bit ${i} after a shorter input of ${n}`);
      }
    }
    // an odd backslash run at the end of one input does not escape the first quote of the next
    check(ix, Buffer.from('aaa\\'), 0, 4, 'ends in a backslash');
    const next = Buffer.from('"a"');
    expect(bit((ix.index(next, 0, 3) as QuoteBits).words, 0)).toBe(true);
  });

  it('equals the reference on a buffer of 64 KiB', () => {
    const ix = indexer(64 * 1024);
    const buf = randomBytes(seededRandom(16), 64 * 1024);
    check(ix, buf, 0, buf.length, '64 KiB');
    check(ix, buf, 3, buf.length - 5, '64 KiB less 8');
  });
});
