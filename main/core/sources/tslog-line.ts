/**
 * The parts of one tslog object that the gateway log's readers care about: the
 * subsystem (from the logger's bindings or `_meta`), the message text, the
 * structured fields, and the line's own time. Kept apart from what the lines mean,
 * which is the record's business.
 */
import { Elided, type Skimmed } from './json-skim.js';

export type JsonObject = { [key: string]: Skimmed };

/** The parts of a tslog line a signal is read from. */
export interface TslogLine {
  subsystem: string;
  text: string | Elided | null;
  fields: JsonObject | null;
}

/**
 * The subsystem, message text and structured fields of a tslog line, or null when
 * it names no subsystem. Positional arguments are read in order: the bindings
 * (when `"0"` holds them), then the first object is the fields and the first
 * string the text; the top-level `message` is a fallback for the text.
 */
export function tslogParts(root: JsonObject): TslogLine | null {
  const args = positionalArgs(root);
  let subsystem = typeof args[0] === 'string' ? bindingsSubsystem(args[0]) : null;
  if (subsystem !== null) args.shift();
  else subsystem = metaSubsystem(root._meta);
  if (subsystem === null) return null;
  let text: string | Elided | null = null;
  let fields: JsonObject | null = null;
  for (const arg of args) {
    if (text === null && (typeof arg === 'string' || arg instanceof Elided)) text = arg;
    else if (fields === null && isObject(arg)) fields = arg;
  }
  if (text === null && (typeof root.message === 'string' || root.message instanceof Elided)) text = root.message;
  return { subsystem, text, fields };
}

function positionalArgs(root: JsonObject): Skimmed[] {
  const args: Skimmed[] = [];
  for (let i = 0; Object.hasOwn(root, String(i)); i++) args.push(root[String(i)] as Skimmed);
  return args;
}

export function hasElided(line: TslogLine): boolean {
  if (line.text instanceof Elided) return true;
  return line.fields !== null && Object.values(line.fields).some((value) => value instanceof Elided);
}

/**
 * The same few bindings strings repeat on every line; remembering what they hold
 * saves a JSON.parse per line. Bounded, because a hostile log could vary them.
 */
const bindingsCache = new Map<string, string | null>();
const BINDINGS_CACHE_MAX = 256;

/** `{"subsystem":"diagnostic"}` → `diagnostic`; anything else → null. */
function bindingsSubsystem(raw: string): string | null {
  if (!raw.startsWith('{')) return null;
  const cached = bindingsCache.get(raw);
  if (cached !== undefined) return cached;
  let subsystem: string | null = null;
  try {
    const parsed: unknown = JSON.parse(raw);
    const value = typeof parsed === 'object' && parsed !== null ? (parsed as { subsystem?: unknown }).subsystem : null;
    subsystem = typeof value === 'string' && value !== '' ? value : null;
  } catch {
    subsystem = null;
  }
  if (bindingsCache.size >= BINDINGS_CACHE_MAX) bindingsCache.clear();
  bindingsCache.set(raw, subsystem);
  return subsystem;
}

/** `_meta.name` holds the bindings too (or, for a plain logger, just its name). */
function metaSubsystem(meta: Skimmed | undefined): string | null {
  if (!isObject(meta) || typeof meta.name !== 'string' || meta.name === '') return null;
  return meta.name.startsWith('{') ? bindingsSubsystem(meta.name) : meta.name;
}

/** The line's own time: `time` (ISO with offset), else `_meta.date`. */
export function lineTime(root: JsonObject): number | null {
  const meta = isObject(root._meta) ? root._meta : {};
  for (const value of [root.time, meta.date]) {
    const ts = typeof value === 'string' ? Date.parse(value) : typeof value === 'number' ? value : Number.NaN;
    if (Number.isFinite(ts)) return ts;
  }
  return null;
}

export function isObject(value: Skimmed | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Elided);
}
