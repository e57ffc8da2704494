/**
 * readLineBatch: complete lines only, a bounded batch at a time, byte-exact,
 * however the chunk size falls on the lines.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LineBatchData, readLineBatch } from '../../../main/core/sources/line-batch.js';
import { forEachRecord } from '../../../main/core/sources/transcripts-jsonl.js';

let dir: string;
const fds: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bb-lines-'));
});

afterEach(() => {
  for (const fd of fds.splice(0)) closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

/** A file holding `content`, opened for reading. */
function fileWith(content: string | Buffer): { fd: number; size: number } {
  const path = join(dir, `f${fds.length}`);
  writeFileSync(path, content);
  const fd = openSync(path, 'r');
  fds.push(fd);
  return { fd, size: Buffer.byteLength(content) };
}

const linesOf = (batch: LineBatchData): Buffer[] =>
  batch.lineStarts.map((start, i) => batch.buf.subarray(start, batch.lineEnds[i]));
const textLines = (batch: LineBatchData | null): string[] => (batch ? linesOf(batch).map((b) => b.toString()) : []);

/** Reads a whole file batch by batch, as the tailer does; checks that batches chain. */
function readAll(content: string | Buffer, chunkBytes: number, maxLineBytes: number) {
  const { fd, size } = fileWith(content);
  const lines: Buffer[] = [];
  let oversized = 0;
  let offset = 0;
  let batches = 0;
  for (let batch = readLineBatch(fd, 0, size, chunkBytes, maxLineBytes); batch; ) {
    expect(batch.fromOffset).toBe(offset);
    expect(batch.toOffset).toBeGreaterThan(offset);
    lines.push(...linesOf(batch).map((line) => Buffer.from(line)));
    oversized += batch.oversizedLines;
    offset = batch.toOffset;
    batches++;
    batch = readLineBatch(fd, offset, size, chunkBytes, maxLineBytes);
  }
  return { lines: lines.map((b) => b.toString('latin1')), oversized, offset, batches };
}

