/**
 * A byte-level "skimming" JSON parser for transcript lines.
 *
 * Why: an OpenClaw transcript line is mostly message text (assistant output,
 * thinking, tool results) that BreakerBar never looks at; only a few short
 * metadata fields matter (role, stopReason, provider, usage, errorMessage...).
 * `JSON.parse` must first turn the whole line into a JS string and then decode
 * every string into a heap object; this parser works on the raw bytes instead,
 * finds the end of each long string with a bit scan of the quote bitmap
 * (quote-bitmap.ts) or, without one, native `Buffer#indexOf`, and keeps it only
 * as its size. With a shape it builds only the fields its caller reads and
 * checks the rest in one tight loop (figures: docs/benchmarks.md).
 *
 * Semantics: for every input it returns what `JSON.parse` would return (deep
 * equal; with a shape, that value pruned to the shape) or MALFORMED where
 * `JSON.parse` would throw, with two deliberate deviations:
 * - the content of an ELIDED string (longer than `maxStringBytes`, key not in
 *   `keepKeys`) is not validated, so raw control characters or bad escape
 *   sequences inside a long string are accepted;
 * - nesting deeper than MAX_DEPTH is MALFORMED (JSON.parse would accept it).
 * Structure, numbers, literals, keys and decoded strings are validated fully,
 * built or not.
 *
 * Where the time goes (measured with --cpu-prof on the bench/ corpus): the
 * tokens of the structure (keys, short values, separators), storing
 * properties, and creating short strings; finding string ends was the largest
 * cost until the bitmap. Hence: one loop with an explicit stack and the
 * position in local variables (no recursion, nothing re-read from memory), a
 * key cache, short ASCII strings cut from one decoded window instead of one
 * call into C++ each, and a separate inlined loop for what is only checked.
 */

import type { QuoteBits } from './quote-bitmap.js';

/** A string value too long to be worth decoding; only its size in bytes is kept. */
export class Elided {
  /**
   * @param bytes size of the string as it appears in the JSON text, between
   *   the quotes (escape sequences counted as written, UTF-8 bytes as bytes).
   */
  constructor(readonly bytes: number) {}
}

/**
 * A value left where it lies (under a RAW shape): checked, not built, for a
 * reader that may not need it; `skimJson(buf, start, end)` builds it when it
 * does. Valid only as long as `buf` holds the same text.
 */
export class Raw {
  constructor(
    readonly buf: Buffer,
    readonly start: number,
    readonly end: number,
  ) {}
}

export type Skimmed = null | boolean | number | string | Elided | Raw | Skimmed[] | { [key: string]: Skimmed };

/** Returned (never thrown) when the bytes are not exactly one well-formed JSON value. */
export const MALFORMED: unique symbol = Symbol('MALFORMED');

export interface SkimOptions {
  /** strings longer than this many bytes become Elided, unless their key is in keepKeys (default 1024) */
  maxStringBytes?: number;
  /** keys whose string values are always decoded in full (e.g. errorMessage) */
  keepKeys?: ReadonlySet<string>;
  /**
   * Where the unescaped quotes of `buf` are (see quote-bitmap.ts): strings end
   * by a bit scan instead of a search. Used when it covers [start, end) of this
   * very buffer; the result is the same either way.
   */
  quotes?: QuoteBits | null;
  /**
   * Which parts of the value to build: in an object, only the keys the shape
   * lists (each with the shape of its value); in an array, every element with
   * the array's shape; `null` below a key builds all of its value. Everything
   * else is still checked exactly as it would be parsed (so a line is MALFORMED
   * just as without a shape) but never allocated; so is everything after a
   * failed guard (see Shape). Default: build everything.
   */
  shape?: Shape | null;
}

/** Slots of the key cache (see readKeyAndColon); a power of two. */
const KEY_CACHE_SIZE = 1024;

/**
 * See SkimOptions.shape. A shaped object holds the keys of its shape that the
 * text has, in JSON.parse's order. (Objects cloned from a template with every
 * key were measured too: the clone cost more than the stores it saved.)
 */
