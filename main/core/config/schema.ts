/**
 * A tiny schema language for BreakerBar's configuration: each field knows its
 * default, what it accepts and how to say so. The `Config` type is derived from
 * the schema, so a key, its type, its default and its validation live in one place.
 */
import { redisUrlProblem } from '../fleet/redis-options.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface Field<T> {
  readonly kind: 'field';
  readonly default: T;
  /** One line for docs/configuration.md and `--help`: what the key does. */
  readonly doc: string;
  /** What the field accepts, in words ("an integer from 0 to 3650"). */
  readonly expected: string;
  /** Set on a duration field: the unit its numbers are in, which its key's suffix states (`Sec`, `Ms`). */
  readonly unit?: DurationUnit;
  /**
   * Set on a field holding objects of a shape of their own (`record`, `list`): that shape, so that walks over
   * the schema (durations, say) reach the keys inside; `each` says how the objects are held.
   */
  readonly items?: { readonly each: 'record' | 'list'; readonly node: Group<Shape> };
  parse(value: unknown, path: string): T;
}

export interface Group<S extends Shape> {
  readonly kind: 'group';
  readonly shape: S;
  /**
   * Reads a value written in an older form of this group (a key that was once a single field) as the group
   * it became, so that old config files keep loading; absent when the group never had another form.
   */
  readonly upgrade?: (value: unknown) => unknown;
}

export type Shape = { readonly [key: string]: Field<unknown> | Group<Shape> };

export type Infer<N> =
  N extends Field<infer T> ? T : N extends Group<infer S> ? { -readonly [K in keyof S]: Infer<S[K]> } : never;

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function field<T>(def: T, doc: string, expected: string, accept: (v: unknown) => T | undefined): Field<T> {
  return {
    kind: 'field',
    default: def,
    doc,
    expected,
    parse(value, path) {
      const parsed = accept(value);
      if (parsed === undefined) {
        throw new ConfigError(`config key "${path}" is ${show(value)}, expected ${expected}`);
      }
      return parsed;
    },
  };
}

export function int(def: number, min: number, max: number, doc: string): Field<number> {
  return field(def, doc, `an integer from ${min} to ${max}`, (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : undefined,
  );
}

/** A day, in each unit durations are written in: the usual upper bound of a duration key. */
export const DAY_SEC = 86_400;
export const DAY_MS = DAY_SEC * 1000;

/** The unit of a duration field. A key's suffix names it: `…Sec` holds seconds, `…Ms` milliseconds. */
export type DurationUnit = 'sec' | 'ms';

const MS_PER: Record<DurationUnit, number> = { sec: 1000, ms: 1 };

/** A duration in `unit` as milliseconds: the one conversion consumers of the config use. */
export function toMs(value: number, unit: DurationUnit): number {
  return value * MS_PER[unit];
}

/** The unit a key's name promises (`Sec`, `Ms` suffix), or null when it promises none. */
export function unitOfKey(key: string): DurationUnit | null {
  if (/[a-z0-9]Sec$|^sec$/.test(key)) return 'sec';
  if (/[a-z0-9]Ms$|^ms$/.test(key)) return 'ms';
  return null;
}

function duration(unit: DurationUnit, def: number, min: number, max: number, doc: string): Field<number> {
  const expected = `an integer from ${min} to ${max} (${unit === 'sec' ? 'seconds' : 'milliseconds'})`;
  const accept = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : undefined);
  return { ...field(def, doc, expected, accept), unit };
}

/** A duration in whole seconds; its key must end in `Sec`. */
export function seconds(def: number, min: number, max: number, doc: string): Field<number> {
  return duration('sec', def, min, max, doc);
}

/** A duration in whole milliseconds; its key must end in `Ms`. */
export function millis(def: number, min: number, max: number, doc: string): Field<number> {
  return duration('ms', def, min, max, doc);
}

export function num(def: number, min: number, max: number, doc: string): Field<number> {
  return field(def, doc, `a number from ${min} to ${max}`, (v) =>
    typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : undefined,
  );
}

