/**
 * `breakerbar scan`: offline analysis of OpenClaw state directories. Reads every
 * source found under them, never touches BreakerBar's own database, and counts
 * with exactly the code the daemon ingests with (same line cutting, same record
 * reading, same classifier, same rule for gateway-log calls), so `scan` and
 * `history` can be held side by side.
 *
 * Inputs are read independently (in worker threads when asked) and merged in a
 * fixed order, so the result does not depend on how the work was spread.
 */
import { type Dirent, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { OUTCOMES, type Outcome } from '../calls/classify.js';
import { pairAttempts } from '../calls/pairing.js';
import { type CallSummary, CallTally, TurnTally } from '../calls/summary.js';
import { configSchema } from '../config/index.js';
import { AGENT_DATABASE_NAME, findAgentDatabases } from '../sources/agent-database.js';
import { type GatewayLogScan, scanGatewayLogs } from '../sources/gateway-log.js';
import { agentIdOfSessionKey } from '../sources/gateway-signal-calls.js';
import { transcriptRole } from '../sources/transcripts-jsonl.js';
import { type RowidRange, splitAgentDatabase } from './agent-database.js';
import { type FoundCall, type FoundCalls, foundCallAt, SEED, SeenKeys, UPSTREAM } from './calls.js';
import { scanThreads, startScanWorkers } from './pool.js';
import { type InputScan, type ReadOptions, readInput, type ScanInput, scanScratch } from './read.js';
import { type Storm, seedWatchdogStorms } from './storms.js';
import type { ScanWorkerRequest } from './worker.js';

export interface ScanOptions {
  includeArchives?: boolean;
  /** Only calls (and signals) at or after this time (epoch ms) are counted. */
  since?: number;
  maxLineBytes?: number;
  /** Extra directories holding gateway logs (each dir's `logs/` is always looked at). */
  gatewayLogDirs?: readonly string[];
  /** OpenClaw profile, for the gateway log file names. */
  profile?: string | null;
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
  /** Agent-database rows that could not be decoded (corrupt zstd frame, no event) and were skipped; not in `malformed`. */
  undecodable: number;
  /** Calls found more than once (copies of the same record), counted once. */
  duplicates: number;
  bySource: {
    jsonl: SourceScan & { files: number };
    sqlite: SourceScan & { databases: number };
    gatewaylog: Omit<GatewayLogScan, 'calls' | 'errors' | 'attempts' | 'turns'> & SourceScan;
  };
  /** Where the seed cron watchdog would have restarted the gateway (human output). */
  storms: Storm[];
  /** Problems that stopped a file or database from being read (permissions, unknown schema). */
  errors: Array<{ path: string; error: string }>;
  /** Problems within inputs that were read (undecodable rows), one per input. */
  warnings: Array<{ path: string; warning: string }>;
}

interface Plan {
  inputs: ScanInput[];
  errors: ScanResult['errors'];
  readOptions: ReadOptions;
}

/** Reads everything in this thread. */
export function scan(dirs: readonly string[], options: ScanOptions = {}): ScanResult {
  const plan = planScan(dirs, options);
  const scratch = scanScratch();
  const total = plan.inputs.reduce((sum, input) => sum + input.bytes, 0);
  let read = 0;
  const results = plan.inputs.map((input) => {
    const result = readInput(input, plan.readOptions, scratch);
    read += input.bytes;
    options.onProgress?.(read, total);
    return result;
  });
  return merge(options, plan, results, readGatewayLogs(dirs, options));
}

/**
 * Reads the inputs in `workers` threads (default: one per core, at most 8), for
 * large installations; the result is identical to `scan`'s. `pool`: threads
 * already started for it (startScanWorkers), which it ends.
 */
export async function scanInParallel(
  dirs: readonly string[],
  options: ScanOptions & { workers?: number; pool?: Worker[] } = {},
): Promise<ScanResult> {
  // Started first: each thread loads its modules while this one lists the inputs.
  const pool = options.pool ?? startScanWorkers(scanThreads(options.workers));
  const threads = pool.length;
  if (threads === 0) return scan(dirs, options);
  try {
    const plan = planScan(dirs, options);
    plan.inputs = splitLargeDatabases(plan.inputs, threads);
    const total = plan.inputs.reduce((sum, input) => sum + input.bytes, 0);
    let read = 0;
    const results: InputScan[] = new Array(plan.inputs.length);
    // Handed out one at a time, largest first, to whichever thread is free: bytes do not say how long an
    // input takes (a thread's first inputs run before its code is optimised; records differ in cost), and
    // shares dealt in advance left one thread reading for up to a quarter of the scan while the other idled.
    const order = plan.inputs.map((input, index) => ({ input, index })).sort((a, b) => b.input.bytes - a.input.bytes);
    let handedOut = 0;
    const done = pool.map(
      (worker) =>
        new Promise<void>((resolve, reject) => {
          // Inputs sent and not answered yet, in order: a thread answers in the order it was sent them.
          const sent: Array<{ index: number; input: ScanInput }> = [];
          const give = (): void => {
            const item = order[handedOut];
            if (item === undefined) return;
            handedOut++;
            sent.push(item);
            const request: ScanWorkerRequest = { inputs: [item.input], options: plan.readOptions };
            worker.postMessage(request);
          };
          worker.on('message', (result: InputScan) => {
            const slot = sent.shift() as { index: number; input: ScanInput };
            results[slot.index] = result;
            read += slot.input.bytes;
            options.onProgress?.(read, total);
            give();
            if (sent.length === 0) resolve();
          });
          worker.on('error', reject);
          worker.on('exit', (code) =>
            sent.length === 0 ? resolve() : reject(new Error(`scan worker exited with ${code}`)),
          );
          // Two at a time, so that the next input is already there when a thread finishes one.
          give();
          give();
          if (sent.length === 0) resolve();
        }),
    );
    // The gateway logs are read here while the threads read the transcripts.
    const logs = readGatewayLogs(dirs, options);
    await Promise.all(done);
    return merge(options, plan, results, logs);
  } finally {
    for (const worker of pool) void worker.terminate();
  }
}

/**
 * A database holding more than one thread's share of the bytes is cut into
 * rowid ranges, one per thread, read in order (so the merge sees its rows in
 * the same order as unsplit). One that cannot be opened stays whole, for its
 * reader to report why.
 */
function splitLargeDatabases(inputs: ScanInput[], threads: number): ScanInput[] {
  const share = inputs.reduce((sum, input) => sum + input.bytes, 0) / threads;
  return inputs.flatMap((input) => {
    if (input.kind !== 'sqlite' || input.bytes <= share) return [input];
    let parts: RowidRange[];
    try {
      parts = splitAgentDatabase(input.path, threads);
    } catch {
      return [input];
    }
    return parts.map((rows) => ({ ...input, rows, bytes: input.bytes / parts.length }));
  });
}

function planScan(dirs: readonly string[], options: ScanOptions): Plan {
  const errors: ScanResult['errors'] = [];
  const databases = new Map<string, string>();
  for (const dir of dirs) {
    if (basename(dir) === AGENT_DATABASE_NAME) databases.set(dir, basename(dirname(dirname(dir))));
    for (const { agentId, path } of findAgentDatabases(dir)) databases.set(path, agentId);
  }
  const files = new Set(dirs.flatMap((dir) => findTranscripts(dir, options.includeArchives ?? false, errors)));
  // Databases first: where OpenClaw migrated a JSONL transcript, the database holds the canonical copy.
  const inputs: ScanInput[] = [
    ...[...databases]
      .sort()
      .map(([path, agentId]) => ({ kind: 'sqlite' as const, path, agentId, bytes: sizeOf(path) })),
    ...[...files].sort().map((path) => ({ kind: 'jsonl' as const, path, bytes: sizeOf(path) })),
  ];
  const readOptions: ReadOptions = {
    maxLineBytes: options.maxLineBytes ?? configSchema.shape.ingest.shape.maxLineBytes.default,
  };
  return { inputs, errors, readOptions };
}

/** Counts every call once, overall and per source, in input order, as the store would. */
/** Gateway logs in `dirs` (each dir's `logs/`) and the extra log directories. */
function readGatewayLogs(dirs: readonly string[], options: ScanOptions): GatewayLogScan {
  return scanGatewayLogs([...dirs, ...(options.gatewayLogDirs ?? [])], {
    profile: options.profile ?? null,
    since: options.since,
    maxLineBytes: options.maxLineBytes,
  });
}

function merge(options: ScanOptions, plan: Plan, results: readonly InputScan[], logs: GatewayLogScan): ScanResult {
  const since = options.since ?? Number.NEGATIVE_INFINITY;
  const all = new CallTally();
  const bySource = { jsonl: new CallTally(), sqlite: new CallTally(), gatewaylog: new CallTally() };
  const seen = new SeenKeys();
  const seedTimes: number[] = [];
  const errors = [...plan.errors];
  const read = { jsonl: new Set<string>(), sqlite: new Set<string>() };
  const agentsWithTranscripts = new Set<string>();
  let lines = 0;
  let malformed = 0;
  let undecodable = 0;
  const warnings: ScanResult['warnings'] = [];
  let duplicates = 0;
  const turns = new TurnTally();
  // Failed records wait for the log's attempts: a record and its own attempt are one call.
  const failedRecords: Array<FoundCall & { source: 'jsonl' | 'sqlite' }> = [];
  const count = (call: FoundCall, tally: CallTally) => {
    all.add(call.dep, call.outcome, call.tokens);
    tally.add(call.dep, call.outcome, call.tokens);
  };
  const deps = new DependencyIds();
  const recordTurns = new GroupedCounts();
  const okRecords = { jsonl: new GroupedCounts(), sqlite: new GroupedCounts() };
  /** Each call once (the first copy in input order), as the store keeps it. */
  const record = (calls: FoundCalls, source: 'jsonl' | 'sqlite') => {
    const depIds = calls.deps.map((dep) => deps.id(dep));
    const input = seen.input(calls);
    for (let i = 0; i < calls.count; i++) {
      const ts = calls.ts[i] as number;
      if (ts < since) continue;
      if (!seen.add(input, i)) {
        duplicates++;
        continue;
      }
      const flags = calls.flags[i] as number;
      if (flags & SEED) seedTimes.push(ts);
      const dep = depIds[calls.dep[i] as number] as number;
      const outcome = calls.outcome[i] as number;
      const tokens = calls.tokens[i] as number;
      recordTurns.add(dep, outcome, tokens);
      if ((flags & UPSTREAM) === 0) continue;
      if (outcome === OK) okRecords[source].add(dep, outcome, tokens);
      else failedRecords.push({ ...foundCallAt(calls, i), source });
    }
  };
  // A large database may have been read in parts (one per thread): counted, and reported, as one input.
  const failed = new Set<string>();
  const undecodableRows = new Map<string, { rows: number; first: string | null }>();
  for (const result of results) {
    const { path } = result.input;
    if (result.error !== null) {
      if (!failed.has(path)) errors.push({ path, error: result.error });
      failed.add(path);
      continue;
    }
    read[result.input.kind].add(path);
    agentsWithTranscripts.add(result.input.kind === 'sqlite' ? result.input.agentId : basename(dirname(dirname(path))));
    lines += result.lines;
    malformed += result.malformed;
    undecodable += result.undecodable;
    if (result.undecodable > 0) {
      const seen = undecodableRows.get(path) ?? { rows: 0, first: result.firstUndecodable };
      seen.rows += result.undecodable;
      undecodableRows.set(path, seen);
    }
    record(result.calls, result.input.kind);
  }
  for (const [path, { rows, first }] of undecodableRows) {
    warnings.push({ path, warning: `${rows} row(s) cannot be decoded and were skipped; first: ${first}` });
  }
  recordTurns.addTo([turns], deps.names);
  okRecords.jsonl.addTo([all, bySource.jsonl], deps.names);
  okRecords.sqlite.addTo([all, bySource.sqlite], deps.names);

  // Gateway logs: signals always; their fallback decisions count as calls only for agents
  // without readable transcripts, the rule the daemon follows.
  errors.push(...logs.errors);
  const asFound = (call: (typeof logs.calls)[number]): FoundCall => ({
    key: call.key,
    ts: call.ts,
    dep: call.dep,
    outcome: call.outcome,
    tokens: call.usage.totalTokens,
    seed: false,
    upstream: true,
    runId: call.runId ?? null,
  });
  for (const call of logs.calls) {
    const agent = agentIdOfSessionKey(call.sessionId) ?? call.agentId;
    const covered = agent === 'unknown' ? agentsWithTranscripts.size > 0 : agentsWithTranscripts.has(agent);
    if (!covered) count(asFound(call), bySource.gatewaylog);
  }
  // Each log attempt is a call; a failed record is one only when no attempt of the log stands for it.
  const attempts = logs.attempts.map(asFound);
  const unpaired = pairAttempts(attempts, failedRecords);
  for (const attempt of attempts) count(attempt, bySource.gatewaylog);
  for (const failed of unpaired) count(failed, bySource[failed.source]);
  for (const turn of logs.turns) turns.add(turn.dep, turn.outcome, 0);
  const { calls: _calls, errors: _errors, attempts: _attempts, turns: _turns, ...logCounts } = logs;
  const summary = all.summary(turns.summary());
  const bySourceOf = (tally: CallTally) => ({ calls: tally.size, outcomes: tally.outcomeCounts() });
  return {
    files: read.jsonl.size + read.sqlite.size,
    lines,
    malformed,
    undecodable,
    duplicates,
    ...summary,
    bySource: {
      jsonl: { files: read.jsonl.size, ...bySourceOf(bySource.jsonl) },
      sqlite: { databases: read.sqlite.size, ...bySourceOf(bySource.sqlite) },
      gatewaylog: { ...logCounts, ...bySourceOf(bySource.gatewaylog) },
    },
    storms: seedWatchdogStorms(seedTimes),
    errors,
    warnings,
  };
}

const OK = OUTCOMES.indexOf('ok');

/** Small numbers for dependency names, shared by every input of one merge. */
class DependencyIds {
  readonly names: string[] = [];
  private readonly ids = new Map<string, number>();

  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.ids.set(name, id);
    }
    return id;
  }
}

/**
 * Calls and tokens per (dependency, outcome), added to the tallies in one go:
 * per call an array slot instead of the tallies' map look-ups.
 */
class GroupedCounts {
  private readonly calls: number[] = [];
  private readonly tokens: number[] = [];

  add(dep: number, outcome: number, tokens: number): void {
    const slot = dep * OUTCOMES.length + outcome;
    this.calls[slot] = (this.calls[slot] ?? 0) + 1;
    this.tokens[slot] = (this.tokens[slot] ?? 0) + tokens;
  }

  addTo(tallies: ReadonlyArray<CallTally | TurnTally>, names: readonly string[]): void {
    this.calls.forEach((calls, slot) => {
      const dep = names[Math.floor(slot / OUTCOMES.length)] as string;
      const outcome = OUTCOMES[slot % OUTCOMES.length] as Outcome;
      for (const tally of tallies) tally.add(dep, outcome, this.tokens[slot] as number, calls);
    });
  }
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
  if (isFile) return basename(dir) === AGENT_DATABASE_NAME ? [] : [dir];
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

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
