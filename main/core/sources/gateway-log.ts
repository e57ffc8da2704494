/**
 * Source: the OpenClaw gateway's JSON log, `<logDir>/openclaw-YYYY-MM-DD.log`
 * (`openclaw-<profile>-YYYY-MM-DD.log` for a profile), a new file every day and
 * size-rotated into `.log.1` … `.log.5`.
 *
 * The log tells what transcripts do not: fallback and failover decisions, lane
 * errors, stalled sessions, run timeouts. Those are stored as signals. They are
 * not calls: where an agent's transcripts are readable the calls come from them,
 * and only where they are not does a fallback decision stand in for the call it
 * reports, so nothing is counted twice.
 *
 * Following files across days and rotations is the FileTailer's job: a rotated
 * file is recognised by its inode and continued where it was left, so a line
 * whose end was written after the rename is read once, whole.
 */
import { closeSync, type Dirent, readdirSync, type Stats } from 'node:fs';
import { basename, join } from 'node:path';
import type { CallEvent, GatewaySignal, SignalKind, TurnEvent } from '../calls/events.js';
import type { Logger } from '../runtime/log.js';
import { isOutOfRoom } from '../store/room.js';
import { identityKey, readIdentity } from './file-identity.js';
import { AttemptAssembler, UNKNOWN_AGENT } from './gateway-attempts.js';
import { type AttemptLine, readGatewayLogLine } from './gateway-log-record.js';
import { agentIdOfSessionKey, fallbackAsCall, refusedTurn } from './gateway-signal-calls.js';
import { type LineBatchData, readLineBatch } from './line-batch.js';
import { NotRegularFileError, openRegularFile } from './regular-file.js';
import type { IngestSink, Source, SourceStatus } from './source.js';
import { FileTailer, type LineBatch } from './tailer.js';
import type { FileRole } from './watcher.js';

/**
 * The gateway's daily log names: without a profile only the plain names (a
 * profiled gateway is another gateway), with one only that profile's names.
 * OpenClaw keeps rotated files `.1` … `.5`.
 */
