/**
 * An error and every error it wraps through `cause`, outermost first. BreakerBar's own errors wrap the
 * machine's (a StoreError around SQLite's, a LockError around better-sqlite3's), so the code or message that
 * says what happened is often a few causes deep. A cycle of causes ends the walk instead of looping.
 */
export function errorChain(error: unknown): Array<Record<string, unknown>> {
  const chain: Array<Record<string, unknown>> = [];
  const seen = new Set<unknown>();
  for (let e = error; typeof e === 'object' && e !== null && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    chain.push(e as Record<string, unknown>);
  }
  return chain;
}