export class Shape {
  /**
   * @param guard a key of this shape and the one value that keeps the parse
   *   building: once the key holds anything else, nothing more of this object
   *   is built (it is still checked). For a reader that stops caring early,
   *   e.g. at a message's role. Exact under duplicate keys: should the key
   *   come again in the same object, the text is parsed again without guards.
   */
  constructor(
    readonly keys: ReadonlyMap<string, Shape | null>,
    readonly guard: { key: string; value: Skimmed } | null = null,
  ) {
    if (keys.has('__proto__')) throw new Error('a shape cannot name __proto__');
    if (guard !== null && !keys.has(guard.key))
      throw new Error(`a shape's guard must be one of its keys: ${guard.key}`);
  }

  /** Look-ups by key-cache slot: the key last seen in each slot, and its child (undefined: not a key of this shape). */
  private readonly slotKeys: (string | undefined)[] = new Array<string | undefined>(KEY_CACHE_SIZE).fill(undefined);
  private readonly slotChildren: (Shape | null | undefined)[] = new Array<Shape | null | undefined>(
    KEY_CACHE_SIZE,
  ).fill(undefined);

  /** The shape of `key`'s value: a child shape, null (build all), or undefined (not a key of this shape). */
  childOf(key: string, slot: number): Shape | null | undefined {
    if (slot < 0) return this.keys.get(key);
    // A cached key is the same string object every time: compared by identity, no hashing.
    if (this.slotKeys[slot] === key) return this.slotChildren[slot];
    const child = this.keys.get(key);
    this.slotKeys[slot] = key;
    this.slotChildren[slot] = child;
    return child;
  }
}

/** As a key's shape: the value is checked and kept as a Raw (where it lies), not built. */
export const RAW: Shape = new Shape(new Map());

/**
 * Nesting deeper than this is treated as hostile and MALFORMED. The parser is
 * iterative, so this is not about its own stack: it keeps a hostile line from
 * producing a structure that would overflow the stack of whoever walks it.
 */
export const MAX_DEPTH = 512;

const DEFAULT_MAX_STRING_BYTES = 1024;
const NO_KEYS: ReadonlySet<string> = new Set();

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

type Container = Skimmed[] | { [key: string]: Skimmed };

/**
 * Second results of the helpers below (a helper returns a position; what else
 * it found goes here). One shared object, so no allocation per token.
 */
const out = { flags: 0, checked: 0, num: 0 };

// The stack of open containers and their pending keys, reused across calls:
// skimJson is synchronous and never re-entered.
const stack: Container[] = [];
const stackKeys: (string | null)[] = [];
const stackShapes: (Shape | null)[] = [];

