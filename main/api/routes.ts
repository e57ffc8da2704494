/**
 * Every endpoint of BreakerBar's local API, declared once: its name, method,
 * path, whether it needs the API token, how a client puts its parameters on the
 * wire, how the server parses them back (with the same strict rules
 * everywhere), and the type of its answer.
 *
 * The server routes from this table (server/router.ts), the typed client
 * is built from it (client.ts) and the app's IPC check validates the dashboard's
 * calls against it, so a read-only endpoint is one entry here and one handler in
 * server/handlers.ts. Browser-safe: imports only its own directory and the words at run
 * time.
 */
import type { OperatorAction } from '../core/breaker/types.js';
import type { DoctorReport } from '../core/doctor/index.js';
import type { IncidentDetail, IncidentList } from '../core/incidents/types.js';
import type { SpendReport } from '../core/spend/types.js';
import {
  parseConfigBody,
  parseControlBody,
  parseEmptyBody,
  parseMaintenanceBody,
  parseSignInBody,
  parseWatchdogBody,
} from './bodies.js';
import { parseDependencyInPath, parseHistoryQuery, parseIncidentId, parseIncidentQuery } from './queries.js';
import type { Parsed } from './text.js';
import type {
  ApiHistory,
  ApiStatus,
  ConfigSaveResponse,
  ConfigView,
  ControlRequest,
  ControlResponse,
  HistoryQuery,
  IncidentQuery,
  MaintenanceRequest,
  MaintenanceResponse,
  SignInCode,
  WatchdogRequest,
  WatchdogResponse,
} from './types.js';

export type Method = 'GET' | 'POST' | 'DELETE';

/** `json` (the usual), `text` (the Prometheus exposition) or `stream` (server-sent events). */
export type Answer = 'json' | 'text' | 'stream';

declare const phantom: unique symbol;
/** A type carried by a value that holds nothing: the table's parameter and answer types. */
export interface Type<T> {
  readonly [phantom]?: T;
}
export const type = <T>(): Type<T> => ({});

/** A request as a client puts it on the wire: path parameters (unencoded), query, JSON body. */
export interface WireRequest {
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

/** A request as the server received it: raw (still encoded) path parameters, raw query, parsed body. */
export interface Incoming {
  path: Record<string, string>;
  query: string;
  body: unknown;
  now: number;
}

export interface RouteSpec<Params = unknown, Input = unknown, Response = unknown> {
  method: Method;
  /** `:name` matches one segment, `:name+` one or more (a dependency key holds `/`). */
  path: string;
  /** GETs cheap and public enough to answer HEAD too. */
  head?: boolean;
  /** The API token is required (every mutation; reads of secrets; the rest are open on loopback). */
  token: boolean;
  answer: Answer;
  /** Takes long (the doctor probes the gateway): clients wait longer. */
  slow?: boolean;
  /**
   * A data route: answered as JSON by the backend's method of the same name, given the parsed input. The server
   * has no handler of its own for it, and the compiler checks that `ApiBackend` has that method, typed as here.
   */
  data?: boolean;
  params: Type<Params>;
  response: Type<Response>;
  /** Client side: parameters → path, query and body. */
  encode(params: Params): WireRequest;
  /** Server side: the request's parts → the handler's input, or a refusal naming the parameter. */
  parse(incoming: Incoming): Parsed<Input>;
}

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

/** Keeps each entry's literal `answer`, whether it is a data route, and its own parameter, input and answer types. */
const route = <Params, Input, Response, A extends Answer, D extends boolean = false>(
  spec: RouteSpec<Params, Input, Response> & { answer: A; data?: D },
) => spec as typeof spec & { data: D };

const nothing = (): WireRequest => ({});
/**
 * Parameters a route does not know travel as they are, so that the server's parser refuses them by name
 * (a caller that is not type-checked, such as the app's IPC, learns which one was wrong).
 */
const unknownAsQuery = (rest: object): Record<string, string> =>
  Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, String(value)]));
const noInput = (): Parsed<undefined> => ({ ok: true, value: undefined });
const asParsed = <T>(
  result: { ok: true; query: T } | { ok: true; request: T } | { ok: false; param: string; error: string },
): Parsed<T> => (result.ok ? { ok: true, value: 'query' in result ? result.query : result.request } : result);