describe('readLineBatch', () => {
  it('returns null at or past the end, and for a file holding only a partial line', () => {
    const { fd, size } = fileWith('no newline yet');
    expect(readLineBatch(fd, size, size, 1024, 1024)).toBeNull();
    expect(readLineBatch(fd, size + 5, size, 1024, 1024)).toBeNull();
    expect(readLineBatch(fd, 0, size, 1024, 1024)).toBeNull();
  });

  it('stops after the last newline: a partial last line is left for later', () => {
    const { fd, size } = fileWith('one\ntwo\nthr');
    const batch = readLineBatch(fd, 0, size, 1024, 1024);
    expect(textLines(batch)).toEqual(['one', 'two']);
    expect(batch?.toOffset).toBe(8);
    expect(readLineBatch(fd, 8, size, 1024, 1024)).toBeNull();
  });

  it('starts at the given offset and reports offsets in file terms', () => {
    const { fd, size } = fileWith('skip me\nread\nme\n');
    const batch = readLineBatch(fd, 8, size, 1024, 1024);
    expect(batch?.fromOffset).toBe(8);
    expect(batch?.toOffset).toBe(size);
    expect(textLines(batch)).toEqual(['read', 'me']);
  });

  it('keeps empty lines as lines', () => {
    const { fd, size } = fileWith('a\n\n\nb\n\n');
    expect(textLines(readLineBatch(fd, 0, size, 1024, 1024))).toEqual(['a', '', '', 'b', '']);
  });

  it('keeps the \\r of CRLF lines in the line, and the record reader ignores it', () => {
    const records = [
      '{"type":"session","version":3,"id":"s1"}',
      '{"type":"message","id":"m1","message":{"role":"user"}}',
    ];
    const { fd, size } = fileWith(`${records.map((r) => `${r}\r\n`).join('')}\r\n`);
    const batch = readLineBatch(fd, 0, size, 1024, 1024);
    expect(textLines(batch)).toEqual([...records.map((r) => `${r}\r`), '\r']);

    const counts = { lines: 0, malformed: 0 };
    const kinds: string[] = [];
    forEachRecord(batch as LineBatchData, { source: 'jsonl', agentId: 'a', sessionId: 's1' }, counts, (record) =>
      kinds.push(record.kind),
    );
    expect(counts).toEqual({ lines: 2, malformed: 0 });
    expect(kinds).toEqual(['header', 'other']);
  });

  it('never returns more than chunkBytes of short lines in one batch', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line-${i}`);
    const { fd, size } = fileWith(lines.map((l) => `${l}\n`).join(''));
    const batch = readLineBatch(fd, 0, size, 64, 1024);
    expect(batch).not.toBeNull();
    expect((batch?.toOffset ?? 0) - (batch?.fromOffset ?? 0)).toBeLessThanOrEqual(64);
    expect(textLines(batch)).toEqual(lines.slice(0, textLines(batch).length));
  });

  it('never returns more than maxLines lines, and the next batch starts right after them', () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line-${i}`);
    const { fd, size } = fileWith(lines.map((l) => `${l}\n`).join(''));
    const first = readLineBatch(fd, 0, size, 1024, 1024, undefined, 4);
    expect(textLines(first)).toEqual(lines.slice(0, 4));
    expect(first?.toOffset).toBe(lines.slice(0, 4).join('\n').length + 1);
    const rest: string[] = [];
    for (
      let offset = first?.toOffset ?? size, batch = readLineBatch(fd, offset, size, 1024, 1024, undefined, 4);
      batch;
    ) {
      expect(batch.lineStarts.length).toBeLessThanOrEqual(4);
      rest.push(...textLines(batch));
      offset = batch.toOffset;
      batch = readLineBatch(fd, offset, size, 1024, 1024, undefined, 4);
    }
    expect(rest).toEqual(lines.slice(4));
  });

  it('grows past chunkBytes to return one line longer than the chunk whole', () => {
    const long = 'L'.repeat(1000);
    const { fd, size } = fileWith(`${long}\nnext\n`);
    const batch = readLineBatch(fd, 0, size, 7, 4096);
    expect(textLines(batch)[0]).toBe(long);
    expect(batch?.oversizedLines).toBe(0);
  });

  it('delivers the same lines whatever the chunk size, including chunks smaller than a line', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `${i}:${'ab'.repeat(i % 13)}${i % 7 === 0 ? '' : '\r'}`);
    lines.splice(10, 0, '', '');
    const content = lines.map((l) => `${l}\n`).join('');
    for (const chunk of [1, 2, 3, 5, 8, 13, 31, 64, 1000, 1 << 20]) {
      const result = readAll(`${content}tail-without-newline`, chunk, 4096);
      expect(result.lines, `chunk ${chunk}`).toEqual(lines);
      expect(result.offset).toBe(Buffer.byteLength(content));
      expect(result.oversized).toBe(0);
    }
  });

  it('returns bytes exactly as on disk, invalid UTF-8 and NUL bytes included', () => {
    const odd = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0xc3, 0x28, 0xe2, 0x82, 0x7d]);
    const content = Buffer.concat([odd, Buffer.from('\n'), odd, Buffer.from('\n')]);
    const result = readAll(content, 4, 100);
    expect(result.lines).toEqual([odd.toString('latin1'), odd.toString('latin1')]);
  });

  it('agrees with a plain split on random files, chunk sizes and line limits', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 40; round++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 40) }, (_, i) =>
        String.fromCharCode(97 + (i % 26)).repeat(Math.floor(random() ** 3 * 400)),
      );
      const chunk = 1 + Math.floor(random() * 300);
      const max = 20 + Math.floor(random() * 200);
      const result = readAll(lines.map((l) => `${l}\n`).join(''), chunk, max);
      const what = `round ${round}: chunk ${chunk}, max ${max}`;
      expect(result.lines, what).toEqual(lines.filter((l) => l.length <= max));
      expect(result.oversized, what).toBe(lines.filter((l) => l.length > max).length);
    }
  });

  describe('lines longer than maxLineBytes', () => {
    it('skips an oversized line, counts it, and goes on with the next lines', () => {
      const result = readAll(`head\n${'x'.repeat(5000)}\nafter\n`, 64, 100);
      expect(result.lines).toEqual(['head', 'after']);
      expect(result.oversized).toBe(1);
    });

    it('returns a skipped line as an empty batch that advances past it', () => {
      const { fd, size } = fileWith(`${'x'.repeat(500)}\nok\n`);
      const batch = readLineBatch(fd, 0, size, 64, 100);
      expect(batch).toMatchObject({ fromOffset: 0, toOffset: 501, lineStarts: [], lineEnds: [], oversizedLines: 1 });
    });

    it('accepts a line of exactly maxLineBytes and skips one byte more', () => {
      const result = readAll(`${'a'.repeat(100)}\n${'b'.repeat(101)}\nc\n`, 16, 100);
      expect(result.lines).toEqual(['a'.repeat(100), 'c']);
      expect(result.oversized).toBe(1);
    });

    it('leaves an oversized line without its newline unread until the newline arrives', () => {
      const { fd, size } = fileWith(`ok\n${'x'.repeat(3000)}`);
      const first = readLineBatch(fd, 0, size, 1024, 100);
      expect(textLines(first)).toEqual(['ok']);
      expect(readLineBatch(fd, first?.toOffset ?? 0, size, 1024, 100)).toBeNull();
    });

    it('skips several oversized lines in a row, each counted once, with any chunk size', () => {
      const content = `${'x'.repeat(3000)}\n${'y'.repeat(250)}\nmid\n${'z'.repeat(2_000_000)}\nend\n`;
      for (const chunk of [16, 100, 4096, 1 << 22]) {
        const result = readAll(content, chunk, 200);
        expect(result.lines, `chunk ${chunk}`).toEqual(['mid', 'end']);
        expect(result.oversized).toBe(3);
      }
    });
  });
});