/** Parses exactly one JSON value spanning buf[start, end) (surrounding whitespace allowed). Returns MALFORMED if the bytes are not one well-formed JSON value. */
export function skimJson(buf: Buffer, start: number, end: number, opts?: SkimOptions): Skimmed | typeof MALFORMED {
  const e = Math.min(end, buf.length);
  let p = Math.max(0, start);
  const maxBytes = opts?.maxStringBytes ?? DEFAULT_MAX_STRING_BYTES;
  const keep = opts?.keepKeys ?? NO_KEYS;
  stack.length = 0;
  stackKeys.length = 0;
  stackShapes.length = 0;
  const quotes = opts?.quotes;
  if (quotes != null && quotes.buf === buf && start >= quotes.from && e <= quotes.to) {
    quoteWords = quotes.words;
    quoteSpecial = quotes.special;
    quoteFrom = quotes.from;
    quoteWordCount = Math.ceil((quotes.to - quotes.from) / 32);
  } else {
    quoteWords = null;
  }
  call++; // invalidates the decoded window: callers refill their buffers between calls

  let top: Container | null = null; // innermost open container
  let inArray = false;
  let key: string | null = null; // key of the value being parsed, when top is an object
  let depth = 0; // open containers, top included
  let value: Skimmed = null;
  let shape: Shape | null = null; // of top: its keys' shapes, or its elements' shape
  let valueShape: Shape | null = opts?.shape ?? null; // of the value being parsed
  let skipping = false; // the value being parsed is checked, not built
  let guardDepth = -1; // depth of the object whose guard failed: nothing more of it is built

  for (;;) {
    // ---- one value at p ----
    p = skipWs(buf, p, e);
    if (p >= e) return MALFORMED;
    const c = buf[p] as number;
    if (skipping) {
      const from = p;
      p = skipValue(buf, p, e, depth, maxBytes, keep, key);
      if (p < 0) return MALFORMED;
      if (valueShape === RAW) value = new Raw(buf, from, p);
    } else if (c === QUOTE) {
      const a = p + 1;
      const close = stringEnd(buf, a, e);
      if (close < 0) return MALFORMED;
      p = close + 1;
      if (close - a > maxBytes && (key === null || !keep.has(key))) {
        value = new Elided(close - a);
      } else {
        const s = decode(buf, a, close, e, stringFlags(buf, a, close));
        if (s === null) return MALFORMED;
        value = s;
      }
    } else if (c === LBRACE || c === LBRACKET) {
      if (depth >= MAX_DEPTH) return MALFORMED;
      p = skipWs(buf, p + 1, e);
      const closer = c === LBRACE ? RBRACE : RBRACKET;
      if (p < e && buf[p] === closer) {
        p++;
        value = c === LBRACE ? {} : [];
      } else {
        depth++;
        if (top !== null) {
          stack.push(top);
          stackKeys.push(key);
          stackShapes.push(shape);
        }
        shape = valueShape;
        if (c === LBRACKET) {
          top = [];
          inArray = true;
          key = null;
        } else {
          // A plain literal (not Object.create(null)) so results deep-equal
          // JSON.parse's and keep V8's fast properties; `__proto__` is stored
          // with defineProperty below, never through the prototype setter.
          top = {};
          inArray = false;
          p = readKeyAndColon(buf, p, e);
          if (p < 0) return MALFORMED;
          key = lastKey;
        }
        skipping = shapeOfNext(shape, inArray, key);
        valueShape = nextShape;
        continue;
      }
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      p = literalEnd(buf, p, e, c);
      if (p < 0) return MALFORMED;
      value = c === 0x74 ? true : c === 0x66 ? false : null;
    } else {
      p = numberEnd(buf, p, e);
      if (p < 0) return MALFORMED;
      value = out.num;
    }

    // ---- attach the value, then close containers until another value is due ----
    for (;;) {
      if (top === null) {
        p = skipWs(buf, p, e);
        return p === e ? value : MALFORMED; // trailing garbage is malformed
      }
      if (skipping && valueShape !== RAW) {
        // checked, not kept
      } else if (inArray) {
        (top as Skimmed[]).push(value);
      } else if (key === '__proto__') {
        // an own property, as JSON.parse makes: no prototype pollution or swap
        Object.defineProperty(top, key, { value, writable: true, enumerable: true, configurable: true });
      } else {
        // duplicate keys: last value wins in the first position, like JSON.parse
        (top as { [key: string]: Skimmed })[key as string] = value;
        if (shape?.guard?.key === key && value !== shape.guard.value && !guardsOff) guardDepth = depth;
      }
      p = skipWs(buf, p, e);
      const d = p < e ? (buf[p] as number) : -1;
      if (d === COMMA) {
        p++;
        if (!inArray) {
          p = readKeyAndColon(buf, skipWs(buf, p, e), e);
          if (p < 0) return MALFORMED;
          key = lastKey;
          // The guard's key again: its last value is the one that counts, and what was skipped may matter.
          if (guardDepth === depth && key === shape?.guard?.key) return skimUnguarded(buf, start, end, opts);
        }
        skipping = shapeOfNext(shape, inArray, key) || guardDepth === depth;
        valueShape = guardDepth === depth ? null : nextShape;
        break;
      }
      if (d !== (inArray ? RBRACKET : RBRACE)) return MALFORMED;
      p++;
      if (guardDepth === depth) guardDepth = -1;
      depth--;
      value = top;
      skipping = false;
      top = stack.pop() ?? null;
      key = stackKeys.pop() ?? null;
      shape = stackShapes.pop() ?? null;
      inArray = Array.isArray(top);
    }
  }
}

/** Set while a text is parsed again with its shapes' guards ignored. */
let guardsOff = false;

