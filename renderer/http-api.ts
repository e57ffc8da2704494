/**
 * DashboardApi over BreakerBar's local HTTP API, for the dashboard in a browser
 * (served by the daemon at `/`, same origin as the API).
 *
 * Reads are open; every POST and `GET /api/config` carry
 * `Authorization: Bearer <token>`. Without a token, or when the server refuses
 * the one held, the user is asked for it inline (TokenAccess.ask) and the
 * request is sent again with the new one.
 */
import type { OperatorAction } from '../main/core/breaker/types.js';
import type { DoctorReport } from '../main/core/doctor/index.js';
import type { IncidentDetail, IncidentList } from '../main/core/incidents/types.js';
import type { SpendReport } from '../main/core/spend/types.js';
import type {
  ApiEvent,
  ApiHistory,
  ApiStatus,
  ConfigSaveResponse,
  ConfigView,
  ControlResponse,
  WatchdogResponse,
} from '../main/shared/api/types.js';
import {
  ApiFailure,
  type ConnectionState,
  type DashboardApi,
  type HistoryRequest,
  type IncidentsRequest,
  isApiError,
} from './api.js';

export interface TokenAccess {
  get(): string | null;
  set(token: string): void;
  clear(): void;
  /** Asks the user; resolves with the token entered, rejects with Cancelled when dismissed. */
  ask(reason: 'missing' | 'refused'): Promise<string>;
}

/** Every event type `/api/events` sends: a Record, so a type added to ApiEvent without being listed fails to compile. */
const EVENT_TYPE_SET = {
  transition: true,
  calls: true,
  budget: true,
  signal: true,
  probe: true,
  restart: true,
  decision: true,
  notification: true,
  notice: true,
} satisfies Record<ApiEvent['type'], true>;
export const EVENT_TYPES = Object.keys(EVENT_TYPE_SET) as ApiEvent['type'][];

/** A stream the server closed for good (503 when full) is reopened after this, while still wanted. */
const REOPEN_MS = 5000;
/** Asking again after a refused token at most this often in one request: then the error is shown. */
const MAX_TOKEN_ATTEMPTS = 3;

export function createHttpApi(tokens: TokenAccess, base = ''): DashboardApi {
  async function send<T>(method: 'GET' | 'POST', path: string, body?: unknown, authorized = false): Promise<T> {
    let token = authorized ? (tokens.get() ?? (await tokens.ask('missing'))) : null;
    for (let attempt = 1; ; attempt++) {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      let response: Response;
      try {
        response = await fetch(`${base}${path}`, {
          method,
          headers,
          // Same origin only: the API refuses foreign origins anyway, and the token must never leave it.
          credentials: 'omit',
          cache: 'no-store',
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (error) {
        throw new ApiFailure(
          `BreakerBar is not answering (${error instanceof Error ? error.message : String(error)}); is the daemon running?`,
          0,
        );
      }
      if (response.status === 401 && authorized && attempt < MAX_TOKEN_ATTEMPTS) {
        tokens.clear();
        token = await tokens.ask('refused');
        continue;
      }
      if (authorized && token !== null && response.ok) tokens.set(token);
      return (await readAnswer(response)) as T;
    }
  }

  const query = (request: HistoryRequest): string => {
    const params = new URLSearchParams({
      from: String(Math.floor(request.from)),
      to: String(Math.ceil(request.to)),
      step: String(request.stepSec),
    });
    if (request.dep !== undefined) params.set('dep', request.dep);
    return params.toString();
  };

  const incidentsQuery = (request: IncidentsRequest): string => {
    const params = new URLSearchParams();
    if (request.limit !== undefined) params.set('limit', String(request.limit));
    if (request.since !== undefined) params.set('since', String(Math.floor(request.since)));
    return params.toString();
  };

  return {
    kind: 'browser',
    status: () => send<ApiStatus>('GET', '/api/status'),
    history: (request) => send<ApiHistory>('GET', `/api/history?${query(request)}`),
    incidents: (request) => send<IncidentList>('GET', `/api/incidents?${incidentsQuery(request)}`),
    incident: (id) => send<IncidentDetail>('GET', `/api/incidents/${encodeURIComponent(String(id))}`),
    spend: () => send<SpendReport>('GET', '/api/spend'),
    restart: ({ force, reason }) => send<WatchdogResponse>('POST', '/api/watchdog/restart', { force, reason }, true),
    pause: (durationSec) => send<WatchdogResponse>('POST', '/api/watchdog/pause', { durationSec }, true),
    resume: () => send<WatchdogResponse>('POST', '/api/watchdog/resume', {}, true),
    control: (dep: string, action: OperatorAction, reason: string) =>
      send<ControlResponse>('POST', `/api/breakers/${encodeURIComponent(dep)}/control`, { action, reason }, true),
    config: () => send<ConfigView>('GET', '/api/config', undefined, true),
    saveConfig: (config) => send<ConfigSaveResponse>('POST', '/api/config', { config }, true),
    doctor: () => send<DoctorReport>('GET', '/api/doctor'),
    subscribe(onEvent, onConnection) {
      return subscribeEvents(`${base}/api/events`, onEvent, onConnection);
    },
  };
}

async function readAnswer(response: Response): Promise<unknown> {
  let value: unknown;
  try {
    value = await response.json();
  } catch {
    throw new ApiFailure(`unexpected answer from BreakerBar (HTTP ${response.status}, not JSON)`, response.status);
  }
  if (!response.ok) {
    if (isApiError(value)) throw new ApiFailure(value.error, response.status, value.param);
    throw new ApiFailure(`BreakerBar answered HTTP ${response.status}`, response.status);
  }
  return value;
}

function subscribeEvents(
  url: string,
  onEvent: (event: ApiEvent) => void,
  onConnection?: (state: ConnectionState) => void,
): () => void {
  let source: EventSource | null = null;
  let reopen: number | null = null;
  let stopped = false;

  const open = () => {
    reopen = null;
    if (stopped) return;
    const stream = new EventSource(url);
    source = stream;
    stream.onopen = () => onConnection?.('live');
    stream.onerror = () => {
      onConnection?.('reconnecting');
      // EventSource retries by itself unless the server answered with an error status; then it is CLOSED.
      if (stream.readyState === EventSource.CLOSED && !stopped && reopen === null) {
        reopen = window.setTimeout(open, REOPEN_MS);
      }
    };
    for (const type of EVENT_TYPES) {
      stream.addEventListener(type, (message) => {
        let data: unknown;
        try {
          data = JSON.parse((message as MessageEvent<string>).data);
        } catch {
          return;
        }
        onEvent({ type, data } as ApiEvent);
      });
    }
  };
  open();

  return () => {
    stopped = true;
    if (reopen !== null) window.clearTimeout(reopen);
    source?.close();
    source = null;
  };
}
