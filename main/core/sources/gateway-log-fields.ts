/**
 * A gateway-log line's fields by name, short and capped: what signals and attempts
 * are read from, so that a garbled or hostile line can neither bloat the store nor
 * name a damaged dependency.
 */
import { dependencyNameProblem, nameProblem } from './dependency-name.js';
import type { JsonObject } from './tslog-line.js';

type Scalar = string | number | boolean;

/** Ids, reasons and dependency names are short; a longer value is cut so a garbled line cannot bloat the store. */
export const VALUE_MAX = 200;

/** A signal's fields by name: structured fields first, then the console text's pairs. */
export class Fields {
  constructor(
    private readonly pairs: Map<string, string>,
    private readonly object: JsonObject | null,
  ) {}

  private raw(name: string): Scalar | null {
    if (this.object !== null && Object.hasOwn(this.object, name)) {
      const value = this.object[name];
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
    }
    return this.pairs.get(name) ?? null;
  }

  /** The whole text of a field (error text), or null when absent or empty. */
  text(name: string): string | null {
    const value = this.raw(name);
    if (value === null) return null;
    const text = String(value).trim();
    return text === '' ? null : text;
  }

  /** A short field (id, reason, dependency), capped. */
  str(name: string): string | null {
    const text = this.text(name);
    return text === null ? null : cutCodePoints(text, VALUE_MAX);
  }

  num(name: string): number | null {
    const value = this.raw(name);
    if (typeof value === 'number') return Number.isFinite(value) ? value : null;
    return typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : null;
  }

  /** `provider/model`: from `<prefix>Provider` and `<prefix>Model`, else the `<prefix>` pair itself. */
  dep(prefix: string): string | null {
    const provider = this.str(`${prefix}Provider`);
    const model = this.str(`${prefix}Model`);
    const dep =
      provider !== null && model !== null
        ? `${provider}/${model}`
        : (this.str(prefix) ?? (model?.includes('/') ? model : null));
    // A damaged name is no dependency (see dependency-name.ts): the decision names none.
    return dep !== null && nameProblem(dep) !== null ? null : dep;
  }

  /** `provider/model` from plain `provider` and `model` fields. */
  providerModel(): string | null {
    const provider = this.str('provider');
    const model = this.str('model');
    if (dependencyNameProblem(provider, model) !== null) return null;
    return provider !== null && model !== null ? `${provider}/${model}` : null;
  }

  /** The first of `names` that holds a real HTTP status. */
  httpStatus(...names: string[]): number | null {
    for (const name of names) {
      const value = this.num(name);
      if (value !== null && Number.isInteger(value) && value >= 100 && value <= 599) return value;
    }
    return null;
  }
}

/** At most `max` characters, never splitting a surrogate pair (an emoji in an error text). */
export function cutCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
