/**
 * A transcript call's identity across sources and sessions: its agent, the
 * moment the message was created and its entry id. OpenClaw copies entries
 * verbatim when it imports a JSONL transcript into SQLite or forks, rewinds or
 * compacts a session into a new window, so the same call can appear several
 * times; it was made once, and is counted once (the store's unique key).
 *
 * Time comes before the entry id, which is random: the calls of a session
 * arrive in time order, so their keys land next to each other in the store's
 * index on them, and a group of calls stored together changes a few of its
 * pages instead of one per call. Measured on the scan benchmark's corpus, a
 * first start went from a median of 8.0 s to 6.4 s (docs/benchmarks.md).
 *
 * Stores written before this order kept the entry id first (`legacyRecordKey`):
 * the store still finds those calls under their old keys (see `Store`).
 */

/** The key of a record that has an entry id and a creation time (every record OpenClaw writes). */
export function recordKey(agentId: string, entryId: string, created: string | number): string {
  return `${agentId}/${created}@${entryId}`;
}

/** The key of a record that lacks either: its session and entry id, or its time. */
export function fallbackRecordKey(agentId: string, sessionId: string, entryId: string | null, ts: number): string {
  return `${agentId}/${sessionId}/${entryId ?? `t${ts}`}`;
}

/**
 * The key `recordKey`'s record had before the time came first
 * (`agent/entryId@created`), or null for a key of another form. A creation
 * time holds neither `/` nor `@`, so the first `@` after the agent ends it.
 */
export function legacyRecordKey(key: string): string | null {
  const slash = key.indexOf('/');
  const at = key.indexOf('@', slash + 1);
  if (slash < 0 || at < 0) return null;
  const created = key.slice(slash + 1, at);
  if (created.includes('/')) return null;
  return `${key.slice(0, slash)}/${key.slice(at + 1)}@${created}`;
}
