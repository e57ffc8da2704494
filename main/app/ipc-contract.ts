/**
 * The IPC contract between the dashboard's preload and the main process, and
 * the checks every message passes, without Electron (so each rule is tested
 * alone). One channel carries every API call as `{route, params}`, the route a
 * name from the route table (main/api/routes.ts), so an endpoint added there
 * needs no IPC or preload change; each answer is the API's JSON or its
 * `{error, param?}`, never a thrown error (an Error crossing IPC keeps only its
 * message).
 *
 * Rules from Electron's security checklist
 * (https://www.electronjs.org/docs/latest/tutorial/security#17-validate-the-sender-of-all-ipc-messages):
 * the sender must be our own renderer's top frame (`app://dashboard`), and every argument is
 * checked, by the same parsers the server runs, before anything reaches the core.
 */
import { type CallableName, isCallable, type ParamsOf, ROUTES, type RouteSpec } from '../api/routes.js';
import type { ApiError } from '../api/types.js';
import { APP_SCHEME } from './app-protocol.js';

/** Renderer → main: one API call, `{route, params}`. */
export const API_CHANNEL = 'breakerbar:api';

/** Main → renderer: every event of the core's stream. */
export const EVENT_CHANNEL = 'breakerbar:event';

/** The API takes 16 KiB bodies; a call that does not fit would be refused there anyway. */
const MAX_CALL_BYTES = 16 * 1024 - 32;

/** What a frame must be to use the bridge: its URL and whether it is a top-level frame. */
export interface SenderFrame {
  url: string;
  parent?: unknown;
}

/**
 * The sender is our dashboard: a top-level frame showing our own page, `rendererUrl`
 * (`app://dashboard/index.html`, app-protocol.ts), with any fragment or query (the views live in the
 * fragment). Same scheme, same host, no port or credentials, same path; a `file:` URL never matches. A null
 * frame (navigated away, destroyed) is never trusted.
 */
export function isTrustedSender(frame: SenderFrame | null | undefined, rendererUrl: string): boolean {
  if (!frame || typeof frame.url !== 'string') return false;
  if (frame.parent !== undefined && frame.parent !== null) return false;
  const page = pageOf(frame.url);
  const ours = pageOf(rendererUrl);
  return page !== null && ours !== null && page === ours;
}

/** `scheme://host/path` of an app-scheme URL without credentials or port, or null for anything else. */
function pageOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.hostname === '') return null;
  if (parsed.port !== '' || parsed.username !== '' || parsed.password !== '') return null;
  return `${parsed.protocol}//${parsed.hostname}${parsed.pathname}`;
}

export type Checked =
  | { ok: true; route: CallableName; params: ParamsOf<CallableName> }
  | { ok: false; error: ApiError };

const refuse = (param: string, error: string): Checked => ({ ok: false, error: { error, param } });

/**
 * Checks one call from the dashboard: a route of the table that answers JSON, parameters of plain JSON
 * within the size limit, and what the server would make of them (the route's own parser, over exactly
 * what the client would send) accepted.
 */
export function checkCall(message: unknown, now: number): Checked {
  if (!isPlainObject(message)) return refuse('request', 'an API call is {route, params}');
  for (const key of Object.keys(message)) {
    if (key !== 'route' && key !== 'params') return refuse(key.slice(0, 40), 'unknown field of an API call');
  }
  const { route, params } = message;
  if (!isCallable(route)) return refuse('route', 'no such API route');
  if (params !== undefined && !isPlainObject(params)) return refuse('params', `${route} takes an object`);
  let size: number;
  try {
    size = JSON.stringify(params ?? null).length;
  } catch {
    return refuse('params', 'params must be plain JSON');
  }
  if (size > MAX_CALL_BYTES) return refuse('params', `params larger than ${MAX_CALL_BYTES} bytes`);
  const spec = ROUTES[route] as unknown as RouteSpec<unknown, unknown, unknown>;
  let incoming: { path: Record<string, string>; query: string; body: unknown };
  try {
    const wire = spec.encode(params);
    incoming = {
      path: Object.fromEntries(Object.entries(wire.path ?? {}).map(([k, v]) => [k, encodeURIComponent(v)])),
      query: new URLSearchParams(wire.query ?? {}).toString(),
      body: wire.body === undefined ? undefined : JSON.parse(JSON.stringify(wire.body)),
    };
  } catch {
    return refuse('params', `${route} cannot take these parameters`);
  }
  const parsed = spec.parse({ ...incoming, now });
  if (!parsed.ok) return refuse(parsed.param, parsed.error);
  return { ok: true, route, params: params as ParamsOf<CallableName> };
}

/** Whether a route changes the core's state (the tray then refreshes its status). */
export function isMutation(route: CallableName): boolean {
  return ROUTES[route].method !== 'GET';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
