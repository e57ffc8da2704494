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
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { LogFields, Logger } from '../../core/runtime/log.js';
import { clipForLog } from '../text.js';
import type { ApiBackend } from './api-backend.js';
import { type ConfigConfirmations, createConfigConfirmations } from './config-confirmation.js';
import { limitConnections } from './connection-limits.js';
import { answerRoute, type DispatchOptions } from './dispatch.js';
import { GATE, type GateCheck, passGate } from './gate.js';
import type { ConfirmationDelivery } from './handlers.js';
import { type ThrottleOptions, throttleWarnings } from './log-throttle.js';
import {
  API_HEADERS,
  BASE_HEADERS,
  canRespond,
  hasBody,
  type Rejection,
  rawJsonResponse,
  sendJson,
} from './respond.js';
import { matchRoute } from './router.js';
import { isLoopbackHost, type ListenAddress } from './security.js';
import { createSessions } from './sessions.js';
import { createSignInCodes } from './sign-in.js';
import { createSseHub, type SseHubOptions } from './sse.js';
import { serveStatic, staticRootOf, staticSegments } from './static-files.js';

export interface ApiServerOptions {
  backend: ApiBackend;
  /** Address to bind; default 127.0.0.1. Anything but loopback needs `allowNonLoopback`. */
  host?: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** The local API token (see core/api-files/token.ts); required on every POST. */
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
  /** Checks run after the built-in gate (gate.ts), in order. */
  checks?: readonly GateCheck[];
  /** "Now" for history defaults (tests). */
  clock?: () => number;
  /** How many refusal warnings a window holds before they are counted instead (log-throttle.ts). */
  refusalsLogged?: Omit<ThrottleOptions, 'clock'>;
  /** The codes confirming a dangerous config change from a browser (default: made here on `clock`). */
  confirmations?: ConfigConfirmations;
  /**
   * Shows a confirmation code to the human besides the log line the server writes (the daemon: a
   * desktop notification). Never through the API or its event stream: the page must not read it.
   */
  deliverConfirmation?: (delivery: ConfirmationDelivery) => void;
}

export interface ApiServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 16 * 1024;
const DEFAULT_REQUEST_TIMEOUT = 10_000;

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
  const gate = [...GATE, ...(options.checks ?? [])];
  const staticRoot = options.staticDir === undefined ? null : await staticRootOf(options.staticDir);

  const hub = createSseHub({ ...options.sse, log });
  // One client can refuse itself thousands of times a second: those warnings are throttled (log-throttle.ts).
  const refusals = throttleWarnings(log, options.refusalsLogged);
  const refusalLog: Logger = { ...log, warn: refusals.warn };
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
  // At the cap the longest-idle connection makes room, so idle sockets cannot lock other clients out.
  limitConnections(server, { firstRequestMs: Math.min(5000, requestTimeoutMs), log: refusalLog });
  // A connection with no traffic either way for this long (a client that stopped reading its answer)
  // is closed; the event stream turns it off for its own socket. Twice the request timeout, so that a
  // stalled request gets its 408 from the request timeout first. Node hands this listener the end of a
  // kept-alive connection's idle time too (browsers keep several open per page): that close is routine, so
  // only an answer still under way is worth a warning.
  const idleMs = 2 * requestTimeoutMs;
  server.setTimeout(idleMs, (socket: Socket) => {
    if (inFlight.has(socket)) refusals.warn('api connection closed', { reason: `answer not read for ${idleMs} ms` });
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
    refusals.warn('api request rejected', { status, reason });
    const started = inFlight.get(socket)?.headersSent === true;
    // Writing into a response already under way would corrupt it; then the connection just ends.
    if (!started) socket.write(rawJsonResponse(status, { error: reason }));
    socket.destroy();
  });

  let listen: ListenAddress = { host, port: options.port };

  const sessions = createSessions(token, { clock });
  const dispatch: DispatchOptions = {
    credentials: { token, sessions },
    maxBodyBytes,
    clock,
    context: {
      backend,
      log,
      version: options.version,
      signIn: createSignInCodes({ clock }),
      sessions,
      confirmations: options.confirmations ?? createConfigConfirmations({ clock }),
      deliverConfirmation: (delivery) => {
        // The log is the channel that always works (a terminal, journalctl, the app's log file); the
        // code in it is useless after two minutes or one use.
        log.warn(`config change waiting for confirmation: code ${delivery.code}`, {
          keys: delivery.changes.map((change) => change.key).join(', '),
          expires: new Date(delivery.expiresAt).toISOString(),
        });
        try {
          options.deliverConfirmation?.(delivery);
        } catch (error) {
          log.warn('confirmation code not shown on the desktop', { error: (error as Error).message });
        }
      },
    },
  };

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
      refusals.warn('api request rejected', fields);
      if (!canRespond(res)) return;
      const headers = { ...rejection.headers };
      // An unread body would otherwise be drained to keep the connection alive: close it instead.
      if (!req.complete && hasBody(req)) headers.connection = 'close';
      const payload = {
        ...rejection.details,
        error: rejection.error,
        ...(rejection.param === undefined ? {} : { param: rejection.param }),
      };
      sendJson(res, rejection.status, payload, headers);
    };

    const refused = passGate({ req, method, rawPath, listen }, gate);
    if (refused) return reject(refused);

    try {
      const match = matchRoute(method, rawPath);
      if (match.kind === 'method') {
        return reject({
          status: 405,
          error: `method ${method} not allowed`,
          headers: { allow: match.allow.join(', ') },
        });
      }
      if (match.kind === 'none') {
        const segments = staticRoot === null ? null : staticSegments(rawPath);
        if (segments === null || staticRoot === null) return reject({ status: 404, error: 'not found' });
        if (!['GET', 'HEAD'].includes(method)) {
          return reject({ status: 405, error: `method ${method} not allowed`, headers: { allow: 'GET, HEAD' } });
        }
        const served = await serveStatic(res, staticRoot, segments);
        if (!served.ok) return reject(served.rejection);
      } else if (match.spec.answer === 'stream') {
        // The stream is idle between events by design; heartbeats and the hub's slow-reader check
        // take over from the idle timeout.
        const attached = hub.attach(res);
        if (!attached.ok) {
          return reject({ status: attached.status, error: attached.error, headers: { 'retry-after': '5' } });
        }
        req.socket.setTimeout(0);
        log.debug('api event stream opened', { clients: hub.size });
        return;
      } else {
        const refusal = await answerRoute(req, res, match, rawQuery, dispatch);
        if (refusal) return reject(refusal);
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
      rejectPromise(new Error(`cannot start the API server on ${host}:${options.port}: ${why}`, { cause: error }));
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
        refusals.flush();
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
