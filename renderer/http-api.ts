/**
 * DashboardApi over BreakerBar's local HTTP API, for the dashboard in a browser
 * (served by the daemon at `/`, same origin as the API).
 *
 * Reads are open; every route the table marks as needing the token (every
 * POST, `GET /api/config`) carries `Authorization: Bearer <token>`. Without a token, or when the server refuses
 * the one held, the user is asked for it inline (TokenAccess.ask) and the
 * request is sent again with the new one.
 */
import { type CallRequest, createClient } from '../main/api/client.js';
import type { ApiEvent } from '../main/api/types.js';
import { ApiFailure, type ConnectionState, type DashboardApi, dashboardApi, isApiError } from './api.js';
import { confirmationOf } from './confirmation.js';

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
  async function send({ method, path, body, token: authorized }: CallRequest): Promise<unknown> {
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
      return await readAnswer(response);
    }
  }

  return dashboardApi('browser', createClient(send), (onEvent, onConnection) =>
    subscribeEvents(`${base}/api/events`, onEvent, onConnection),
  );
}

async function readAnswer(response: Response): Promise<unknown> {
  let value: unknown;
  try {
    value = await response.json();
  } catch {
    throw new ApiFailure(`unexpected answer from BreakerBar (HTTP ${response.status}, not JSON)`, response.status);
  }
  if (!response.ok) {
    if (isApiError(value)) throw new ApiFailure(value.error, response.status, value.param, confirmationOf(value));
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
