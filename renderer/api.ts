/**
 * The dashboard's data layer: one interface, two ways to reach the core.
 * In a browser it is the local HTTP API (http-api.ts); inside Electron the
 * preload bridge (bridge-api.ts). Views only ever see DashboardApi, so the
 * same code runs in both places.
 */

import type { ApiClient } from '../main/api/client.js';
import type { HistoryRequest, IncidentsRequest } from '../main/api/routes.js';
import type {
  ApiEvent,
  ApiHistory,
  ApiStatus,
  ConfigConfirmation,
  ConfigSaveResponse,
  ConfigView,
  ControlResponse,
  DoctorReport,
  IncidentDetail,
  IncidentList,
  OperatorAction,
  SpendReport,
  WatchdogResponse,
} from '../main/api/types.js';

export type { HistoryRequest, IncidentsRequest } from '../main/api/routes.js';

export interface DashboardApi {
  /** `browser` (HTTP + token) or `electron` (preload bridge). */
  readonly kind: 'browser' | 'electron';
  /** Any route of the table (main/api/routes.ts), typed; the methods below are the views' shorthands. */
  call: ApiClient['call'];
  status(): Promise<ApiStatus>;
  history(request: HistoryRequest): Promise<ApiHistory>;
  /** Incidents, newest first. */
  incidents(request: IncidentsRequest): Promise<IncidentList>;
  /** One incident with its timeline. */
  incident(id: number): Promise<IncidentDetail>;
  /** Calls, failures, tokens and cost today, over 7 and 30 days; burn rates, budgets, quota windows. */
  spend(): Promise<SpendReport>;
  restart(request: { force: boolean; reason: string }): Promise<WatchdogResponse>;
  pause(durationSec: number | null): Promise<WatchdogResponse>;
  resume(): Promise<WatchdogResponse>;
  control(dep: string, action: OperatorAction, reason: string): Promise<ControlResponse>;
  config(): Promise<ConfigView>;
  /** Saves the config file; `confirmCode` is the one-time code a dangerous change from a browser needs. */
  saveConfig(config: Record<string, unknown>, confirmCode?: string): Promise<ConfigSaveResponse>;
  doctor(): Promise<DoctorReport>;
  /** Live events; `onConnection` hears when the stream drops and comes back. Returns the unsubscribe function. */
  subscribe(onEvent: (event: ApiEvent) => void, onConnection?: (state: ConnectionState) => void): () => void;
}

export type ConnectionState = 'live' | 'reconnecting';

/** The dashboard's API over a client of the route table, whichever way its calls travel. */
export function dashboardApi(
  kind: DashboardApi['kind'],
  client: ApiClient,
  subscribe: DashboardApi['subscribe'],
): DashboardApi {
  return {
    kind,
    call: client.call,
    status: () => client.call('status'),
    history: (request) => client.call('history', request),
    incidents: (request) => client.call('incidents', request),
    incident: (id) => client.call('incident', { id }),
    spend: () => client.call('spend'),
    restart: (request) => client.call('restart', request),
    pause: (durationSec) => client.call('pause', { durationSec }),
    resume: () => client.call('resume'),
    control: (dep, action, reason) => client.call('control', { dep, action, reason }),
    config: () => client.call('config'),
    saveConfig: (config, confirmCode) =>
      client.call('saveConfig', confirmCode === undefined ? { config } : { config, confirmCode }),
    doctor: () => client.call('doctor'),
    subscribe,
  };
}

/**
 * A refused or failed request, as the API words it: `param` names the offending
 * parameter or config key when the server said which.
 */
export class ApiFailure extends Error {
  override name = 'ApiFailure';
  constructor(
    message: string,
    /** HTTP status (0: the request never got an answer). */
    readonly status: number,
    readonly param?: string,
    /** A config change that needs its one-time code first (what it changes, when the code sent runs out). */
    readonly confirm?: ConfigConfirmation,
  ) {
    super(message);
  }
}

/** The user dismissed the token prompt: nothing was sent, nothing to report as an error. */
export class Cancelled extends Error {
  override name = 'Cancelled';
}

/** `{error, param?}`: the body of every 4xx/5xx answer, and what the bridge resolves to on a refusal. */
export function isApiError(value: unknown): value is { error: string; param?: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { error?: unknown }).error === 'string' &&
    (value as { ok?: unknown }).ok !== true
  );
}
