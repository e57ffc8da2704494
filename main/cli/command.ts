/**
 * What every subcommand has in common: its options, its help text, and clear
 * errors for bad flags. A usage error exits with 2, a failure with 1.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface Io {
  out(text: string): void;
  err(text: string): void;
  isTTY: boolean;
}

export const processIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  isTTY: process.stdout.isTTY === true,
};

export interface Parsed {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
}

export interface Command {
  name: string;
  summary: string;
  /** Full help: usage line, description, options. */
  help: string;
  options: Options;
  positionals: boolean;
  run(args: Parsed, io: Io): Promise<number>;
}

/** A mistake in how the command was called: printed with a pointer to --help, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseCommandArgs(command: Command, argv: string[]): Parsed {
  try {
    const parsed = parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: command.positionals,
      strict: true,
    });
    return { values: parsed.values as Parsed['values'], positionals: parsed.positionals };
  } catch (error) {
    // Node's messages name the flag ("Unknown option '--jsn'"); keep them, drop the noise.
    const message = (error as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    throw new UsageError(message);
  }
}

export function stringOption(args: Parsed, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function stringList(args: Parsed, name: string): string[] {
  const value = args.values[name];
  return Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string')
    : typeof value === 'string'
      ? [value]
      : [];
}

export function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} "${value}" is not a positive whole number`);
  return n;
}

const RELATIVE = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/;
const UNIT_MS: Record<string, number> = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 };

/** `--since`/`--until`: an ISO date or time, or a duration back from now (`90m`, `24h`, `7d`). */
export function parseTimeOption(flag: string, value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const relative = RELATIVE.exec(value.trim());
  if (relative) return now - Number(relative[1]) * (UNIT_MS[relative[2] as string] as number);
  const parsed = Date.parse(value);
  if (!Number.isFinite(parsed)) {
    throw new UsageError(
      `${flag} "${value}" is not a time: use ISO 8601 (2026-11-30 or 2026-11-30T08:00:00Z) or a duration like 24h or 7d`,
    );
  }
  return parsed;
}

/** Renders rows as aligned columns; the first row is the header. */
/**
 * Columns a text takes in a terminal: East Asian wide characters (CJK, full-width forms) take two, so that
 * Chinese labels line up with the rest.
 */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const wide =
      (code >= 0x1100 && code <= 0x115f) ||
      (code >= 0x2e80 && code <= 0xa4cf) ||
      (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xfe30 && code <= 0xfe4f) ||
      (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) ||
      (code >= 0x20000 && code <= 0x3fffd);
    width += wide ? 2 : 1;
  }
  return width;
}

function pad(text: string, width: number, start: boolean): string {
  const room = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return start ? `${room}${text}` : `${text}${room}`;
}

export function table(rows: Array<Array<string | number>>): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, displayWidth(String(cell)));
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) =>
          typeof cell === 'number' ? pad(String(cell), widths[i] ?? 0, true) : pad(cell, widths[i] ?? 0, false),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
