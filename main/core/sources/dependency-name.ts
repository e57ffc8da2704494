/**
 * Which provider and model names may name a dependency. A dependency's name becomes a breaker, a metrics
 * label, a notification and a dashboard row; a name holding U+FFFD (bytes that were not valid UTF-8, replaced
 * when decoded) or control characters is a damaged record, not a model: storing it would make a dependency
 * like `zhipu/glm-����` that no one can read, match or silence.
 */

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `name` cannot be part of a dependency's name, or null when it can. */
export function nameProblem(name: string): string | null {
  if (name.includes('\uFFFD')) return 'invalid UTF-8';
  if (CONTROL.test(name)) return 'control characters';
  return null;
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
  return name.replace(
    /[\u0000-\u001f\u007f-\u009f\uFFFD]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
