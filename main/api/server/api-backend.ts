/**
 * What the local API's server needs from the core: the composition root implements it (`monitor-backend.ts`),
 * tests fake it. The server owns this interface; the contract (`../types.ts`) owns only what travels on the wire.
 */
import type { Transition } from '../../core/breaker/types.js';
import type { DoctorReport } from '../../core/doctor/index.js';
import type { IncidentDetail, IncidentList } from '../../core/incidents/types.js';
import type { SpendReport } from '../../core/spend/types.js';
import type {
  ApiEvent,
  ApiHistory,
  ApiStatus,
  ConfigSaveResponse,
  ConfigView,
  ControlRequest,
  HistoryQuery,
  IncidentQuery,
  MaintenanceRequest,
  MaintenanceResponse,
  WatchdogRequest,
  WatchdogResponse,
} from '../types.js';

/** What the HTTP server needs from the core; the monitor implements it, tests fake it. */
export interface ApiBackend {
  status(): ApiStatus;
  history(query: HistoryQuery): ApiHistory;
  /** Incidents, newest first (empty when this instance keeps none). */
  incidents(query: IncidentQuery): IncidentList;
  /** One incident with its timeline; null when there is no such incident (the server answers 404). */
  incident(id: number): IncidentDetail | null;
  /** Calls, failures, tokens and cost today, over 7 and 30 days; burn rates, budgets, quota windows. */
  spend(): SpendReport;
  /** Prometheus text exposition. */
  metrics(): Promise<{ contentType: string; body: string }>;
  /**
   * Applies an operator control; throws an Error with a message for a user when it
   * cannot (an unknown dependency for anything but force_open): the server answers 409.
   */
  control(request: ControlRequest): Transition[];
  /** Restart, pause or resume; throws an Error with a message for a user when there is no watchdog (409). */
  watchdog(request: WatchdogRequest): WatchdogResponse;
  /**
   * Starts (a request) or stops (null) a maintenance window, or reads it (undefined); throws an Error with
   * a message for a user when there is no watchdog side (409).
   */
  maintenance(request?: MaintenanceRequest | null): MaintenanceResponse;
  /** The config file and its schema, for the settings view. */
  config(): ConfigView;
  /** Validates and writes the config file; throws ConfigError (→ 400 naming the key) when invalid. */
  saveConfig(config: unknown): ConfigSaveResponse;
  /** What `breakerbar doctor` finds (the dashboard's first-run view). */
  doctor(): Promise<DoctorReport>;
  /** Subscribes to state changes; returns the unsubscribe function. */
  subscribe(listener: (event: ApiEvent) => void): () => void;
}
