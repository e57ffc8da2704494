/**
 * BreakerBar's local HTTP API on `node:http`: health, Prometheus metrics, the
 * status and history the dashboard reads, an event stream, and the breaker
 * controls.
 *
 * Every request passes the same gate, in this order: Host (DNS rebinding),
 * Origin (cross-site), a sane path, the route and method; a POST then needs the
 * API token, `application/json` and a body within the size limit. A request
 * that fails any of them gets a 4xx JSON error, is logged (method, path,
 * reason: never the token, a header's secret or the body) and reaches nothing
 * in the backend. The rules follow OWASP's REST and CSRF cheat sheets
 * (https://cheatsheetseries.owasp.org/cheatsheets/REST_Security_Cheat_Sheet.html)
 * and Electron's security checklist for local content
 * (https://www.electronjs.org/docs/latest/tutorial/security).
 */
import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { extname, resolve, sep } from 'node:path';
import type {
  ApiBackend,
  ControlRequest,
  HistoryQuery,
  IncidentQuery,
  MaintenanceRequest,
  MaintenanceResponse,
  WatchdogAction,
  WatchdogResponse,
} from '../../shared/api/types.js';
import type { OperatorAction } from '../breaker/types.js';
import { keyOfError } from '../config/file.js';
import { ConfigError } from '../config/schema.js';
import type { LogFields, Logger } from '../log.js';
import {
  type CheckResult,
  checkHost,
  checkOrigin,
  checkToken,
  isLoopbackHost,
  type ListenAddress,
} from './security.js';
import { createSseHub, type SseHubOptions } from './sse.js';
import { parseMaintenanceBody, parseWatchdogBody } from './watchdog-body.js';

export interface ApiServerOptions {
  backend: ApiBackend;
  /** Address to bind; default 127.0.0.1. Anything but loopback needs `allowNonLoopback`. */
  host?: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** The local API token (see api-token.ts); required on every POST. */
  token: string;
  log: Logger;
  version: string;
  /** Largest request body accepted (default 16 KiB); larger is 413 without reading the rest. */
  maxBodyBytes?: number;
  /** Headers and body must arrive within this (default 10 s); an idle connection is closed after it too. */
  requestTimeoutMs?: number;
  /** The dashboard's built files: `GET /` serves `index.html`, `GET /assets/…` the files under `assets/`. */
  staticDir?: string;
  /** Bind a non-loopback address: the API is then reachable from the network. Explicit opt-in only. */
  allowNonLoopback?: boolean;
  /** Event-stream limits (heartbeat, clients, buffered bytes). */
  sse?: Omit<SseHubOptions, 'log'>;
  /** "Now" for history defaults (tests). */
  clock?: () => number;
}

export interface ApiServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 16 * 1024;
const DEFAULT_REQUEST_TIMEOUT = 10_000;
/** Connections at once: a local tool needs few, and each costs a socket and memory. */
const MAX_CONNECTIONS = 128;
const MAX_PATH_LENGTH = 2048;
const MAX_STATIC_FILE = 16 * 1024 * 1024;
const MAX_DEP_LENGTH = 256;
const MAX_REASON_LENGTH = 200;
const MAX_HISTORY_STEPS = 10_000;
const DEFAULT_HISTORY_SPAN = 3_600_000;
const DEFAULT_STEP_SECONDS = 60;
const ACTIONS: readonly OperatorAction[] = ['force_open', 'force_closed', 'reset'];

/** Every response: no MIME sniffing, no framing (clickjacking), no referrer, no cross-origin embedding. */
const BASE_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};
/** API responses are live data: never stored, and never a document that could run anything. */
const API_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};
/**
 * The dashboard: only its own scripts, styles and API, no plugins, no <base> tricks, no framing
 * (https://www.electronjs.org/docs/latest/tutorial/security#7-define-a-content-security-policy).
 * Applied to every static file, since an SVG opened directly is a document too.
 */
const STATIC_CSP = "default-src 'self'; base-uri 'none'; object-src 'none'; form-action 'self'; frame-ancestors 'none'";

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

