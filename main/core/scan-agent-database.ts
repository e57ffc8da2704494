/**
 * `scan`'s reading of one agent database: every row, in rowid order, page by
 * page and read-only (no read snapshot outlives a page), each row interpreted
 * as the daemon's source interprets it.
 *
 * Rows are visited rather than collected (`AgentDatabase.visitRowsAfter`): a
 * compressed event is decoded into one reused buffer and parsed there, so
 * reading a database allocates almost nothing per event.
 */
import { AgentDatabase } from './sources/agent-database.js';
import { readRecord, type TranscriptRecord } from './sources/transcript-record.js';

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

/** Reads `path` (agent `agentId`), counting into `result` and handing every record that is not malformed to `take`. */
export function readAgentDatabase(
  path: string,
  agentId: string,
  result: AgentDatabaseTally,
  take: (record: TranscriptRecord) => void,
): void {
  const db = AgentDatabase.open(path);
  try {
    for (let after = 0; ; ) {
      const page = db.visitRowsAfter(after, PAGE_ROWS, (row) => {
        result.lines++;
        if (row.json === null) {
          result.undecodable++;
          result.firstUndecodable ??= `row ${row.rowid} (session ${row.sessionId}, seq ${row.seq}): ${row.error}`;
          return;
        }
        const context = { source: 'sqlite' as const, agentId, sessionId: row.sessionId, fallbackTs: row.createdAt };
        // Parsed here, while `row.json` is valid: the record keeps no reference to the bytes.
        const record = readRecord(row.json, 0, row.json.length, context);
        if (record.kind === 'malformed') result.malformed++;
        else take(record);
      });
      if (page.rows < PAGE_ROWS) break;
      after = page.lastRowid;
    }
  } finally {
    db.close();
  }
}