function skimUnguarded(buf: Buffer, start: number, end: number, opts?: SkimOptions): Skimmed | typeof MALFORMED {
  guardsOff = true;
  try {
    return skimJson(buf, start, end, opts);
  } finally {
    guardsOff = false;
  }
}

/** The shape of the next value in a container of shape `shape` (second result of shapeOfNext). */
let nextShape: Shape | null = null;

/** Whether the next value (an element, or the value of `key`) is only checked; its shape goes to nextShape. */
function shapeOfNext(shape: Shape | null, inArray: boolean, key: string | null): boolean {
  if (shape === null || inArray) {
    nextShape = shape;
    return false;
  }
  const child = shape.childOf(key as string, lastKeySlot);
  nextShape = child ?? null;
  return child === undefined || child === RAW;
}

/** Open containers of a skipped value: whether each is an object. */
const skipIsObject = new Uint8Array(MAX_DEPTH + 1);

/**
 * Checks the value at p exactly as skimJson would parse it (same grammar, same
 * strings decoded or elided, same depth limit, counting the `depth` containers
 * already open around it) without building anything. Returns the position
 * after it, or -1 where skimJson would return MALFORMED. Written for speed, as
 * most of a transcript line is only checked: every step inline (a call per
 * token cost more than the token), string ends read from the quote bitmap when
 * there is one, compact JSON's absent whitespace tested with one compare.
 */
function skipValue(
  buf: Buffer,
  p: number,
  e: number,
  depth: number,
  maxBytes: number,
  keep: ReadonlySet<string>,
  outerKey: string | null,
): number {
  const words = quoteWords;
  const from = quoteFrom;
  const wordCount = quoteWordCount;
  const base = depth;
  let key: string | null | undefined = outerKey;
  let expectKey = false; // the next token is an object's key
  for (;;) {
    let c = p < e ? (buf[p] as number) : -1;
    if (c <= 0x20 && c >= 0) {
      p = skipWs(buf, p, e);
      c = p < e ? (buf[p] as number) : -1;
    }
    if (c === QUOTE) {
      const a = p + 1;
      let close: number;
      if (words !== null) {
        // the next unescaped quote ends the string
        const rel = a - from;
        let w = rel >> 5;
        let bits = (words[w] as number) & (-1 << (rel & 31));
        while (bits === 0) {
          if (++w >= wordCount) return -1;
          bits = words[w] as number;
        }
        close = from + (w << 5) + (31 - Math.clz32(bits & -bits));
        if (close >= e) return -1;
      } else {
        close = scannedStringEnd(buf, a, e);
        if (close < 0) return -1;
      }
      p = close + 1;
      const checked = expectKey || close - a <= maxBytes || (keep.size > 0 && isKept(buf, e, keep, key));
      if (checked && !validString(buf, a, close, stringFlags(buf, a, close))) return -1;
      if (expectKey) {
        skippedKeyStart = a;
        skippedKeyEnd = close;
        c = p < e ? (buf[p] as number) : -1;
        if (c !== COLON) {
          p = skipWs(buf, p, e);
          if (p >= e || buf[p] !== COLON) return -1;
        }
        p++;
        expectKey = false;
        key = undefined;
        continue;
      }
    } else if (expectKey) {
      return -1;
    } else if (c === LBRACE || c === LBRACKET) {
      if (depth >= MAX_DEPTH) return -1;
      p++;
      let d = p < e ? (buf[p] as number) : -1;
      if (d <= 0x20 && d >= 0) {
        p = skipWs(buf, p, e);
        d = p < e ? (buf[p] as number) : -1;
      }
      if (d === (c === LBRACE ? RBRACE : RBRACKET)) {
        p++;
      } else {
        skipIsObject[depth++] = c === LBRACE ? 1 : 0;
        expectKey = c === LBRACE;
        key = null;
        continue;
      }
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      p = literalEnd(buf, p, e, c);
      if (p < 0) return -1;
    } else {
      // -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?; what follows is checked below
      if (c === MINUS) p++;
      let d = p < e ? (buf[p] as number) : -1;
      if (d === DIGIT0) {
        d = ++p < e ? (buf[p] as number) : -1;
      } else if (d > DIGIT0 && d <= DIGIT9) {
        do d = ++p < e ? (buf[p] as number) : -1;
        while (d >= DIGIT0 && d <= DIGIT9);
      } else {
        return -1;
      }
      if (d === DOT) {
        const first = ++p;
        while (p < e && (buf[p] as number) >= DIGIT0 && (buf[p] as number) <= DIGIT9) p++;
        if (p === first) return -1;
        d = p < e ? (buf[p] as number) : -1;
      }
      if (d === 0x65 || d === 0x45) {
        d = ++p < e ? (buf[p] as number) : -1;
        if (d === PLUS || d === MINUS) p++;
        const first = p;
        while (p < e && (buf[p] as number) >= DIGIT0 && (buf[p] as number) <= DIGIT9) p++;
        if (p === first) return -1;
      }
    }
    // after a value: close containers until a comma asks for another
    for (;;) {
      if (depth === base) return p;
      let d = p < e ? (buf[p] as number) : -1;
      if (d <= 0x20 && d >= 0) {
        p = skipWs(buf, p, e);
        d = p < e ? (buf[p] as number) : -1;
      }
      const inObject = skipIsObject[depth - 1] === 1;
      if (d === COMMA) {
        p++;
        expectKey = inObject;
        key = null;
        break;
      }
      if (d !== (inObject ? RBRACE : RBRACKET)) return -1;
      p++;
      depth--;
    }
  }
}