type Route =
  | { kind: 'healthz' | 'metrics' | 'status' | 'history' | 'spend' | 'events' | 'config' | 'doctor' | 'maintenance' }
  | { kind: 'incidents' }
  | { kind: 'incident'; rawId: string }
  | { kind: 'control'; rawDep: string }
  | { kind: 'watchdog'; action: WatchdogAction }
  | { kind: 'static'; rawSegments: string[] };

const ALLOWED: Record<Route['kind'], readonly string[]> = {
  healthz: ['GET', 'HEAD'],
  metrics: ['GET', 'HEAD'],
  status: ['GET', 'HEAD'],
  history: ['GET', 'HEAD'],
  incidents: ['GET', 'HEAD'],
  incident: ['GET', 'HEAD'],
  spend: ['GET', 'HEAD'],
  events: ['GET'],
  control: ['POST'],
  watchdog: ['POST'],
  maintenance: ['GET', 'HEAD', 'POST', 'DELETE'],
  config: ['GET', 'POST'],
  doctor: ['GET'],
  static: ['GET', 'HEAD'],
};

/** A request the gate turned away: status, message for the caller and the log, extra headers. */
interface Rejection {
  status: number;
  error: string;
  param?: string;
  headers?: Record<string, string>;
  /** The client went away (or was cut off by a timeout, already logged): nothing to answer. */
  abandoned?: boolean;
}

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && options.allowNonLoopback !== true) {
    throw new Error(
      `refusing to listen on ${host}: the BreakerBar API is meant for this machine only (127.0.0.1). ` +
        'To expose it on the network, set allowNonLoopback explicitly.',
    );
  }
  // A short token would be guessable; the generated one is 64 hex digits.
  if (options.token.length < 32) throw new Error('the API token must be at least 32 characters');
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT;
  const clock = options.clock ?? Date.now;
  const { backend, log, token } = options;
  const staticRoot = options.staticDir === undefined ? null : await staticRootOf(options.staticDir);

  const hub = createSseHub({ ...options.sse, log });
  /** The response in progress on each socket, so a timeout knows whether a response already started. */
  const inFlight = new WeakMap<Socket, ServerResponse>();

  const server = createServer({
    // Slow clients (slowloris): the whole request must arrive within the timeout. Node checks these
    // every connectionsCheckingInterval (30 s by default), too coarse for a short timeout.
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, Math.max(25, Math.floor(requestTimeoutMs / 4))),
    keepAliveTimeout: Math.min(5000, requestTimeoutMs),
    // Node's own check answers a missing Host with a bare 400; checkHost answers it (403 JSON, logged).
    requireHostHeader: false,
    maxHeaderSize: 16 * 1024,
  });
  server.maxConnections = MAX_CONNECTIONS;
  server.on('drop', () => log.warn('api connection refused', { reason: `more than ${MAX_CONNECTIONS} connections` }));
  // A connection with no traffic either way for this long (a client that stopped reading its answer)
  // is closed; the event stream turns it off for its own socket. Twice the request timeout, so that a
  // stalled request gets its 408 from the request timeout first.
  const idleMs = 2 * requestTimeoutMs;
  server.setTimeout(idleMs, (socket: Socket) => {
    log.warn('api connection closed', { reason: `no traffic for ${idleMs} ms` });
    socket.destroy();
  });

  // Parse errors, header overflow and the request timeouts arrive here, before (or instead of) a request.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, reason] =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, `request not complete within ${requestTimeoutMs} ms`]
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'request headers too large']
          : [400, 'malformed HTTP request'];
    log.warn('api request rejected', { status, reason });
    const started = inFlight.get(socket)?.headersSent === true;
    // Writing into a response already under way would corrupt it; then the connection just ends.
    if (!started) socket.write(rawJsonResponse(status, { error: reason }));
    socket.destroy();
  });

  let listen: ListenAddress = { host, port: options.port };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = clock();
    const method = req.method ?? '';
    const target = req.url ?? '';
    const queryAt = target.indexOf('?');
    const rawPath = queryAt === -1 ? target : target.slice(0, queryAt);
    const rawQuery = queryAt === -1 ? '' : target.slice(queryAt + 1);
    const logPath = clipForLog(rawPath);
    inFlight.set(req.socket, res);
    res.once('close', () => {
      if (inFlight.get(req.socket) === res) inFlight.delete(req.socket);
    });
    for (const [name, value] of Object.entries({ ...BASE_HEADERS, ...API_HEADERS })) res.setHeader(name, value);

    const reject = (rejection: Rejection): void => {
      const fields: LogFields = { method, path: logPath, status: rejection.status, reason: rejection.error };
      if (rejection.abandoned) {
        log.debug('api request abandoned', fields);
        return;
      }
      log.warn('api request rejected', fields);
      if (!canRespond(res)) return;
      const headers = { ...rejection.headers };
      // An unread body would otherwise be drained to keep the connection alive: close it instead.
      if (!req.complete && hasBody(req)) headers.connection = 'close';
      const payload =
        rejection.param === undefined ? { error: rejection.error } : { error: rejection.error, param: rejection.param };
      sendJson(res, rejection.status, payload, headers);
    };

    const gate = gateRequest(req, method, rawPath, listen, staticRoot !== null);
    if (!gate.ok) return reject(gate.rejection);
    const { route } = gate;

    try {
      switch (route.kind) {
        case 'healthz':
          // The version header lets a client tell BreakerBar from something else on the port.
          sendJson(res, 200, { ok: true }, { 'x-breakerbar-version': options.version });
          break;
        case 'metrics': {
          const metrics = await backend.metrics();
          send(res, 200, metrics.contentType, metrics.body);
          break;
        }
        case 'status':
          sendJson(res, 200, backend.status());
          break;
        case 'history': {
          const parsed = parseHistoryQuery(rawQuery, clock());
          if (!parsed.ok) return reject({ status: 400, error: parsed.error, param: parsed.param });
          sendJson(res, 200, backend.history(parsed.query));
          break;
        }
        case 'incidents': {
          const parsed = parseIncidentQuery(rawQuery);
          if (!parsed.ok) return reject({ status: 400, error: parsed.error, param: parsed.param });
          sendJson(res, 200, backend.incidents(parsed.query));
          break;
        }
        case 'incident': {
          const id = /^[1-9]\d{0,15}$/.test(route.rawId) ? Number(route.rawId) : Number.NaN;
          if (!Number.isSafeInteger(id)) {
            return reject({ status: 400, error: 'incident id must be a positive integer', param: 'id' });
          }
          const incident = backend.incident(id);
          if (!incident) return reject({ status: 404, error: `no incident ${id}` });
          sendJson(res, 200, incident);
          break;
        }
        case 'spend':
          sendJson(res, 200, backend.spend());
          break;
        case 'events': {
          // The stream is idle between events by design; heartbeats and the hub's slow-reader check
          // take over from the idle timeout.
          const attached = hub.attach(res);
          if (!attached.ok)
            return reject({ status: attached.status, error: attached.error, headers: { 'retry-after': '5' } });
          req.socket.setTimeout(0);
          log.debug('api event stream opened', { clients: hub.size });
          return;
        }
        case 'control': {
          const checked = await checkControl(req, res, route.rawDep, token, maxBodyBytes);
          if (!checked.ok) return reject(checked.rejection);
          let transitions: unknown;
          try {
            transitions = backend.control(checked.request);
          } catch (error) {
            return reject({ status: 409, error: error instanceof Error ? error.message : 'control refused' });
          }
          log.info('breaker control applied', { dep: checked.request.dep, action: checked.request.action });
          sendJson(res, 200, { transitions });
          break;
        }
        case 'doctor':
          sendJson(res, 200, await backend.doctor());
          break;
        case 'config': {
          // The file may hold webhook secrets and the gateway token: reading it needs the token too.
          if (method === 'GET') {
            if ((req.headersDistinct.authorization?.length ?? 0) > 1) {
              return reject({ status: 401, error: 'more than one Authorization header' });
            }
            const auth = checkToken(req.headers.authorization, token);
            if (!auth.ok) return reject(rejectionOf(auth));
            sendJson(res, 200, backend.config());
            break;
          }
          const body = await readAuthorizedJson(req, res, token, maxBodyBytes);
          if (!body.ok) return reject(body.rejection);
          const config = (body.value as { config?: unknown } | null)?.config;
          if (config === undefined)
            return reject({ status: 400, error: 'body must be {"config": {...}}', param: 'config' });
          try {
            sendJson(res, 200, backend.saveConfig(config));
          } catch (error) {
            if (!(error instanceof ConfigError)) throw error;
            return reject({ status: 400, error: error.message, param: keyOfError(error) ?? 'config' });
          }
          log.info('config file saved through the API');
          break;
        }
        case 'watchdog': {
          const body = await readAuthorizedJson(req, res, token, maxBodyBytes);
          if (!body.ok) return reject(body.rejection);
          const parsed = parseWatchdogBody(route.action, body.value);
          if (!parsed.ok) return reject({ status: 400, error: parsed.error, param: parsed.param });
          let answer: WatchdogResponse;
          try {
            answer = backend.watchdog(parsed.request);
          } catch (error) {
            return reject({ status: 409, error: error instanceof Error ? error.message : 'watchdog refused' });
          }
          log.info('watchdog control applied', { action: route.action, decision: answer.decision });
          sendJson(res, 200, answer);
          break;
        }
        case 'maintenance': {
          let request: MaintenanceRequest | null | undefined;
          if (method === 'POST') {
            const body = await readAuthorizedJson(req, res, token, maxBodyBytes);
            if (!body.ok) return reject(body.rejection);
            const parsed = parseMaintenanceBody(body.value);
            if (!parsed.ok) return reject({ status: 400, error: parsed.error, param: parsed.param });
            request = parsed.request;
          } else if (method === 'DELETE') {
            // No body to read; a cross-site DELETE needs a CORS preflight, which is never granted.
            if ((req.headersDistinct.authorization?.length ?? 0) > 1) {
              return reject({ status: 401, error: 'more than one Authorization header' });
            }
            const auth = checkToken(req.headers.authorization, token);
            if (!auth.ok) return reject(rejectionOf(auth));
            request = null;
          }
          let answer: MaintenanceResponse;
          try {
            answer = backend.maintenance(request);
          } catch (error) {
            return reject({ status: 409, error: error instanceof Error ? error.message : 'maintenance refused' });
          }
          if (request !== undefined) {
            log.info(request === null ? 'maintenance stopped through the API' : 'maintenance started through the API', {
              until: answer.manual?.until ?? null,
            });
          }
          sendJson(res, 200, answer);
          break;
        }
        case 'static': {
          if (staticRoot === null) return reject({ status: 404, error: 'not found' });
          const served = await serveStatic(res, staticRoot, route.rawSegments);
          if (!served.ok) return reject(served.rejection);
          break;
        }
      }
      log.debug('api request', { method, path: logPath, status: res.statusCode, ms: clock() - started });
    } catch (error) {
      log.error('api request failed', { method, path: logPath, error: (error as Error).message });
      if (canRespond(res)) sendJson(res, 500, { error: 'internal error' });
    }
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      log.error('api request failed', { error: (error as Error).message });
      res.destroy();
    });
  };
  server.on('request', onRequest);
  // With this listener Node no longer answers `Expect: 100-continue` by itself: the gate runs first,
  // and `100 Continue` is sent only when the body is actually wanted (see readBody).
  server.on('checkContinue', onRequest);

  await new Promise<void>((resolvePromise, rejectPromise) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'the port is already in use' : error.message;
      rejectPromise(new Error(`cannot start the API server on ${host}:${options.port}: ${why}`));
    };
    server.once('error', onError);
    server.listen({ host, port: options.port, exclusive: true }, () => {
      server.off('error', onError);
      resolvePromise();
    });
  });
  server.on('error', (error) => log.error('api server error', { error: error.message }));

  const address = server.address() as AddressInfo;
  listen = { host: address.address, port: address.port };
  const unsubscribe = backend.subscribe((event) => {
    try {
      hub.send(event.type, event.data);
    } catch (error) {
      log.warn('api event not sent', { type: event.type, error: (error as Error).message });
    }
  });
  // On a wildcard bind the loopback address is the one this machine can always use.
  const urlHost = ['0.0.0.0', '::'].includes(address.address) ? '127.0.0.1' : address.address;
  const url = `http://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${address.port}`;
  log.info('local API and /metrics listening', { url });

  let closing: Promise<void> | null = null;
  return {
    url,
    port: address.port,
    close: () => {
      closing ??= new Promise<void>((resolveClose) => {
        unsubscribe();
        hub.close();
        server.close(() => resolveClose());
        server.closeIdleConnections();
        // Streams just ended and keep-alive sockets become idle a moment later; anything still open
        // after a short grace (a response being written to a slow reader) is cut.
        setImmediate(() => server.closeIdleConnections());
        setTimeout(() => server.closeAllConnections(), Math.min(1000, requestTimeoutMs)).unref();
      });
      return closing;
    },
  };
}

