/**
 * Source: OpenClaw's JSONL session transcripts (up to 2026.7.x),
 * `<stateDir>/agents/<agentId>/sessions/<sessionId>.jsonl`.
 */
import { basename, dirname, join } from 'node:path';
import type { CallEvent } from '../calls/events.js';
import type { Logger } from '../runtime/log.js';
import type { Batch, CommitResult } from '../store/batch.js';
import { isOutOfRoom } from '../store/room.js';
import { MALFORMED, skimJson } from './json-skim.js';
import { lendReadBuffer, sharedQuoteIndexer } from './quote-bitmap.js';
import { NotRegularFileError } from './regular-file.js';
import type { IngestSink, Source, SourceStatus } from './source.js';
import type { StoredPosition } from './tailer.js';
import { FileTailer, type LineBatch } from './tailer.js';
import {
  countRepair,
  logRepairs,
  type RecordContext,
  type RepairCounts,
  readRecord,
  type TranscriptRecord,
} from './transcript-record.js';
import type { FileRole } from './watcher.js';

/** Archived transcripts: kept by OpenClaw after a reset or delete, or quarantined, or backups. */
const ARCHIVE = /\.jsonl\.(reset|deleted)\.|\.corrupt-|\.bak/;

/** How a path under the state directory is treated (see FileRole). */
export function transcriptRole(path: string, includeArchives: boolean): FileRole {
  if (basename(dirname(path)) !== 'sessions') return 'ignore';
  const name = basename(path);
  if (name === 'sessions.json' || name.endsWith('.trajectory.jsonl')) return 'ignore';
  if (ARCHIVE.test(name)) return includeArchives ? 'follow' : 'continue';
  return name.endsWith('.jsonl') ? 'follow' : 'ignore';
}

/** `<stateDir>/agents/<agentId>/sessions/<file>` → agentId. */
export function agentIdOf(path: string): string {
  return basename(dirname(dirname(path))) || 'unknown';
}

/** The session id from the transcript's header line, else from the file name. */
export function sessionIdOf(path: string, head: Buffer | null): string {
  if (head && head.length > 0) {
    const header = skimJson(head, 0, head.length, { maxStringBytes: 256 });
    if (header !== MALFORMED && typeof header === 'object' && header !== null && !Array.isArray(header)) {
      const record = header as Record<string, unknown>;
      if (record.type === 'session' && typeof record.id === 'string' && record.id) return record.id;
    }
  }
  return basename(path).replace(/\.jsonl.*$/, '');
}

export interface LineCounts extends RepairCounts {
  lines: number;
  malformed: number;
  /** Why the last malformed record that said why was refused (a damaged model name, say). */
  reason?: string;
}

/**
 * Reads the records of a batch of lines, counting lines and malformed ones and
 * handing every record on. Blank lines are not lines.
 */
export function forEachRecord(
  batch: Pick<LineBatch, 'buf' | 'lineStarts' | 'lineEnds' | 'oversizedLines'>,
  context: RecordContext,
  counts: LineCounts,
  onRecord: (record: TranscriptRecord) => void,
): void {
  const { buf, lineStarts, lineEnds } = batch;
  counts.lines += batch.oversizedLines;
  counts.malformed += batch.oversizedLines;
  const last = lineStarts.length - 1;
  const quotes =
    last < 0 ? null : (sharedQuoteIndexer()?.index(buf, lineStarts[0] as number, lineEnds[last] as number) ?? null);
  for (let i = 0; i < lineStarts.length; i++) {
    const start = lineStarts[i] as number;
    const end = lineEnds[i] as number;
    if (isBlank(buf, start, end)) continue;
    counts.lines++;
    const record = readRecord(buf, start, end, context, quotes);
    if (record.kind === 'malformed') {
      counts.malformed++;
      if (record.reason) counts.reason = record.reason;
      continue;
    }
    if (record.kind === 'call' && record.repaired) countRepair(counts, record.repaired);
    onRecord(record);
  }
}

function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = buf[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}

export interface JsonlSourceOptions {
  stateDir: string;
  includeArchives: boolean;
  sink: IngestSink;
  /** Calls older than this (record time, epoch ms) are read but not stored: the backfill limit. */
  cutoff: number;
  reconcileIntervalMs: number;
  maxLineBytes: number;
  log: Logger;
  /** Called with the calls just stored, in order. */
  onStored?: (calls: CallEvent[]) => void;
}

export class JsonlTranscriptSource implements Source {
  readonly kind = 'jsonl' as const;
  private readonly tailer: FileTailer;
  private readonly root: string;
  private readonly counts = { lines: 0, malformed: 0, repaired: 0, calls: 0, stored: 0, duplicates: 0 };
  /** Reasons for refusing a record already logged (each is logged once). */
  private readonly reasonsLogged = new Set<string>();
  /** Fields whose repair was already logged (each is logged once). */
  private readonly repairsLogged = new Set<string>();
  private readonly sessions = new Map<string, string>();
  private lastEventAt: number | null = null;
  private lastError: string | null = null;

