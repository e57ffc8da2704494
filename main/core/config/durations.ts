/**
 * The schema's durations as a whole: every duration field with its unit, a value with each duration changed
 * (the rehearsal compresses them), and a group's value in milliseconds (`inMs`), the form the parts take their
 * timings in. Each field states its unit (`seconds`, `millis` in schema.ts), so this is the one place that
 * converts.
 */
import { allFields, type DurationUnit, type Group, type Infer, type Shape, toMs } from './schema.js';

/** Every duration field of the schema (inside records and lists too) with its unit. */
export function durationFields(node: Group<Shape>): Array<{ path: string; unit: DurationUnit }> {
  return allFields(node).flatMap(({ path, field }) => (field.unit ? [{ path, unit: field.unit }] : []));
}

/**
 * `value` (parsed with `node`) with every duration replaced by `change(duration, unit, path)`; paths are written
 * as `allFields` writes them. Keys absent from a record's partial settings stay absent.
 */
export function mapDurations<T>(
  node: Group<Shape>,
  value: T,
  change: (duration: number, unit: DurationUnit, path: string) => number,
  prefix = '',
): T {
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, child] of Object.entries(node.shape)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const current = out[key];
    if (current === undefined) continue;
    if (child.kind === 'group') {
      out[key] = mapDurations(child, current, change, path);
    } else if (child.unit && typeof current === 'number') {
      out[key] = change(current, child.unit, path);
    } else if (child.items?.each === 'record' && typeof current === 'object' && current !== null) {
      const items = child.items;
      out[key] = Object.fromEntries(
        Object.entries(current).map(([k, v]) => [k, mapDurations(items.node, v, change, `${path}.*`)]),
      );
    } else if (child.items?.each === 'list' && Array.isArray(current)) {
      const items = child.items;
      out[key] = current.map((v) => mapDurations(items.node, v, change, `${path}[]`));
    }
  }
  return out as T;
}

/** A key as settings name it once its duration is in milliseconds: `…Sec` becomes `…Ms` (`…Ms` stays). */
type MsKey<K> = K extends `${infer Stem}Sec` ? `${Stem}Ms` : K extends 'sec' ? 'ms' : K;

/**
 * A group's value with every duration in milliseconds under a `…Ms` key, in nested groups, records and lists
 * too: the shape the parts of BreakerBar take their timings in (timers and clocks count milliseconds).
 */
export type InMs<T> = T extends readonly (infer E)[]
  ? InMs<E>[]
  : T extends object
    ? { [K in keyof T as MsKey<K>]: InMs<T[K]> }
    : T;

const msKey = (key: string, unit: DurationUnit): string =>
  unit === 'sec' ? (key === 'sec' ? 'ms' : key.replace(/Sec$/, 'Ms')) : key;

/**
 * `value` (parsed with `node`) with each duration converted to milliseconds by the unit its field declares and
 * its key renamed to match (`checkIntervalSec: 60` becomes `checkIntervalMs: 60000`), so that no part converts
 * by hand: the schema, which states every unit, is the one place that knows it.
 */
export function inMs<S extends Shape>(node: Group<S>, value: Infer<Group<S>>): InMs<Infer<Group<S>>> {
  return convertedToMs(node, value) as InMs<Infer<Group<S>>>;
}

function convertedToMs(node: Group<Shape>, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, current] of Object.entries(value)) {
    const child = node.shape[key];
    if (child?.kind === 'group') out[key] = convertedToMs(child, current);
    else if (child?.unit && typeof current === 'number') out[msKey(key, child.unit)] = toMs(current, child.unit);
    else if (child?.items?.each === 'record' && typeof current === 'object' && current !== null) {
      const items = child.items;
      out[key] = Object.fromEntries(Object.entries(current).map(([k, v]) => [k, convertedToMs(items.node, v)]));
    } else if (child?.items?.each === 'list' && Array.isArray(current)) {
      const items = child.items;
      out[key] = current.map((v) => convertedToMs(items.node, v));
    } else out[key] = current;
  }
  return out;
}