type Gate = { ok: true; route: Route } | { ok: false; rejection: Rejection };

/** Host, Origin, path shape, route and method: everything decided from the request line and headers. */
function gateRequest(
  req: IncomingMessage,
  method: string,
  rawPath: string,
  listen: ListenAddress,
  hasStatic: boolean,
): Gate {
  // Node keeps the first of repeated Host headers; two of them are an attempt to confuse a proxy.
  if ((req.headersDistinct.host?.length ?? 0) > 1) {
    return { ok: false, rejection: { status: 403, error: 'more than one Host header' } };
  }
  const host = checkHost(req.headers.host, listen);
  if (!host.ok) return { ok: false, rejection: rejectionOf(host) };
  const origin = checkOrigin(req.headers.origin, listen);
  if (!origin.ok) return { ok: false, rejection: rejectionOf(origin) };
  if (!rawPath.startsWith('/')) {
    return { ok: false, rejection: { status: 400, error: 'the request target must be a path' } };
  }
  if (rawPath.length > MAX_PATH_LENGTH) return { ok: false, rejection: { status: 414, error: 'path too long' } };
  const unsafe = unsafePath(rawPath);
  if (unsafe !== null) return { ok: false, rejection: { status: 400, error: unsafe } };
  const route = matchRoute(rawPath, hasStatic);
  if (route === null) return { ok: false, rejection: { status: 404, error: 'not found' } };
  const allowed = ALLOWED[route.kind];
  if (!allowed.includes(method)) {
    return {
      ok: false,
      rejection: { status: 405, error: `method ${method} not allowed`, headers: { allow: allowed.join(', ') } },
    };
  }
  return { ok: true, route };
}

