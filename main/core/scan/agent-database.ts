/**
 * `scan`'s reading of one agent database: every row, in rowid order, page by
 * page and read-only (no read snapshot outlives a page), each row interpreted
 * as the daemon's source interprets it.
 *
 * Rows are visited rather than collected (`AgentDatabase.visitRowsAfter`): a
 * compressed event is decoded into one reused buffer and parsed there, so
 * reading a database allocates almost nothing per event.
 */
import { AgentDatabase } from '../sources/agent-database.js';
import { sharedQuoteIndexer } from '../sources/quote-bitmap.js';
import { readRecord, type TranscriptRecord } from '../sources/transcript-record.js';

/** Rows per page: one short read transaction each. */
const PAGE_ROWS = 5000;

/** The counts a database read adds to (scan's `InputScan` has these fields). */
export interface AgentDatabaseTally {
  lines: number;
  malformed: number;
  /** Rows that could not be decoded (corrupt zstd frame, no event), skipped as the daemon skips them. */
  undecodable: number;
  /** The first of them, in words, for the report. */
  firstUndecodable: string | null;
}

/** A part of a database's rows: rowids in (`after`, `through`]. */
export interface RowidRange {
  after: number;
  through: number;
}

/** Every row, whatever its rowid. */
export const ALL_ROWS: RowidRange = { after: 0, through: Number.MAX_SAFE_INTEGER };

/**
 * Reads `path` (agent `agentId`), or the rows of it in `rows`, counting into
 * `result` and handing every record that is not malformed to `take`.
 */
export function readAgentDatabase(
  path: string,
  agentId: string,
  result: AgentDatabaseTally,
  take: (record: TranscriptRecord) => void,
  rows: RowidRange = ALL_ROWS,
): void {
  // Mapped: scan reads each database once, start to end (see AgentDatabaseOptions).
  const db = AgentDatabase.open(path, { mapped: true });
  try {
    for (let after = rows.after; ; ) {
      const page = db.visitRowsAfter(
        after,
        PAGE_ROWS,
        (row) => {
          result.lines++;
          if (row.json === null) {
            result.undecodable++;
            result.firstUndecodable ??= `row ${row.rowid} (session ${row.sessionId}, seq ${row.seq}): ${row.error}`;
            return;
          }
          const context = { source: 'sqlite' as const, agentId, sessionId: row.sessionId, fallbackTs: row.createdAt };
          // Parsed here, while `row.json` is valid: the record keeps no reference to the bytes.
          const quotes = sharedQuoteIndexer()?.index(row.json, 0, row.json.length) ?? null;
          const record = readRecord(row.json, 0, row.json.length, context, quotes);
          if (record.kind === 'malformed') result.malformed++;
          else take(record);
        },
        rows.through,
      );
      if (page.rows < PAGE_ROWS) break;
      after = page.lastRowid;
    }
  } finally {
    db.close();
  }
}

/**
 * `path`'s rows cut into at most `parts` rowid ranges of equal width, for
 * reading one large database in several threads: together they cover every row
 * present now, once. Equal widths, not equal bytes: sizes are not known without
 * reading the rows, and over thousands of rows the parts come out close.
 */
export function splitAgentDatabase(path: string, parts: number): RowidRange[] {
  const db = AgentDatabase.open(path);
  let bounds: { first: number; last: number };
  try {
    bounds = db.rowidBounds();
  } finally {
    db.close();
  }
  if (bounds.last === 0 || parts <= 1) return [ALL_ROWS];
  const after = bounds.first - 1;
  const width = Math.max(1, Math.ceil((bounds.last - after) / parts));
  const ranges: RowidRange[] = [];
  for (let start = after; start < bounds.last; start += width) {
    ranges.push({ after: start, through: Math.min(start + width, bounds.last) });
  }
  // The ends stay open: rows appended after the split still belong to the last part.
  (ranges[0] as RowidRange).after = ALL_ROWS.after;
  (ranges[ranges.length - 1] as RowidRange).through = ALL_ROWS.through;
  return ranges;
}
