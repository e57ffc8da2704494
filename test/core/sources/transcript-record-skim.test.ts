/**
 * readRecord builds only the fields its shape names and may use a quote index;
 * neither may change what a line means. Over real captured OpenClaw records and
 * the benchmark corpus (compact and spaced sessions, damaged lines among them),
 * every line is read three ways that must agree: plainly, with a quote index,
 * and as `JSON.parse` followed by interpretRecord (MALFORMED where JSON.parse
 * throws). The daemon's batch path (forEachRecord over a line batch read into
 * the indexer's own buffer) must give the same records again.
 */
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CorpusStats, generateCorpus } from '../../../bench/scan-corpus.js';
import { Elided, type Skimmed } from '../../../main/core/sources/json-skim.js';
import { readLineBatch } from '../../../main/core/sources/line-batch.js';
import { QuoteIndexer, sharedQuoteIndexer } from '../../../main/core/sources/quote-bitmap.js';
import {
  interpretRecord,
  type RecordContext,
  readRecord,
  type TranscriptRecord,
} from '../../../main/core/sources/transcript-record.js';
import { forEachRecord, type LineCounts } from '../../../main/core/sources/transcripts-jsonl.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const FIXTURES = join(REPO, 'test', 'fixtures');

/** What readRecord decodes in full (longer strings are only measured, except the error text). */
const MAX_STRING_BYTES = 512;
const KEPT = 'errorMessage';

function jsonlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.jsonl'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The strings readRecord would elide, elided: only whether such text is empty matters to interpretRecord. */
function elide(value: unknown, key: string | null): Skimmed {
  if (typeof value === 'string') {
    const bytes = Buffer.byteLength(JSON.stringify(value)) - 2;
    return bytes > MAX_STRING_BYTES && key !== KEPT ? new Elided(bytes) : value;
  }
  if (Array.isArray(value)) return value.map((v) => elide(v, null));
  if (typeof value !== 'object' || value === null) return value as Skimmed;
  const out: { [key: string]: Skimmed } = {};
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(out, k, { value: elide(v, k), writable: true, enumerable: true, configurable: true });
  }
  return out;
}

/** The reference: the engine's own parser, then the same interpretation. */
function viaJsonParse(line: string, context: RecordContext): TranscriptRecord {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'malformed' };
  }
  return interpretRecord(elide(value, null), context);
}

interface Tally {
  lines: number;
  calls: number;
  malformed: number;
}

/**
 * Reads every line of one file the three ways and returns the records, in
 * order, with their line numbers; fails on the first line where they differ.
 */
function readEveryLine(path: string, context: RecordContext, tally: Tally): TranscriptRecord[] {
  const buf = readFileSync(path);
  const indexer = QuoteIndexer.create(Math.max(64, buf.length));
  if (indexer === null) throw new Error('this runtime has WebAssembly SIMD; QuoteIndexer.create must work');
  const records: TranscriptRecord[] = [];
  let lineNo = 0;
  for (let start = 0; start < buf.length; lineNo++) {
    let end = buf.indexOf(10, start);
    if (end < 0) end = buf.length;
    if (buf.subarray(start, end).toString().trim() !== '') {
      const plain = readRecord(buf, start, end, context);
      // an index of the whole file, as a batch is indexed, and one of just this line
      const whole = readRecord(buf, start, end, context, indexer.index(buf, 0, buf.length));
      const own = readRecord(buf, start, end, context, indexer.index(buf, start, end));
      const reference = viaJsonParse(buf.toString('utf8', start, end), context);
      const where = `${path}:${lineNo + 1}`;
      expect(whole, `${where}, quote index of the file`).toStrictEqual(plain);
      expect(own, `${where}, quote index of the line`).toStrictEqual(plain);
      expect(plain, `${where}, against JSON.parse`).toStrictEqual(reference);
      records.push(plain);
      tally.lines++;
      if (plain.kind === 'call') tally.calls++;
      if (plain.kind === 'malformed') tally.malformed++;
    }
    start = end + 1;
  }
  return records;
}