function rejectionOf(result: CheckResult & { ok: false }): Rejection {
  // RFC 6750: a 401 names the scheme it wants.
  const headers: Record<string, string> | undefined =
    result.status === 401 ? { 'www-authenticate': 'Bearer realm="breakerbar"' } : undefined;
  return { status: result.status, error: result.error, ...(headers ? { headers } : {}) };
}

/**
 * Path traversal, refused for every route before routing (OWASP "Path Traversal"): a raw or encoded
 * backslash, NUL, a `.` or `..` segment (also when spelled `%2e%2e` or hidden in `..%2f..`), or broken
 * percent-encoding. The WHATWG URL parser would quietly resolve `..`, so the raw target is inspected.
 */
export function unsafePath(rawPath: string): string | null {
  if (rawPath.includes('\\')) return 'backslash in path';
  for (const segment of rawPath.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return 'malformed percent-encoding in path';
    }
    if (decoded.includes('\0')) return 'NUL in path';
    if (decoded.includes('\\')) return 'backslash in path';
    if (decoded.split('/').some((part) => part === '.' || part === '..')) return 'dot segment in path';
  }
  return null;
}

function matchRoute(rawPath: string, hasStatic: boolean): Route | null {
  switch (rawPath) {
    case '/healthz':
      return { kind: 'healthz' };
    case '/metrics':
      return { kind: 'metrics' };
    case '/api/status':
      return { kind: 'status' };
    case '/api/history':
      return { kind: 'history' };
    case '/api/spend':
      return { kind: 'spend' };
    case '/api/events':
      return { kind: 'events' };
    case '/api/incidents':
      return { kind: 'incidents' };
    case '/api/config':
      return { kind: 'config' };
    case '/api/doctor':
      return { kind: 'doctor' };
    case '/api/maintenance':
      return { kind: 'maintenance' };
    case '/':
      return hasStatic ? { kind: 'static', rawSegments: ['index.html'] } : null;
  }
  const incident = /^\/api\/incidents\/([^/]+)$/.exec(rawPath);
  if (incident) return { kind: 'incident', rawId: incident[1]! };
  const watchdog = /^\/api\/watchdog\/(restart|pause|resume)$/.exec(rawPath);
  if (watchdog) return { kind: 'watchdog', action: watchdog[1] as WatchdogAction };
  // The dependency key holds `/` (`provider/model`), encoded as %2F or not: everything between.
  const control = /^\/api\/breakers\/(.+)\/control$/.exec(rawPath);
  if (control) return { kind: 'control', rawDep: control[1]! };
  if (hasStatic && rawPath.startsWith('/assets/')) {
    return { kind: 'static', rawSegments: ['assets', ...rawPath.slice('/assets/'.length).split('/')] };
  }
  return null;
}