export const ROUTES = {
  healthz: route({
    method: 'GET',
    path: '/healthz',
    head: true,
    token: false,
    answer: 'json',
    params: type<undefined>(),
    response: type<{ ok: true }>(),
    encode: nothing,
    parse: noInput,
  }),
  metrics: route({
    method: 'GET',
    path: '/metrics',
    head: true,
    token: false,
    answer: 'text',
    params: type<undefined>(),
    response: type<string>(),
    encode: nothing,
    parse: noInput,
  }),
  status: route({
    method: 'GET',
    data: true,
    path: '/api/status',
    head: true,
    token: false,
    answer: 'json',
    params: type<undefined>(),
    response: type<ApiStatus>(),
    encode: nothing,
    parse: noInput,
  }),
  history: route({
    method: 'GET',
    data: true,
    path: '/api/history',
    head: true,
    token: false,
    answer: 'json',
    params: type<HistoryRequest>(),
    response: type<ApiHistory>(),
    encode: ({ from, to, stepSec, dep, ...rest }) => ({
      query: {
        from: String(Math.floor(from)),
        to: String(Math.ceil(to)),
        step: String(stepSec),
        ...(dep === undefined ? {} : { dep }),
        ...unknownAsQuery(rest),
      },
    }),
    parse: ({ query, now }): Parsed<HistoryQuery> => asParsed(parseHistoryQuery(query, now)),
  }),
  incidents: route({
    method: 'GET',
    data: true,
    path: '/api/incidents',
    head: true,
    token: false,
    answer: 'json',
    params: type<IncidentsRequest | undefined>(),
    response: type<IncidentList>(),
    encode: (request) => {
      const { limit, since, ...rest } = request ?? {};
      return {
        query: {
          ...(limit === undefined ? {} : { limit: String(limit) }),
          ...(since === undefined ? {} : { since: String(Math.floor(since)) }),
          ...unknownAsQuery(rest),
        },
      };
    },
    parse: ({ query }): Parsed<IncidentQuery> => asParsed(parseIncidentQuery(query)),
  }),
  incident: route({
    method: 'GET',
    path: '/api/incidents/:id',
    head: true,
    token: false,
    answer: 'json',
    params: type<{ id: number }>(),
    response: type<IncidentDetail>(),
    encode: ({ id }) => ({ path: { id: String(id) } }),
    parse: ({ path }) => parseIncidentId(path.id ?? ''),
  }),
  spend: route({
    method: 'GET',
    data: true,
    path: '/api/spend',
    head: true,
    token: false,
    answer: 'json',
    params: type<undefined>(),
    response: type<SpendReport>(),
    encode: nothing,
    parse: noInput,
  }),
  events: route({
    method: 'GET',
    path: '/api/events',
    token: false,
    answer: 'stream',
    params: type<undefined>(),
    response: type<never>(),
    encode: nothing,
    parse: noInput,
  }),
  control: route({
    method: 'POST',
    path: '/api/breakers/:dep+/control',
    token: true,
    answer: 'json',
    params: type<{ dep: string; action: OperatorAction; reason: string }>(),
    response: type<ControlResponse>(),
    encode: ({ dep, ...body }) => ({ path: { dep }, body }),
    parse: ({ path, body }): Parsed<ControlRequest> => {
      const dep = parseDependencyInPath(path.dep ?? '');
      return dep.ok ? asParsed(parseControlBody(body, dep.value)) : dep;
    },
  }),
  restart: route({
    method: 'POST',
    path: '/api/watchdog/restart',
    token: true,
    answer: 'json',
    params: type<{ force?: boolean; reason?: string }>(),
    response: type<WatchdogResponse>(),
    encode: (request) => ({ body: request }),
    parse: ({ body }): Parsed<WatchdogRequest> => asParsed(parseWatchdogBody('restart', body)),
  }),
  pause: route({
    method: 'POST',
    path: '/api/watchdog/pause',
    token: true,
    answer: 'json',
    params: type<{ durationSec: number | null; reason?: string }>(),
    response: type<WatchdogResponse>(),
    encode: (request) => ({ body: request }),
    parse: ({ body }): Parsed<WatchdogRequest> => asParsed(parseWatchdogBody('pause', body)),
  }),
  resume: route({
    method: 'POST',
    path: '/api/watchdog/resume',
    token: true,
    answer: 'json',
    params: type<undefined>(),
    response: type<WatchdogResponse>(),
    encode: () => ({ body: {} }),
    parse: ({ body }): Parsed<WatchdogRequest> => asParsed(parseWatchdogBody('resume', body)),
  }),
  maintenance: route({
    method: 'GET',
    path: '/api/maintenance',
    head: true,
    token: false,
    answer: 'json',
    params: type<undefined>(),
    response: type<MaintenanceResponse>(),
    encode: nothing,
    parse: noInput,
  }),
  startMaintenance: route({
    method: 'POST',
    path: '/api/maintenance',
    token: true,
    answer: 'json',
    params: type<{ durationSec: number | null; reason?: string }>(),
    response: type<MaintenanceResponse>(),
    encode: (request) => ({ body: request }),
    parse: ({ body }): Parsed<MaintenanceRequest> => asParsed(parseMaintenanceBody(body)),
  }),
  // No body to read; a cross-site DELETE needs a CORS preflight, which is never granted.
  stopMaintenance: route({
    method: 'DELETE',
    path: '/api/maintenance',
    token: true,
    answer: 'json',
    params: type<undefined>(),
    response: type<MaintenanceResponse>(),
    encode: nothing,
    parse: noInput,
  }),
  // The file may hold webhook secrets and the gateway token: reading it needs the token too.
  config: route({
    method: 'GET',
    data: true,
    path: '/api/config',
    token: true,
    answer: 'json',
    params: type<undefined>(),
    response: type<ConfigView>(),
    encode: nothing,
    parse: noInput,
  }),
  saveConfig: route({
    method: 'POST',
    path: '/api/config',
    token: true,
    answer: 'json',
    params: type<{ config: Record<string, unknown>; confirmCode?: string }>(),
    response: type<ConfigSaveResponse>(),
    encode: (request) => ({ body: request }),
    parse: ({ body }): Parsed<{ config: unknown; confirmCode?: string }> => asParsed(parseConfigBody(body)),
  }),
  // The token's one-time, short-lived stand-in for a browser `breakerbar dashboard --open` starts:
  // only a holder of the token gets one.
  signInCode: route({
    method: 'POST',
    path: '/api/session/code',
    token: true,
    answer: 'json',
    params: type<undefined>(),
    response: type<SignInCode>(),
    encode: () => ({ body: {} }),
    parse: ({ body }): Parsed<undefined> => asParsed(parseEmptyBody(body)),
  }),
  // The one POST without the token: the code is the credential, and any failure is the same 401.
  signIn: route({
    method: 'POST',
    path: '/api/session',
    token: false,
    answer: 'json',
    params: type<{ code: string }>(),
    response: type<{ token: string }>(),
    encode: (request) => ({ body: request }),
    parse: ({ body }): Parsed<{ code: string }> => asParsed(parseSignInBody(body)),
  }),
  doctor: route({
    method: 'GET',
    data: true,
    path: '/api/doctor',
    token: false,
    answer: 'json',
    slow: true,
    params: type<undefined>(),
    response: type<DoctorReport>(),
    encode: nothing,
    parse: noInput,
  }),
};

