/**
 * The rule that makes a failed transcript record and the gateway log's attempt
 * of the same request one call. OpenClaw persists only a run's terminal failure
 * (and each idle timeout), a moment after the log reported the attempt; the two
 * never share an id before 2026.9, so they are matched on what they agree on:
 * dependency, outcome and time, the same run first where both name it.
 *
 * The store applies the rule incrementally in SQL (`store/db.ts`), whichever
 * half arrives first; `scan` applies it here to everything at once. Both use
 * these windows.
 */
import type { Outcome } from './classify.js';

/** A record may follow its attempt by this much (the run ends after its last attempt)… */
export const PAIR_BEFORE_MS = 120_000;
/** …and precede it by this much (two writers' clocks, line-time rounding). */
export const PAIR_AFTER_MS = 10_000;

export interface Pairable {
  ts: number;
  dep: string;
  outcome: Outcome;
  runId: string | null;
}

/** The records no attempt stands for: each attempt pairs with at most one record, the nearest in time. */
export function pairAttempts<A extends Pairable, R extends Pairable>(
  attempts: readonly A[],
  records: readonly R[],
): R[] {
  const open = new Map<string, A[]>();
  for (const attempt of attempts) {
    const key = `${attempt.dep}|${attempt.outcome}`;
    const list = open.get(key) ?? [];
    list.push(attempt);
    open.set(key, list);
  }
  const unpaired: R[] = [];
  for (const record of [...records].sort((a, b) => a.ts - b.ts)) {
    const candidates = open.get(`${record.dep}|${record.outcome}`) ?? [];
    let best = -1;
    for (let i = 0; i < candidates.length; i++) {
      const attempt = candidates[i] as A;
      if (attempt.ts < record.ts - PAIR_BEFORE_MS || attempt.ts > record.ts + PAIR_AFTER_MS) continue;
      if (best < 0 || better(attempt, candidates[best] as A, record)) best = i;
    }
    if (best < 0) unpaired.push(record);
    else candidates.splice(best, 1);
  }
  return unpaired;
}

function better(a: Pairable, b: Pairable, record: Pairable): boolean {
  const sameRunA = record.runId !== null && a.runId === record.runId;
  const sameRunB = record.runId !== null && b.runId === record.runId;
  if (sameRunA !== sameRunB) return sameRunA;
  return Math.abs(a.ts - record.ts) < Math.abs(b.ts - record.ts);
}