type ControlCheck = { ok: true; request: ControlRequest } | { ok: false; rejection: Rejection };

/** Token, content type, dependency, body: in that order, so an unauthenticated caller learns nothing more. */
/**
 * Every POST: exactly one valid token, a JSON content type, a body within the limit that parses.
 * A browser cannot send application/json cross-site without a CORS preflight, which we never grant
 * (OWASP CSRF cheat sheet, "custom request headers"); forms and text/plain are refused.
 */
async function readAuthorizedJson(
  req: IncomingMessage,
  res: ServerResponse,
  token: string,
  maxBodyBytes: number,
): Promise<{ ok: true; value: unknown } | { ok: false; rejection: Rejection }> {
  if ((req.headersDistinct.authorization?.length ?? 0) > 1) {
    return { ok: false, rejection: { status: 401, error: 'more than one Authorization header' } };
  }
  const auth = checkToken(req.headers.authorization, token);
  if (!auth.ok) return { ok: false, rejection: rejectionOf(auth) };
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    return { ok: false, rejection: { status: 415, error: 'content-type must be application/json' } };
  }
  const body = await readBody(req, res, maxBodyBytes);
  if (!body.ok) return { ok: false, rejection: body.rejection };
  try {
    return { ok: true, value: JSON.parse(body.body.toString('utf8')) };
  } catch {
    // Not the parser's message: V8 quotes the offending text, and bodies are never logged.
    return { ok: false, rejection: { status: 400, error: 'body is not valid JSON' } };
  }
}

