/**
 * Shaped skimming: only the keys a shape lists are built, everything else is
 * checked and dropped. The unshaped parse is the reference: a shaped parse is
 * MALFORMED exactly when it is, and otherwise equals it projected through the
 * shape. A quote index never changes either.
 */
import { describe, expect, it } from 'vitest';
import {
  Elided,
  MALFORMED,
  MAX_DEPTH,
  RAW,
  Raw,
  Shape,
  type Skimmed,
  type SkimOptions,
  skimJson,
} from '../../../main/core/sources/json-skim.js';
import { QuoteIndexer } from '../../../main/core/sources/quote-bitmap.js';
import { seededRandom } from '../../../main/simulator/records.js';
import { diff, generator, HUGE, mutateOneByte } from '../../helpers/json-values.js';

const shape = (entries: Array<[string, Shape | null]>) => new Shape(new Map(entries));
const ALL = null;

/**
 * The reference for what a shape keeps: an object keeps those of its keys the
 * shape names, in JSON.parse's order, each projected through its child shape (a
 * null child keeps the value whole); an array's elements take the array's
 * shape; anything else stays as it is.
 */
function project(value: Skimmed, s: Shape | null): Skimmed | undefined {
  if (s === null) return value;
  if (Array.isArray(value)) return value.map((v) => project(v, s) as Skimmed);
  if (typeof value !== 'object' || value === null || value instanceof Elided || value instanceof Raw) return value;
  const projected: Record<string, Skimmed | undefined> = {};
  for (const key of Object.keys(value)) {
    if (s.keys.has(key)) projected[key] = project(value[key] as Skimmed, s.keys.get(key) ?? null);
  }
  return projected as Skimmed;
}

const EMPTY = shape([]);
/** Keys the generator uses, non-ASCII, empty and integer-like ones among them. */
const FLAT = shape([
  ['type', ALL],
  ['中文', ALL],
  ['é', ALL],
  ['', ALL],
  ['7', ALL],
  ['back\\slash', ALL],
]);
const NESTED = shape([
  [
    'message',
    shape([
      ['role', ALL],
      [
        'content',
        shape([
          ['type', ALL],
          ['text', ALL],
          ['a"b', EMPTY],
        ]),
      ],
      ['errorMessage', ALL],
      ['id', shape([['0', ALL]])],
    ]),
  ],
  ['type', ALL],
  ['a"b', shape([['id', ALL]])],
  ['constructor', shape([['toString', ALL]])],
  ['toString', EMPTY],
  ['absent', shape([['never', ALL]])],
]);
/** The same key at every level, so deep generated values stay shaped. */
const RECURSIVE = (() => {
  let s = shape([['text', ALL]]);
  for (let i = 0; i < 6; i++)
    s = shape([
      ['message', s],
      ['id', ALL],
      ['text', i % 2 === 0 ? s : ALL],
    ]);
  return s;
})();
const SHAPES: Array<[string, Shape]> = [
  ['empty', EMPTY],
  ['flat', FLAT],
  ['nested', NESTED],
  ['recursive', RECURSIVE],
];

const OPTIONS: Array<[string, SkimOptions]> = [
  ['nothing elided', { maxStringBytes: HUGE }],
  ['eliding over 8 bytes', { maxStringBytes: 8, keepKeys: new Set(['errorMessage', 'text', '中文']) }],
];

const indexer = QuoteIndexer.create(1 << 20);

/**
 * Checks one text under one shape against the unshaped parse, with and without
 * a quote index. Returns whether the text was well-formed, or the difference.
 */
function check(buf: Buffer, s: Shape, opts: SkimOptions): { ok: boolean; problem: string | null } {
  if (indexer === null) throw new Error('this runtime has WebAssembly SIMD; QuoteIndexer.create must work');
  const plain = skimJson(buf, 0, buf.length, opts);
  const shaped = skimJson(buf, 0, buf.length, { ...opts, shape: s });
  const want = plain === MALFORMED ? MALFORMED : project(plain, s);
  let problem = diff(shaped, want);
  if (problem === null) {
    const quotes = indexer.index(buf, 0, buf.length);
    const indexed = skimJson(buf, 0, buf.length, { ...opts, shape: s, quotes });
    const d = diff(indexed, shaped);
    if (d !== null) problem = `with a quote index: ${d}`;
  }
  return { ok: plain !== MALFORMED, problem };
}

