/**
 * The settings form's logic, apart from the DOM (tested in Node): which control
 * edits a config key (from the schema's own default and wording, the one place
 * each fact lives), what the control's text means as a value, and the file to
 * save: what is written now plus the changed keys only, so defaults the user
 * never touched stay out of the file and keep following BreakerBar's defaults.
 */
import type { ConfigField } from '../main/api/types.js';
import { type Translator, translator } from '../main/words/messages/index.js';

export type ControlKind = 'checkbox' | 'select' | 'number' | 'text' | 'nullable' | 'json';

export interface ControlSpec {
  kind: ControlKind;
  /** `select`: the accepted values, from `expected` ('one of "a", "b"'). */
  options: string[];
  /** Shown masked (tokens, secrets). */
  secret: boolean;
}

const SECRET_PATH = /(token|secret|password)$/i;

export function controlFor(field: ConfigField): ControlSpec {
  const secret = SECRET_PATH.test(field.path);
  const value = field.default;
  if (typeof value === 'boolean') return { kind: 'checkbox', options: [], secret };
  if (typeof value === 'string' && field.expected.startsWith('one of ')) {
    const options = [...field.expected.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
    if (options.length > 0) return { kind: 'select', options, secret };
  }
  if (typeof value === 'number') return { kind: 'number', options: [], secret };
  if (typeof value === 'string') return { kind: 'text', options: [], secret };
  if (value === null && !/\blist\b|\bobject\b/.test(field.expected)) return { kind: 'nullable', options: [], secret };
  return { kind: 'json', options: [], secret };
}

export function getPath(object: Record<string, unknown>, path: string): { found: boolean; value: unknown } {
  let node: unknown = object;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, key)) {
      return { found: false, value: undefined };
    }
    node = (node as Record<string, unknown>)[key];
  }
  return { found: true, value: node };
}

/** A copy of `object` with `path` set to `value` (intermediate objects created as needed). */
export function setPath(object: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  const copy = { ...object };
  if (rest.length === 0) {
    copy[head] = value;
    return copy;
  }
  const child = copy[head];
  const base =
    typeof child === 'object' && child !== null && !Array.isArray(child) ? (child as Record<string, unknown>) : {};
  copy[head] = setPath(base, rest.join('.'), value);
  return copy;
}

/** What the key is now: the file's value when it sets one, else the default. */
export function currentValue(field: ConfigField, raw: Record<string, unknown>): unknown {
  const written = getPath(raw, field.path);
  return written.found ? written.value : field.default;
}

/** The control's text for a value. */
export function formatValue(spec: ControlSpec, value: unknown): string {
  switch (spec.kind) {
    case 'checkbox':
      return value === true ? 'true' : 'false';
    case 'select':
    case 'text':
      return typeof value === 'string' ? value : JSON.stringify(value ?? '');
    case 'number':
      return typeof value === 'number' ? String(value) : '';
    case 'nullable':
      return value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
    case 'json':
      return JSON.stringify(value ?? null, null, 2);
  }
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * The value a control's text stands for, or why it stands for none (in the translator's language). Only the shape is checked here (a number is a number, JSON
 * parses); ranges and formats are the server's to judge, so there is one validation and one wording.
 */
export function parseValue(
  spec: ControlSpec,
  field: ConfigField,
  input: string | boolean,
  t: Translator = translator('en'),
): Parsed {
  if (spec.kind === 'checkbox') return { ok: true, value: input === true };
  const text = String(input);
  switch (spec.kind) {
    case 'select':
    case 'text':
      return { ok: true, value: text };
    case 'number': {
      const trimmed = text.trim();
      const value = Number(trimmed);
      if (trimmed === '' || !Number.isFinite(value))
        return { ok: false, error: t.t('views.settings.notNumber', { expected: field.expected }) };
      return { ok: true, value };
    }
    case 'nullable': {
      const trimmed = text.trim();
      if (trimmed === '') return { ok: true, value: null };
      // "null or an integer …": a number typed in means the number.
      if (/\b(integer|number)\b/.test(field.expected) && /^-?\d+(\.\d+)?$/.test(trimmed)) {
        return { ok: true, value: Number(trimmed) };
      }
      return { ok: true, value: text };
    }
    case 'json': {
      try {
        return { ok: true, value: JSON.parse(text) };
      } catch {
        return { ok: false, error: t.t('views.settings.notJson', { expected: field.expected }) };
      }
    }
  }
}

export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The file to write: `raw` with each changed key set. */
export function withChanges(
  raw: Record<string, unknown>,
  changes: ReadonlyMap<string, unknown>,
): Record<string, unknown> {
  let next = raw;
  for (const [path, value] of changes) next = setPath(next, path, value);
  return next;
}

/**
 * The form field a server error points at. `param` is a key path; for a key inside a list or a
 * per-dependency record (`breakers.overrides.zhipu/*.cooldownMs`) it is the field that holds it.
 */
export function fieldForParam(fields: readonly ConfigField[], param: string | undefined): string | null {
  if (param === undefined) return null;
  let best: string | null = null;
  for (const { path } of fields) {
    if (
      (param === path || param.startsWith(`${path}.`) || param.startsWith(`${path}[`)) &&
      path.length > (best?.length ?? -1)
    ) {
      best = path;
    }
  }
  return best;
}