/** Where the last key skipValue checked lies: buf[skippedKeyStart, skippedKeyEnd). */
let skippedKeyStart = 0;
let skippedKeyEnd = 0;

/** Is `key` in keep? undefined stands for the key skipValue last checked (already known to be valid). */
function isKept(buf: Buffer, e: number, keep: ReadonlySet<string>, key: string | null | undefined): boolean {
  if (key === null) return false;
  if (key !== undefined) return keep.has(key);
  // A key's text is never longer than its bytes: a key shorter than every kept one needs no decoding.
  if (skippedKeyEnd - skippedKeyStart < shortestKept(keep)) return false;
  const name = decode(buf, skippedKeyStart, skippedKeyEnd, e, flagsOf(buf, skippedKeyStart, skippedKeyEnd));
  return name !== null && keep.has(name);
}

let shortestOf: ReadonlySet<string> | null = null;
let shortestLength = 0;

/** The length of the shortest key in `keep` (remembered for the set last asked about). */
function shortestKept(keep: ReadonlySet<string>): number {
  if (keep !== shortestOf) {
    shortestOf = keep;
    shortestLength = Math.min(...[...keep].map((key) => key.length));
  }
  return shortestLength;
}

/** Would decode() accept the string buf[a, close) with these flags? Without building it. */
function validString(buf: Buffer, a: number, close: number, flags: number): boolean {
  if ((flags & (HAS_CONTROL | HAS_ESCAPE)) === 0) return true;
  if (flags & HAS_CONTROL) return false;
  for (let i = a; i < close; i++) {
    if (buf[i] !== BACKSLASH) continue;
    const x = buf[++i] as number;
    if (x === 0x75) {
      // \uXXXX: four hex digits
      for (let k = 1; k <= 4; k++) if (i + k >= close || !isHex(buf[i + k] as number)) return false;
      i += 4;
    } else if (
      x !== QUOTE &&
      x !== BACKSLASH &&
      x !== 0x2f &&
      x !== 0x62 &&
      x !== 0x66 &&
      x !== 0x6e &&
      x !== 0x72 &&
      x !== 0x74
    ) {
      return false;
    }
  }
  return true;
}

