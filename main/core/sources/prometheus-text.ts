/**
 * A parser for the Prometheus text exposition format 0.0.4, the format
 * OpenClaw's `diagnostics-prometheus` plugin serves. Only what BreakerBar needs:
 * samples (name, labels, value); HELP, TYPE and other comments are skipped.
 * A line that does not parse is reported and skipped: one odd line must not
 * cost the rest of a scrape, and a scrape must never throw.
 */

export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedExposition {
  samples: PrometheusSample[];
  /** One entry per skipped line: `line <n>: <reason>`. */
  errors: string[];
}

const NAME_START = /[a-zA-Z_:]/;
const NAME_CHAR = /[a-zA-Z0-9_:]/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** Go's ParseFloat forms a Prometheus value may take, Inf and NaN in any case. */
const VALUE = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)$/i;
const TIMESTAMP = /^-?\d+$/;

class LineError extends Error {}

export function parsePrometheusText(text: string): ParsedExposition {
  const samples: PrometheusSample[] = [];
  const errors: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, '').trim();
    if (line === '' || line.startsWith('#')) continue;
    try {
      samples.push(parseSampleLine(line));
    } catch (error) {
      if (!(error instanceof LineError)) throw error;
      errors.push(`line ${i + 1}: ${error.message}`);
    }
  }
  return { samples, errors };
}

/** A cursor over one line; every read either advances or throws a LineError. */
class Cursor {
  pos = 0;
  constructor(readonly line: string) {}

  get done(): boolean {
    return this.pos >= this.line.length;
  }

  peek(): string | undefined {
    return this.line[this.pos];
  }

  skipBlanks(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  expect(char: string, what: string): void {
    if (this.peek() !== char) throw new LineError(`expected ${what} at column ${this.pos + 1}`);
    this.pos++;
  }
}

function parseSampleLine(line: string): PrometheusSample {
  const cursor = new Cursor(line);
  const name = readMetricName(cursor);
  cursor.skipBlanks();
  const labels = cursor.peek() === '{' ? readLabels(cursor) : {};
  const rest = line
    .slice(cursor.pos)
    .trim()
    .split(/[ \t]+/);
  const [valueText, timestamp, extra] = rest;
  if (valueText === undefined || valueText === '') throw new LineError(`no value for ${name}`);
  if (!VALUE.test(valueText)) throw new LineError(`value "${short(valueText)}" is not a number`);
  if (timestamp !== undefined && !TIMESTAMP.test(timestamp)) {
    throw new LineError(`timestamp "${short(timestamp)}" is not an integer`);
  }
  if (extra !== undefined) throw new LineError('unexpected text after the timestamp');
  return { name, labels, value: parseValue(valueText) };
}

function readMetricName(cursor: Cursor): string {
  const start = cursor.pos;
  if (!NAME_START.test(cursor.peek() ?? '')) throw new LineError('a sample must start with a metric name');
  cursor.pos++;
  while (!cursor.done && NAME_CHAR.test(cursor.peek() as string)) cursor.pos++;
  return cursor.line.slice(start, cursor.pos);
}

function readLabels(cursor: Cursor): Record<string, string> {
  const labels: Record<string, string> = {};
  cursor.expect('{', '"{"');
  for (;;) {
    cursor.skipBlanks();
    if (cursor.peek() === '}') break;
    const name = readLabelName(cursor);
    if (Object.hasOwn(labels, name)) throw new LineError(`label "${name}" appears twice`);
    cursor.skipBlanks();
    cursor.expect('=', `"=" after label "${name}"`);
    cursor.skipBlanks();
    labels[name] = readLabelValue(cursor);
    cursor.skipBlanks();
    // A trailing comma before "}" is allowed by the format.
    if (cursor.peek() === ',') cursor.pos++;
    else if (cursor.peek() !== '}') throw new LineError(`expected "," or "}" at column ${cursor.pos + 1}`);
  }
  cursor.expect('}', '"}"');
  return labels;
}

function readLabelName(cursor: Cursor): string {
  const start = cursor.pos;
  while (!cursor.done && /[a-zA-Z0-9_]/.test(cursor.peek() as string)) cursor.pos++;
  const name = cursor.line.slice(start, cursor.pos);
  if (!LABEL_NAME.test(name)) throw new LineError(`expected a label name at column ${start + 1}`);
  return name;
}

/** A quoted label value; `\\`, `\"` and `\n` are the format's escapes, any other backslash is kept as written. */
function readLabelValue(cursor: Cursor): string {
  cursor.expect('"', 'a quoted label value');
  let value = '';
  for (;;) {
    const char = cursor.peek();
    if (char === undefined) throw new LineError('unterminated label value');
    cursor.pos++;
    if (char === '"') return value;
    if (char !== '\\') {
      value += char;
      continue;
    }
    const escaped = cursor.peek();
    if (escaped === undefined) throw new LineError('unterminated label value');
    cursor.pos++;
    if (escaped === 'n') value += '\n';
    else if (escaped === '\\' || escaped === '"') value += escaped;
    else value += `\\${escaped}`;
  }
}

function parseValue(text: string): number {
  const lower = text.toLowerCase();
  if (lower.endsWith('inf') || lower.endsWith('infinity')) {
    return lower.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  if (lower.endsWith('nan')) return Number.NaN;
  return Number(text);
}

function short(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/**
 * A series' identity: the name and its labels sorted by name, written as the
 * exposition format writes them, so the same series always gives the same key
 * whatever order the exporter printed its labels in.
 */
export function seriesKey(name: string, labels: Readonly<Record<string, string>>): string {
  const names = Object.keys(labels).sort();
  if (names.length === 0) return name;
  return `${name}{${names.map((label) => `${label}="${escapeLabelValue(labels[label] as string)}"`).join(',')}}`;
}