/** The daemon's and scan's path: line batches read into the shared indexer's buffer, each indexed in place. */
function readInBatches(
  path: string,
  context: RecordContext,
  chunkBytes: number,
): { records: TranscriptRecord[]; counts: LineCounts } {
  const indexer = sharedQuoteIndexer();
  if (indexer === null) throw new Error('this runtime has WebAssembly SIMD; sharedQuoteIndexer must work');
  const scratch = indexer.scratch(chunkBytes);
  const fd = openSync(path, 'r');
  const records: TranscriptRecord[] = [];
  const counts: LineCounts = { lines: 0, malformed: 0 };
  try {
    const size = statSync(path).size;
    for (let offset = 0; ; ) {
      const batch = readLineBatch(fd, offset, size, chunkBytes, 64 << 20, scratch);
      if (batch === null) break;
      forEachRecord(batch, context, counts, (record) => records.push(record));
      offset = batch.toOffset;
    }
  } finally {
    closeSync(fd);
  }
  return { records, counts };
}

const context = (path: string): RecordContext => ({ source: 'jsonl', agentId: 'main', sessionId: path });

function checkFiles(files: string[]): Tally {
  const tally: Tally = { lines: 0, calls: 0, malformed: 0 };
  for (const path of files) {
    const before = { ...tally };
    const lines = readEveryLine(path, context(path), tally);
    for (const chunk of [4096, 256 * 1024]) {
      const { records, counts } = readInBatches(path, context(path), chunk);
      expect(records, `${path} in batches of ${chunk}`).toStrictEqual(lines.filter((r) => r.kind !== 'malformed'));
      expect(counts.lines - counts.malformed, `${path}: lines read in batches of ${chunk}`).toBe(
        tally.lines - before.lines - (tally.malformed - before.malformed),
      );
    }
  }
  return tally;
}

/**
 * Lines that reach every field interpretRecord reads, in every form it must
 * tell apart, with escapes and non-ASCII text where names are decoded, and
 * structure the shape must see through (duplicate keys, `__proto__`, values of
 * an unexpected kind).
 */