function isHex(c: number): boolean {
  return (c >= DIGIT0 && c <= DIGIT9) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** The literal `true`, `false` or `null` (by its first byte `c`) at p: the position after it, or -1. */
function literalEnd(buf: Buffer, p: number, e: number, c: number): number {
  if (c === 0x74) return p + 4 <= e && buf[p + 1] === 0x72 && buf[p + 2] === 0x75 && buf[p + 3] === 0x65 ? p + 4 : -1;
  if (c === 0x66) {
    const ok = p + 5 <= e && buf[p + 1] === 0x61 && buf[p + 2] === 0x6c && buf[p + 3] === 0x73 && buf[p + 4] === 0x65;
    return ok ? p + 5 : -1;
  }
  return p + 4 <= e && buf[p + 1] === 0x75 && buf[p + 2] === 0x6c && buf[p + 3] === 0x6c ? p + 4 : -1;
}

function skipWs(buf: Buffer, p: number, e: number): number {
  while (p < e) {
    const c = buf[p] as number;
    // space, \n, \r, \t: the only whitespace JSON allows
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return p;
    p++;
  }
  return p;
}

/**
 * What each byte means inside a string: 0 for the plain bytes that need no
 * attention, else the flag it sets (IS_QUOTE for '"'). One table load per byte
 * instead of four comparisons.
 */
const IS_QUOTE = 8;
const BYTE_CLASS = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) BYTE_CLASS[b] = HAS_CONTROL;
for (let b = 0x80; b < 0x100; b++) BYTE_CLASS[b] = HAS_NON_ASCII;
BYTE_CLASS[BACKSLASH] = HAS_ESCAPE;
BYTE_CLASS[QUOTE] = IS_QUOTE;

/**
 * Finds the closing quote of the string whose content starts at `a`; -1 if
 * unterminated. Sets out.flags for the bytes it looked at, [a, out.checked):
 * short strings are scanned byte by byte in JS; past QUICK_SCAN it jumps from
 * quote to quote with native indexOf (memchr) and leaves the bytes in between
 * unread, so the caller decides whether they need flagsOf (only if decoded).
 */
function stringEnd(buf: Buffer, a: number, e: number): number {
  // kept tiny so that the engine inlines it into the parsing loops (a call per string costs more than the look-up)
  return quoteWords !== null ? indexedStringEnd(a, e) : scannedStringEnd(buf, a, e);
}

/** stringEnd without a bitmap. */
function scannedStringEnd(buf: Buffer, a: number, e: number): number {
  let flags = 0;
  let i = a;
  const quickEnd = Math.min(a + QUICK_SCAN, e);
  while (i < quickEnd) {
    const k = BYTE_CLASS[buf[i] as number] as number;
    if (k === 0) {
      i++;
    } else if (k === IS_QUOTE) {
      out.flags = flags;
      out.checked = i;
      return i;
    } else {
      flags |= k;
      // the escaped byte cannot end the string; JSON.parse validates the escape later
      i += k === HAS_ESCAPE ? 2 : 1;
    }
  }
  out.flags = flags;
  out.checked = i;
  // An odd number of backslashes before a quote escapes it. Counting them
  // cannot run past the opening quote, which is not a backslash. (Measured: a
  // JS look-ahead before each indexOf, for quote-dense code and JSON in tool
  // output, did not beat indexOf's ~40 ns per call.)
  let q = i;
  for (;;) {
    q = buf.indexOf(QUOTE, q);
    if (q < 0 || q >= e) return -1;
    let k = q - 1;
    while (buf[k] === BACKSLASH) k--;
    if (((q - 1 - k) & 1) === 0) return q;
    q++;
  }
}

/** The quote bitmap of the current call, when it has one (see SkimOptions.quotes). */
let quoteWords: Int32Array | null = null;
let quoteSpecial: Int32Array | null = null;
let quoteFrom = 0;
let quoteWordCount = 0;

/** stringEnd with the bitmap: the next unescaped quote is the next set bit (flags: see stringFlags). */
function indexedStringEnd(a: number, e: number): number {
  const words = quoteWords as Int32Array;
  const rel = a - quoteFrom;
  let w = rel >> 5;
  let bits = (words[w] as number) & (-1 << (rel & 31));
  while (bits === 0) {
    if (++w >= quoteWordCount) return -1;
    bits = words[w] as number;
  }
  const close = quoteFrom + (w << 5) + (31 - Math.clz32(bits & -bits));
  return close < e ? close : -1;
}

/** The decode flags of the string buf[a, close) that stringEnd just found. */
function stringFlags(buf: Buffer, a: number, close: number): number {
  if (quoteWords === null) return out.checked < close ? out.flags | flagsOf(buf, out.checked, close) : out.flags;
  return specialIn(a, close) ? flagsOf(buf, a, close) : 0;
}