function checkAll(buf: Buffer): { malformed: number } {
  let malformed = 0;
  for (const [shapeName, s] of SHAPES) {
    for (const [optionsName, opts] of OPTIONS) {
      const { ok, problem } = check(buf, s, opts);
      if (problem !== null) expect.fail(`${shapeName} shape, ${optionsName}: ${problem} in ${buf.toString()}`);
      if (!ok) malformed++;
    }
  }
  return { malformed };
}

/** Generated values, alone and as the values of keys the shapes name. */
function texts(seed: number): () => string {
  const next = generator(seed, HUGE, new Set());
  const r = seededRandom(seed + 1000);
  return () => {
    const k = r();
    if (k < 0.4) return next().text;
    const [a, b, c] = [next().text, next().text, next().text];
    if (k < 0.7) return `{"message":${a},"a\\"b":${b},"type":${c}}`;
    if (k < 0.85) return `[${a},{"message":{"content":[${b}],"role":${c}}}]`;
    return `{"toString":${a},"constructor":{"toString":${b}},"message":${c},"message":{"role":"x"}}`;
  };
}

describe('skimJson with a shape: the unshaped parse, projected', () => {
  it('equals the projection on 2,000 generated values under every shape', () => {
    const next = texts(21);
    for (let i = 0; i < 2000; i++) checkAll(Buffer.from(next()));
  });

  it('is MALFORMED exactly when the unshaped parse is, over 5,000 random byte mutations', () => {
    const next = texts(22);
    const r = seededRandom(23);
    // structure, escapes (\x, \u12 after a deletion), control characters, invalid UTF-8
    const noise = [
      0x22, 0x5c, 0x2c, 0x3a, 0x7b, 0x7d, 0x5b, 0x5d, 0x30, 0x2d, 0x2e, 0x65, 0x20, 0x0a, 0x00, 0x01, 0x78, 0x75, 0x80,
      0xc3, 0xff,
    ];
    let malformed = 0;
    let cases = 0;
    for (let i = 0; i < 5000; i++) {
      const buf = Buffer.from(next());
      if (buf.length === 0) continue;
      const mutated = mutateOneByte(buf, r, noise);
      malformed += checkAll(mutated).malformed;
      cases += SHAPES.length * OPTIONS.length;
    }
    // both sides of the property were exercised
    expect(malformed).toBeGreaterThan(cases / 5);
    expect(malformed).toBeLessThan((cases * 4) / 5);
  });
});

