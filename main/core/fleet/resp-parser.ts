/**
 * RESP2, the wire format Redis speaks: encoding commands (arrays of bulk
 * strings) and parsing replies incrementally. TCP delivers replies in chunks
 * cut anywhere — inside a length line, inside a bulk string, between the bytes
 * of one UTF-8 character — so the parser keeps its position across `push`
 * calls and works on bytes, decoding text only once a whole value has arrived.
 * It never re-reads what it already consumed (nested arrays are kept on a
 * stack), so a large reply in many chunks costs linear time.
 */

/** An error reply (`-ERR …`): Redis understood the command and refused it. */
export class RedisError extends Error {
  override name = 'RedisError';
}

/** The byte stream is not RESP2 (or exceeds our limits): the connection cannot be trusted after this. */
export class RespProtocolError extends Error {
  override name = 'RespProtocolError';
}

/**
 * A reply. Simple and bulk strings are both `string`; integers are `number`
 * (Redis integers are 64-bit, ours — counters and fencing tokens — stay far
 * below 2^53); null bulk strings and null arrays are `null`. An error reply
 * at top level rejects the command; inside an array (a script's or EXEC's
 * result) it stays a `RedisError` element.
 */
export type RespValue = string | number | null | RedisError | RespValue[];

const CR = 0x0d;
const LF = 0x0a;
const PLUS = 0x2b;
const MINUS = 0x2d;
const COLON = 0x3a;
const DOLLAR = 0x24;
const STAR = 0x2a;

export interface RespParserLimits {
  /** Longest bulk string accepted. Our replies are small JSON documents; a huge one means a wrong server. */
  maxBulkBytes: number;
  /** Longest header or simple-string line (without CRLF) kept while waiting for its end. */
  maxLineBytes: number;
  /** Most elements in one array. */
  maxArrayLength: number;
}

export const DEFAULT_PARSER_LIMITS: RespParserLimits = {
  maxBulkBytes: 16 * 1024 * 1024,
  maxLineBytes: 64 * 1024,
  maxArrayLength: 1_000_000,
};

interface Frame {
  items: RespValue[];
  remaining: number;
}

export class RespParser {
  private buffer: Buffer = Buffer.alloc(0);
  private offset = 0;
  /** Arrays whose elements are still arriving, innermost last. */
  private readonly stack: Frame[] = [];
  /** A bulk string's length once its header is read, until its body has arrived. */
  private bulkLength: number | null = null;

  constructor(private readonly limits: RespParserLimits = DEFAULT_PARSER_LIMITS) {}

  /** Feeds bytes; returns the top-level values they completed, in order. Throws RespProtocolError on garbage. */
  push(chunk: Buffer): RespValue[] {
    this.buffer = this.offset < this.buffer.length ? Buffer.concat([this.buffer.subarray(this.offset), chunk]) : chunk;
    this.offset = 0;
    const out: RespValue[] = [];
    for (;;) {
      let value: RespValue;
      if (this.bulkLength !== null) {
        const end = this.offset + this.bulkLength;
        if (this.buffer.length < end + 2) break;
        if (this.buffer[end] !== CR || this.buffer[end + 1] !== LF) {
          throw new RespProtocolError('bulk string not terminated by CRLF');
        }
        value = this.buffer.toString('utf8', this.offset, end);
        this.offset = end + 2;
        this.bulkLength = null;
      } else {
        const eol = this.buffer.indexOf('\r\n', this.offset, 'latin1');
        if (eol === -1) {
          if (this.buffer.length - this.offset > this.limits.maxLineBytes) {
            throw new RespProtocolError('reply line too long');
          }
          break;
        }
        const type = this.buffer[this.offset];
        const line = this.buffer.toString('utf8', this.offset + 1, eol);
        this.offset = eol + 2;
        if (type === PLUS) {
          value = line;
        } else if (type === MINUS) {
          value = new RedisError(line);
        } else if (type === COLON) {
          value = parseInteger(line);
        } else if (type === DOLLAR) {
          const length = parseLength(line, this.limits.maxBulkBytes);
          if (length !== -1) {
            this.bulkLength = length;
            continue;
          }
          value = null;
        } else if (type === STAR) {
          const length = parseLength(line, this.limits.maxArrayLength);
          if (length > 0) {
            this.stack.push({ items: [], remaining: length });
            continue;
          }
          value = length === 0 ? [] : null;
        } else {
          throw new RespProtocolError(`unexpected reply type byte 0x${(type ?? 0).toString(16)}`);
        }
      }
      // A completed value fills its enclosing arrays; each array it completes is itself a completed value.
      for (;;) {
        const frame = this.stack[this.stack.length - 1];
        if (!frame) {
          out.push(value);
          break;
        }
        frame.items.push(value);
        frame.remaining -= 1;
        if (frame.remaining > 0) break;
        this.stack.pop();
        value = frame.items;
      }
    }
    return out;
  }

  /** Bytes received but not yet part of a completed value's header or body (for tests and diagnostics). */
  get buffered(): number {
    return this.buffer.length - this.offset;
  }
}

function parseInteger(line: string): number {
  if (!/^-?\d+$/.test(line)) throw new RespProtocolError(`bad integer ${JSON.stringify(line.slice(0, 32))}`);
  return Number(line);
}

function parseLength(line: string, max: number): number {
  const n = parseInteger(line);
  if (n < -1) throw new RespProtocolError(`bad length ${n}`);
  if (n > max) throw new RespProtocolError(`length ${n} exceeds the limit of ${max}`);
  return n;
}

/** A command as Redis expects it from clients: an array of bulk strings (lengths in bytes, not characters). */
export function encodeCommand(args: readonly string[]): Buffer {
  let text = `*${args.length}\r\n`;
  for (const arg of args) text += `$${Buffer.byteLength(arg, 'utf8')}\r\n${arg}\r\n`;
  return Buffer.from(text, 'utf8');
}
