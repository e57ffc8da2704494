/**
 * The calls `scan` finds in one input, in the compact form a worker thread
 * hands back and the merge reads: what scan needs of each call, column by column.
 */
import { OUTCOMES, type Outcome } from '../calls/classify.js';

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
  /** A 53-bit hash of each key (see keyHash), for SeenKeys. */
  hashes: Float64Array;
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
  private readonly hashes: number[] = [];
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
    this.hashes.push(keyHash(call.key));
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
      hashes: Float64Array.from(this.hashes),
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
    key: keyAt(calls, i),
    ts: calls.ts[i] as number,
    dep: calls.deps[calls.dep[i] as number] as string,
    outcome: OUTCOMES[calls.outcome[i] as number] as Outcome,
    tokens: calls.tokens[i] as number,
    seed: (flags & SEED) !== 0,
    upstream: (flags & UPSTREAM) !== 0,
    runId: calls.runIds.get(i) ?? null,
  };
}

function keyAt(calls: FoundCalls, i: number): string {
  return calls.keys.slice(i === 0 ? 0 : calls.keyEnds[i - 1], calls.keyEnds[i]);
}

/** FNV-1a over the key's UTF-16 code units, twice with different offsets, as one exact 53-bit number. */
export function keyHash(key: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let k = 0; k < key.length; k++) {
    const c = key.charCodeAt(k);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0) * 0x200000 + (b >>> 11);
}

/**
 * The calls already counted, by key. Why not a Set of key strings: the main
 * thread would cut a string out of every input's keys and hash it; the worker
 * has hashed them already. A hash seen before is confirmed by comparing the two
 * keys, so a collision can never drop a call: colliding keys are told apart by
 * their text from then on.
 */
export class SeenKeys {
  private readonly inputs: FoundCalls[] = [];
  /**
   * hash → the first call with it (an ordinal into firstInput/firstIndex, plus one; 0: empty): open
   * addressing over typed arrays, kept under half full. A Map keyed by these 53-bit numbers cost half a
   * microsecond a call and most of a scan's merge.
   */
  private slotHashes = new Float64Array(1 << 12);
  private slotCalls = new Int32Array(1 << 12);
  private used = 0;
  private readonly firstInput: number[] = [];
  private readonly firstIndex: number[] = [];
  private readonly colliding = new Set<string>();

  /** Registers an input's calls; the number to pass to `add` with them. */
  input(calls: FoundCalls): number {
    this.inputs.push(calls);
    return this.inputs.length - 1;
  }

  /** True the first time call `i` of input `input`'s key is seen. */
  add(input: number, i: number): boolean {
    const calls = this.inputs[input] as FoundCalls;
    const hash = calls.hashes[i] as number;
    const slot = this.find(hash);
    const seen = (this.slotCalls[slot] as number) - 1;
    if (seen < 0) {
      this.slotHashes[slot] = hash;
      this.slotCalls[slot] = this.firstInput.length + 1;
      this.firstInput.push(input);
      this.firstIndex.push(i);
      if (++this.used * 2 > this.slotCalls.length) this.grow();
      return true;
    }
    const key = keyAt(calls, i);
    const first = keyAt(this.inputs[this.firstInput[seen] as number] as FoundCalls, this.firstIndex[seen] as number);
    if (key === first) return false;
    this.colliding.add(first);
    if (this.colliding.has(key)) return false;
    this.colliding.add(key);
    return true;
  }

  /** The slot holding `hash`, or the empty slot where it would go. */
  private find(hash: number): number {
    const mask = this.slotCalls.length - 1;
    // The low 32 bits mix both halves of the hash (see keyHash).
    let slot = (hash >>> 0) & mask;
    while (this.slotCalls[slot] !== 0 && this.slotHashes[slot] !== hash) slot = (slot + 1) & mask;
    return slot;
  }

  private grow(): void {
    const hashes = this.slotHashes;
    const ordinals = this.slotCalls;
    this.slotHashes = new Float64Array(hashes.length * 2);
    this.slotCalls = new Int32Array(ordinals.length * 2);
    for (let s = 0; s < ordinals.length; s++) {
      if (ordinals[s] === 0) continue;
      const slot = this.find(hashes[s] as number);
      this.slotHashes[slot] = hashes[s] as number;
      this.slotCalls[slot] = ordinals[s] as number;
    }
  }
}
