/**
 * Random JSON text for testing the skimming parser, with what it must return,
 * and a strict comparison of parse results.
 */
import { Elided, MALFORMED, type Skimmed } from '../../main/core/sources/json-skim.js';
import { seededRandom } from '../../main/simulator/records.js';

export const HUGE = Number.MAX_SAFE_INTEGER;

/**
 * The first difference between two parse results, or null. Stricter than
 * toEqual: -0 vs 0 differ, key order and prototypes must match, and an Elided
 * must carry the same byte count.
 */
export function diff(a: unknown, b: unknown, path = '$'): string | null {
  if (a === MALFORMED || b === MALFORMED) return a === b ? null : `${path}: ${String(a)} vs ${String(b)}`;
  if (a instanceof Elided || b instanceof Elided) {
    return a instanceof Elided && b instanceof Elided && a.bytes === b.bytes
      ? null
      : `${path}: ${String(a)} vs ${String(b)}`;
  }
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return Object.is(a, b) ? null : `${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array vs object`;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: prototypes differ`;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.join('\u0000') !== kb.join('\u0000')) return `${path}: keys ${JSON.stringify(ka)} vs ${JSON.stringify(kb)}`;
  for (const k of ka) {
    const d = diff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
    if (d !== null) return d;
  }
  return null;
}

/** JSON.parse as the oracle: MALFORMED where it throws. */
export function oracle(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    return MALFORMED;
  }
}

// ---- a generator of random JSON text, with what the skimmer should return ----

export interface Generated {
  text: string;
  /** the expected skim result for the generator's maxStringBytes/keepKeys */
  expect: Skimmed;
}

const CHARS = [
  'a',
  'b',
  'Z',
  '0',
  ' ',
  '/',
  'é',
  'ß',
  '中',
  '文',
  '😀',
  '𝄞',
  '"',
  '\\',
  '\n',
  '\t',
  '\r',
  '\b',
  '\f',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u2028',
  '\uffff',
];
const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\t': '\\t',
  '\r': '\\r',
  '\b': '\\b',
  '\f': '\\f',
};
const NUMBERS = [
  '0',
  '-0',
  '1',
  '-1',
  '42',
  '1e5',
  '1E5',
  '1e+5',
  '1.5E-3',
  '-12.75',
  '0.1',
  '1e-7',
  '0e0',
  '-0.0',
  '123456789012345',
  '1234567890123456789012',
  '9007199254740993',
  '1.7976931348623157e308',
  '5e-324',
  '1e400',
  '-1.0e0',
];
export const KEYS = [
  'type',
  'id',
  'message',
  'role',
  'errorMessage',
  'text',
  '__proto__',
  'constructor',
  'toString',
  '',
  '0',
  '7',
  'é',
  'a"b',
  'back\\slash',
  '中文',
];
const WS = ['', '', '', ' ', '\n', '\t', '\r\n', '  '];

export function generator(seed: number, maxBytes: number, keepKeys: ReadonlySet<string>) {
  const r = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const ws = () => pick(WS);

  /** JSON string content (between the quotes) for s, escaping some characters at random. */
  function encode(s: string): string {
    let out = '';
    for (const ch of s) {
      const code = ch.codePointAt(0) as number;
      const short = SHORT_ESCAPES[ch];
      if (short !== undefined && (code < 0x20 || ch === '"' || ch === '\\' || r() < 0.5)) out += short;
      else if (code < 0x20 || r() < 0.1) {
        // \u escapes, astral characters as a surrogate pair, hex case mixed
        for (let i = 0; i < ch.length; i++) {
          const hex = ch.charCodeAt(i).toString(16).padStart(4, '0');
          out += `\\u${r() < 0.5 ? hex : hex.toUpperCase()}`;
        }
      } else if (ch === '/' && r() < 0.5) out += '\\/';
      else out += ch;
    }
    return out;
  }

  function string(long: boolean): string {
    const n = long ? 30 + Math.floor(r() * 300) : Math.floor(r() * 12);
    let s = '';
    for (let i = 0; i < n; i++) s += pick(CHARS);
    return s;
  }

  function value(depth: number, key: string | null): Generated {
    const k = r();
    if (depth > 4 || k < 0.5) {
      const kind = Math.floor(r() * 6);
      if (kind === 0) return { text: 'null', expect: null };
      if (kind === 1) return r() < 0.5 ? { text: 'true', expect: true } : { text: 'false', expect: false };
      if (kind === 2) {
        const text = r() < 0.5 ? pick(NUMBERS) : String(Math.floor((r() - 0.5) * 1e9));
        return { text, expect: JSON.parse(text) as number };
      }
      const raw = encode(string(r() < 0.15));
      const bytes = Buffer.byteLength(raw);
      const kept = key !== null && keepKeys.has(key);
      const expect = bytes > maxBytes && !kept ? new Elided(bytes) : (JSON.parse(`"${raw}"`) as string);
      return { text: `"${raw}"`, expect };
    }
    if (k < 0.7) {
      const n = Math.floor(r() * 5);
      const items = Array.from({ length: n }, () => value(depth + 1, null));
      return {
        text: `[${ws()}${items.map((g) => g.text).join(`${ws()},${ws()}`)}${ws()}]`,
        expect: items.map((g) => g.expect),
      };
    }
    const n = Math.floor(r() * 6);
    const parts: string[] = [];
    const expect: { [key: string]: Skimmed } = {};
    for (let i = 0; i < n; i++) {
      // keys from a small pool, so duplicates happen (last one wins)
      const name = r() < 0.8 ? pick(KEYS) : string(false);
      const v = value(depth + 1, name);
      parts.push(`"${encode(name)}"${ws()}:${ws()}${v.text}`);
      Object.defineProperty(expect, name, { value: v.expect, writable: true, enumerable: true, configurable: true });
    }
    return { text: `{${ws()}${parts.join(`${ws()},${ws()}`)}${ws()}}`, expect };
  }

  return () => {
    const g = value(0, null);
    return { text: `${ws()}${g.text}${ws()}`, expect: g.expect };
  };
}

/**
 * `buf` with one random byte deleted, inserted or replaced (the byte drawn from
 * `noise`): the mutations the differential tests throw at the parser. Draws
 * from `r` in a fixed order, so a seed gives the same cases every run.
 */
export function mutateOneByte(buf: Buffer, r: () => number, noise: readonly number[]): Buffer {
  const at = Math.floor(r() * buf.length);
  const byte = noise[Math.floor(r() * noise.length)] as number;
  const op = Math.floor(r() * 3);
  if (op === 0) return Buffer.concat([buf.subarray(0, at), buf.subarray(at + 1)]);
  if (op === 1) return Buffer.concat([buf.subarray(0, at), Buffer.from([byte]), buf.subarray(at)]);
  return Buffer.from(buf).fill(byte, at, at + 1);
}