/** Is any byte of buf[a, b) marked special in the bitmap (control, backslash, non-ASCII)? */
function specialIn(a: number, b: number): boolean {
  if (a >= b) return false;
  const words = quoteSpecial as Int32Array;
  const ra = a - quoteFrom;
  const rb = b - quoteFrom;
  let w = ra >> 5;
  const last = (rb - 1) >> 5;
  let bits = (words[w] as number) & (-1 << (ra & 31));
  while (w < last) {
    if (bits !== 0) return true;
    bits = words[++w] as number;
  }
  const tail = rb & 31;
  // (1 << 31) - 1 wraps to 0x7fffffff under the bitwise and, as wanted
  return (tail === 0 ? bits : bits & ((1 << tail) - 1)) !== 0;
}

/** Decode flags of buf[from, to), the inside of a string (escaped quotes are not flags). */
function flagsOf(buf: Buffer, from: number, to: number): number {
  let flags = 0;
  for (let i = from; i < to; i++) flags |= BYTE_CLASS[buf[i] as number] as number;
  return flags & ~IS_QUOTE;
}

/** The string buf[a, close) decodes to, or null if JSON.parse would reject it. */
function decode(buf: Buffer, a: number, close: number, e: number, flags: number): string | null {
  if (flags & HAS_CONTROL) return null; // raw control characters are not allowed in JSON strings
  if (flags & HAS_ESCAPE) {
    // Rare in short strings; the engine's own parser handles escapes and
    // surrogates, so the result is exactly JSON.parse's.
    try {
      return JSON.parse(buf.toString('utf8', a - 1, close + 1)) as string;
    } catch {
      return null;
    }
  }
  // Invalid UTF-8 becomes U+FFFD, as when the line is read as a string.
  return flags & HAS_NON_ASCII ? (buf as unknown as BufferSlices).utf8Slice(a, close) : ascii(buf, a, close, e);
}

/**
 * Buffer's own decoders, which toString(encoding, a, b) dispatches to after
 * normalising its arguments. They exist on every Buffer but are untyped in
 * @types/node.
 */
interface BufferSlices {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}

/**
 * ASCII text at buf[a, b), cut from a decoded window of up to WINDOW bytes.
 * Why: every Buffer decode is a call into C++ that costs ~100 ns whatever the
 * length, and a transcript line has dozens of short strings and numbers close
 * together (ids, timestamps, roles, model names, costs). One latin1 decode of
 * the bytes around them, then `String#slice` in JS, is several times cheaper.
 * latin1 maps bytes 1:1 to chars, so byte offsets are char offsets. A window
 * never extends past the line (e), and only strings known to be ASCII are cut
 * from it.
 */
const WINDOW = 512;
let call = 0; // skimJson invocation counter; a window is only valid within one call
let windowCall = -1;
let windowStart = 0;
let windowEnd = 0;
let windowText = '';

function ascii(buf: Buffer, a: number, b: number, e: number): string {
  if (windowCall !== call || a < windowStart || b > windowEnd) {
    windowCall = call;
    windowStart = a;
    windowEnd = Math.max(b, Math.min(e, a + WINDOW));
    windowText = (buf as unknown as BufferSlices).latin1Slice(windowStart, windowEnd);
  }
  return windowText.slice(a - windowStart, b - windowStart);
}

/**
 * Recently seen keys, direct-mapped by a hash of their bytes. A transcript uses
 * a few dozen distinct keys millions of times; returning the same string
 * skips a decode, an allocation and V8's string-table lookup when the key is
 * stored into the result object.
 */
const MAX_CACHED_KEY = 48; // longer keys are rare and decoded each time
const keyCache: (string | undefined)[] = new Array<string | undefined>(KEY_CACHE_SIZE).fill(undefined);
/** The bytes of each cached key, at slot × MAX_CACHED_KEY: compared as bytes, faster than the string's chars. */
const keyCacheBytes = new Uint8Array(KEY_CACHE_SIZE * MAX_CACHED_KEY);
let lastKey = '';
/** The key-cache slot lastKey is held in, or -1 (a key too long or not plain ASCII is not cached). */
let lastKeySlot = -1;

