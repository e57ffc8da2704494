/**
 * A byte-level "skimming" JSON parser for transcript lines.
 *
 * Why: an OpenClaw transcript line is mostly message text (assistant output,
 * thinking, tool results) that BreakerBar never looks at; only a few short
 * metadata fields matter (role, stopReason, provider, usage, errorMessage...).
 * `JSON.parse` must first turn the whole line into a JS string and then decode
 * every string into a heap object; this parser works on the raw bytes instead,
 * finds the end of each string with native `Buffer#indexOf` (memchr) and keeps
 * long strings only as their size. That is what makes `breakerbar scan`
 * several times faster than `readline + JSON.parse`.
 *
 * Semantics: for every input it returns what `JSON.parse` would return (deep
 * equal) or MALFORMED where `JSON.parse` would throw, with one documented
 * deviation: the content of an ELIDED string (longer than `maxStringBytes`,
 * key not in `keepKeys`) is not validated, so raw control characters or bad
 * escape sequences inside a long string are accepted. Structure, numbers,
 * literals, short strings and keys are validated fully.
 */

/** A string value too long to be worth decoding; only its size in bytes is kept. */
export class Elided {
  /**
   * @param bytes size of the string as it appears in the JSON text, between
   *   the quotes (escape sequences counted as written, UTF-8 bytes as bytes).
   */
  constructor(readonly bytes: number) {}
}

export type Skimmed = null | boolean | number | string | Elided | Skimmed[] | { [key: string]: Skimmed };

/** Returned (never thrown) when the bytes are not exactly one well-formed JSON value. */
export const MALFORMED: unique symbol = Symbol('MALFORMED');

export interface SkimOptions {
  /** strings longer than this many bytes become Elided, unless their key is in keepKeys (default 1024) */
  maxStringBytes?: number;
  /** keys whose string values are always decoded in full (e.g. errorMessage) */
  keepKeys?: ReadonlySet<string>;
}

/** Nesting deeper than this is treated as hostile: MALFORMED instead of a stack overflow. */
export const MAX_DEPTH = 512;

const DEFAULT_MAX_STRING_BYTES = 1024;
const NO_KEYS: ReadonlySet<string> = new Set();
const EMPTY = Buffer.alloc(0);

/**
 * Bytes of a string scanned in JS before switching to `indexOf`: a native call
 * costs more than a short JS loop, and most strings (keys, ids, roles) are short.
 */
const QUICK_SCAN = 48;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT0 = 0x30;
const DIGIT9 = 0x39;

/** Flags collected while scanning a string that decide how to decode it. */
const HAS_ESCAPE = 1;
const HAS_NON_ASCII = 2;
const HAS_CONTROL = 4;

/**
 * Thrown internally to unwind on the first error; a plain frozen object, not an
 * Error, so no stack trace is captured. Never escapes skimJson.
 */
const FAIL = Object.freeze({ fail: true });

// Parser state lives in module variables: skimJson is synchronous and not
// re-entrant, and this avoids allocating a parser object per line.
let buf: Buffer = EMPTY;
let pos = 0;
let end = 0;
let maxBytes = DEFAULT_MAX_STRING_BYTES;
let keep: ReadonlySet<string> = NO_KEYS;

/** Parses exactly one JSON value spanning buf[start, end) (surrounding whitespace allowed). Returns MALFORMED if the bytes are not one well-formed JSON value. */
export function skimJson(
  source: Buffer,
  start: number,
  stop: number,
  opts?: SkimOptions,
): Skimmed | typeof MALFORMED {
  buf = source;
  pos = Math.max(0, start);
  end = Math.min(stop, source.length);
  maxBytes = opts?.maxStringBytes ?? DEFAULT_MAX_STRING_BYTES;
  keep = opts?.keepKeys ?? NO_KEYS;
  try {
    skipWs();
    if (pos >= end) return MALFORMED;
    const value = parseValue(0, null);
    skipWs();
    return pos === end ? value : MALFORMED;
  } catch (e) {
    if (e === FAIL) return MALFORMED;
    throw e;
  } finally {
    // Do not keep a (possibly 8 MB) chunk alive between calls.
    buf = EMPTY;
  }
}

function fail(): never {
  throw FAIL;
}

/** The byte at pos, or -1 past the end of the range (so no check reads beyond it). */
function peek(): number {
  return pos < end ? (buf[pos] as number) : -1;
}

function skipWs(): void {
  while (pos < end) {
    const c = buf[pos] as number;
    // space, \n, \r, \t: the only whitespace JSON allows
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
    else return;
  }
}

