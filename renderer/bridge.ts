/**
 * The contract between the dashboard and Electron's preload script: what the
 * preload exposes as `window.breakerbar` (through `contextBridge.exposeInMainWorld`).
 * One named function per action, never `ipcRenderer` itself
 * (https://www.electronjs.org/docs/latest/tutorial/context-isolation).
 *
 * Each method resolves to exactly the JSON the local HTTP API answers with: the
 * 200 body, or for a refused request the 4xx body `{error, param?}` (ApiError).
 * Errors are answered, not thrown, because an Error crossing the context bridge
 * or `ipcRenderer.invoke` keeps only its message, and the settings view needs
 * `param` to point at the offending key. A rejection means the IPC itself failed.
 */
import type { OperatorAction } from '../main/core/breaker/types.js';
import type { DoctorReport } from '../main/core/doctor/index.js';
import type { IncidentDetail, IncidentList } from '../main/core/incidents/types.js';
import type { SpendReport } from '../main/core/spend/types.js';
import type {
  ApiError,
  ApiEvent,
  ApiHistory,
  ApiStatus,
  ConfigSaveResponse,
  ConfigView,
  ControlResponse,
  WatchdogResponse,
} from '../main/shared/api/types.js';

/** `GET /api/history` parameters; times in epoch ms, `stepSec` in seconds (at most 10,000 steps). */
export interface HistoryRequest {
  from: number;
  to: number;
  stepSec: number;
  /** One dependency (`provider/model`); omitted for all. */
  dep?: string;
}

/** `GET /api/incidents` parameters: at most `limit` (1..1000, default 50) incidents opened at or after `since` (epoch ms). */
export interface IncidentsRequest {
  limit?: number;
  since?: number;
}

export interface BreakerBarBridge {
  /** `GET /api/status` */
  status(): Promise<ApiStatus | ApiError>;
  /** `GET /api/history?from=&to=&step=&dep=` */
  history(request: HistoryRequest): Promise<ApiHistory | ApiError>;
  /** `GET /api/incidents?limit=&since=` */
  incidents(request: IncidentsRequest): Promise<IncidentList | ApiError>;
  /** `GET /api/incidents/<id>` */
  incident(id: number): Promise<IncidentDetail | ApiError>;
  /** `GET /api/spend` */
  spend(): Promise<SpendReport | ApiError>;
  /** `POST /api/watchdog/restart` `{force, reason}` */
  restart(request: { force: boolean; reason: string }): Promise<WatchdogResponse | ApiError>;
  /** `POST /api/watchdog/pause` `{durationSec}`; null pauses until resumed. */
  pause(durationSec: number | null): Promise<WatchdogResponse | ApiError>;
  /** `POST /api/watchdog/resume` */
  resume(): Promise<WatchdogResponse | ApiError>;
  /** `POST /api/breakers/<dep>/control` `{action, reason}` */
  control(dep: string, action: OperatorAction, reason: string): Promise<ControlResponse | ApiError>;
  /** `GET /api/config` */
  config(): Promise<ConfigView | ApiError>;
  /** `POST /api/config` `{config}`: the whole file's new content. */
  saveConfig(config: Record<string, unknown>): Promise<ConfigSaveResponse | ApiError>;
  /** `GET /api/doctor` */
  doctor(): Promise<DoctorReport | ApiError>;
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