/** A non-empty string matching `pattern` (described by `expected`). */
export function str(def: string, doc: string, expected = 'a non-empty string', pattern = /\S/): Field<string> {
  return field(def, doc, expected, (v) => (typeof v === 'string' && pattern.test(v) ? v : undefined));
}

export function bool(def: boolean, doc: string): Field<boolean> {
  return field(def, doc, 'true or false', (v) => (typeof v === 'boolean' ? v : undefined));
}

export function oneOf<const T extends string>(def: T, options: readonly T[], doc: string): Field<T> {
  return field(def, doc, `one of ${options.map((o) => `"${o}"`).join(', ')}`, (v) =>
    options.includes(v as T) ? (v as T) : undefined,
  );
}

/** A filesystem path or null (meaning: resolve it at run time, see the doc). */
export function optionalPath(doc: string): Field<string | null> {
  return field<string | null>(null, doc, 'a non-empty path string or null', (v) =>
    v === null || (typeof v === 'string' && v.trim() !== '') ? v : undefined,
  );
}

/** An integer or null (meaning: resolve it at run time, see the doc). */
export function optionalInt(min: number, max: number, doc: string): Field<number | null> {
  return field<number | null>(null, doc, `null or an integer from ${min} to ${max}`, (v) =>
    v === null || (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) ? v : undefined,
  );
}

/** A number or null (meaning: not set, see the doc). */
export function optionalNum(min: number, max: number, doc: string): Field<number | null> {
  return field<number | null>(null, doc, `null or a number from ${min} to ${max}`, (v) =>
    v === null || (typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max) ? v : undefined,
  );
}

/** A non-empty list of numbers, each from `min` to `max`, kept in ascending order. */
export function numList(def: number[], min: number, max: number, doc: string): Field<number[]> {
  return field<number[]>(def, doc, `a non-empty list of numbers from ${min} to ${max}`, (v) =>
    Array.isArray(v) &&
    v.length > 0 &&
    v.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= min && n <= max)
      ? [...(v as number[])].sort((a, b) => a - b)
      : undefined,
  );
}

/** `inner`, with a rule over the parsed value that no single key can state (a message, or null when it holds). */
export function checked<T>(inner: Field<T>, rule: (value: T, path: string) => string | null): Field<T> {
  return {
    ...inner,
    parse(value, path) {
      const parsed = inner.parse(value, path);
      const problem = rule(parsed, path);
      if (problem !== null) throw new ConfigError(problem);
      return parsed;
    },
  };
}

/** A secret string or null. Its value is never shown in errors or logs. */
export function optionalSecret(doc: string): Field<string | null> {
  const base = field<string | null>(null, doc, 'a non-empty string or null', (v) =>
    v === null || (typeof v === 'string' && v.trim() !== '') ? v : undefined,
  );
  return {
    ...base,
    parse(value, path) {
      try {
        return base.parse(value, path);
      } catch {
        throw new ConfigError(`config key "${path}" is not ${base.expected} (value hidden: it is a secret)`);
      }
    },
  };
}

/** A short name (letters, digits, `-`, `_`) or null. */
export function optionalName(doc: string): Field<string | null> {
  return field<string | null>(null, doc, 'null or a name of letters, digits, "-" and "_"', (v) =>
    v === null || (typeof v === 'string' && /^[A-Za-z0-9_-]+$/.test(v)) ? v : undefined,
  );
}

/** A string or null (free text such as a chat id). */
export function optionalString(doc: string): Field<string | null> {
  return field<string | null>(null, doc, 'a non-empty string or null', (v) =>
    v === null || (typeof v === 'string' && v.trim() !== '') ? v : undefined,
  );
}