/** @param key the object key this value belongs to (for keepKeys), or null. */
function parseValue(depth: number, key: string | null): Skimmed {
  const c = peek();
  switch (c) {
    case QUOTE:
      return parseString(key);
    case LBRACE:
      return parseObject(depth + 1);
    case LBRACKET:
      return parseArray(depth + 1);
    case 0x74: // t
      expectLiteral(0x74, 0x72, 0x75, 0x65);
      return true;
    case 0x66: // f
      expectLiteral(0x66, 0x61, 0x6c, 0x73);
      if (peek() !== 0x65) fail(); // the fifth letter of "false"
      pos++;
      return false;
    case 0x6e: // n
      expectLiteral(0x6e, 0x75, 0x6c, 0x6c);
      return null;
    default:
      if (c === MINUS || (c >= DIGIT0 && c <= DIGIT9)) return parseNumber();
      return fail();
  }
}

/** Checks the four bytes at pos and steps over them. */
function expectLiteral(a: number, b: number, c: number, d: number): void {
  if (pos + 4 > end || buf[pos] !== a || buf[pos + 1] !== b || buf[pos + 2] !== c || buf[pos + 3] !== d) fail();
  pos += 4;
}

function parseObject(depth: number): { [key: string]: Skimmed } {
  if (depth > MAX_DEPTH) fail();
  pos++; // '{'
  // A plain literal (not Object.create(null)) so results deep-equal JSON.parse's
  // and keep V8's fast properties; `__proto__` is stored below with
  // defineProperty, which creates an own property instead of calling the
  // prototype setter, so a hostile line cannot pollute or swap prototypes.
  const obj: { [key: string]: Skimmed } = {};
  skipWs();
  if (peek() === RBRACE) {
    pos++;
    return obj;
  }
  for (;;) {
    if (peek() !== QUOTE) fail();
    const key = parseKey();
    skipWs();
    if (peek() !== COLON) fail();
    pos++;
    skipWs();
    const value = parseValue(depth, key);
    if (key === '__proto__') {
      Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
    } else {
      obj[key] = value; // duplicate keys: last wins, first position kept, like JSON.parse
    }
    skipWs();
    const c = peek();
    if (c === COMMA) {
      pos++;
      skipWs();
    } else if (c === RBRACE) {
      pos++;
      return obj;
    } else {
      fail();
    }
  }
}

function parseArray(depth: number): Skimmed[] {
  if (depth > MAX_DEPTH) fail();
  pos++; // '['
  const arr: Skimmed[] = [];
  skipWs();
  if (peek() === RBRACKET) {
    pos++;
    return arr;
  }
  for (;;) {
    arr.push(parseValue(depth, null));
    skipWs();
    const c = peek();
    if (c === COMMA) {
      pos++;
      skipWs();
    } else if (c === RBRACKET) {
      pos++;
      return arr;
    } else {
      fail();
    }
  }
}

/** Per JSON grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
function parseNumber(): number {
  const start = pos;
  const negative = buf[pos] === MINUS;
  if (negative) pos++;
  let c = peek();
  let value = 0;
  if (c === DIGIT0) {
    pos++;
  } else if (c > DIGIT0 && c <= DIGIT9) {
    // Accumulate integers directly: most numbers in a transcript are token
    // counts and epoch milliseconds, and this avoids a string per number.
    do {
      value = value * 10 + (c - DIGIT0);
      pos++;
      c = peek();
    } while (c >= DIGIT0 && c <= DIGIT9);
  } else {
    fail();
  }
  c = peek();
  let simple = pos - start <= 15; // fits a double exactly as an integer
  if (c === DOT) {
    simple = false;
    pos++;
    if (!isDigit(peek())) fail();
    do pos++;
    while (isDigit(peek()));
    c = peek();
  }
  if (c === 0x65 || c === 0x45) {
    // e / E
    simple = false;
    pos++;
    c = peek();
    if (c === PLUS || c === MINUS) pos++;
    if (!isDigit(peek())) fail();
    do pos++;
    while (isDigit(peek()));
  }
  if (simple) return negative ? -value : value; // -0 stays -0, like JSON.parse
  return Number(latin1(start, pos));
}

function isDigit(c: number): boolean {
  return c >= DIGIT0 && c <= DIGIT9;
}

/**
 * Recently seen keys, direct-mapped by a hash of their bytes. A transcript uses
 * a few dozen distinct keys millions of times; returning the same string
 * object skips a decode, an allocation and V8's string-table lookup when the
 * key is stored into the result object (together the biggest cost per line
 * before this cache).
 */
const KEY_CACHE_SIZE = 1024; // power of two
const MAX_CACHED_KEY = 40;
const keyCache: (string | undefined)[] = new Array<string | undefined>(KEY_CACHE_SIZE).fill(undefined);

