/**
 * Storing several sources' batches in one transaction (group commit): what the
 * ingest writer's thread runs. Each batch keeps its own all-or-nothing
 * guarantee (its events with its cursor): the group is tried as one
 * transaction, and if anything in it fails, every batch is tried again on its
 * own, so one batch that cannot be stored never holds back the others.
 */
import type { Batch, CommitResult } from './batch.js';
import type { Store } from './db.js';
import { codeOf } from './store-error.js';

/**
 * One batch's outcome. `stored`: which of the batch's `events` were stored as new calls, as indexes (the
 * thread boundary copies objects), or 'all' (the usual case, said without a list).
 */
export type GroupResult =
  | { ok: true; inserted: number; duplicates: number; stored: number[] | 'all'; turns: number }
  | { ok: false; error: string; code: string | null };

export function commitGroup(store: Store, batches: readonly Batch[]): GroupResult[] {
  if (batches.length > 1) {
    try {
      return store.commitAll(batches).map((result, i) => groupResult(batches[i] as Batch, result));
    } catch {
      // Some batch failed and rolled the group back: each on its own, below.
    }
  }
  return batches.map((batch) => {
    try {
      return commitOne(store, batch);
    } catch (error) {
      return { ok: false, error: (error as Error).message, code: codeOf(error) };
    }
  });
}

function commitOne(store: Store, batch: Batch): GroupResult {
  return groupResult(batch, store.commit(batch));
}

function groupResult(batch: Batch, result: CommitResult): GroupResult {
  const { inserted, duplicates, turns } = result;
  if (result.stored.length === batch.events.length) return { ok: true, inserted, duplicates, stored: 'all', turns };
  const index = new Map(batch.events.map((event, i) => [event, i]));
  return { ok: true, inserted, duplicates, stored: result.stored.map((event) => index.get(event) as number), turns };
}