describe('skimJson with a shape: what is skipped is still checked', () => {
  const KEEP = shape([['keep', ALL]]);
  const long = 'a'.repeat(20);
  const nest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

  it.each([
    ['a raw control character in an elided string', `{"skip":"${long}\u0001","keep":1}`, {}, { keep: 1 }],
    ['a raw control character in a kept long string', `{"skip":{"text":"${long}\u0001"},"keep":1}`, {}, MALFORMED],
    ['a kept key inside an array (not kept there)', `{"skip":{"text":["${long}\u0001"]},"keep":1}`, {}, { keep: 1 }],
    ['a kept key over an array (not kept in it)', `{"skip":{"text":["a","${long}\u0001"]},"keep":1}`, {}, { keep: 1 }],
    ['a kept key before a nested value', `{"skip":{"text":{"t":1},"x":"${long}\u0001"},"keep":1}`, {}, { keep: 1 }],
    ['a raw control character in a short string', '{"skip":["a\u0001"],"keep":1}', {}, MALFORMED],
    ['a raw newline in a short string', '{"skip":{"x":"a\nb"},"keep":1}', {}, MALFORMED],
    ['the escape \\x', '{"skip":{"x":"\\x"},"keep":1}', {}, MALFORMED],
    ['the short escape \\u12', '{"skip":["\\u12"],"keep":1}', {}, MALFORMED],
    ['a bad escape in a key', '{"skip":{"\\x":1},"keep":1}', {}, MALFORMED],
    ['a long key with a control character', `{"skip":{"${long}\u0001":1},"keep":1}`, {}, MALFORMED],
    ['valid escapes', '{"skip":["\\u00e9\\n\\"\\\\\\/\\b\\f\\r\\t\\ud83d\\ude00"],"keep":1}', {}, { keep: 1 }],
    ['a number with a leading zero', '{"skip":01,"keep":1}', {}, MALFORMED],
    ['a bare minus', '{"skip":[-],"keep":1}', {}, MALFORMED],
    ['a number ending in a dot', '{"skip":{"x":1.},"keep":1}', {}, MALFORMED],
    ['a misspelt literal', '{"skip":[tru],"keep":1}', {}, MALFORMED],
    ['a mismatched closer', '{"skip":[1,2},"keep":1}', {}, MALFORMED],
    ['a trailing comma', '{"skip":{"a":1,},"keep":1}', {}, MALFORMED],
    ['a missing colon', '{"skip":{"a" 1},"keep":1}', {}, MALFORMED],
    ['an unterminated skipped value at the end', '{"keep":1,"skip":[1', {}, MALFORMED],
    ['whitespace everywhere', '{ "skip" : [ 1 , { "x" : [ ] } , { } ] , "keep" : 2 }', {}, { keep: 2 }],
    ['invalid UTF-8 in a skipped string', Buffer.from('{"skip":"\xff\xc3","keep":1}', 'latin1'), {}, { keep: 1 }],
    [`nesting to ${MAX_DEPTH} inside a skipped value`, `{"keep":1,"skip":${nest(MAX_DEPTH - 1)}}`, {}, { keep: 1 }],
    [`nesting past ${MAX_DEPTH} inside a skipped value`, `{"keep":1,"skip":${nest(MAX_DEPTH)}}`, {}, MALFORMED],
    [
      `objects nested to ${MAX_DEPTH} inside a skipped value`,
      `{"skip":${'{"a":'.repeat(MAX_DEPTH - 1)}1${'}'.repeat(MAX_DEPTH - 1)},"keep":1}`,
      {},
      { keep: 1 },
    ],
    [
      `objects nested past ${MAX_DEPTH} inside a skipped value`,
      `{"skip":${'{"a":'.repeat(MAX_DEPTH)}1${'}'.repeat(MAX_DEPTH)},"keep":1}`,
      {},
      MALFORMED,
    ],
  ] as Array<[string, string | Buffer, SkimOptions, unknown]>)('%s', (_name, text, extra, want) => {
    const buf = typeof text === 'string' ? Buffer.from(text) : text;
    const opts = { maxStringBytes: 8, keepKeys: new Set(['text']), ...extra };
    expect(diff(skimJson(buf, 0, buf.length, { ...opts, shape: KEEP }), want)).toBeNull();
    for (const [, s] of [['keep', KEEP], ...SHAPES] as Array<[string, Shape]>) {
      const { problem } = check(buf, s, opts);
      if (problem !== null) expect.fail(problem);
    }
  });

  it(`counts the containers open around a skipped value towards ${MAX_DEPTH}`, () => {
    const s = shape([['message', shape([['role', ALL]])]]);
    const at = (n: number) => Buffer.from(`{"message":{"role":"r","skip":${nest(n)}}}`);
    expect(
      diff(skimJson(at(MAX_DEPTH - 2), 0, at(MAX_DEPTH - 2).length, { shape: s }), { message: { role: 'r' } }),
    ).toBeNull();
    expect(skimJson(at(MAX_DEPTH - 1), 0, at(MAX_DEPTH - 1).length, { shape: s })).toBe(MALFORMED);
    expect(skimJson(at(MAX_DEPTH - 1), 0, at(MAX_DEPTH - 1).length)).toBe(MALFORMED);
  });
});