  constructor(private readonly options: JsonlSourceOptions) {
    this.root = join(options.stateDir, 'agents');
    const initialPositions: StoredPosition[] = options.sink.cursors('jsonl');
    this.tailer = new FileTailer({
      roots: [this.root],
      depth: 2,
      // `<agentId>/sessions/` only: `<agentId>/agent/` holds the agent database, written at every commit.
      looksInto: (dir, level) => level < 2 || basename(dir) === 'sessions',
      roleOf: (path) => transcriptRole(path, options.includeArchives),
      initialPositions,
      consume: (batch) => this.consume(batch),
      forget: (key) => {
        this.sessions.delete(key);
        options.sink.commit({ events: [], forget: [{ source: 'jsonl', key }] });
      },
      onError: (error, path) => {
        // Not a file (a named pipe, say): skipped, said once by the tailer; no read failed, so no source error.
        if (error instanceof NotRegularFileError) {
          options.log.warn('not a regular file where one is read; skipped', { path, error: error.message });
          return;
        }
        // No read failed: BreakerBar's store has no room (said once by the room watch); read again at the retry.
        if (isOutOfRoom(error)) return;
        this.lastError = `${path}: ${error.message}`;
        options.log.warn('transcript read failed; will retry', { path, error: error.message });
      },
      reconcileIntervalMs: options.reconcileIntervalMs,
      maxLineBytes: options.maxLineBytes,
      // consume() is done with a batch's bytes when it returns (records are read at once, only offsets kept).
      scratch: lendReadBuffer,
    });
  }

  start(): void {
    this.tailer.start();
  }

  stop(): Promise<void> {
    return this.tailer.stop();
  }

  get caughtUp(): boolean {
    return this.tailer.idle;
  }

  coveredAgents(): ReadonlySet<string> {
    return new Set(this.tailer.paths().map(agentIdOf));
  }

  status(): SourceStatus {
    const progress = this.tailer.progress();
    return {
      kind: this.kind,
      roots: [this.root],
      inputs: progress.files,
      ...this.counts,
      pending: progress.pendingBytes,
      pendingUnit: 'bytes',
      lastEventAt: this.lastEventAt,
      lastError: this.lastError,
    };
  }

  private consume(batch: LineBatch): void | Promise<void> {
    let sessionId = this.sessions.get(batch.key);
    if (!sessionId) {
      sessionId = sessionIdOf(batch.path, batch.identity.head);
      this.sessions.set(batch.key, sessionId);
    }
    const context: RecordContext = { source: 'jsonl', agentId: agentIdOf(batch.path), sessionId };
    const counts: LineCounts = { lines: 0, malformed: 0 };
    const calls: CallEvent[] = [];
    forEachRecord(batch, context, counts, (record) => {
      if (record.kind === 'call') calls.push(record.call);
    });
    const events = calls.filter((call) => call.ts >= this.options.cutoff);
    const commit: Batch = {
      events,
      cursor: { source: 'jsonl', key: batch.key, path: batch.path, position: batch.toOffset },
    };
    const { sink } = this.options;
    const { path } = batch;
    if (sink.commitLater) {
      // The path, not the batch: its bytes are not kept while it is stored.
      return sink.commitLater(commit).then((result) => this.committed(counts, calls, result, path));
    }
    this.committed(counts, calls, sink.commit(commit), path);
  }

  /** Counted only once committed: a failed commit is retried and must not count twice. */
  private committed(counts: LineCounts, calls: CallEvent[], result: CommitResult, path: string): void {
    if (counts.reason !== undefined && !this.reasonsLogged.has(counts.reason)) {
      // Once per reason: a damaged file repeats itself line after line; the count keeps the rest.
      this.reasonsLogged.add(counts.reason);
      this.options.log.warn('transcript record refused (counted as malformed; further ones only counted)', {
        path,
        reason: counts.reason,
      });
    }
    logRepairs(counts, this.repairsLogged, this.options.log, { path });
    this.counts.lines += counts.lines;
    this.counts.malformed += counts.malformed;
    this.counts.repaired += counts.repaired ?? 0;
    this.counts.calls += calls.length;
    this.counts.stored += result.inserted;
    this.counts.duplicates += result.duplicates;
    for (const call of calls) if (this.lastEventAt === null || call.ts > this.lastEventAt) this.lastEventAt = call.ts;
    if (result.stored.length > 0) this.options.onStored?.(result.stored);
  }
}
