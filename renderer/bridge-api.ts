/**
 * DashboardApi inside Electron: the route table's client over the preload's
 * `window.breakerbar.call` (bridge.ts), which already speaks the API's JSON;
 * this only turns an answered `{error, param}` into the same ApiFailure the
 * HTTP client throws.
 */
import { type CallRequest, createClient } from '../main/api/client.js';
import type { CallableName } from '../main/api/routes.js';
import { ApiFailure, type DashboardApi, dashboardApi, isApiError } from './api.js';
import type { BreakerBarBridge } from './bridge.js';

/** Status for a refusal that came over IPC: 400-like, since the bridge does not carry HTTP codes. */
const REFUSED = 400;

export function createBridgeApi(bridge: BreakerBarBridge): DashboardApi {
  const call = bridge.call as (route: CallableName, params?: unknown) => Promise<unknown>;
  const transport = async (request: CallRequest): Promise<unknown> => {
    let value: unknown;
    try {
      value = await call(request.route, request.params);
    } catch (error) {
      throw new ApiFailure(
        `the BreakerBar app did not answer (${error instanceof Error ? error.message : String(error)})`,
        0,
      );
    }
    if (isApiError(value)) throw new ApiFailure(value.error, REFUSED, value.param);
    return value;
  };
  return dashboardApi('electron', createClient(transport), (onEvent, onConnection) => {
    // The app's IPC does not drop like a network stream: it is live as soon as it is subscribed.
    const unsubscribe = bridge.onEvent(onEvent);
    onConnection?.('live');
    return unsubscribe;
  });
}
