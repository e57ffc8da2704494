/**
 * How a code and its facts are kept in a column that once held an English line: the JSON of the object, except a
 * line kept as it was (`{ code: 'text' }`, a row stored by an older BreakerBar or a line from elsewhere), which
 * stays the line. Breaker reasons, probe details and decision reasons share this form; each names its own codes.
 */

/** A code and its facts, or a line kept as it is. */
export type Coded = { code: string } | { code: 'text'; text: string };

/** The column's text for `value`. */
export function encodeCoded(value: Coded): string {
  return value.code === 'text' && 'text' in value ? value.text : JSON.stringify(value);
}

/**
 * The column's text read back: an object with one of `codes` as its code, or the stored text as a line (also
 * when it only looks like JSON, or names a code this BreakerBar does not know).
 */
export function decodeCoded<T extends Coded>(
  stored: string,
  codes: readonly T['code'][],
): T | { code: 'text'; text: string } {
  if (stored.startsWith('{')) {
    try {
      const value = JSON.parse(stored) as { code?: unknown };
      if (typeof value?.code === 'string' && (codes as readonly string[]).includes(value.code)) return value as T;
    } catch {
      // Not JSON after all: a line that happens to start with a brace.
    }
  }
  return { code: 'text', text: stored };
}
