/**
 * `breakerbar scan`: offline analysis of OpenClaw state directories. Reads every
 * source found under them, never touches BreakerBar's own database, and counts
 * with exactly the code the daemon ingests with (same line cutting, same record
 * reading, same classifier), so `scan` and `history` can be held side by side.
 */
import { closeSync, type Dirent, fstatSync, openSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Outcome } from './classify.js';
import { configSchema } from './config/index.js';
import { AGENT_DATABASE_NAME, AgentDatabase, findAgentDatabases } from './sources/agent-database.js';
import { readIdentity } from './sources/file-identity.js';
import { readLineBatch } from './sources/line-batch.js';
import { readRecord, type TranscriptRecord } from './sources/transcript-record.js';
import { agentIdOf, forEachRecord, sessionIdOf, transcriptRole } from './sources/transcripts-jsonl.js';
import { type Storm, seedWatchdogStorms } from './storms.js';
import { type CallSummary, CallTally } from './summary.js';

export interface ScanOptions {
  includeArchives?: boolean;
  /** Only calls at or after this time (epoch ms) are counted. */
  since?: number;
  maxLineBytes?: number;
  /** Newest agent-database schema read (config `ingest.sqliteMaxSchemaVersion`); newer ones are reported. */
  maxSchemaVersion?: number;
  /** Reports bytes read so far, for a progress line on a terminal. */
  onProgress?: (bytesRead: number, bytesTotal: number) => void;
}

export interface SourceScan {
  calls: number;
  outcomes: Record<Outcome, number>;
}

export interface ScanResult extends CallSummary {
  /** Transcript files and agent databases read. */
  files: number;
  /** Non-blank JSONL lines plus database rows read. */
  lines: number;
  malformed: number;
  /** Calls found more than once (copies of the same record), counted once. */
  duplicates: number;
  bySource: {
    jsonl: SourceScan & { files: number };
    sqlite: SourceScan & { databases: number };
  };
  /** Where the seed cron watchdog would have restarted the gateway (human output). */
  storms: Storm[];
  /** Problems that stopped a file or database from being read (permissions, unknown schema). */
  errors: Array<{ path: string; error: string }>;
}

const CHUNK_BYTES = 8 * 1024 * 1024;
const PAGE_ROWS = 5000;

/** Counts calls once each, overall and per source, as the store would. */
class ScanCounter {
  readonly all = new CallTally();
  readonly bySource = { jsonl: new CallTally(), sqlite: new CallTally() };
  readonly lines = { lines: 0, malformed: 0 };
  readonly seedTimes: number[] = [];
  // The same call copied into several transcripts (an archive, an import, a fork) counts once.
  private readonly seen = new Set<string>();
  duplicates = 0;

  constructor(private readonly since: number) {}

  record(record: TranscriptRecord): void {
    if (record.kind !== 'call' || record.call.ts < this.since) return;
    const { call } = record;
    if (this.seen.has(call.key)) {
      this.duplicates++;
      return;
    }
    this.seen.add(call.key);
    this.all.add(call.dep, call.outcome, call.usage.totalTokens);
    (call.source === 'sqlite' ? this.bySource.sqlite : this.bySource.jsonl).add(
      call.dep,
      call.outcome,
      call.usage.totalTokens,
    );
    if (record.seedRateLimit) this.seedTimes.push(call.ts);
  }
}

export function scan(dirs: readonly string[], options: ScanOptions = {}): ScanResult {
  const errors: ScanResult['errors'] = [];
  const counter = new ScanCounter(options.since ?? Number.NEGATIVE_INFINITY);
  // Databases first: where OpenClaw migrated a JSONL transcript, the database holds the canonical copy.
  const databases = scanDatabases(
    dirs,
    options.maxSchemaVersion ?? configSchema.shape.ingest.shape.sqliteMaxSchemaVersion.default,
    counter,
    errors,
  );
  const files = scanJsonlFiles(dirs, options, counter, errors);
  const summary = counter.all.summary();
  const bySourceOf = (tally: CallTally) => ({ calls: tally.size, outcomes: tally.outcomeCounts() });
  return {
    files: files + databases,
    lines: counter.lines.lines,
    malformed: counter.lines.malformed,
    duplicates: counter.duplicates,
    ...summary,
    bySource: {
      jsonl: { files, ...bySourceOf(counter.bySource.jsonl) },
      sqlite: { databases, ...bySourceOf(counter.bySource.sqlite) },
    },
    storms: seedWatchdogStorms(counter.seedTimes),
    errors,
  };
}

function scanJsonlFiles(
  dirs: readonly string[],
  options: ScanOptions,
  counter: ScanCounter,
  errors: ScanResult['errors'],
): number {
  const includeArchives = options.includeArchives ?? false;
  const maxLineBytes = options.maxLineBytes ?? 64 * 1024 * 1024;
  const files = [...new Set(dirs.flatMap((dir) => findTranscripts(dir, includeArchives, errors)))].sort();
  const total = files.reduce((sum, file) => sum + (sizeOf(file) ?? 0), 0);
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
        forEachRecord(batch, context, counter.lines, (record) => counter.record(record));
        read += batch.toOffset - offset;
        offset = batch.toOffset;
        options.onProgress?.(read, total);
      }
      if (offset < size) {
        // An unterminated last line: offline there is no writer to finish it.
        counter.lines.lines++;
        counter.lines.malformed++;
        read += size - offset;
      }
    } catch (error) {
      errors.push({ path, error: (error as Error).message });
    } finally {
      closeSync(fd);
    }
  }
  return filesRead;
}

/** Agent databases under each state directory (or named directly), read page by page, read-only. */
function scanDatabases(
  dirs: readonly string[],
  maxSchemaVersion: number,
  counter: ScanCounter,
  errors: ScanResult['errors'],
): number {
  const found = new Map<string, string>();
  for (const dir of dirs) {
    if (basename(dir) === AGENT_DATABASE_NAME) found.set(dir, basename(dirname(dirname(dir))));
    for (const { agentId, path } of findAgentDatabases(dir)) found.set(path, agentId);
  }
  let read = 0;
  for (const [path, agentId] of [...found].sort()) {
    let db: AgentDatabase;
    try {
      db = AgentDatabase.open(path, maxSchemaVersion);
    } catch (error) {
      errors.push({ path, error: (error as Error).message });
      continue;
    }
    try {
      read++;
      for (let after = 0; ; ) {
        const rows = db.rowsAfter(after, PAGE_ROWS);
        for (const row of rows) {
          const context = { source: 'sqlite' as const, agentId, sessionId: row.sessionId, fallbackTs: row.createdAt };
          counter.lines.lines++;
          const record = readRecord(row.json, 0, row.json.length, context);
          if (record.kind === 'malformed') counter.lines.malformed++;
          else counter.record(record);
        }
        if (rows.length < PAGE_ROWS) break;
        after = (rows[rows.length - 1] as (typeof rows)[number]).rowid;
      }
    } catch (error) {
      errors.push({ path, error: (error as Error).message });
    } finally {
      db.close();
    }
  }
  return read;
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
