/**
 * scan's reading of an agent database (rows visited and decoded into a reused
 * buffer, or read in rowid parts) against the plain way of reading one: every
 * row decoded to bytes of its own by `rowsAfter`, then `readRecord`. Run on a
 * database OpenClaw 2026.9.6 wrote, with rows added to trick a reader that cuts
 * corners: an escaped role, spaces around colons, malformed and non-object
 * JSON, compressed rows (one not even valid JSON), and a damaged frame.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, zstdCompressSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type AgentDatabaseTally,
  ALL_ROWS,
  type RowidRange,
  readAgentDatabase,
  splitAgentDatabase,
} from '../../../main/core/scan/agent-database.js';
import { AgentDatabase } from '../../../main/core/sources/agent-database.js';
import { readRecord, type TranscriptRecord } from '../../../main/core/sources/transcript-record.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/openclaw-2026.9.6/openclaw-agent.sqlite', import.meta.url));
/** The fixture: 98 rows, 12 assistant messages, row 47 compressed. */
const FIXTURE_ROWS = 98;
const FIXTURE_CALLS = 12;
const COMPRESSED_ROWID = 47;

let root: string;
let path: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bb-scan-agentdb-'));
  path = join(root, 'openclaw-agent.sqlite');
  copyFileSync(FIXTURE, path);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const assistant = (id: string, extra = '') =>
  `{"type":"message","id":"${id}","parentId":null,"timestamp":"2026-12-01T15:00:00.000Z","message":{"role":"assistant",` +
  `"content":[{"type":"text","text":"a \\"quoted\\" answer"}],"provider":"mock","model":"tricky","stopReason":"stop",` +
  `"usage":{"input":3,"output":4,"totalTokens":7},"timestamp":1796140000000${extra}}}`;

