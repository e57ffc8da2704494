/**
 * The calls `scan` finds in one input, in the compact form a worker thread
 * hands back and the merge reads: what scan needs of each call, column by column.
 */
import { OUTCOMES, type Outcome } from './classify.js';

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
export class FoundCallsBuilder {
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
