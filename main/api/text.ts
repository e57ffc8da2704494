/**
 * Text checks every API input shares, browser-safe: the server's parsers and
 * the app's IPC check use the same rules.
 */

/** The longest dependency key (`provider/model`) accepted anywhere in the API. */
export const MAX_DEP_LENGTH = 256;
/** The longest operator reason: it reaches logs and notifications. */
export const MAX_REASON_LENGTH = 200;

/** An argument that failed a check: which one, and why (the 400 body's `param` and `error`). */
export type Refusal = { ok: false; param: string; error: string };
export type Parsed<T> = { ok: true; value: T } | Refusal;

export function refuse(param: string, error: string): Refusal {
  return { ok: false, param, error };
}

export function safeDecode(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

export function hasControlChars(value: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  return /[\u0000-\u001f\u007f]/.test(value);
}

/** Paths are attacker-controlled: shortened and made printable before they reach a log line. */
export function clipForLog(value: string, max = 200): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > max ? `${printable.slice(0, max)}…` : printable;
}
