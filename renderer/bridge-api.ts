/**
 * DashboardApi inside Electron: the preload's `window.breakerbar` (bridge.ts)
 * already speaks the API's JSON; this only turns an answered `{error, param}`
 * into the same ApiFailure the HTTP client throws.
 */
import { ApiFailure, type DashboardApi, isApiError } from './api.js';
import type { BreakerBarBridge } from './bridge.js';

/** Status for a refusal that came over IPC: 400-like, since the bridge does not carry HTTP codes. */
const REFUSED = 400;

async function unwrap<T>(answer: Promise<T | { error: string; param?: string }>): Promise<T> {
  let value: T | { error: string; param?: string };
  try {
    value = await answer;
  } catch (error) {
    throw new ApiFailure(
      `the BreakerBar app did not answer (${error instanceof Error ? error.message : String(error)})`,
      0,
    );
  }
  if (isApiError(value)) throw new ApiFailure(value.error, REFUSED, value.param);
  return value as T;
}

export function createBridgeApi(bridge: BreakerBarBridge): DashboardApi {
  return {
    kind: 'electron',
    status: () => unwrap(bridge.status()),
    history: (request) => unwrap(bridge.history(request)),
    incidents: (request) => unwrap(bridge.incidents(request)),
    incident: (id) => unwrap(bridge.incident(id)),
    spend: () => unwrap(bridge.spend()),
    restart: (request) => unwrap(bridge.restart(request)),
    pause: (durationSec) => unwrap(bridge.pause(durationSec)),
    resume: () => unwrap(bridge.resume()),
    control: (dep, action, reason) => unwrap(bridge.control(dep, action, reason)),
    config: () => unwrap(bridge.config()),
    saveConfig: (config) => unwrap(bridge.saveConfig(config)),
    doctor: () => unwrap(bridge.doctor()),
    subscribe(onEvent, onConnection) {
      // The app's IPC does not drop like a network stream: it is live as soon as it is subscribed.
      const unsubscribe = bridge.onEvent(onEvent);
      onConnection?.('live');
      return unsubscribe;
    },
  };
}
