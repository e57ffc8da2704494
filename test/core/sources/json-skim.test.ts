import { describe, expect, it } from 'vitest';
import {
  Elided,
  MALFORMED,
  MAX_DEPTH,
  type Skimmed,
  type SkimOptions,
  skimJson,
} from '../../../main/core/sources/json-skim.js';
import { QuoteIndexer } from '../../../main/core/sources/quote-bitmap.js';
import { seededRandom } from '../../../main/simulator/records.js';
import { diff, generator, HUGE, mutateOneByte, oracle } from '../../helpers/json-values.js';

/** Large enough for every input here, the 5 MB line included. */
const indexer = QuoteIndexer.create(8 << 20);

/**
 * skimJson three ways that must agree exactly: without a quote index, with one
 * of the whole buffer, and with one of just [start, end). The index only tells
 * the parser where strings end; any difference it makes is a bug.
 */
function skimBoth(buf: Buffer, start: number, end: number, opts: SkimOptions = {}): Skimmed | typeof MALFORMED {
  if (indexer === null) throw new Error('this runtime has WebAssembly SIMD; QuoteIndexer.create must work');
  const plain = skimJson(buf, start, end, opts);
  const ranges: Array<[number, number]> = [[0, buf.length]];
  if (start > 0 || end < buf.length) ranges.push([start, Math.min(end, buf.length)]);
  for (const [from, to] of ranges) {
    const quotes = indexer.index(buf, from, to);
    if (quotes === null) throw new Error(`cannot index [${from}, ${to})`);
    const d = diff(skimJson(buf, start, end, { ...opts, quotes }), plain);
    if (d !== null) expect.fail(`with a quote index of [${from}, ${to}): ${d} in ${buf.toString()}`);
  }
  return plain;
}

const skim = (text: string | Buffer, opts?: SkimOptions) => {
  const buf = typeof text === 'string' ? Buffer.from(text) : text;
  return skimBoth(buf, 0, buf.length, opts);
};

describe('skimJson: differential against JSON.parse', () => {
  it('equals JSON.parse on 3,000 generated values when nothing is elided', () => {
    const next = generator(1, HUGE, new Set());
    for (let i = 0; i < 3000; i++) {
      const { text } = next();
      const buf = Buffer.from(text);
      const want = oracle(buf);
      expect(want).not.toBe(MALFORMED);
      const d = diff(skimBoth(buf, 0, buf.length, { maxStringBytes: HUGE }), want);
      if (d !== null) expect.fail(`${d} in ${text}`);
    }
  });

  it('elides long strings with their byte length and keeps everything else equal', () => {
    const keepKeys = new Set(['errorMessage', 'a"b']);
    const next = generator(2, 40, keepKeys);
    let elided = 0;
    for (let i = 0; i < 3000; i++) {
      const { text, expect: want } = next();
      const got = skim(text, { maxStringBytes: 40, keepKeys });
      const d = diff(got, want);
      if (d !== null) expect.fail(`${d} in ${text}`);
      if (
        text.length > 40 &&
        JSON.stringify(got, (_k, v: unknown) => (v instanceof Elided ? '<E>' : v)).includes('<E>')
      )
        elided++;
    }
    expect(elided).toBeGreaterThan(300); // the test did exercise elision
  });

  it('agrees with JSON.parse on 20,000 random byte mutations of valid JSON', () => {
    const next = generator(3, HUGE, new Set());
    const r = seededRandom(4);
    const noise = [
      0x22, 0x5c, 0x2c, 0x3a, 0x7b, 0x7d, 0x5b, 0x5d, 0x30, 0x2d, 0x2e, 0x65, 0x20, 0x0a, 0x00, 0x80, 0xc3, 0xff,
    ];
    for (let i = 0; i < 20_000; i++) {
      const buf = Buffer.from(next().text);
      if (buf.length === 0) continue;
      const mutated = mutateOneByte(buf, r, noise);
      const got = skimBoth(mutated, 0, mutated.length, { maxStringBytes: HUGE });
      const want = oracle(mutated);
      const d = want === MALFORMED ? (got === MALFORMED ? null : 'accepted what JSON.parse rejects') : diff(got, want);
      if (d !== null) expect.fail(`${d} in ${mutated.toString()}`);
    }
  });
});