export type Routes = typeof ROUTES;
export type RouteName = keyof Routes;
export type ParamsOf<N extends RouteName> = Routes[N]['params'] extends Type<infer P> ? P : never;
export type InputOf<N extends RouteName> = Routes[N]['parse'] extends (incoming: Incoming) => Parsed<infer I>
  ? I
  : never;
export type ResponseOf<N extends RouteName> = Routes[N]['response'] extends Type<infer R> ? R : never;
/** The routes a client calls and gets JSON back from (not the metrics text, not the event stream). */
/** The routes the backend answers directly (`data: true`): one backend method each, of the route's name. */
export type DataRouteName = { [N in RouteName]: Routes[N]['data'] extends true ? N : never }[RouteName];
export type CallableName = { [N in RouteName]: Routes[N]['answer'] extends 'json' ? N : never }[RouteName];

export const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

/** Whether `name` is a route a client may call (own key of the table, answering JSON). */
export function isCallable(name: unknown): name is CallableName {
  return typeof name === 'string' && Object.hasOwn(ROUTES, name) && ROUTES[name as RouteName].answer === 'json';
}

/** The methods a route answers: its own, plus HEAD for cheap public GETs. */
export function methodsOf(spec: RouteSpec<never, unknown, unknown>): string[] {
  return spec.head === true ? [spec.method, 'HEAD'] : [spec.method];
}

/** The path with its parameters filled in and encoded (so a dependency's `/` travels as %2F). */
export function pathOf(pattern: string, params: Record<string, string> = {}): string {
  return pattern.replace(/:(\w+)\+?/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`path parameter ${name} missing for ${pattern}`);
    return encodeURIComponent(value);
  });
}

/** Method, path with its query, and body of one call, as a transport sends it. */
export function wireOf<N extends RouteName>(
  name: N,
  params: ParamsOf<N>,
): { method: Method; path: string; body?: unknown } {
  const spec = ROUTES[name] as unknown as RouteSpec<ParamsOf<N>, unknown, unknown>;
  const wire = spec.encode(params);
  const query = new URLSearchParams(wire.query ?? {}).toString();
  const path = pathOf(spec.path, wire.path) + (query === '' ? '' : `?${query}`);
  return { method: spec.method, path, ...(wire.body === undefined ? {} : { body: wire.body }) };
}