describe('skimJson with a shape: what is built', () => {
  const build = (text: string, s: Shape, opts: SkimOptions = {}) => {
    const buf = Buffer.from(text);
    const { problem } = check(buf, s, opts);
    if (problem !== null) expect.fail(problem);
    return skimJson(buf, 0, buf.length, { ...opts, shape: s });
  };

  it("keeps a shaped object's keys that the shape names, in the text's order, and no others", () => {
    const s = shape([
      ['b', ALL],
      ['a', shape([['x', ALL]])],
      ['z', ALL],
    ]);
    const got = build('{"a":{"y":1,"x":2},"q":[1,2],"b":"B"}', s);
    expect(diff(got, { a: { x: 2 }, b: 'B' })).toBeNull();
    expect(Object.keys(got as object)).toEqual(['a', 'b']);
  });

  it('gives an empty object under a shape as an empty object', () => {
    const s = shape([['message', shape([['role', ALL]])]]);
    expect(diff(build('{"message":{}}', s), { message: {} })).toBeNull();
    expect(diff(build('{}', s), {})).toBeNull();
  });

  it('builds everything below a null child, __proto__ as an own property', () => {
    const s = shape([['a', ALL]]);
    const got = build('{"__proto__":{"x":1},"a":{"__proto__":{"polluted":true},"b":[{"__proto__":2}]}}', s) as {
      a: object;
    };
    expect(diff(got, { a: JSON.parse('{"__proto__":{"polluted":true},"b":[{"__proto__":2}]}') })).toBeNull();
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.hasOwn(got, '__proto__')).toBe(false); // not in the shape: skipped
    expect(Object.hasOwn(got.a, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => shape([['__proto__', ALL]])).toThrow(/__proto__/);
  });

  it('gives every element of an array the shape of the array, at any depth', () => {
    const s = shape([['message', shape([['role', ALL]])]]);
    expect(
      diff(build('{"message":[{"role":"r","z":1},2,[{"role":"q","y":[3]}],"s",null]}', s), {
        message: [{ role: 'r' }, 2, [{ role: 'q' }], 's', null],
      }),
    ).toBeNull();
    // a value of the wrong kind is kept as it is: the shape only prunes objects
    expect(diff(build('{"message":"text"}', s), { message: 'text' })).toBeNull();
    expect(diff(build('[{"message":{"role":1,"x":2}},{"other":1}]', s), [{ message: { role: 1 } }, {}])).toBeNull();
  });

  it('lets the last of duplicate keys win, whatever kind each occurrence is', () => {
    const s = shape([
      ['a', shape([['x', ALL]])],
      ['b', shape([['c', ALL]])],
    ]);
    expect(
      diff(build('{"a":1,"b":{"c":1,"d":2},"a":{"x":2,"y":3},"b":3,"skip":{"a":4}}', s), { a: { x: 2 }, b: 3 }),
    ).toBeNull();
  });

  it('matches keys by their decoded text, escaped or not, ASCII or not', () => {
    const s = shape([
      ['type', ALL],
      ['中文', shape([['é', ALL]])],
      ['a"b', ALL],
    ]);
    expect(
      diff(build('{"\\u0074ype":1,"\\u4e2d文":{"\\u00e9":2,"e":3},"a\\"b":4,"ab":5}', s), {
        type: 1,
        中文: { é: 2 },
        'a"b': 4,
      }),
    ).toBeNull();
  });

  it('decodes long strings under keepKeys and elides the rest inside shaped parts', () => {
    const long = 'x'.repeat(40);
    const s = shape([
      [
        'm',
        shape([
          ['errorMessage', ALL],
          ['text', ALL],
        ]),
      ],
    ]);
    expect(
      diff(
        build(`{"m":{"errorMessage":"${long}","text":"${long}"}}`, s, {
          keepKeys: new Set(['errorMessage']),
          maxStringBytes: 8,
        }),
        {
          m: { errorMessage: long, text: new Elided(40) },
        },
      ),
    ).toBeNull();
  });

  it('leaves primitives and top-level arrays of primitives as they are', () => {
    for (const text of ['"s"', '1', 'null', 'true', '[1,"a",[]]', '[]']) {
      expect(diff(build(text, NESTED), JSON.parse(text))).toBeNull();
    }
  });
});

