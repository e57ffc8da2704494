/**
 * The typed client of the local API, built from the route table: `call('status')`
 * resolves to an ApiStatus, `call('incident', {id})` to an IncidentDetail. How a
 * call travels is the transport's business (HTTP with a token from a file, HTTP
 * with a token the user typed, or the app's IPC), so the CLI, the app and the
 * dashboard share one description of every call. Browser-safe. A transport that
 * attaches the token from the data directory asks `tokenRefusal` (loopback.ts)
 * first: that token goes to this machine only.
 */
import {
  type CallableName,
  type Method,
  type ParamsOf,
  type ResponseOf,
  ROUTES,
  type RouteSpec,
  wireOf,
} from './routes.js';

/** One call as a transport sees it: the route (for IPC) and its wire form (for HTTP). */
export interface CallRequest {
  route: CallableName;
  /** The parameters as given (what IPC carries; the main process checks them against the table). */
  params: unknown;
  method: Method;
  /** Path with the query string. */
  path: string;
  body?: unknown;
  /** The API token is required. */
  token: boolean;
  /** The route takes long (the doctor): wait longer. */
  slow: boolean;
}

/** Sends one call; resolves with the answer's JSON, rejects with the transport's own error for a refusal. */
export type Transport = (request: CallRequest) => Promise<unknown>;

/** The arguments after the route name: none when the route takes none, optional when they are. */
export type ArgsOf<N extends CallableName> = [ParamsOf<N>] extends [undefined]
  ? []
  : undefined extends ParamsOf<N>
    ? [params?: ParamsOf<N>]
    : [params: ParamsOf<N>];

export interface ApiClient {
  call<N extends CallableName>(route: N, ...args: ArgsOf<N>): Promise<ResponseOf<N>>;
}

/** The wire form of one call, for a transport or a test. */
export function callRequest<N extends CallableName>(route: N, params?: ParamsOf<N>): CallRequest {
  const spec = ROUTES[route] as unknown as RouteSpec<ParamsOf<N>, unknown, unknown>;
  return {
    route,
    params,
    ...wireOf(route, params as ParamsOf<N>),
    token: spec.token,
    slow: spec.slow === true,
  };
}

export function createClient(transport: Transport): ApiClient {
  return {
    call: (route, ...args) => transport(callRequest(route, args[0])) as Promise<never>,
  };
}
