/**
 * Which provider and model names may name a dependency. A dependency's name becomes a breaker, a metrics
 * label, a notification and a dashboard row; a name holding U+FFFD (bytes that were not valid UTF-8, replaced
 * when decoded) or control characters is a damaged record, not a model: storing it would make a dependency
 * like `zhipu/glm-����` that no one can read, match or silence.
 */

/** C0 controls, DEL and C1 controls (checked by code, not by a regular expression of control characters). */
function isControl(code: number): boolean {
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
}

const REPLACEMENT = 0xfffd;

/** Why `name` cannot be part of a dependency's name, or null when it can. */
export function nameProblem(name: string): string | null {
  let control = false;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code === REPLACEMENT) return 'invalid UTF-8';
    if (isControl(code)) control = true;
  }
  return control ? 'control characters' : null;
}

/** The first problem of a provider/model pair, worded for a log line or a count ("model name: invalid UTF-8"). */
export function dependencyNameProblem(provider: string | null, model: string | null): string | null {
  const p = provider === null ? null : nameProblem(provider);
  if (p !== null) return `provider name has ${p}`;
  const m = model === null ? null : nameProblem(model);
  return m === null ? null : `model name has ${m}`;
}

/**
 * A name shown as text where it cannot be refused (a label read from someone else's metrics): each damaged
 * character becomes a visible escape (`\uFFFD`, `\u0007`), so the name stays printable and its damage visible.
 */
export function escapedName(name: string): string {
  if (nameProblem(name) === null) return name;
  let out = '';
  for (const c of name) {
    const code = c.charCodeAt(0);
    out += code === REPLACEMENT || isControl(code) ? `\\u${code.toString(16).padStart(4, '0')}` : c;
  }
  return out;
}