/** An http(s) URL without credentials, or null (meaning: resolve it at run time, see the doc). */
export function optionalUrl(doc: string): Field<string | null> {
  return field<string | null>(null, doc, 'null or an http:// or https:// URL without user:password', (v) => {
    if (v === null) return null;
    if (typeof v !== 'string' || !/^https?:\/\//.test(v)) return undefined;
    try {
      const url = new URL(v);
      return url.username || url.password ? undefined : v.replace(/\/+$/, '');
    } catch {
      return undefined;
    }
  });
}

/**
 * What is wrong with a URL BreakerBar will send to (webhook, heartbeat), or null when it is usable. The
 * answer never repeats the URL: webhook and push URLs carry tokens. Credentials (`user:pass@`) are
 * refused rather than turned into a Basic header: `fetch` rejects such URLs outright, so a URL that
 * passed here would fail every delivery; a token belongs in `secret` (sent as a Bearer header) or in the
 * path or query, where the services that use them expect it.
 */
export function sendUrlProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '') return 'is not an http:// or https:// URL';
  if (!/^https?:\/\//i.test(value)) return 'must start with http:// or https://';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a valid URL';
  }
  if (url.hostname === '') return 'has no host name';
  if (url.username !== '' || url.password !== '') {
    return 'must not carry credentials (user:password@): put a token in "secret" (sent as Authorization: Bearer) or in the URL\'s path or query';
  }
  return null;
}

/** An http(s) URL that may carry a secret (a webhook's token): errors never show it. */
export function secretUrl(doc: string): Field<string> {
  const expected = 'an http:// or https:// URL without user:password';
  return {
    kind: 'field',
    default: '',
    doc,
    expected,
    parse(value, path) {
      const problem = sendUrlProblem(value);
      if (problem === null) return value as string;
      throw new ConfigError(`config key "${path}" ${problem} (value hidden: these URLs carry tokens)`);
    },
  };
}

/** An http(s) URL that may carry a secret (a push monitor's token), or null; errors never show it. */
export function optionalSecretUrl(doc: string): Field<string | null> {
  const url = secretUrl(doc);
  return {
    ...url,
    default: null,
    expected: `null or ${url.expected}`,
    parse: (value, path) => (value === null ? null : url.parse(value, path)),
  };
}

/** A time of day, `HH:MM` on a 24-hour clock. */
export function timeOfDay(def: string, doc: string): Field<string> {
  return str(def, doc, 'a time of day "HH:MM" (00:00 to 23:59)', /^([01]\d|2[0-3]):[0-5]\d$/);
}

/** A time of day `HH:MM`, or null. */
export function optionalTimeOfDay(doc: string): Field<string | null> {
  return field<string | null>(null, doc, 'null or a time of day "HH:MM" (00:00 to 23:59)', (v) =>
    v === null || (typeof v === 'string' && /^([01]\d|2[0-3]):[0-5]\d$/.test(v)) ? v : undefined,
  );
}

/** An IANA time zone name (`Europe/Berlin`, `Asia/Shanghai`), or null for the system's. */
export function optionalTimeZone(doc: string): Field<string | null> {
  return field<string | null>(null, doc, 'null or an IANA time zone name such as "Europe/Berlin"', (v) => {
    if (v === null) return null;
    if (typeof v !== 'string' || v.trim() === '') return undefined;
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: v });
      return v;
    } catch {
      return undefined;
    }
  });
}

/**
 * A `redis://` or `rediss://` (TLS) URL or null, checked by the same reader the
 * fleet link connects with; errors never show it (it may carry a password).
 */
export function optionalRedisUrl(doc: string): Field<string | null> {
  const expected = 'null or a redis:// or rediss:// URL';
  return {
    kind: 'field',
    default: null,
    doc,
    expected,
    parse(value, path) {
      if (value === null) return null;
      const problem = typeof value === 'string' ? redisUrlProblem(value) : 'not a string';
      if (typeof value === 'string' && problem === null) return value;
      throw new ConfigError(
        `config key "${path}" is not ${expected}: ${problem} (value hidden: it may carry a password)`,
      );
    },
  };
}

/**
 * A command as an argument vector (run without a shell, so nothing needs
 * quoting), or null for "choose automatically".
 */
