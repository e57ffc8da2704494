/**
 * `breakerbar scan`: offline analysis of OpenClaw state directories. Reads every
 * source found under them, never touches BreakerBar's own database, and counts
 * with exactly the code the daemon ingests with (same line cutting, same record
 * reading, same classifier), so `scan` and `history` can be held side by side.
 */
import { closeSync, type Dirent, fstatSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Outcome } from './classify.js';
import { readIdentity } from './sources/file-identity.js';
import { readLineBatch } from './sources/line-batch.js';
import { agentIdOf, forEachRecord, sessionIdOf, transcriptRole } from './sources/transcripts-jsonl.js';
import { type Storm, seedWatchdogStorms } from './storms.js';
import { type CallSummary, CallTally } from './summary.js';

export interface ScanOptions {
  includeArchives?: boolean;
  /** Only calls at or after this time (epoch ms) are counted. */
  since?: number;
  maxLineBytes?: number;
  /** Reports bytes read so far, for a progress line on a terminal. */
  onProgress?: (bytesRead: number, bytesTotal: number) => void;
}

export interface SourceScan {
  files: number;
  calls: number;
  outcomes: Record<Outcome, number>;
}

export interface ScanResult extends CallSummary {
  files: number;
  lines: number;
  malformed: number;
  /** Calls found more than once (copies of the same record), counted once. */
  duplicates: number;
  bySource: { jsonl: SourceScan };
  /** Where the seed cron watchdog would have restarted the gateway (human output). */
  storms: Storm[];
  /** Problems that stopped a file from being read (permissions, vanished files). */
  errors: Array<{ path: string; error: string }>;
}

const CHUNK_BYTES = 8 * 1024 * 1024;

export function scan(dirs: readonly string[], options: ScanOptions = {}): ScanResult {
  const includeArchives = options.includeArchives ?? false;
  const since = options.since ?? Number.NEGATIVE_INFINITY;
  const maxLineBytes = options.maxLineBytes ?? 64 * 1024 * 1024;
  const errors: ScanResult['errors'] = [];
  const files = [...new Set(dirs.flatMap((dir) => findTranscripts(dir, includeArchives, errors)))].sort();
  const total = files.reduce((sum, file) => sum + (sizeOf(file) ?? 0), 0);

  const tally = new CallTally();
  const counts = { lines: 0, malformed: 0 };
  const seedTimes: number[] = [];
  // The same call copied into several transcripts (an archive, an import, a fork) counts once, as in the store.
  const seen = new Set<string>();
  let duplicates = 0;
  let read = 0;
  let filesRead = 0;
  for (const path of files) {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (error) {
      errors.push({ path, error: (error as Error).message });
      continue;
    }
    try {
      const size = fstatSync(fd).size;
      filesRead++;
      const head = readIdentity(fd, 0, 0, size)?.head ?? null;
      const context = { source: 'jsonl' as const, agentId: agentIdOf(path), sessionId: sessionIdOf(path, head) };
      let offset = 0;
      for (;;) {
        const batch = readLineBatch(fd, offset, size, CHUNK_BYTES, maxLineBytes);
        if (!batch) break;
        forEachRecord(batch, context, counts, (record) => {
          if (record.kind !== 'call' || record.call.ts < since) return;
          if (seen.has(record.call.key)) {
            duplicates++;
            return;
          }
          seen.add(record.call.key);
          tally.add(record.call.dep, record.call.outcome, record.call.usage.totalTokens);
          if (record.seedRateLimit) seedTimes.push(record.call.ts);
        });
        read += batch.toOffset - offset;
        offset = batch.toOffset;
        options.onProgress?.(read, total);
      }
      if (offset < size) {
        // An unterminated last line: offline there is no writer to finish it.
        counts.lines++;
        counts.malformed++;
        read += size - offset;
      }
    } catch (error) {
      errors.push({ path, error: (error as Error).message });
    } finally {
      closeSync(fd);
    }
  }
  const summary = tally.summary();
  return {
    files: filesRead,
    lines: counts.lines,
    malformed: counts.malformed,
    duplicates,
    ...summary,
    bySource: { jsonl: { files: filesRead, calls: summary.calls, outcomes: summary.outcomes } },
    storms: seedWatchdogStorms(seedTimes),
    errors,
  };
}

/**
 * Transcript files under `dir`: a state directory, an `agents` directory, one
 * agent's `sessions` directory, or a single transcript file.
 */
export function findTranscripts(dir: string, includeArchives: boolean, errors: ScanResult['errors'] = []): string[] {
  const wanted = (path: string) => transcriptRole(path, includeArchives) === 'follow';
  let isFile = false;
  try {
    isFile = statSync(dir).isFile();
  } catch (error) {
    errors.push({ path: dir, error: (error as Error).message });
    return [];
  }
  if (isFile) return [dir];
  const found: string[] = [];
  const walk = (path: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch (error) {
      errors.push({ path, error: (error as Error).message });
      return;
    }
    for (const entry of entries) {
      const child = join(path, entry.name);
      // Deep enough for <state>/agents/<id>/sessions/<file>; `cold/` archives are compressed and skipped.
      if (entry.isDirectory() && depth < 4 && entry.name !== 'cold') walk(child, depth + 1);
      else if (entry.isFile() && wanted(child)) found.push(child);
    }
  };
  walk(dir, 0);
  return found;
}

function sizeOf(path: string): number | null {
  try {
    return statSync(path).size;
  } catch {
    return null;
  }
}