/**
 * Reads `"key"` at p, then whitespace and the colon. Returns the position after
 * the colon (the key is left in lastKey), or -1 if malformed.
 */
function readKeyAndColon(buf: Buffer, p: number, e: number): number {
  if (p >= e || buf[p] !== QUOTE) return -1;
  const a = p + 1;
  const close = stringEnd(buf, a, e);
  if (close < 0) return -1;
  const len = close - a;
  // Short: look it up by length and three of its bytes. Only plain ASCII keys are
  // cached, so bytes equal to a cached key are plain ASCII themselves.
  const slot =
    ((len << 6) ^ ((buf[a] as number) << 3) ^ (buf[close - 1] as number) ^ ((buf[a + (len >> 1)] as number) << 1)) &
    (KEY_CACHE_SIZE - 1);
  const cached = len > 0 && len <= MAX_CACHED_KEY ? keyCache[slot] : undefined;
  if (cached !== undefined && cached.length === len && sameBytes(buf, a, slot * MAX_CACHED_KEY, len)) {
    lastKey = cached;
    lastKeySlot = slot;
  } else {
    const flags = stringFlags(buf, a, close);
    if (flags === 0 && len > 0 && len <= MAX_CACHED_KEY) {
      lastKey = ascii(buf, a, close, e);
      keyCache[slot] = lastKey;
      buf.copy(keyCacheBytes, slot * MAX_CACHED_KEY, a, close);
      lastKeySlot = slot;
    } else {
      const key = decode(buf, a, close, e, flags);
      if (key === null) return -1;
      lastKey = key;
      lastKeySlot = -1;
    }
  }
  p = skipWs(buf, close + 1, e);
  if (p >= e || buf[p] !== COLON) return -1;
  return p + 1;
}

/** Are the bytes at buf[a, a + len) those of the key cached at keyCacheBytes[cachedAt]? */
function sameBytes(buf: Buffer, a: number, cachedAt: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (keyCacheBytes[cachedAt + k] !== buf[a + k]) return false;
  return true;
}

/**
 * Validates a number per JSON grammar, -? (0 | [1-9][0-9]*) (. [0-9]+)?
 * ([eE] [+-]? [0-9]+)?, starting at p. Returns the position after it (value in
 * out.num) or -1. Whatever follows is checked by the caller, so `01` fails
 * there (a value `0` followed by a stray `1`).
 */
function numberEnd(buf: Buffer, p: number, e: number): number {
  const start = p;
  const negative = buf[p] === MINUS;
  if (negative) p++;
  let c = p < e ? (buf[p] as number) : -1;
  let value = 0;
  if (c === DIGIT0) {
    p++;
  } else if (c > DIGIT0 && c <= DIGIT9) {
    // Accumulate integers directly: most numbers in a transcript are token
    // counts and epoch milliseconds, and this avoids a string per number.
    do {
      value = value * 10 + (c - DIGIT0);
      p++;
      c = p < e ? (buf[p] as number) : -1;
    } while (c >= DIGIT0 && c <= DIGIT9);
  } else {
    return -1;
  }
  let simple = p - start <= 15; // at most 15 digits: exact as a double
  c = p < e ? (buf[p] as number) : -1;
  if (c === DOT) {
    simple = false;
    p = digitsEnd(buf, p + 1, e);
    if (p < 0) return -1;
    c = p < e ? (buf[p] as number) : -1;
  }
  if (c === 0x65 || c === 0x45) {
    // e / E
    simple = false;
    p++;
    c = p < e ? (buf[p] as number) : -1;
    if (c === PLUS || c === MINUS) p++;
    p = digitsEnd(buf, p, e);
    if (p < 0) return -1;
  }
  // -0 stays -0, like JSON.parse; anything else goes through the engine's own
  // float parsing so rounding is exactly JSON.parse's.
  out.num = simple ? (negative ? -value : value) : Number(ascii(buf, start, p, e));
  return p;
}

/** One or more digits at p: the position after them, or -1. */
function digitsEnd(buf: Buffer, p: number, e: number): number {
  const first = p;
  while (p < e) {
    const c = buf[p] as number;
    if (c < DIGIT0 || c > DIGIT9) break;
    p++;
  }
  return p > first ? p : -1;
}