export function gatewayLogPattern(profile: string | null): RegExp {
  const prefix = profile === null ? 'openclaw' : `openclaw-${profile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
  return new RegExp(`^${prefix}-\\d{4}-\\d{2}-\\d{2}\\.log(?:\\.[1-5])?$`);
}

/**
 * Oldest first: by day, then a day's rotations `.5` … `.1`, then its live file.
 * Lines of one request can straddle a rotation, and attempts are assembled in
 * the order lines were written.
 */
export function compareGatewayLogNames(a: string, b: string): number {
  const key = (name: string) => {
    const match = /^(.*\.log)(?:\.(\d+))?$/.exec(name);
    return { stem: match?.[1] ?? name, age: match?.[2] === undefined ? 0 : Number(match[2]) };
  };
  const ka = key(basename(a));
  const kb = key(basename(b));
  if (ka.stem !== kb.stem) return ka.stem < kb.stem ? -1 : 1;
  return kb.age - ka.age;
}

/** How a path in the log directory is treated (see FileRole). */
export function gatewayLogRole(path: string, pattern: RegExp): FileRole {
  return pattern.test(basename(path)) ? 'follow' : 'ignore';
}

export interface GatewayLineCounts {
  lines: number;
  malformed: number;
  /** Well-formed lines that are neither signals nor attempts (other subsystems and messages). */
  unknown: number;
}

export interface GatewayLineHandlers {
  onSignal(signal: GatewaySignal): void;
  /** A line about one upstream request, with its byte offset in the file. */
  onAttempt(line: AttemptLine, offset: number): void;
}

/**
 * Reads the lines of a batch, counting them, and hands every signal and attempt
 * line on. Blank lines are not lines; over-long lines are malformed. A line's key
 * is the file's identity and the line's byte offset: unique, and the same on a re-read.
 */
export function forEachGatewayRecord(
  batch: Pick<LineBatchData, 'buf' | 'lineStarts' | 'lineEnds' | 'oversizedLines' | 'fromOffset'>,
  fileKey: string,
  counts: GatewayLineCounts,
  handlers: GatewayLineHandlers,
): void {
  const { buf, lineStarts, lineEnds } = batch;
  counts.lines += batch.oversizedLines;
  counts.malformed += batch.oversizedLines;
  for (let i = 0; i < lineStarts.length; i++) {
    const start = lineStarts[i] as number;
    const end = lineEnds[i] as number;
    if (isBlank(buf, start, end)) continue;
    counts.lines++;
    const offset = batch.fromOffset + start;
    const record = readGatewayLogLine(buf, start, end, `${fileKey}@${offset}`);
    if (record.kind === 'malformed') counts.malformed++;
    else if (record.kind === 'ignored') counts.unknown++;
    else if (record.kind === 'attempt') handlers.onAttempt(record.line, offset);
    else handlers.onSignal(record.signal);
  }
}

function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = buf[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}

export const SIGNAL_KINDS: readonly SignalKind[] = [
  'fallback_decision',
  'failover_decision',
  'lane_error',
  'stall',
  'run_timeout',
  'gateway_restart',
];

/** Signals by kind, and fallback decisions by OpenClaw's reason (`unknown` when none is given). */
export class SignalTally {
  readonly byKind = Object.fromEntries(SIGNAL_KINDS.map((kind) => [kind, 0])) as Record<SignalKind, number>;
  // A Map, not an object: reasons come from the log, and `__proto__` is a valid one.
  private readonly reasons = new Map<string, number>();

  add(signal: GatewaySignal): void {
    this.byKind[signal.kind]++;
    if (signal.kind !== 'fallback_decision') return;
    const reason = signal.reason ?? 'unknown';
    this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
  }

  fallbackDecisions(): Record<string, number> {
    return Object.fromEntries([...this.reasons].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

export interface GatewayLogSourceOptions {
  logDir: string;
  /** OpenClaw's `--profile`; null follows the default gateway's logs only. */
  profile: string | null;
  sink: IngestSink;
  /** Signals older than this (line time, epoch ms) are read but not stored: the backfill limit. */
  cutoff: number;
  reconcileIntervalMs: number;
  maxLineBytes: number;
  log: Logger;
  /**
   * Whether a transcript source already delivers the calls of this agent (null:
   * the line names no agent). When it does, fallback decisions stay signals only.
   */
  transcriptsCover(agentId: string | null): boolean;
  /** Called with the calls just stored (attempts, and fallback decisions where nothing else reports calls), in order. */
  onStored?: (calls: CallEvent[]) => void;
  /** The clock, for attempts held when the log goes quiet (tests inject one). */
  now?: () => number;
  /** Called with the signals just stored, in order (the breakers' stall detection listens here). */
  onSignals?: (signals: GatewaySignal[]) => void;
}

/** What the gateway log source has read, beyond the common status. */
export interface GatewayLogStatus {
  files: number;
  lines: number;
  malformed: number;
  unknown: number;
  signals: Record<SignalKind, number>;
  fallbackDecisions: Record<string, number>;
  stalls: number;
  runTimeouts: number;
  /** Lines about upstream requests read (`[model-fetch]` answers and errors, failed attempts' run-ends). */
  attemptLines: number;
}

/**
 * How long a failed fetch may wait for the run-end that describes it (the provider's text,
 * with its Retry-After: what makes a breaker go `throttled` at once, and what tells a 400's
 * context overflow from another 400). Measured on the real gateway: 10–400 ms apart when
 * idle, over a second while ten runs start at once. The run-end, the request's next line
 * on its span, or another line of its run past the hold releases it sooner; only a fetch
 * that never gets one (a hung request) waits the whole hold.
 */
const HOLD_MS = 5000;

export class GatewayLogSource implements Source {
  readonly kind = 'gatewaylog' as const;
  private readonly tailer: FileTailer;
  private readonly counts = { lines: 0, malformed: 0, unknown: 0, calls: 0, stored: 0, duplicates: 0 };
  private readonly tally = new SignalTally();
  private readonly assembler = new AttemptAssembler(HOLD_MS);
  /** Per file key: where it was read to, and its path. */
  private readonly files = new Map<string, { path: string; readTo: number }>();
  /** Per file key: how far an earlier run read it (lines below come again after a restart). */
  private readonly replayTo = new Map<string, number>();
  private attemptLines = 0;
  private flushTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private lastEventAt: number | null = null;
  private lastError: string | null = null;

  private readonly options: GatewayLogSourceOptions & { now: () => number };

  constructor(options: GatewayLogSourceOptions) {
    this.options = { ...options, now: options.now ?? (() => Date.now()) };
    for (const cursor of options.sink.cursors('gatewaylog')) {
      const readTo = readToOf(cursor.detail);
      if (readTo !== null) this.replayTo.set(cursor.key, readTo);
    }
    const pattern = gatewayLogPattern(options.profile);
    this.tailer = new FileTailer({
      roots: [options.logDir],
      // The gateway writes every log file straight into its directory.
      depth: 0,
      roleOf: (path) => gatewayLogRole(path, pattern),
      compareNames: compareGatewayLogNames,
      initialPositions: options.sink.cursors('gatewaylog'),
      consume: (batch) => this.consume(batch),
      forget: (key) => options.sink.commit({ events: [], forget: [{ source: 'gatewaylog', key }] }),
      onError: (error, path) => {
        // Not a file (a named pipe, say): skipped, said once by the tailer; no read failed, so no source error.
        if (error instanceof NotRegularFileError) {
          options.log.warn('not a regular file where one is read; skipped', { path, error: error.message });
          return;
        }
        // No read failed: BreakerBar's store has no room (said once by the room watch); read again at the retry.
        if (isOutOfRoom(error)) return;
        this.lastError = `${path}: ${error.message}`;
        options.log.warn('gateway log read failed; will retry', { path, error: error.message });
      },
      reconcileIntervalMs: options.reconcileIntervalMs,
      maxLineBytes: options.maxLineBytes,
    });
  }

  start(): void {
    this.stopped = false;
    this.tailer.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    await this.tailer.stop();
  }

  get caughtUp(): boolean {
    return this.tailer.idle && this.assembler.holding === 0;
  }

  /** `calls` counts fallback-derived calls (only where transcripts do not cover the agent); `lastEventAt` is the newest signal. */
  status(): SourceStatus {
    const progress = this.tailer.progress();
    return {
      kind: this.kind,
      roots: [this.options.logDir],
      inputs: progress.files,
      lines: this.counts.lines,
      malformed: this.counts.malformed,
      calls: this.counts.calls,
      stored: this.counts.stored,
      duplicates: this.counts.duplicates,
      pending: progress.pendingBytes,
      pendingUnit: 'bytes',
      lastEventAt: this.lastEventAt,
      lastError: this.lastError,
    };
  }

  /** Signals read (stored or older than the cutoff), by kind and fallback reason. */
  gatewayStatus(): GatewayLogStatus {
    return {
      files: this.tailer.progress().files,
      lines: this.counts.lines,
      malformed: this.counts.malformed,
      unknown: this.counts.unknown,
      signals: { ...this.tally.byKind },
      fallbackDecisions: this.tally.fallbackDecisions(),
      stalls: this.tally.byKind.stall,
      runTimeouts: this.tally.byKind.run_timeout,
      attemptLines: this.attemptLines,
    };
  }

  private consume(batch: LineBatch): void {
    const counts = { lines: 0, malformed: 0, unknown: 0 };
    const read: GatewaySignal[] = [];
    const attempts: CallEvent[] = [];
    forEachGatewayRecord(batch, batch.key, counts, {
      onSignal: (signal) => read.push(signal),
      onAttempt: (line, offset) => {
        this.attemptLines++;
        attempts.push(...this.assembler.push(line, offset));
      },
    });
    this.files.set(batch.key, { path: batch.path, readTo: batch.toOffset });
    const signals = read.filter((signal) => signal.ts >= this.options.cutoff);
    const calls = [...attempts, ...this.uncoveredCalls(read)];
    const turns = read
      .map(refusedTurn)
      .filter((turn): turn is TurnEvent => turn !== null && turn.ts >= this.options.cutoff);
    // Attempts released here may have begun in another file (the day's previous one): its cursor moves too.
    const keys = [...new Set([batch.key, ...calls.map((call) => lineOf(call).fileKey)])];
    const result = this.commit(calls, signals, turns, keys);
    // Counted only once committed: a failed commit is retried and must not count twice.
    this.counted(counts, read, calls.length, result);
    if (signals.length > 0) this.options.onSignals?.(signals);
    this.scheduleFlush();
  }

  /**
   * Stores calls, signals and turns with the cursor of each file touched. A file's
   * cursor never passes a line whose attempt is still held (waiting for its
   * run-end), so a crash re-reads that line instead of losing the attempt.
   */
  private commit(
    calls: CallEvent[],
    signals: GatewaySignal[],
    turns: TurnEvent[],
    fileKeys: string[],
  ): { inserted: number; duplicates: number } {
    const events = calls.filter((call) => call.ts >= this.options.cutoff);
    // Lines an earlier run already read (it stopped while they were held) come again: expected, not duplicates.
    const replay =
      events.length > 0 &&
      events.every((call) => {
        const line = lineOf(call);
        return line.offset < (this.replayTo.get(line.fileKey) ?? -1);
      });
    let result = { inserted: 0, duplicates: 0 };
    fileKeys.forEach((key, i) => {
      const file = this.files.get(key);
      if (!file) return;
      const position = this.assembler.heldFrom(key) ?? file.readTo;
      const stored = this.options.sink.commit({
        events: i === 0 ? events : [],
        signals: i === 0 ? signals : [],
        turns: i === 0 ? turns : [],
        replay,
        cursor: {
          source: 'gatewaylog',
          key,
          path: file.path,
          position,
          // How far this file was read: lines below it that come again after a restart are a replay.
          detail: JSON.stringify({ readTo: Math.max(file.readTo, this.replayTo.get(key) ?? 0) }),
        },
      });
      if (stored.stored.length > 0) this.options.onStored?.(stored.stored);
      result = { inserted: result.inserted + stored.inserted, duplicates: result.duplicates + stored.duplicates };
    });
    return result;
  }

  /** Attempts still held when the log goes quiet are stored after the hold, by the clock. */
  private scheduleFlush(): void {
    if (this.flushTimer || this.assembler.holding === 0 || this.stopped) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      const calls = this.assembler.flush(this.options.now() - HOLD_MS);
      if (calls.length > 0) {
        const keys = [...new Set(calls.map((call) => lineOf(call).fileKey))];
        const result = this.commit(calls, [], [], keys);
        this.counts.calls += calls.length;
        this.counts.stored += result.inserted;
        this.counts.duplicates += result.duplicates;
      }
      this.scheduleFlush();
    }, HOLD_MS);
    this.flushTimer.unref?.();
  }

  /** Fallback decisions as calls, for the agents no transcript source covers, in runs the log reported no attempt of. */
  private uncoveredCalls(signals: readonly GatewaySignal[]): CallEvent[] {
    const calls: CallEvent[] = [];
    for (const signal of signals) {
      if (this.assembler.hasAttempts(signal.traceId)) continue;
      const agentId = agentIdOfSessionKey(signal.sessionKey);
      const call = fallbackAsCall(signal, agentId ?? UNKNOWN_AGENT);
      if (call !== null && !this.options.transcriptsCover(agentId)) calls.push(call);
    }
    return calls;
  }

  private counted(
    counts: GatewayLineCounts,
    read: readonly GatewaySignal[],
    calls: number,
    result: { inserted: number; duplicates: number },
  ): void {
    this.counts.lines += counts.lines;
    this.counts.malformed += counts.malformed;
    this.counts.unknown += counts.unknown;
    this.counts.calls += calls;
    this.counts.stored += result.inserted;
    this.counts.duplicates += result.duplicates;
    for (const signal of read) {
      this.tally.add(signal);
      if (this.lastEventAt === null || signal.ts > this.lastEventAt) this.lastEventAt = signal.ts;
    }
  }
}

/** The file and byte offset of the line a log call was read from (its key is `gatewaylog/<file key>@<offset>`). */
function lineOf(call: CallEvent): { fileKey: string; offset: number } {
  const at = call.key.lastIndexOf('@');
  return { fileKey: call.key.slice('gatewaylog/'.length, at), offset: Number(call.key.slice(at + 1)) };
}

/** `{"readTo": N}` from a stored cursor's detail, or null. */
function readToOf(detail: string | null | undefined): number | null {
  if (!detail) return null;
  try {
    const parsed = JSON.parse(detail) as { readTo?: unknown };
    return typeof parsed.readTo === 'number' ? parsed.readTo : null;
  } catch {
    return null;
  }
}

export interface GatewayLogScanOptions {
  profile: string | null;
  /** Only signals at or after this time (epoch ms) are counted. */
  since?: number;
  maxLineBytes?: number;
}

export interface GatewayLogScan {
  files: number;
  lines: number;
  malformed: number;
  unknown: number;
  signals: Record<SignalKind, number>;
  fallbackDecisions: Record<string, number>;
  stalls: number;
  runTimeouts: number;
  /** Every fallback decision that reports a call in a run with no attempt lines; `scan` decides whether transcripts already count them. */
  calls: CallEvent[];
  /** Upstream attempts (failed requests), assembled as the live source does. */
  attempts: CallEvent[];
  /** Turns OpenClaw refused itself. */
  turns: TurnEvent[];
  attemptLines: number;
  /** Log files that could not be read. */
  errors: Array<{ path: string; error: string }>;
}

const SCAN_CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * `breakerbar scan`: the gateway logs in each directory and in its `logs/`
 * subdirectory, read with the same line cutting and line reading as the source.
 */
export function scanGatewayLogs(dirs: readonly string[], options: GatewayLogScanOptions): GatewayLogScan {
  const pattern = gatewayLogPattern(options.profile);
  const since = options.since ?? Number.NEGATIVE_INFINITY;
  const maxLineBytes = options.maxLineBytes ?? 64 * 1024 * 1024;
  const errors: GatewayLogScan['errors'] = [];
  const counts = { lines: 0, malformed: 0, unknown: 0 };
  const tally = new SignalTally();
  const calls: CallEvent[] = [];
  const attempts: CallEvent[] = [];
  const turns: TurnEvent[] = [];
  const assembler = new AttemptAssembler(HOLD_MS);
  let attemptLines = 0;
  const handlers: GatewayLineHandlers = {
    onSignal: (signal) => {
      if (signal.ts < since) return;
      tally.add(signal);
      const call = assembler.hasAttempts(signal.traceId) ? null : fallbackAsCall(signal, UNKNOWN_AGENT);
      if (call !== null) calls.push(call);
      const turn = refusedTurn(signal);
      if (turn !== null) turns.push(turn);
    },
    onAttempt: (line, offset) => {
      attemptLines++;
      for (const attempt of assembler.push(line, offset)) if (attempt.ts >= since) attempts.push(attempt);
    },
  };
  // The same file reached twice (a directory and its `logs/`, a symlink) is read once.
  const seen = new Set<string>();
  let files = 0;
  const paths = [...new Set(dirs.flatMap((dir) => findGatewayLogs(dir, pattern, errors)))];
  for (const path of paths.sort((a, b) => compareGatewayLogNames(a, b) || (a < b ? -1 : a > b ? 1 : 0))) {
    if (scanFile(path, { maxLineBytes, seen, counts, handlers, errors })) files++;
  }
  // Offline there is no writer to finish a run: what is still held is complete.
  for (const attempt of assembler.flush()) if (attempt.ts >= since) attempts.push(attempt);
  return {
    files,
    ...counts,
    signals: { ...tally.byKind },
    fallbackDecisions: tally.fallbackDecisions(),
    stalls: tally.byKind.stall,
    runTimeouts: tally.byKind.run_timeout,
    calls,
    attempts,
    turns,
    attemptLines,
    errors,
  };
}

/** Matching log files directly in `dir` and in `dir/logs` (either may not exist). */
export function findGatewayLogs(dir: string, pattern: RegExp, errors: GatewayLogScan['errors'] = []): string[] {
  const found: string[] = [];
  for (const candidate of [dir, join(dir, 'logs')]) {
    let entries: Dirent[];
    try {
      entries = readdirSync(candidate, { withFileTypes: true });
    } catch (error) {
      // Most state directories have no gateway logs: a missing directory is not a problem.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') errors.push({ path: candidate, error: (error as Error).message });
      continue;
    }
    for (const entry of entries) {
      const path = join(candidate, entry.name);
      if (entry.isFile() && gatewayLogRole(path, pattern) === 'follow') found.push(path);
    }
  }
  return found;
}

interface ScanFileContext {
  maxLineBytes: number;
  seen: Set<string>;
  counts: GatewayLineCounts;
  handlers: GatewayLineHandlers;
  errors: GatewayLogScan['errors'];
}

/** Reads one log file to its end; false when it could not be read or was read already. */
function scanFile(path: string, context: ScanFileContext): boolean {
  let fd: number;
  let stats: Stats;
  try {
    ({ fd, stats } = openRegularFile(path));
  } catch (error) {
    context.errors.push({ path, error: (error as Error).message });
    return false;
  }
  try {
    const inode = `${stats.dev}:${stats.ino}`;
    if (context.seen.has(inode)) return false;
    context.seen.add(inode);
    // The same key the live source gives the file, so scan's signal keys match the store's.
    const identity = readIdentity(fd, stats.dev, stats.ino, stats.size);
    readAllLines(fd, stats.size, identity ? identityKey(identity) : inode, context);
    return true;
  } catch (error) {
    context.errors.push({ path, error: (error as Error).message });
    return false;
  } finally {
    closeSync(fd);
  }
}

function readAllLines(fd: number, size: number, fileKey: string, context: ScanFileContext): void {
  let offset = 0;
  for (;;) {
    const batch = readLineBatch(fd, offset, size, SCAN_CHUNK_BYTES, context.maxLineBytes);
    if (!batch) break;
    forEachGatewayRecord(batch, fileKey, context.counts, context.handlers);
    offset = batch.toOffset;
  }
  if (offset < size) {
    // An unterminated last line: offline there is no writer to finish it.
    context.counts.lines++;
    context.counts.malformed++;
  }
}
