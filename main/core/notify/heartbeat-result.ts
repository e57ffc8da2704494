/**
 * The heartbeat's last push as it is kept in the store's meta table: written by
 * the heartbeat, read back by `breakerbar doctor`. Apart from the heartbeat
 * itself so that the doctor reads it without importing the pusher (and, through
 * it, the API's status).
 */
import type { HeartbeatStatus } from './heartbeat-format.js';

/** Where the last push is kept (read by `breakerbar doctor`). */
export const META_HEARTBEAT = 'heartbeat.last';

export interface HeartbeatResult {
  ts: number;
  status: HeartbeatStatus;
  ok: boolean;
  /** Redacted: never the URL's path or query. */
  error: string | null;
  /** HTTP status of the answer, when there was one. */
  httpStatus: number | null;
}

/** The last push as kept in the meta table, or null when there is none (or it cannot be read). */
export function parseHeartbeatMeta(raw: string | undefined | null): HeartbeatResult | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as HeartbeatResult;
    return typeof value.ts === 'number' && typeof value.ok === 'boolean' ? value : null;
  } catch {
    return null;
  }
}