/** A realistic transcript line: an assistant message with escapes and non-ASCII. */
const SAMPLE = JSON.stringify({
  type: 'message',
  id: 'a1b2c3d4',
  parentId: null,
  timestamp: '2026-05-14T09:12:44.120Z',
  message: {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'The user said "fix it".\nLet me look at C:\\tmp first — 中文 ✅' },
      { type: 'toolCall', id: 'call_1', name: 'exec', arguments: { command: 'grep -rn "429" src/', timeout: 120 } },
    ],
    api: 'openai-completions',
    provider: 'zhipu',
    model: 'glm-5.1',
    usage: { input: 5290, output: 1323, cacheRead: 0, cacheWrite: 0, totalTokens: 6613, cost: { total: 0.035715 } },
    stopReason: 'error',
    errorMessage: '429 该模型当前访问量过大，请您稍后再试',
    errorCode: '1305',
    timestamp: 1778749964120,
  },
});

describe('skimJson: malformed input', () => {
  it('rejects every truncation of a transcript line (an object prefix is never valid JSON)', () => {
    const buf = Buffer.from(SAMPLE);
    expect(diff(skimBoth(buf, 0, buf.length, { maxStringBytes: HUGE }), JSON.parse(SAMPLE))).toBeNull();
    for (let cut = 0; cut < buf.length; cut++) {
      expect(skimBoth(buf, 0, cut), `cut at ${cut}`).toBe(MALFORMED);
      expect(skimBoth(buf, 0, cut, { maxStringBytes: 4 }), `cut at ${cut}, eliding`).toBe(MALFORMED);
    }
  });

  it.each([
    ['empty', ''],
    ['whitespace only', ' \n\t\r'],
    ['garbage', '<html><body>502 Bad Gateway</body></html>'],
    ['binary', '\u0000\u0001\u0002'],
    ['trailing garbage', '{"a":1}x'],
    ['two values', '{}{}'],
    ['extra closer', '{"a":1}}'],
    ['unbalanced array', '[]]'],
    ['lone closer', '}'],
    ['missing colon', '{"a" 1}'],
    ['missing comma', '{"a":1 "b":2}'],
    ['array missing comma', '[1 2]'],
    ['trailing comma in object', '{"a":1,}'],
    ['trailing comma in array', '[1,]'],
    ['leading comma', '[,1]'],
    ['unquoted key', '{a:1}'],
    ['number key', '{1:2}'],
    ['single quotes', "{'a':1}"],
    ['unterminated string', '"abc'],
    ['unterminated key', '{"abc'],
    ['escaped closing quote', '"abc\\"'],
    ['raw control character in a string', '"a\u0001b"'],
    ['raw newline in a string', '"a\nb"'],
    ['bad escape', '"\\q"'],
    ['short unicode escape', '"\\u12"'],
    ['bad escape in a key', '{"\\x":1}'],
    ['misspelt true', 'tru'],
    ['misspelt null', 'nul'],
    ['true with a tail', 'truex'],
    ['capitalised literal', 'True'],
    ['falsey', 'falsey'],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['BOM', '\ufeff{}'],
  ])('%s → MALFORMED', (_name, text) => {
    expect(skim(text)).toBe(MALFORMED);
    expect(oracle(Buffer.from(text))).toBe(MALFORMED); // the oracle agrees
  });

  it.each([
    '01',
    '00',
    '-01',
    '1.',
    '.5',
    '-.5',
    '+1',
    '--1',
    '-',
    '1e',
    '1e+',
    '1E-',
    '1.e5',
    '0x10',
    '1_000',
    '1.5.2',
  ])('number %s → MALFORMED', (text) => {
    expect(skim(text)).toBe(MALFORMED);
    expect(skim(`[${text}]`)).toBe(MALFORMED);
    expect(skim(`{"n":${text}}`)).toBe(MALFORMED);
  });

  it.each(['0', '-0', '1e5', '1E+5', '1.5E-3', '-12.75', '0e0', '123456789012345678901234', '1e400'])(
    'number %s parses as JSON.parse does',
    (text) => {
      expect(Object.is(skim(text), JSON.parse(text))).toBe(true);
      expect(diff(skim(`{"n":[${text}]}`), JSON.parse(`{"n":[${text}]}`))).toBeNull();
    },
  );
});

