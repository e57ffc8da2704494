/**
 * Reading one scan input (a JSONL transcript or an agent database) into the
 * facts `scan` merges: line counts and a compact record of every call. Runs in
 * the main thread or in a worker; it returns plain data either way.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { OUTCOMES, type Outcome } from './classify.js';
import { type RowidRange, readAgentDatabase } from './scan-agent-database.js';
import { readIdentity } from './sources/file-identity.js';
import { readLineBatch } from './sources/line-batch.js';
import { sharedQuoteIndexer } from './sources/quote-bitmap.js';
import type { TranscriptRecord } from './sources/transcript-record.js';
import { agentIdOf, forEachRecord, sessionIdOf } from './sources/transcripts-jsonl.js';

export type ScanInput =
  | { kind: 'jsonl'; path: string; bytes: number }
  /** `rows`: a part of the database (a large one is read by several threads), else all of it. */
  | { kind: 'sqlite'; path: string; agentId: string; bytes: number; rows?: RowidRange };

/** What scan needs of a call. */
export interface FoundCall {
  key: string;
  ts: number;
  dep: string;
  outcome: Outcome;
  tokens: number;
  /** The seed cron watchdog would have counted it as a 429. */
  seed: boolean;
  /** False for a reply OpenClaw wrote itself (a turn, not a request). */
  upstream: boolean;
  runId: string | null;
}

/**
 * The calls of one input, column by column. Why: a worker hands back a
 * hundred thousand calls; as objects, copying them to the main thread and
 * collecting them cost more than the merge itself, while typed arrays and one
 * string cross in a few copies.
 */
export interface FoundCalls {
  count: number;
  /** Every call's key, concatenated; call i's ends at keyEnds[i] (and starts where call i - 1's ends). */
  keys: string;
  keyEnds: Uint32Array;
  ts: Float64Array;
  tokens: Float64Array;
  /** The input's dependencies; `dep[i]` indexes them. */
  deps: string[];
  dep: Uint32Array;
  /** Index into OUTCOMES. */
  outcome: Uint8Array;
  /** SEED and UPSTREAM bits. */
  flags: Uint8Array;
  /** runId of the calls that have one, by call index. */
  runIds: Map<number, string>;
}

export const SEED = 1;
export const UPSTREAM = 2;

const OUTCOME_INDEX = new Map<Outcome, number>(OUTCOMES.map((outcome, index) => [outcome, index]));

/** Collects FoundCalls a call at a time. */
class FoundCallsBuilder {
  private readonly keys: string[] = [];
  private readonly keyEnds: number[] = [];
  private keyLength = 0;
  private readonly ts: number[] = [];
  private readonly tokens: number[] = [];
  private readonly deps: string[] = [];
  private readonly depIndex = new Map<string, number>();
  private readonly dep: number[] = [];
  private readonly outcome: number[] = [];
  private readonly flags: number[] = [];
  private readonly runIds = new Map<number, string>();

  add(call: FoundCall): void {
    const i = this.ts.length;
    this.keys.push(call.key);
    this.keyLength += call.key.length;
    this.keyEnds.push(this.keyLength);
    this.ts.push(call.ts);
    this.tokens.push(call.tokens);
    let dep = this.depIndex.get(call.dep);
    if (dep === undefined) {
      dep = this.deps.length;
      this.deps.push(call.dep);
      this.depIndex.set(call.dep, dep);
    }
    this.dep.push(dep);
    this.outcome.push(OUTCOME_INDEX.get(call.outcome) as number);
    this.flags.push((call.seed ? SEED : 0) | (call.upstream ? UPSTREAM : 0));
    if (call.runId !== null) this.runIds.set(i, call.runId);
  }

  finish(): FoundCalls {
    return {
      count: this.ts.length,
      keys: this.keys.join(''),
      keyEnds: Uint32Array.from(this.keyEnds),
      ts: Float64Array.from(this.ts),
      tokens: Float64Array.from(this.tokens),
      deps: this.deps,
      dep: Uint32Array.from(this.dep),
      outcome: Uint8Array.from(this.outcome),
      flags: Uint8Array.from(this.flags),
      runIds: this.runIds,
    };
  }
}

/** Call i of `calls` as an object (for the few that need one: failed records waiting to be paired). */
export function foundCallAt(calls: FoundCalls, i: number): FoundCall {
  const flags = calls.flags[i] as number;
  return {
    key: calls.keys.slice(i === 0 ? 0 : calls.keyEnds[i - 1], calls.keyEnds[i]),
    ts: calls.ts[i] as number,
    dep: calls.deps[calls.dep[i] as number] as string,
    outcome: OUTCOMES[calls.outcome[i] as number] as Outcome,
    tokens: calls.tokens[i] as number,
    seed: (flags & SEED) !== 0,
    upstream: (flags & UPSTREAM) !== 0,
    runId: calls.runIds.get(i) ?? null,
  };
}

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
  return sharedQuoteIndexer()?.scratch(SCAN_CHUNK_BYTES) ?? Buffer.allocUnsafe(SCAN_CHUNK_BYTES);
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

type InputCounts = Pick<InputScan, 'lines' | 'malformed' | 'undecodable' | 'firstUndecodable'>;

function readTranscriptFile(
  path: string,
  options: ReadOptions,
  scratch: Buffer,
  result: InputCounts,
  take: (record: TranscriptRecord) => void,
): void {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
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