/** Keys are always decoded: they are short, and the caller needs them. */
function parseKey(): string {
  const a = pos + 1;
  const limit = Math.min(end, a + MAX_CACHED_KEY);
  let h = 0;
  for (let i = a; i < limit; i++) {
    const b = buf[i] as number;
    if (b === QUOTE) {
      const len = i - a;
      const slot = (h + len) & (KEY_CACHE_SIZE - 1);
      pos = i + 1;
      const cached = keyCache[slot];
      if (cached !== undefined && cached.length === len && sameBytes(cached, a)) return cached;
      const key = latin1(a, i);
      keyCache[slot] = key;
      return key;
    }
    // escapes, UTF-8 and control bytes take the general path below
    if (b === BACKSLASH || b < 0x20 || b >= 0x80) break;
    h = (Math.imul(h, 31) + b) | 0;
  }
  const { close, flags } = scanString(a, Infinity);
  pos = close + 1;
  return decode(a, close, flags);
}

/** Does the ASCII string equal the bytes at buf[a, a + s.length)? */
function sameBytes(s: string, a: number): boolean {
  for (let k = 0; k < s.length; k++) if (s.charCodeAt(k) !== buf[a + k]) return false;
  return true;
}

// scanString returns two values; reuse one object instead of allocating per string.
const scan = { close: 0, flags: 0 };

/**
 * Finds the closing quote of the string whose content starts at `a`, and the
 * decode flags for its bytes. Strings longer than `limit` will be elided, so
 * past the quick prefix their bytes are not inspected at all.
 */
function scanString(a: number, limit: number): { close: number; flags: number } {
  let flags = 0;
  let i = a;
  const quickEnd = Math.min(end, a + QUICK_SCAN);
  while (i < quickEnd) {
    const b = buf[i] as number;
    if (b === QUOTE) {
      scan.close = i;
      scan.flags = flags;
      return scan;
    }
    if (b === BACKSLASH) {
      flags |= HAS_ESCAPE;
      i += 2; // the escaped byte cannot end the string; JSON.parse validates it later
    } else {
      if (b < 0x20) flags |= HAS_CONTROL;
      else if (b >= 0x80) flags |= HAS_NON_ASCII;
      i++;
    }
  }
  const close = findClosingQuote(i);
  if (close - a <= limit) flags |= flagsOf(i, close);
  scan.close = close;
  scan.flags = flags;
  return scan;
}

/**
 * Finds the unescaped '"' that ends the string, starting at `from`: native
 * `indexOf` (memchr) for the next quote, then count the backslashes right
 * before it; an odd count means the quote is escaped and the search goes on.
 * The count cannot run past the string's opening quote, which is not a
 * backslash. (Measured: a JS look-ahead loop before each indexOf, meant for
 * quote-dense code and JSON in tool output, was slower; indexOf costs ~40 ns.)
 */
function findClosingQuote(from: number): number {
  let q = from;
  for (;;) {
    q = buf.indexOf(QUOTE, q);
    if (q < 0 || q >= end) fail(); // unterminated string (e.g. a truncated line)
    let k = q - 1;
    while (buf[k] === BACKSLASH) k--;
    if (((q - 1 - k) & 1) === 0) return q;
    q++;
  }
}

function flagsOf(from: number, to: number): number {
  let flags = 0;
  for (let i = from; i < to; i++) {
    const b = buf[i] as number;
    if (b === BACKSLASH) flags |= HAS_ESCAPE;
    else if (b < 0x20) flags |= HAS_CONTROL;
    else if (b >= 0x80) flags |= HAS_NON_ASCII;
  }
  return flags;
}

function parseString(key: string | null): string | Elided {
  const a = pos + 1;
  const limit = key !== null && keep.has(key) ? Infinity : maxBytes;
  const { close, flags } = scanString(a, limit);
  pos = close + 1;
  if (close - a > limit) return new Elided(close - a);
  return decode(a, close, flags);
}

function decode(a: number, close: number, flags: number): string {
  if (flags & HAS_CONTROL) fail(); // raw control characters are not allowed in JSON strings
  if (flags & HAS_ESCAPE) {
    // Rare in short strings; let the engine's own parser handle escapes and
    // surrogates, so the result is exactly JSON.parse's.
    try {
      return JSON.parse(buf.toString('utf8', a - 1, close + 1)) as string;
    } catch {
      return fail();
    }
  }
  // Pure ASCII is the common case and latin1 decoding is the cheapest; invalid
  // UTF-8 becomes U+FFFD in utf8Slice, the same as reading the line as a string.
  return flags & HAS_NON_ASCII ? utf8(a, close) : latin1(a, close);
}

/**
 * Buffer's own decoders, which toString(encoding, a, b) dispatches to after
 * normalising its arguments; calling them directly saves that work on every
 * short string. They are untyped in @types/node, hence this narrow view.
 */
interface BufferSlices {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}

function latin1(a: number, b: number): string {
  return (buf as unknown as BufferSlices).latin1Slice(a, b);
}

function utf8(a: number, b: number): string {
  return (buf as unknown as BufferSlices).utf8Slice(a, b);
}
