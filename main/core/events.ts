/**
 * The normalized facts every source emits. Sources differ in where they read
 * (JSONL files, SQLite databases, the gateway log); everything downstream of
 * them (store, breakers, watchdog) sees only these shapes.
 */
import type { Outcome, Phase } from './classify.js';

/** Which kind of source produced a fact; also the `source` column in the store. */
export type SourceKind = 'jsonl' | 'sqlite' | 'gatewaylog' | 'gatewaymetrics';

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  /** Provider-reported cost in USD, when the record carries one. */
  cost: number;
}

/** One upstream model call the gateway made, and how it ended. */
export interface CallEvent {
  /**
   * Stable identity of the call, the same in every source and every copy of its
   * record (`<agent>/<entryId>@<message created ms>`). The store rejects a
   * second event with the same key, so a copy or a re-read shows up as a counted
   * duplicate instead of a double-counted call.
   */
  key: string;
  /** Event time in epoch ms, taken from the record itself, never the clock. */
  ts: number;
  source: SourceKind;
  agentId: string;
  sessionId: string;
  /** Dependency key the breakers use: `provider/model`. */
  dep: string;
  provider: string;
  model: string;
  api: string | null;
  stopReason: string | null;
  outcome: Outcome;
  phase: Phase;
  httpStatus: number | null;
  errorCode: string | null;
  retryAfterMs: number | null;
  usage: TokenUsage;
}