describe('skimJson with a shape: a guard stops building, never changes the answer', () => {
  const MESSAGE = new Shape(
    new Map<string, Shape | null>([
      ['role', ALL],
      ['content', ALL],
      ['model', ALL],
    ]),
    { key: 'role', value: 'assistant' },
  );
  const RECORD = shape([['message', MESSAGE]]);
  const UNGUARDED = shape([
    [
      'message',
      shape([
        ['role', ALL],
        ['content', ALL],
        ['model', ALL],
      ]),
    ],
  ]);
  const both = (text: string) => {
    const buf = Buffer.from(text);
    const quotes = indexer?.index(buf, 0, buf.length) ?? null;
    return {
      guarded: skimJson(buf, 0, buf.length, { shape: RECORD }),
      indexed: skimJson(buf, 0, buf.length, { shape: RECORD, quotes }),
      unguarded: skimJson(buf, 0, buf.length, { shape: UNGUARDED }),
    };
  };

  it('builds nothing of a message after a role that is not the guarded one, and the same with the bitmap', () => {
    const { guarded, indexed } = both('{"message":{"role":"user","content":[{"text":"x"}],"model":"m"}}');
    expect(guarded).toEqual({ message: { role: 'user', content: undefined, model: undefined } });
    expect(diff(indexed, guarded)).toBeNull();
  });

  it('builds everything while the role is the guarded one', () => {
    const { guarded, unguarded } = both('{"message":{"role":"assistant","content":[1],"model":"m"}}');
    expect(diff(guarded, unguarded)).toBeNull();
  });

  it.each([
    ['a later role turns it into the guarded one', '{"message":{"role":"user","model":"m","role":"assistant"}}'],
    ['an escaped later role', '{"message":{"role":"user","content":[2],"r\\u006fle":"assistant"}}'],
    ['a later role that is not the guarded one either', '{"message":{"role":"assistant","model":"m","role":"user"}}'],
    ['a later message replaces the first', '{"message":{"role":"user"},"message":{"role":"assistant","model":"q"}}'],
  ])('answers as the unguarded parse when keys repeat: %s', (_name, text) => {
    const { guarded, indexed, unguarded } = both(text);
    const role = (value: unknown) => (value as { message: { role: unknown } }).message.role;
    expect(role(guarded)).toBe(role(unguarded));
    if (role(unguarded) === 'assistant') expect(diff(guarded, unguarded)).toBeNull();
    expect(diff(indexed, guarded)).toBeNull();
  });

  it('still finds a malformed line after the guard has stopped building', () => {
    const { guarded, indexed } = both('{"message":{"role":"user","content":[1,,2]}}');
    expect(guarded).toBe(MALFORMED);
    expect(indexed).toBe(MALFORMED);
  });

  it('refuses a guard on a key the shape does not have', () => {
    expect(() => new Shape(new Map([['a', ALL]]), { key: 'b', value: 1 })).toThrow(/guard/);
  });
});

describe('skimJson with a shape: RAW keeps a value where it lies', () => {
  const s = shape([
    ['content', RAW],
    ['n', ALL],
  ]);

  it('returns the range of the value, which skimJson then builds exactly', () => {
    const text = '{"content": [{"type":"text","text":"hi"},2] ,"n":1}';
    const buf = Buffer.from(text);
    for (const quotes of [null, indexer?.index(buf, 0, buf.length) ?? null]) {
      const got = skimJson(buf, 0, buf.length, { shape: s, quotes }) as { content: Raw; n: number };
      expect(got.content).toBeInstanceOf(Raw);
      expect(buf.toString('utf8', got.content.start, got.content.end)).toBe('[{"type":"text","text":"hi"},2]');
      expect(skimJson(buf, got.content.start, got.content.end)).toEqual([{ type: 'text', text: 'hi' }, 2]);
      expect(got.n).toBe(1);
    }
  });

  it('still checks the value: a malformed one makes the whole text MALFORMED', () => {
    expect(skimJson(Buffer.from('{"content":[1,,2],"n":1}'), 0, 24, { shape: s })).toBe(MALFORMED);
  });

  it('keeps nothing after a failed guard, not even a range', () => {
    const guarded = new Shape(
      new Map<string, Shape | null>([
        ['role', ALL],
        ['content', RAW],
      ]),
      { key: 'role', value: 'assistant' },
    );
    const buf = Buffer.from('{"role":"user","content":[1]}');
    expect(skimJson(buf, 0, buf.length, { shape: guarded })).toEqual({ role: 'user' });
  });
});
