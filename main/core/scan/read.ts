/**
 * Reading one scan input (a JSONL transcript or an agent database) into the
 * facts `scan` merges: line counts and a compact record of every call. Runs in
 * the main thread or in a worker; it returns plain data either way.
 */
import { closeSync } from 'node:fs';
import { readIdentity } from '../sources/file-identity.js';
import { readLineBatch } from '../sources/line-batch.js';
import { lendReadBuffer } from '../sources/quote-bitmap.js';
import { openRegularFile } from '../sources/regular-file.js';
import type { TranscriptRecord } from '../sources/transcript-record.js';
import { agentIdOf, forEachRecord, sessionIdOf } from '../sources/transcripts-jsonl.js';
import { type RowidRange, readAgentDatabase } from './agent-database.js';
import { type FoundCalls, FoundCallsBuilder } from './calls.js';

export type ScanInput =
  | { kind: 'jsonl'; path: string; bytes: number }
  /** `rows`: a part of the database (a large one is read by several threads), else all of it. */
  | { kind: 'sqlite'; path: string; agentId: string; bytes: number; rows?: RowidRange };

export interface InputScan {
  input: ScanInput;
  /** Null when the input was read; otherwise why not. */
  error: string | null;
  lines: number;
  malformed: number;
  /** Agent-database rows that could not be decoded (corrupt zstd frame, no event), skipped as the daemon skips them. */
  undecodable: number;
  /** The first of them, in words, for the report. */
  firstUndecodable: string | null;
  calls: FoundCalls;
}

export interface ReadOptions {
  maxLineBytes: number;
}

/**
 * Read size. Small enough to still be in the CPU cache when the parser walks it
 * (measured here: 256 KiB reads beat 8 MiB ones clearly), large enough that the
 * per-read overhead does not matter.
 */
export const SCAN_CHUNK_BYTES = 256 * 1024;

/** Where scan reads to: the quote indexer's own input buffer when there is one, so a chunk is indexed in place. */
export function scanScratch(): Buffer {
  return lendReadBuffer(SCAN_CHUNK_BYTES);
}

export function readInput(input: ScanInput, options: ReadOptions, scratch: Buffer = scanScratch()): InputScan {
  const found = new FoundCallsBuilder();
  const counts = { lines: 0, malformed: 0, undecodable: 0, firstUndecodable: null as string | null };
  const take = (record: TranscriptRecord) => {
    if (record.kind !== 'call') return;
    const { call } = record;
    found.add({
      key: call.key,
      ts: call.ts,
      dep: call.dep,
      outcome: call.outcome,
      tokens: call.usage.totalTokens,
      seed: record.seedRateLimit,
      upstream: call.upstream !== false,
      runId: call.runId ?? null,
    });
  };
  let error: string | null = null;
  try {
    if (input.kind === 'jsonl') readTranscriptFile(input.path, options, scratch, counts, take);
    else readAgentDatabase(input.path, input.agentId, counts, take, input.rows);
  } catch (thrown) {
    error = (thrown as Error).message;
  }
  return { input, error, ...counts, calls: found.finish() };
}

export type InputCounts = Pick<InputScan, 'lines' | 'malformed' | 'undecodable' | 'firstUndecodable'>;

/** Reads the JSONL transcript at `path` whole, counting into `result` and handing every record that is not malformed to `take`. */
export function readTranscriptFile(
  path: string,
  options: ReadOptions,
  scratch: Buffer,
  result: InputCounts,
  take: (record: TranscriptRecord) => void,
): void {
  const { fd, stats } = openRegularFile(path);
  try {
    const size = stats.size;
    const head = readIdentity(fd, 0, 0, size)?.head ?? null;
    const context = { source: 'jsonl' as const, agentId: agentIdOf(path), sessionId: sessionIdOf(path, head) };
    let offset = 0;
    for (;;) {
      const batch = readLineBatch(fd, offset, size, SCAN_CHUNK_BYTES, options.maxLineBytes, scratch);
      if (!batch) break;
      forEachRecord(batch, context, result, take);
      offset = batch.toOffset;
    }
    if (offset < size) {
      // An unterminated last line: offline there is no writer to finish it.
      result.lines++;
      result.malformed++;
    }
  } finally {
    closeSync(fd);
  }
}