describe('skimJson: ranges, options and hostile input', () => {
  it('parses exactly the given range of a larger buffer', () => {
    const buf = Buffer.from(`{"x":1}\n  ${SAMPLE} \n"tail"`);
    const start = buf.indexOf('\n') + 1;
    const end = buf.lastIndexOf('\n');
    expect(diff(skimBoth(buf, start, end, { maxStringBytes: HUGE }), JSON.parse(SAMPLE))).toBeNull();
    // a string whose closing quote lies beyond the range is unterminated
    const open = Buffer.from('"abc" "');
    expect(skimBoth(open, 0, 4)).toBe(MALFORMED);
    expect(skimBoth(open, 0, 5)).toBe('abc');
    expect(skimBoth(open, 5, open.length)).toBe(MALFORMED);
    // nothing past the range is read, even where it would complete a token
    for (const word of ['true', 'false', 'null', '[1]', '{"a":1}']) {
      expect(skimBoth(Buffer.from(word), 0, word.length - 1), word).toBe(MALFORMED);
    }
    expect(skimBoth(Buffer.from('12345'), 0, 3)).toBe(123);
    expect(skimBoth(Buffer.from('1.25e3'), 0, 3)).toBe(1.2);
  });

  it('ignores a quote index of another buffer, or of a range that does not cover the text', () => {
    const line = '{"a":"x\\"y","b":[1,"2\\\\"],"c":"\\u00e9"}';
    const text = Buffer.from(line);
    const want = JSON.parse(line);
    const ix = QuoteIndexer.create(1024) as QuoteIndexer;
    // the same text shifted by a byte in another buffer: every bit would be off by one
    const twin = Buffer.from(` ${line}`);
    expect(diff(skimJson(text, 0, text.length, { quotes: ix.index(twin, 0, text.length) }), want)).toBeNull();
    // this buffer, but the index misses the first key or the last closing quote
    expect(diff(skimJson(text, 0, text.length, { quotes: ix.index(text, 6, text.length) }), want)).toBeNull();
    expect(diff(skimJson(text, 0, text.length, { quotes: ix.index(text, 0, text.length - 3) }), want)).toBeNull();
    // a range inside the index is parsed with it
    expect(diff(skimJson(twin, 1, twin.length, { quotes: ix.index(twin, 0, twin.length) }), want)).toBeNull();
  });

  it('decodes strings under keepKeys in full however long, and elides the same text under other keys', () => {
    const long = `429 "quoted" \\ ${'该模型当前访问量过大'.repeat(500)}`;
    const text = JSON.stringify({ errorMessage: long, text: long, nested: { errorMessage: long }, list: [long] });
    const bytes = Buffer.byteLength(JSON.stringify(long)) - 2;
    const got = skim(text, { keepKeys: new Set(['errorMessage']) });
    expect(
      diff(got, {
        errorMessage: long,
        text: new Elided(bytes),
        nested: { errorMessage: long },
        list: [new Elided(bytes)],
      }),
    ).toBeNull();
    // without keepKeys everything long is elided; the default limit is 1024 bytes
    const plain = skim(text) as { errorMessage: Skimmed };
    expect(plain.errorMessage).toEqual(new Elided(bytes));
    expect(skim(JSON.stringify('x'.repeat(1024)))).toBe('x'.repeat(1024));
    expect(skim(JSON.stringify('x'.repeat(1025)))).toEqual(new Elided(1025));
  });

  it('handles a 5 MB string line: elided by default, exact under keepKeys', () => {
    const huge = `line one\nsays "hi" \\ ${'x'.repeat(5 << 20)} 中文`;
    const line = JSON.stringify({
      type: 'message',
      message: { role: 'toolResult', content: [{ type: 'text', text: huge }] },
      n: 1,
    });
    const buf = Buffer.from(line);
    const got = skimBoth(buf, 0, buf.length) as { message: { content: [{ text: Skimmed }] }; n: number };
    expect(got.message.content[0].text).toEqual(new Elided(Buffer.byteLength(JSON.stringify(huge)) - 2));
    expect(got.n).toBe(1);
    const kept = skimBoth(buf, 0, buf.length, { keepKeys: new Set(['text']) }) as typeof got;
    expect(kept.message.content[0].text).toBe(huge);
    expect(skimBoth(buf, 0, buf.length - 1)).toBe(MALFORMED); // truncated
  });

  it('survives invalid UTF-8 inside strings and keys, decoding it as U+FFFD like the string reader', () => {
    const bad = (s: string) => Buffer.from(s.replaceAll('@', '\u0000'), 'latin1').map((b) => (b === 0 ? 0xff : b));
    const short = bad('{"a@":"x@\u00c3","b":1}');
    expect(diff(skim(Buffer.from(short)), oracle(Buffer.from(short)))).toBeNull();
    expect((skim(Buffer.from(short)) as { b: number }).b).toBe(1);
    const long = bad(`{"t":"${'@'.repeat(2000)}\u00c3","b":[true]}`);
    expect(diff(skim(Buffer.from(long)), { t: new Elided(2001), b: [true] })).toBeNull();
    expect(diff(skim(Buffer.from(long), { maxStringBytes: HUGE }), oracle(Buffer.from(long)))).toBeNull();
    // a structural position holding an invalid byte is malformed, not a crash
    expect(skim(Buffer.from([0x7b, 0xff, 0x7d]))).toBe(MALFORMED);
  });

  it(`accepts nesting up to ${MAX_DEPTH} levels and rejects deeper lines without overflowing the stack`, () => {
    const nest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(skim(nest(MAX_DEPTH))).not.toBe(MALFORMED);
    expect(skim(nest(MAX_DEPTH + 1))).toBe(MALFORMED);
    expect(skim(`${'{"a":'.repeat(MAX_DEPTH)}1${'}'.repeat(MAX_DEPTH)}`)).not.toBe(MALFORMED);
    expect(skim('['.repeat(5 << 20))).toBe(MALFORMED); // a hostile 5 MB line
    expect(skim(`${'{"a":['.repeat(200_000)}`)).toBe(MALFORMED);
  });

  it('stores __proto__ as an own property, like JSON.parse, and pollutes nothing', () => {
    const text = '{"__proto__":{"polluted":true},"a":{"__proto__":[1]},"constructor":{"prototype":{"x":1}}}';
    const got = skim(text) as Record<string, unknown>;
    expect(diff(got, JSON.parse(text))).toBeNull();
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.hasOwn(got, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('lets the last of duplicate keys win, in the first position, like JSON.parse', () => {
    const text = '{"a":1,"b":2,"a":3,"__proto__":4,"__proto__":5}';
    expect(diff(skim(text), JSON.parse(text))).toBeNull();
    expect(Object.keys(skim(text) as object)).toEqual(['a', 'b', '__proto__']);
  });

  it('accepts raw control characters and bad escapes inside elided strings (the documented deviation)', () => {
    const text = `{"t":"${'a'.repeat(100)}\u0001\\q","e":"${'a'.repeat(100)}\u0001"}`;
    expect(diff(skim(text, { maxStringBytes: 10 }), { t: new Elided(103), e: new Elided(101) })).toBeNull();
    expect(skim(text, { maxStringBytes: 10, keepKeys: new Set(['e']) })).toBe(MALFORMED);
    expect(skim(text, { maxStringBytes: HUGE })).toBe(MALFORMED);
  });

  it('never reuses a decoded string across calls on a refilled buffer', () => {
    // readers reuse one chunk buffer; results must reflect the bytes at call time
    const buf = Buffer.from('{"k":"aaaa","n":1.5}');
    expect(skimBoth(buf, 0, buf.length)).toEqual({ k: 'aaaa', n: 1.5 });
    buf.write('{"k":"bbbb","n":2.5}');
    expect(skimBoth(buf, 0, buf.length)).toEqual({ k: 'bbbb', n: 2.5 });
  });
});
