/**
 * Cutting a file into complete lines, a bounded batch at a time. Shared by the
 * live tailer and the offline scan so that both see exactly the same lines.
 */
import { readSync } from 'node:fs';

export interface LineBatchData {
  /** File offset of `buf[0]`. */
  fromOffset: number;
  /** File offset just after the last complete line: where the next batch starts. */
  toOffset: number;
  buf: Buffer;
  /** [start, end) of each complete line within `buf`, newline excluded; empty lines included. */
  lineStarts: number[];
  lineEnds: number[];
  /** Lines longer than the limit, skipped without being held in memory (they count as malformed). */
  oversizedLines: number;
}

/**
 * Reads the complete lines that start at `start`: up to `chunkBytes` of them, or
 * one line however long (up to `maxLineBytes`; a longer one is skipped and
 * counted), and at most `maxLines` lines. Returns null when only a partial line
 * is on disk: it stays unread until its newline arrives. With `scratch`, the
 * batch's bytes live in it and are valid only until the next call.
 */
export function readLineBatch(
  fd: number,
  start: number,
  size: number,
  chunkBytes: number,
  maxLineBytes: number,
  scratch?: Buffer,
  maxLines = Number.POSITIVE_INFINITY,
): LineBatchData | null {
  if (start >= size) return null;
  // Never more than one maximal line per step, so an over-long line is caught below.
  const want = Math.min(chunkBytes, maxLineBytes + 1, size - start);
  // A caller that consumes each batch before asking for the next lends one buffer for all
  // of them: allocating a fresh multi-megabyte buffer per batch costs more than parsing it.
  let buf = scratch && scratch.length >= want ? scratch.subarray(0, want) : Buffer.allocUnsafe(want);
  let filled = readSync(fd, buf, 0, buf.length, start);
  let lastNewline = buf.subarray(0, filled).lastIndexOf(10);
  // A line longer than the chunk: grow the buffer until its newline shows up.
  while (lastNewline < 0 && filled === buf.length && start + filled < size && filled <= maxLineBytes) {
    const grown = Buffer.allocUnsafe(Math.min(buf.length * 2, size - start, maxLineBytes + 1));
    buf.copy(grown, 0, 0, filled);
    buf = grown;
    filled += readSync(fd, buf, filled, buf.length - filled, start + filled);
    lastNewline = buf.subarray(0, filled).lastIndexOf(10);
  }
  if (lastNewline < 0) {
    return filled > maxLineBytes ? skipOversized(fd, start, size, start + filled, chunkBytes) : null;
  }
  const lineStarts: number[] = [];
  const lineEnds: number[] = [];
  let lineStart = 0;
  while (lineStart <= lastNewline && lineStarts.length < maxLines) {
    const newline = buf.indexOf(10, lineStart);
    lineStarts.push(lineStart);
    lineEnds.push(newline);
    lineStart = newline + 1;
  }
  return { fromOffset: start, toOffset: start + lineStart, buf, lineStarts, lineEnds, oversizedLines: 0 };
}

function skipOversized(
  fd: number,
  start: number,
  size: number,
  from: number,
  chunkBytes: number,
): LineBatchData | null {
  const scratch = Buffer.allocUnsafe(Math.min(chunkBytes, 1024 * 1024));
  for (let position = from; position < size; ) {
    const got = readSync(fd, scratch, 0, Math.min(scratch.length, size - position), position);
    if (got === 0) break;
    const newline = scratch.subarray(0, got).indexOf(10);
    if (newline >= 0) {
      return {
        fromOffset: start,
        toOffset: position + newline + 1,
        buf: Buffer.alloc(0),
        lineStarts: [],
        lineEnds: [],
        oversizedLines: 1,
      };
    }
    position += got;
  }
  return null;
}