async function checkControl(
  req: IncomingMessage,
  res: ServerResponse,
  rawDep: string,
  token: string,
  maxBodyBytes: number,
): Promise<ControlCheck> {
  const dep = safeDecode(rawDep);
  const body = await readAuthorizedJson(req, res, token, maxBodyBytes);
  if (!body.ok) return body;
  if (dep === null || dep.length === 0 || dep.length > MAX_DEP_LENGTH || hasControlChars(dep)) {
    return { ok: false, rejection: { status: 400, error: 'invalid dependency in path', param: 'dep' } };
  }
  const parsed = parseControlBody(body.value, dep);
  if (!parsed.ok) return { ok: false, rejection: { status: 400, error: parsed.error, param: parsed.param } };
  return { ok: true, request: parsed.request };
}

type BodyResult = { ok: true; body: Buffer } | { ok: false; rejection: Rejection };

/** Reads at most `max` bytes; stops reading (and the connection is closed) as soon as it is exceeded. */
function readBody(req: IncomingMessage, res: ServerResponse, max: number): Promise<BodyResult> {
  const tooLarge: BodyResult = { ok: false, rejection: { status: 413, error: `body larger than ${max} bytes` } };
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > max) return Promise.resolve(tooLarge);
  if (req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyResult) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onAbort);
      resolvePromise(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.pause();
        finish(tooLarge);
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = () => finish({ ok: true, body: Buffer.concat(chunks) });
    const onAbort = () =>
      finish({ ok: false, rejection: { status: 400, error: 'request body incomplete', abandoned: true } });
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onAbort);
    req.once('close', onAbort);
  });
}

type ControlBody = { ok: true; request: ControlRequest } | { ok: false; param: string; error: string };

