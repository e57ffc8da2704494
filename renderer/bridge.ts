/**
 * The contract between the dashboard and Electron's preload script: what the
 * preload exposes as `window.breakerbar` (through `contextBridge.exposeInMainWorld`).
 * Two functions, never `ipcRenderer` itself
 * (https://www.electronjs.org/docs/latest/tutorial/context-isolation): `call`
 * carries any route of the table (main/api/routes.ts) with its
 * parameters, which the main process checks against the same table, so a new
 * endpoint needs no change here; `onEvent` carries the event stream.
 *
 * `call` resolves to exactly the JSON the local HTTP API answers with: the 200
 * body, or for a refused request the 4xx body `{error, param?}` (ApiError).
 * Errors are answered, not thrown, because an Error crossing the context bridge
 * or `ipcRenderer.invoke` keeps only its message, and the settings view needs
 * `param` to point at the offending key. A rejection means the IPC itself failed.
 */
import type { CallableName, ParamsOf, ResponseOf } from '../main/api/routes.js';
import type { ApiError, ApiEvent } from '../main/api/types.js';

export interface BreakerBarBridge {
  /** One API call: the route's name and its parameters (omitted when it takes none). */
  call<N extends CallableName>(route: N, params?: ParamsOf<N>): Promise<ResponseOf<N> | ApiError>;
  /**
   * Every event the server-sent stream `/api/events` carries, as `{type, data}`.
   * Returns the function that stops the subscription (the listener is never handed the IPC event object).
   */
  onEvent(listener: (event: ApiEvent) => void): () => void;
}

declare global {
  interface Window {
    /** Present only inside the Electron app (preload). */
    breakerbar?: BreakerBarBridge;
  }
}
