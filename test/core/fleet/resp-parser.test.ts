/**
 * The RESP2 parser against replies cut at every byte boundary (TCP may split
 * anywhere, even inside a UTF-8 character), random trees in random chunks,
 * and garbage it must refuse.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeCommand,
  RedisError,
  RespParser,
  RespProtocolError,
  type RespValue,
} from '../../../main/core/fleet/resp-parser.js';

/** Test-side encoder: what a server would send for `value`. */
function encode(value: RespValue): string {
  if (value === null) return '$-1\r\n';
  if (value instanceof RedisError) return `-${value.message}\r\n`;
  if (typeof value === 'number') return `:${value}\r\n`;
  if (typeof value === 'string') return `$${Buffer.byteLength(value)}\r\n${value}\r\n`;
  return `*${value.length}\r\n${value.map(encode).join('')}`;
}

/** Errors compare by class and message. */
function plain(value: RespValue): unknown {
  if (value instanceof RedisError) return { error: value.message };
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

function feed(parser: RespParser, bytes: Buffer, cuts: number[]): RespValue[] {
  const out: RespValue[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    out.push(...parser.push(bytes.subarray(from, cut)));
    from = cut;
  }
  return out;
}

// One stream with every reply type: simple string, error, integers, bulk (empty, null,
// multi-byte UTF-8, containing CRLF), arrays (empty, null, nested, with an error and a null inside).
const SEGMENTS = [
  '+OK\r\n',
  '-WRONGTYPE Operation against a key holding the wrong kind of value\r\n',
  ':0\r\n',
  ':-42\r\n',
  ':1712345678901\r\n',
  '$0\r\n\r\n',
  '$-1\r\n',
  `$${Buffer.byteLength('é€😀 line\r\nbreak')}\r\né€😀 line\r\nbreak\r\n`,
  '*0\r\n',
  '*-1\r\n',
  '*3\r\n$7\r\nmessage\r\n$19\r\nbreakerbar:transits\r\n$2\r\n{}\r\n',
  '*2\r\n*2\r\n:1\r\n$-1\r\n*3\r\n-ERR inner\r\n*0\r\n+x\r\n',
];
const STREAM = Buffer.from(SEGMENTS.join(''), 'utf8');
/** Where each reply's encoding ends in STREAM. */
const ENDS = SEGMENTS.map((_, i) => Buffer.byteLength(SEGMENTS.slice(0, i + 1).join(''), 'utf8'));

const EXPECTED: unknown[] = [
  'OK',
  { error: 'WRONGTYPE Operation against a key holding the wrong kind of value' },
  0,
  -42,
  1712345678901,
  '',
  null,
  'é€😀 line\r\nbreak',
  [],
  null,
  ['message', 'breakerbar:transits', '{}'],
  [
    [1, null],
    [{ error: 'ERR inner' }, [], 'x'],
  ],
];

describe('RespParser', () => {
  it('parses a stream of every reply type in one chunk', () => {
    const values = new RespParser().push(STREAM);
    expect(values.map(plain)).toEqual(EXPECTED);
    expect(values[1]).toBeInstanceOf(RedisError);
  });

  it('parses the same stream cut in two at every byte', () => {
    for (let cut = 0; cut <= STREAM.length; cut++) {
      const parser = new RespParser();
      const values = feed(parser, STREAM, [cut]);
      expect(values.map(plain), `cut at ${cut}`).toEqual(EXPECTED);
      expect(parser.buffered).toBe(0);
    }
  });

  it('parses the same stream one byte at a time, completing each value at its last byte', () => {
    const parser = new RespParser();
    const completedAt: number[] = [];
    const values: RespValue[] = [];
    for (let i = 0; i < STREAM.length; i++) {
      const got = parser.push(STREAM.subarray(i, i + 1));
      for (const v of got) {
        values.push(v);
        completedAt.push(i + 1);
      }
    }
    expect(values.map(plain)).toEqual(EXPECTED);
    // Each value completes exactly at its last byte: not held back until more data arrives.
    expect(completedAt).toEqual(ENDS);
  });

  it('parses random reply trees cut into random chunks', () => {
    const leaf = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.integer({ min: -1_000_000, max: 1_000_000 }),
      fc.constant(null),
      fc.stringMatching(/^[A-Z]{2,8} [a-z ]{0,20}$/).map((m) => new RedisError(m)),
    );
    const tree = fc.letrec<{ value: RespValue }>((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 4 })),
    })).value;
    fc.assert(
      fc.property(
        fc.array(tree, { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (values, raw) => {
          const bytes = Buffer.from(values.map(encode).join(''), 'utf8');
          const cuts = [...new Set(raw.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b);
          const parser = new RespParser();
          expect(feed(parser, bytes, cuts).map(plain)).toEqual(values.map(plain));
          expect(parser.buffered).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('returns nothing for an incomplete reply and keeps its bytes', () => {
    const parser = new RespParser();
    expect(parser.push(Buffer.from('*2\r\n$3\r\nfo'))).toEqual([]);
    expect(parser.push(Buffer.from('o\r\n'))).toEqual([]);
    expect(parser.push(Buffer.from(':7\r\n+PONG'))).toEqual([['foo', 7]]);
    expect(parser.buffered).toBe(5);
    expect(parser.push(Buffer.from('\r\n'))).toEqual(['PONG']);
  });

  it.each([
    ['an unknown type byte', '!oops\r\n'],
    ['a non-numeric integer', ':12a\r\n'],
    ['a bad bulk length', '$-5\r\n'],
    ['a bulk string without its CRLF', '$3\r\nfooXY'],
    ['an array longer than the limit', '*2000000\r\n'],
  ])('refuses %s', (_, text) => {
    expect(() => new RespParser().push(Buffer.from(text))).toThrow(RespProtocolError);
  });

  it('refuses a bulk string above the size limit before buffering it', () => {
    const parser = new RespParser({ maxBulkBytes: 10, maxLineBytes: 100, maxArrayLength: 10 });
    expect(() => parser.push(Buffer.from('$11\r\n'))).toThrow(/exceeds the limit/);
  });

  it('refuses an endless line instead of buffering it forever', () => {
    const parser = new RespParser({ maxBulkBytes: 10, maxLineBytes: 100, maxArrayLength: 10 });
    expect(parser.push(Buffer.from(`+${'a'.repeat(99)}`))).toEqual([]);
    expect(() => parser.push(Buffer.from('aa'))).toThrow(/too long/);
  });
});

describe('encodeCommand', () => {
  it('sends an array of bulk strings with byte lengths', () => {
    expect(encodeCommand(['SET', 'k', 'é€', '']).toString('utf8')).toBe(
      '*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\né€\r\n$0\r\n\r\n',
    );
  });

  it('round-trips through the parser (a command is a valid reply too)', () => {
    const args = ['EVAL', 'return {1, 2}\r\n', '2', 'a:b', '😀'];
    expect(new RespParser().push(encodeCommand(args))).toEqual([args]);
  });
});