export function optionalArgv(doc: string): Field<string[] | null> {
  return field<string[] | null>(
    null,
    doc,
    'null or a non-empty list of strings (program first, e.g. ["openclaw", "gateway", "restart"])',
    (v) =>
      v === null ||
      (Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string') && String(v[0]).trim() !== '')
        ? (v as string[] | null)
        : undefined,
  );
}

/** A list of strings, each one of `options` (or `*` for all when `wildcard`). */
export function listOf<const T extends string>(
  def: T[],
  options: readonly T[],
  doc: string,
  wildcard = false,
): Field<Array<T | '*'>> {
  const allowed: readonly string[] = wildcard ? [...options, '*'] : options;
  return field<Array<T | '*'>>(def, doc, `a list of ${allowed.map((o) => `"${o}"`).join(', ')}`, (v) =>
    Array.isArray(v) && v.length > 0 && v.every((o) => typeof o === 'string' && allowed.includes(o))
      ? (v as Array<T | '*'>)
      : undefined,
  );
}

/**
 * An object whose keys the user chooses (dependency patterns, say), each value a
 * partial `shape`: only the keys given are set, so an override changes nothing
 * else. Keys are checked with `keyPattern`.
 */
export function record<S extends Shape>(
  shape: S,
  doc: string,
  keyPattern: RegExp,
  keyExpected: string,
): Field<Record<string, Partial<Infer<Group<S>>>>> {
  const node = group(shape);
  const expected = `an object of ${keyExpected} → settings`;
  return {
    kind: 'field',
    default: {},
    doc,
    expected,
    items: { each: 'record', node },
    parse(value, path) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new ConfigError(`config key "${path}" is ${show(value)}, expected ${expected}`);
      }
      const out: Record<string, Partial<Infer<Group<S>>>> = {};
      for (const [key, settings] of Object.entries(value)) {
        if (!keyPattern.test(key))
          throw new ConfigError(`config key "${path}" has key ${show(key)}, expected ${keyExpected}`);
        out[key] = parsePartial(node, settings, `${path}.${key}`);
      }
      return out;
    },
  };
}

/** A list of complete `shape` objects (every key of the shape required unless it has a default). */
export function list<S extends Shape>(
  shape: S,
  doc: string,
  itemExpected: string,
  required: ReadonlyArray<keyof S & string> = [],
): Field<Array<Infer<Group<S>>>> {
  const node = group(shape);
  return {
    kind: 'field',
    default: [],
    doc,
    expected: `a list of ${itemExpected}`,
    items: { each: 'list', node },
    parse(value, path) {
      if (!Array.isArray(value))
        throw new ConfigError(`config key "${path}" is ${show(value)}, expected a list of ${itemExpected}`);
      return value.map((item, i) => {
        for (const key of required) {
          if (typeof item === 'object' && item !== null && !(key in item)) {
            throw new ConfigError(
              `config key "${path}[${i}]" lacks "${key}" (${node.shape[key]?.kind === 'field' ? (node.shape[key] as Field<unknown>).expected : 'required'})`,
            );
          }
        }
        return parseWith(node, item, `${path}[${i}]`);
      });
    },
  };
}

function parsePartial<S extends Shape>(node: Group<S>, input: unknown, prefix: string): Partial<Infer<Group<S>>> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ConfigError(`config key "${prefix}" is ${show(input)}, expected an object`);
  }
  const full = parseWith(node, input, prefix) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(input)) out[key] = full[key];
  return out as Partial<Infer<Group<S>>>;
}

export function group<S extends Shape>(shape: S, upgrade?: (value: unknown) => unknown): Group<S> {
  return upgrade ? { kind: 'group', shape, upgrade } : { kind: 'group', shape };
}

export function defaultsOf<S extends Shape>(node: Group<S>): Infer<Group<S>> {
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(node.shape)) {
    out[key] = child.kind === 'field' ? child.default : defaultsOf(child);
  }
  return out as Infer<Group<S>>;
}