function syntheticLines(): string[] {
  const usage = { input: 10, output: 5, cacheRead: 2, cacheWrite: 1, totalTokens: 18, cost: { total: 0.01 } };
  const silent = { input: 10, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 10, cost: { total: 0 } };
  const base = {
    type: 'message',
    id: 'e1',
    parentId: null,
    timestamp: '2026-11-30T10:00:00.000Z',
    message: {
      role: 'assistant',
      content: [{ type: 'text', text: 'hi' }],
      api: 'openai-completions',
      provider: 'zhipu',
      model: 'glm-5.1',
      usage,
      stopReason: 'stop',
      timestamp: 1_780_000_000_000,
    },
  };
  const failed = { stopReason: 'error', errorMessage: '429 该模型当前访问量过大', usage: silent, content: [] };
  const line = (message: object, entry: object = {}) =>
    JSON.stringify({ ...base, ...entry, message: { ...base.message, ...message } });
  const long = 'x'.repeat(2000);
  return [
    line({}),
    line({ ...failed, diagnostics: [{ phase: 'connect' }, { details: { phase: 'after_message_stream_start' } }, 'x'] }),
    line({ ...failed, diagnostics: [{ phase: 'mid_stream', details: { phase: 'before' } }, null] }),
    line({ ...failed, diagnostics: { phase: 'mid_stream' } }),
    line({ ...failed, errorRetryAfterMs: 1234 }),
    line({ ...failed, errorMessage: `rate limited, retry after 7 seconds ${long}` }),
    line({ ...failed, errorCode: '1305', errorStatus: 429 }),
    line({ ...failed, errorCode: 1305, errorStatus: '429' }),
    line({ api: 'cli', usage: { ...silent, input: 0, totalTokens: 0 } }),
    line({ api: 'cli', usage: { ...silent, input: 0, totalTokens: 0 }, responseId: 'resp-1' }),
    line({ ...failed, content: [{ type: 'thinking', thinking: 'hmm' }] }),
    line({ ...failed, content: [{ type: 'thinking', thinking: long }] }),
    line({
      ...failed,
      content: [
        { type: 'text', text: '' },
        { type: 'toolCall', id: 'c1', arguments: { x: 1 } },
      ],
    }),
    line({ ...failed, content: { type: 'text', text: 'not a list' } }),
    line({ authProfileId: 'ops@example.com' }),
    line({}, { authProfileId: 'entry@example.com' }),
    line({ __openclaw: { runId: 'run-1', other: [1, 2] } }),
    line({ __openclaw: ['run-1'] }),
    line({ provider: `p${long}` }),
    line({ usage: { input: '10', output: -1, totalTokens: 'INF', cost: [0.5] } }).replace('"INF"', '1e400'),
    line({ usage: {} }),
    line({ usage: [] }),
    line({}, { timestamp: 'yesterday' }),
    line({ timestamp: '2026-11-30T09:00:00Z' }, { timestamp: undefined }),
    line({ timestamp: undefined }, { timestamp: undefined }),
    line({}, { type: 'custom' }),
    line({ role: 'user' }),
    JSON.stringify({ type: 'session', id: 'session-1', version: 3 }),
    JSON.stringify({ type: 'session', id: ['not', 'text'] }),
    JSON.stringify({ type: 'message', message: {} }),
    JSON.stringify({ type: 'message', message: [{ role: 'assistant' }] }),
    '[1,2,3]',
    '"a string"',
    '{"type":"message","message":null}',
    // escapes and non-ASCII in every decoded name
    line({}).replace('"zhipu"', '"zh\\/ip\\u0075"').replace('"glm-5.1"', '"glm-5.1-\\u4e2d文"'),
    line({ ...failed, errorCode: 'x' }).replace('"x"', '"13\\u00305"'),
    line({ __openclaw: { runId: 'R' } }).replace('"R"', '"run \\"1\\" \\\\ é"'),
    line({}).replace('"e1"', '"e\\\\1\\t"').replace('"openai-completions"', '"openai\\u002dcompletions"'),
    line({ stopReason: 'x' }).replace('"x"', '"\\u0073top"'),
    // structure the shape must see through
    line({}).replace('{"role":"assistant"', '{"role":"user","role":"assistant"'),
    line({}).replace('"model":"glm-5.1"', '"model":{"a":1},"model":"glm-5.1"'),
    line({}).replace('{"type":"message"', '{"__proto__":{"type":"session"},"type":"message"'),
    line({}).replace('"role":"assistant"', '"__proto__":{"role":"user"},"role":"assistant"'),
    `${line({}).slice(0, -1)},"message":{"role":"user"}}`,
    // damage in parts the shape skips, which must still be checked; then deep nesting there
    line({ content: [{ type: 'toolCall', arguments: { x: 'BAD' } }] }).replace('BAD', 'bad\\x'),
    line({ content: [{ type: 'toolCall', arguments: { x: 'BAD' } }] }).replace('BAD', '\\u12'),
    line({ content: [{ type: 'toolCall', arguments: { x: 'BAD' } }] }).replace('BAD', 'a\u0001b'),
    line({}, { parentId: 'P' }).replace('"P"', '"a\u0001b"'),
    line({}, { parentId: 'P' }).replace('"P"', '01'),
    line({}, { parentId: 'P' }).replace('"P"', '[1,2}'),
    line({}, { parentId: 'P' }).replace('"P"', `${'['.repeat(300)}${']'.repeat(300)}`),
  ];
}

describe('readRecord: shaped, indexed and plain readings agree with JSON.parse', () => {
  it('on lines that reach every field it reads', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bb-skim-lines-'));
    try {
      const path = join(dir, 'synthetic.jsonl');
      writeFileSync(path, `${syntheticLines().join('\n')}\n`);
      const tally = checkFiles([path]);
      expect(tally.calls).toBeGreaterThan(20);
      expect(tally.malformed).toBeGreaterThan(5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on the captured OpenClaw records', () => {
    const files = jsonlFiles(FIXTURES);
    expect(files.length).toBeGreaterThanOrEqual(3);
    const tally = checkFiles(files);
    expect(tally.calls).toBeGreaterThan(10);
  });

  describe('on the benchmark corpus', () => {
    let dir = '';
    let stats: CorpusStats;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'bb-skim-corpus-'));
      stats = await generateCorpus(dir, 2e6, 3);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('including spaced sessions and damaged lines', () => {
      expect(stats.spacedFiles).toBeGreaterThan(0);
      expect(stats.malformed).toBeGreaterThan(0);
      const tally = checkFiles(jsonlFiles(dir));
      expect(tally.calls).toBe(stats.assistant);
      expect(tally.malformed).toBe(stats.malformed);
      expect(tally.lines).toBe(stats.lines);
    });
  });
});
