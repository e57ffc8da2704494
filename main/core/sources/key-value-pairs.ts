/**
 * The `key=value` pairs of a gateway console message, read the way OpenClaw writes
 * them (quotes it does not escape included), so a signal's fields can be read by
 * name from the console text as well as from the structured fields.
 */

/**
 * The `key=value` pairs of a console message (`decision=candidate_failed
 * error="FailoverError: ⚠️ …"`). Quoted values may hold spaces and JSON-style
 * escapes; words that are not pairs (`…`) are skipped; the first pair of a name wins.
 */
export function parseKeyValues(text: string): Map<string, string> {
  const pairs = new Map<string, string>();
  const key = /([A-Za-z_][\w.-]*)=/y;
  let i = 0;
  while (i < text.length) {
    i = skipSpace(text, i);
    key.lastIndex = i;
    const match = key.exec(text);
    if (match === null) {
      i = nextSpace(text, i);
      continue;
    }
    const value = text[key.lastIndex] === '"' ? quotedValue(text, key.lastIndex) : bareValue(text, key.lastIndex);
    const name = match[1] as string;
    if (!pairs.has(name)) pairs.set(name, value.value);
    i = value.next;
  }
  return pairs;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i] as string)) i++;
  return i;
}

function nextSpace(text: string, i: number): number {
  while (i < text.length && !/\s/.test(text[i] as string)) i++;
  return i;
}

function bareValue(text: string, start: number): { value: string; next: number } {
  const end = nextSpace(text, start);
  return { value: text.slice(start, end), next: end };
}

/**
 * A value in double quotes starting at `open`; an unterminated one runs to the end
 * of the text. OpenClaw does not escape quotes inside a value (`error="Inline API key
 * for provider "mockauth" is temporarily disabled…"`), so a quote closes the value
 * only where the text ends or the next pair begins.
 */
function quotedValue(text: string, open: number): { value: string; next: number } {
  let i = open + 1;
  while (i < text.length && !(text[i] === '"' && closesValue(text, i + 1))) i += text[i] === '\\' ? 2 : 1;
  const raw = text.slice(open + 1, Math.min(i, text.length));
  return { value: unescapeValue(raw), next: i + 1 };
}

const NEXT_PAIR = /\s+[A-Za-z_][\w.-]*=/y;

function closesValue(text: string, after: number): boolean {
  if (after >= text.length) return true;
  NEXT_PAIR.lastIndex = after;
  return NEXT_PAIR.test(text);
}

function unescapeValue(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    // Not JSON's escapes (a raw tab, `\'`): keep the escaped characters themselves.
    return raw.replace(/\\(.)/gs, '$1');
  }
}