/** Rows stored as text: each tries to make a shortcut disagree with the full parse. */
const TEXT_ROWS = [
  // The role spelled with an escape: an assistant message all the same.
  assistant('escaped').replace('"role":"assistant"', '"role":"\\u0061ssistant"'),
  // Whitespace around every colon and comma.
  assistant('spaced').replace(/":/g, '" : ').replace(/,"/g, ' , "'),
  // "assistant" only inside text, and as a key: not a call.
  '{"type":"message","id":"u1","message":{"role":"user","content":[{"type":"text","text":"\\"role\\":\\"assistant\\""}]}}',
  '{"type":"message","id":"u2","message":{"assistant":"role","role":"toolResult"}}',
  // Malformed: cut short, a trailing comma, two values, not an object.
  assistant('cut').slice(0, 150),
  '{"type":"message","id":"u3","message":{"role":"user"},}',
  `${assistant('twice')} {}`,
  '["not", "an", "object"]',
  // A role that is not quite "assistant".
  assistant('almost').replace('"role":"assistant"', '"role":"assistant "'),
];

function frameOf(text: string): Buffer {
  return zstdCompressSync(Buffer.from(text), {
    params: { [constants.ZSTD_c_compressionLevel]: 1, [constants.ZSTD_c_checksumFlag]: 1 },
  });
}

/** Rows stored compressed: valid, not valid JSON (a writer other than OpenClaw), a tool result, a damaged frame. */
const COMPRESSED_ROWS: Array<{ text: string; frame?: Buffer }> = [
  { text: assistant('zstd', `,"note":"${'long text '.repeat(300)}"`) },
  { text: `${assistant('zstd-cut', `,"x":"${'y'.repeat(2000)}"`)}`.slice(0, 1800) },
  { text: `{"type":"message","id":"t1","message":{"role":"toolResult","content":"${'out '.repeat(800)}"}}` },
  { text: assistant('zstd-damaged'), frame: Buffer.from('not a zstd frame at all') },
];

/** Appends the tricky rows after the fixture's own, as OpenClaw would (one session, next seqs). */
function addTrickyRows(): void {
  const db = new Database(path);
  try {
    // Only the two tables BreakerBar reads were kept from OpenClaw's file: their foreign keys point nowhere.
    db.pragma('foreign_keys = OFF');
    const navigation = db.prepare('SELECT navigation_json FROM transcript_events WHERE rowid = ?').pluck();
    const copiedNavigation = navigation.get(COMPRESSED_ROWID) as string;
    const insert = db.prepare(
      `INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json)
       VALUES ('s-tricky', ?, ?, 1796140000000, ?, ?, ?)`,
    );
    let seq = 0;
    for (const text of TEXT_ROWS) insert.run(seq++, text, null, Buffer.byteLength(text), null);
    for (const { text, frame } of COMPRESSED_ROWS) {
      insert.run(seq++, null, frame ?? frameOf(text), Buffer.byteLength(text), copiedNavigation);
    }
    // Fixture rows again at the end, so that a reader must go on past the tricky ones.
    db.exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json)
             SELECT 's-again', seq + 1000 * rowid, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json
             FROM transcript_events WHERE rowid BETWEEN 40 AND 60`);
  } finally {
    db.close();
  }
}

interface Outcome extends AgentDatabaseTally {
  records: string[];
}

const fresh = (): Outcome => ({ lines: 0, malformed: 0, undecodable: 0, firstUndecodable: null, records: [] });
const describeRecord = (record: TranscriptRecord) =>
  record.kind === 'call'
    ? `call ${record.call.key} ${record.call.outcome} ${record.call.usage.totalTokens}`
    : record.kind;

/** The plain way: every row with bytes of its own (`rowsAfter`), then `readRecord`. */
function readPlainly(): Outcome {
  const outcome = fresh();
  const db = AgentDatabase.open(path);
  try {
    for (const row of db.rowsAfter(0, 1_000_000)) {
      outcome.lines++;
      if (row.json === null) {
        outcome.undecodable++;
        outcome.firstUndecodable ??= `row ${row.rowid} (session ${row.sessionId}, seq ${row.seq}): ${row.error}`;
        continue;
      }
      const context = {
        source: 'sqlite' as const,
        agentId: 'main',
        sessionId: row.sessionId,
        fallbackTs: row.createdAt,
      };
      const record = readRecord(row.json, 0, row.json.length, context);
      if (record.kind === 'malformed') outcome.malformed++;
      else outcome.records.push(describeRecord(record));
    }
  } finally {
    db.close();
  }
  return outcome;
}

function readByScan(rows: RowidRange = ALL_ROWS, outcome = fresh()): Outcome {
  readAgentDatabase(path, 'main', outcome, (record) => outcome.records.push(describeRecord(record)), rows);
  return outcome;
}

describe('readAgentDatabase', () => {
  it('gives what the plain read gives on a database OpenClaw wrote', () => {
    const scanned = readByScan();
    expect(scanned).toEqual(readPlainly());
    expect(scanned.lines).toBe(FIXTURE_ROWS);
    expect(scanned.records.filter((record) => record.startsWith('call'))).toHaveLength(FIXTURE_CALLS);
  });

  it('gives what the plain read gives on rows made to trick a shortcut', () => {
    addTrickyRows();
    const scanned = readByScan();
    expect(scanned).toEqual(readPlainly());
    const calls = scanned.records.filter((record) => record.startsWith('call'));
    // The fixture's calls, twice for its rows copied again (40 to 60 hold 3 of them), and the tricky ones.
    expect(calls.filter((call) => call.includes('@escaped '))).toEqual(['call main/1796140000000@escaped ok 7']);
    expect(calls.filter((call) => call.includes('@spaced '))).toEqual(['call main/1796140000000@spaced ok 7']);
    expect(calls.filter((call) => call.includes('@zstd '))).toEqual(['call main/1796140000000@zstd ok 7']);
    expect(calls.filter((call) => /@(almost|cut|twice|zstd-cut|zstd-damaged) /.test(call))).toEqual([]);
    expect(scanned).toMatchObject({
      lines: FIXTURE_ROWS + TEXT_ROWS.length + COMPRESSED_ROWS.length + 21,
      malformed: 5,
      undecodable: 1,
    });
    expect(scanned.firstUndecodable).toMatch(/^row \d+ \(session s-tricky, seq 12\): event_zstd: not a zstd frame/);
  });

  it('reads a database in rowid parts that together give the whole, each row once', () => {
    addTrickyRows();
    const whole = readByScan();
    for (const parts of [1, 2, 3, 7, 500]) {
      const ranges = splitAgentDatabase(path, parts);
      expect(ranges.length).toBeLessThanOrEqual(parts);
      expect(ranges[0]?.after).toBe(ALL_ROWS.after);
      expect(ranges[ranges.length - 1]?.through).toBe(ALL_ROWS.through);
      for (let i = 1; i < ranges.length; i++) expect(ranges[i]?.after).toBe(ranges[i - 1]?.through);
      const together = fresh();
      for (const range of ranges) readByScan(range, together);
      expect(together).toEqual(whole);
    }
  });

  it('reads the file mapped, as a one-shot reader may', () => {
    const open = vi.spyOn(AgentDatabase, 'open');
    try {
      readByScan();
      expect(open).toHaveBeenCalledWith(path, { mapped: true });
    } finally {
      open.mockRestore();
    }
  });

  it('splits an empty table into one part, the whole', () => {
    const db = new Database(path);
    db.exec('DELETE FROM transcript_events');
    db.close();
    expect(splitAgentDatabase(path, 4)).toEqual([ALL_ROWS]);
    expect(readByScan()).toEqual(fresh());
  });
});

describe('AgentDatabase.visitRowsAfter', () => {
  it('visits the rows rowsAfter returns, page by page, stopping at `through`', () => {
    addTrickyRows();
    const db = AgentDatabase.open(path);
    try {
      const all = db.rowsAfter(0, 1_000_000);
      const seen: Array<{ rowid: number; json: string | null; error: string | null }> = [];
      for (let after = 0; ; ) {
        // The bytes are copied while they are valid: the next row reuses the buffer.
        const page = db.visitRowsAfter(after, 7, (row) =>
          seen.push({ rowid: row.rowid, json: row.json?.toString('utf8') ?? null, error: row.error }),
        );
        if (page.rows < 7) break;
        after = page.lastRowid;
      }
      expect(seen).toEqual(
        all.map((row) => ({ rowid: row.rowid, json: row.json?.toString('utf8') ?? null, error: row.error })),
      );

      const bounds = db.rowidBounds();
      expect(bounds).toEqual({ first: 1, last: all[all.length - 1]?.rowid });
      const partial: number[] = [];
      expect(db.visitRowsAfter(10, 100, (row) => partial.push(row.rowid), 20)).toEqual({ rows: 10, lastRowid: 20 });
      expect(partial).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
      expect(db.visitRowsAfter(bounds.last, 100, () => {})).toEqual({ rows: 0, lastRowid: bounds.last });
    } finally {
      db.close();
    }
  });
});

describe('AgentDatabase mapped', () => {
  it('reads through memory-mapped I/O only when asked, and gives the same rows', () => {
    addTrickyRows();
    const plain = AgentDatabase.open(path);
    const mapped = AgentDatabase.open(path, { mapped: true });
    try {
      expect(plain.mappedBytes()).toBe(0);
      expect(mapped.mappedBytes()).toBeGreaterThan(0);
      const rows = (db: AgentDatabase) =>
        db.rowsAfter(0, 1_000_000).map((row) => ({ ...row, json: row.json?.toString('utf8') ?? null }));
      expect(rows(mapped)).toEqual(rows(plain));
    } finally {
      plain.close();
      mapped.close();
    }
  });
});
