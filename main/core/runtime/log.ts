/**
 * Structured logs: one JSON object per line for services and log collectors,
 * short human lines on a terminal. Never pass message content, tokens or secrets.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, string | number | boolean | null | undefined>;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Human text instead of JSON (defaults to whether the stream is a terminal). */
  human?: boolean;
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  clock?: () => number;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const stream = options.stream ?? process.stderr;
  const threshold = RANK[options.level ?? 'info'];
  const human = options.human ?? stream.isTTY === true;
  const clock = options.clock ?? Date.now;
  const write = (level: LogLevel, msg: string, fields: LogFields = {}) => {
    if (RANK[level] < threshold) return;
    const time = new Date(clock()).toISOString();
    if (human) {
      const extra = Object.entries(fields)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${typeof v === 'string' && /\s/.test(v) ? JSON.stringify(v) : v}`)
        .join(' ');
      const tag = level === 'info' ? '' : `${level.toUpperCase()} `;
      stream.write(`${time.slice(11, 19)} ${tag}${msg}${extra ? `  ${extra}` : ''}\n`);
    } else {
      stream.write(`${JSON.stringify({ time, level, msg, ...fields })}\n`);
    }
  };
  return {
    debug: (msg, fields) => write('debug', msg, fields),
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
  };
}

/** A logger that drops everything (tests, offline commands). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
