/**
 * "Nothing read from OpenClaw yet", as the status tells it: no source found a model call and no breaker exists.
 * A first run, or BreakerBar looking in the wrong place. The dashboard opens on the Doctor then, and
 * `breakerbar status` says it in words instead of an empty table.
 */
import type { ApiStatus } from './types.js';

export function nothingRead(status: Pick<ApiStatus, 'breakers' | 'sources'>): boolean {
  return status.breakers.length === 0 && status.sources.every((source) => source.calls === 0);
}

/** Where the file and database sources looked (the gateway's metrics endpoint is an address, not a place). */
export function placesLooked(status: Pick<ApiStatus, 'sources'>): string[] {
  const places = status.sources.filter((source) => source.kind !== 'gatewaymetrics').flatMap((s) => s.roots);
  return [...new Set(places)];
}