export function parseControlBody(value: unknown, dep: string): ControlBody {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, param: 'body', error: 'body must be a JSON object {action, reason}' };
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key !== 'action' && key !== 'reason' && key !== 'dep') {
      return { ok: false, param: key, error: `unknown field ${clipForLog(key, 40)}` };
    }
  }
  if ('dep' in record && record.dep !== dep) {
    return { ok: false, param: 'dep', error: 'dep in the body differs from the path' };
  }
  const action = record.action;
  if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action)) {
    return { ok: false, param: 'action', error: `action must be one of ${ACTIONS.join(', ')}` };
  }
  const reason = record.reason;
  if (typeof reason !== 'string' || reason.trim() === '') {
    return { ok: false, param: 'reason', error: 'reason is required' };
  }
  if ([...reason].length > MAX_REASON_LENGTH) {
    return { ok: false, param: 'reason', error: `reason is longer than ${MAX_REASON_LENGTH} characters` };
  }
  // The reason reaches logs and notifications: line breaks and escapes there would forge entries.
  if (hasControlChars(reason)) {
    return { ok: false, param: 'reason', error: 'reason must not contain control characters' };
  }
  return { ok: true, request: { dep, action: action as OperatorAction, reason: reason.trim() } };
}

type HistoryParse = { ok: true; query: HistoryQuery } | { ok: false; param: string; error: string };

const HISTORY_PARAMS = new Set(['dep', 'from', 'to', 'step']);
const EPOCH_MS = /^\d{1,16}$/;
/** The largest time a JavaScript Date can hold. */
const MAX_DATE_MS = 8.64e15;
/** A date, or a date-time with an explicit zone: a zone-less time would depend on the server's locale. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/i;

/**
 * `dep`, `from`, `to` (ISO 8601 or epoch ms; default the last hour up to now), `step` (seconds, default
 * 60, at least 1, at most 10,000 steps). Each error names its parameter.
 */
export function parseHistoryQuery(rawQuery: string, now: number): HistoryParse {
  const params = new URLSearchParams(rawQuery);
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (!HISTORY_PARAMS.has(key)) {
      return { ok: false, param: key, error: `unknown parameter ${clipForLog(key, 40)} (dep, from, to, step)` };
    }
    if (seen.has(key)) return { ok: false, param: key, error: `${key} given more than once` };
    seen.add(key);
  }
  const depValue = params.get('dep');
  const dep = depValue === null || depValue === '' ? undefined : depValue;
  if (dep !== undefined && (dep.length > MAX_DEP_LENGTH || hasControlChars(dep))) {
    return { ok: false, param: 'dep', error: 'dep is not a dependency key' };
  }
  const to = parseTime(params.get('to'));
  if (to === 'invalid')
    return { ok: false, param: 'to', error: 'to must be ISO 8601 (with a zone) or epoch milliseconds' };
  const from = parseTime(params.get('from'));
  if (from === 'invalid') {
    return { ok: false, param: 'from', error: 'from must be ISO 8601 (with a zone) or epoch milliseconds' };
  }
  const toMs = to ?? now;
  const fromMs = from ?? toMs - DEFAULT_HISTORY_SPAN;
  if (!(fromMs < toMs)) return { ok: false, param: 'from', error: 'from must be before to' };
  const stepText = params.get('step');
  let stepMs = DEFAULT_STEP_SECONDS * 1000;
  if (stepText !== null) {
    const seconds = /^\d+(?:\.\d+)?$/.test(stepText) ? Number(stepText) : Number.NaN;
    if (!Number.isFinite(seconds) || seconds < 1) {
      return { ok: false, param: 'step', error: 'step must be a number of seconds, at least 1' };
    }
    stepMs = Math.round(seconds * 1000);
  }
  if (Math.ceil((toMs - fromMs) / stepMs) > MAX_HISTORY_STEPS) {
    return {
      ok: false,
      param: 'step',
      error: `step too small: at most ${MAX_HISTORY_STEPS} steps between from and to`,
    };
  }
  return { ok: true, query: { ...(dep === undefined ? {} : { dep }), from: fromMs, to: toMs, stepMs } };
}

type IncidentParse = { ok: true; query: IncidentQuery } | { ok: false; param: string; error: string };

const INCIDENT_PARAMS = new Set(['limit', 'since']);
const DEFAULT_INCIDENT_LIMIT = 50;
const MAX_INCIDENT_LIMIT = 1000;

