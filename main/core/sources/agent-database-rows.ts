/**
 * A page of `transcript_events` rows as calls: each decoded row read as a
 * transcript record, with the rows that could not be decoded, the malformed
 * ones and the repaired fields counted for the source to report.
 */
import type { CallEvent } from '../calls/events.js';
import type { TranscriptRow } from './agent-database.js';
import { countRepair, type RepairCounts, readRecord } from './transcript-record.js';

export type UndecodableRow = Extract<TranscriptRow, { json: null }>;

export interface DecodedRows {
  calls: CallEvent[];
  malformed: number;
  repairs: RepairCounts;
  undecodable: UndecodableRow[];
}

/** The calls of `rows` (of agent `agentId`'s database), and what could not be read of them. */
export function decodeRows(rows: readonly TranscriptRow[], agentId: string): DecodedRows {
  const calls: CallEvent[] = [];
  let malformed = 0;
  const repairs: RepairCounts = {};
  const undecodable: UndecodableRow[] = [];
  for (const row of rows) {
    if (row.json === null) {
      undecodable.push(row);
      continue;
    }
    const record = readRecord(row.json, 0, row.json.length, {
      source: 'sqlite',
      agentId,
      sessionId: row.sessionId,
      fallbackTs: row.createdAt,
    });
    if (record.kind === 'malformed') malformed++;
    else if (record.kind === 'call') {
      calls.push(record.call);
      if (record.repaired) countRepair(repairs, record.repaired);
    }
  }
  return { calls, malformed, repairs, undecodable };
}