/** Validates `input` against the schema; missing keys take their defaults, unknown keys are errors. */
export function parseWith<S extends Shape>(node: Group<S>, input: unknown, prefix = ''): Infer<Group<S>> {
  if (input === undefined) return defaultsOf(node);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ConfigError(`config ${prefix ? `key "${prefix}"` : 'file'} is ${show(input)}, expected an object`);
  }
  const out: Record<string, unknown> = {};
  const known = Object.keys(node.shape);
  for (const key of Object.keys(input)) {
    if (!known.includes(key)) {
      const path = prefix ? `${prefix}.${key}` : key;
      const hint = closest(key, known);
      if (hint)
        throw new ConfigError(`unknown config key "${path}" (did you mean "${prefix ? `${prefix}.` : ''}${hint}"?)`);
      const regrouped = regroupedKey(node, prefix, key, (input as Record<string, unknown>)[key]);
      throw new ConfigError(
        regrouped
          ? `unknown config key "${regrouped.written}" (did you mean "${regrouped.meant}"?)`
          : `unknown config key "${path}"`,
      );
    }
  }
  for (const [key, child] of Object.entries(node.shape)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const value = (input as Record<string, unknown>)[key];
    if (child.kind === 'group') out[key] = parseWith(child, child.upgrade ? child.upgrade(value) : value, path);
    else out[key] = value === undefined ? child.default : child.parse(value, path);
  }
  return out as Infer<Group<S>>;
}

/**
 * `input` with every value written in an older form of its group read as the group (see `Group.upgrade`),
 * keys otherwise as written: what an editor of the file should show and write back.
 */
export function upgradeRaw(node: Group<Shape>, input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input };
  for (const [key, child] of Object.entries(node.shape)) {
    if (child.kind !== 'group' || !Object.hasOwn(input, key)) continue;
    const value = child.upgrade ? child.upgrade(input[key]) : input[key];
    out[key] =
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? upgradeRaw(child, value as Record<string, unknown>)
        : value;
  }
  return out;
}

/** Every field with its dotted path, for documentation and `breakerbar config`. */
export function describeFields(node: Group<Shape>, prefix = ''): Array<{ path: string; field: Field<unknown> }> {
  return Object.entries(node.shape).flatMap(([key, child]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return child.kind === 'field' ? [{ path, field: child }] : describeFields(child, path);
  });
}

/** Every dotted path a value holds: `{token: "x"}` under `gateway` is `gateway.token`. */
function pathsIn(value: unknown, path: string): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [path];
  const entries = Object.entries(value);
  return entries.length === 0 ? [path] : entries.flatMap(([key, child]) => pathsIn(child, `${path}.${key}`));
}

/**
 * A key written as a group that the schema spells flat, or the other way round: `gateway.token` for
 * `gatewayToken`, `watchdog.dry.run` for `watchdog.dryRun`. Paths match when they agree letter for letter
 * once dots and case are ignored.
 */
function regroupedKey(
  node: Group<Shape>,
  prefix: string,
  key: string,
  value: unknown,
): { written: string; meant: string } | undefined {
  const flat = (path: string) => path.replace(/\./g, '').toLowerCase();
  const fields = describeFields(node, prefix).map(({ path }) => path);
  for (const written of pathsIn(value, prefix ? `${prefix}.${key}` : key)) {
    const meant = fields.find((path) => flat(path) === flat(written));
    if (meant) return { written, meant };
  }
  return undefined;
}

/**
 * Every field with its dotted path, those inside records and lists too: a record's entries are written
 * `path.*.key`, a list's items `path[].key`.
 */
export function allFields(node: Group<Shape>, prefix = ''): Array<{ path: string; field: Field<unknown> }> {
  return describeFields(node, prefix).flatMap((entry) => {
    const items = entry.field.items;
    if (!items) return [entry];
    return [entry, ...allFields(items.node, `${entry.path}${items.each === 'record' ? '.*' : '[]'}`)];
  });
}

function closest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