/** `limit` (1..1000, default 50), `since` (ISO 8601 or epoch ms; default: any time). Each error names its parameter. */
export function parseIncidentQuery(rawQuery: string): IncidentParse {
  const params = new URLSearchParams(rawQuery);
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (!INCIDENT_PARAMS.has(key)) {
      return { ok: false, param: key, error: `unknown parameter ${clipForLog(key, 40)} (limit, since)` };
    }
    if (seen.has(key)) return { ok: false, param: key, error: `${key} given more than once` };
    seen.add(key);
  }
  const limitText = params.get('limit');
  let limit = DEFAULT_INCIDENT_LIMIT;
  if (limitText !== null && limitText !== '') {
    limit = /^\d{1,5}$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_INCIDENT_LIMIT)) {
      return { ok: false, param: 'limit', error: `limit must be an integer from 1 to ${MAX_INCIDENT_LIMIT}` };
    }
  }
  const since = parseTime(params.get('since'));
  if (since === 'invalid') {
    return { ok: false, param: 'since', error: 'since must be ISO 8601 (with a zone) or epoch milliseconds' };
  }
  return { ok: true, query: { limit, since } };
}

function parseTime(value: string | null): number | null | 'invalid' {
  if (value === null || value === '') return null;
  if (EPOCH_MS.test(value)) {
    const ms = Number(value);
    return ms <= MAX_DATE_MS ? ms : 'invalid';
  }
  if (!ISO_TIME.test(value)) return 'invalid';
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : 'invalid';
}

type StaticResult = { ok: true } | { ok: false; rejection: Rejection };

/**
 * Serves one file from the static root, never anything outside it: every segment must be a plain name
 * (no empty segment, no `:`, no leading dot, no encoded `/`), the joined path must stay under the root,
 * and so must its real path once symbolic links are resolved; the file is opened without following a
 * final symlink and must be a regular file.
 */
async function serveStatic(res: ServerResponse, root: string, rawSegments: string[]): Promise<StaticResult> {
  const notFound: StaticResult = { ok: false, rejection: { status: 404, error: 'not found' } };
  const segments: string[] = [];
  for (const raw of rawSegments) {
    const name = safeDecode(raw);
    if (name === null || name === '' || name.startsWith('.') || /[/\\:\0]/.test(name) || hasControlChars(name)) {
      return notFound;
    }
    segments.push(name);
  }
  const candidate = resolve(root, ...segments);
  if (!candidate.startsWith(root + sep)) return notFound;
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    return notFound;
  }
  if (!real.startsWith(root + sep)) return notFound;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(real, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return notFound;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_STATIC_FILE) return notFound;
    const body = await handle.readFile();
    const type = CONTENT_TYPES[extname(real).toLowerCase()] ?? 'application/octet-stream';
    res.setHeader('content-security-policy', STATIC_CSP);
    // Revalidate each time: the dashboard may be rebuilt while BreakerBar runs.
    res.setHeader('cache-control', 'no-cache');
    if (type.startsWith('text/html')) res.setHeader('cross-origin-opener-policy', 'same-origin');
    send(res, 200, type, body);
    return { ok: true };
  } finally {
    await handle.close();
  }
}

async function staticRootOf(dir: string): Promise<string> {
  let root: string;
  try {
    root = await realpath(resolve(dir));
  } catch (error) {
    throw new Error(`the dashboard directory ${dir} cannot be used: ${(error as Error).message}`);
  }
  if (!(await stat(root)).isDirectory()) throw new Error(`the dashboard directory ${dir} is not a directory`);
  return root;
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** A response for a connection that has no ServerResponse (parse errors, timeouts). */
function rawJsonResponse(status: number, value: unknown): string {
  const body = JSON.stringify(value);
  const text = status === 408 ? 'Request Timeout' : status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    ...BASE_HEADERS,
    ...API_HEADERS,
  };
  const lines = Object.entries(headers).map(([name, v]) => `${name}: ${v}\r\n`);
  return `HTTP/1.1 ${status} ${text}\r\n${lines.join('')}\r\n${body}`;
}

function canRespond(res: ServerResponse): boolean {
  return !res.headersSent && !res.writableEnded && !res.destroyed && res.socket !== null && !res.socket.destroyed;
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function safeDecode(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

function hasControlChars(value: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  return /[\u0000-\u001f\u007f]/.test(value);
}

/** Paths are attacker-controlled: shortened and made printable before they reach a log line. */
function clipForLog(value: string, max = 200): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > max ? `${printable.slice(0, max)}…` : printable;
}
