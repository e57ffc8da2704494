/**
 * One health probe of the OpenClaw gateway, over its unauthenticated loopback
 * endpoints (shared docs, "Gateway HTTP probes"): `/healthz` says whether the
 * process answers at all, `/startupz` whether it is still starting or draining
 * (not dead: restarting it then is what makes restart loops), `/readyz` how its
 * channels are doing (reported, never a reason to restart).
 *
 * node:http rather than fetch so that "nothing accepts the connection" and
 * "connected but no answer" are told apart: the first is a dead listener, the
 * second a hung event loop, and both read differently to a human. Every request
 * uses a fresh connection (no keep-alive agent): a kept-alive socket could hide
 * a listener that has gone away.
 *
 * BreakerBar's own event loop can be what is slow: a probe that waited while
 * the loop was blocked (see loop-stall.ts) and then ran out of time says
 * nothing about the gateway, so it is `unknown` (neither dead nor healthy), and
 * an answer's latency leaves out the time BreakerBar was not listening.
 */
import { request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { type ProbeDetail, probeDetailLine } from '../../words/probe-details.js';
import { LoopStallMeter, stallCouldExplain } from './loop-stall.js';

export type ProbeClass =
  | 'ok'
  | 'refused'
  | 'connect_timeout'
  | 'read_timeout'
  | 'reset'
  | 'starting'
  | 'draining'
  | `http_${number}`
  | 'not_openclaw'
  | 'error'
  /** BreakerBar's own event loop was blocked while the probe waited: the gateway's state is not known. */
  | 'unknown';

export type StartupState = 'started' | 'starting' | 'draining' | 'unknown';

export interface ReadyDetail {
  ready: boolean;
  failing: string[];
  uptimeMs: number | null;
}

export interface ProbeResult {
  /** When the probe started (injected clock). */
  ts: number;
  class: ProbeClass;
  /**
   * A dead gateway: refused, connect_timeout, read_timeout, reset, http_5xx (a 503 that says starting/draining
   * is NOT dead), error. Never `unknown`.
   */
  dead: boolean;
  /** `class === 'ok'`. */
  ok: boolean;
  /** /healthz round trip when answered, without the time BreakerBar's own event loop was blocked. */
  latencyMs: number | null;
  /** From /startupz ('unknown' when 404 = older gateway, or not reached). */
  startup: StartupState;
  /** From /readyz when reachable. */
  ready: ReadyDetail | null;
  /** What the probe found, as the prober's English line (for the log and the doctor): `probeDetailLine(found)`. */
  detail: string;
  /**
   * What the probe found, as a code and its facts: what is stored, and worded in the reader's language when
   * read. Absent only from results made elsewhere (tests, older cores): readers then read `detail` as a line.
   */
  found?: ProbeDetail;
  /** How long BreakerBar's own event loop was blocked while the probe's requests waited, ms. */
  loopStallMs?: number;
}

export interface ProbeOptions {
  /** `http://127.0.0.1:<port>`; endpoints are resolved under it. */
  baseUrl: string;
  /** Longest wait for the TCP connection to be accepted. */
  connectTimeoutMs: number;
  /** Longest wait, once connected, for a complete answer (see adaptive-timeout.ts). */
  readTimeoutMs: number;
  /** Wall clock for `ts`; latencies use the monotonic clock. */
  clock?: () => number;
}

/** The probe endpoints return a few hundred bytes; anything bigger is not the gateway talking. */
export const BODY_CAP_BYTES = 64 * 1024;

export type FailureClass = 'refused' | 'connect_timeout' | 'read_timeout' | 'reset' | 'error';

/**
 * `loopStallMs`: how long BreakerBar's event loop was blocked while the request waited: the whole round trip
 * for an answer (already left out of `latencyMs`), the wait that ran out for a timeout.
 */
export type HttpOutcome =
  | { kind: 'answered'; status: number; body: string; latencyMs: number; loopStallMs?: number }
  | { kind: FailureClass; message: string; loopStallMs?: number };

export interface HttpGetOptions {
  connectTimeoutMs: number;
  readTimeoutMs: number;
  bodyCapBytes?: number;
}

/**
 * What a socket-level error means for the gateway. `connected` tells the
 * phase: a kernel ETIMEDOUT before the connection was accepted is a connect
 * timeout, after it a read timeout. "socket hang up" carries ECONNRESET.
 */
export function classifyNetworkError(code: string | undefined, connected: boolean): FailureClass {
  switch (code) {
    case 'ECONNREFUSED':
      return 'refused';
    case 'ETIMEDOUT':
      return connected ? 'read_timeout' : 'connect_timeout';
    case 'ECONNRESET':
    case 'ECONNABORTED':
    case 'EPIPE':
      return 'reset';
    default:
      return 'error';
  }
}

/**
 * One GET with separate connect and read deadlines. Never rejects: a failure
 * is an outcome. The read deadline starts when the connection is accepted and
 * covers the whole answer, body included (a gateway that sends headers and
 * then stalls is hung all the same).
 *
 * A deadline is judged only after the I/O already waiting has been read: when
 * the loop comes back from a block, expired timers run before sockets are
 * polled, so an answer (or a connection) that arrived during the block would
 * otherwise lose to a deadline it met.
 */
export function httpGet(url: URL, options: HttpGetOptions): Promise<HttpOutcome> {
  const cap = options.bodyCapBytes ?? BODY_CAP_BYTES;
  return new Promise((resolve) => {
    const started = performance.now();
    const meter = new LoopStallMeter().start();
    /** Meter reading when the wait in progress (connect, then read) began. */
    let waitFrom = 0;
    let settled = false;
    let connected = false;
    let readTimer: NodeJS.Timeout | undefined;

    const req = httpRequest(url, {
      method: 'GET',
      agent: false,
      headers: { accept: 'application/json', connection: 'close' },
    });

    const finish = (outcome: HttpOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(readTimer);
      meter.stop();
      resolve(outcome);
      req.destroy();
    };

    const ranOut = (kind: 'connect_timeout' | 'read_timeout', message: string): void => {
      setImmediate(() => {
        // Connected meanwhile: the read deadline runs now.
        if (kind === 'connect_timeout' && connected) return;
        finish({ kind, message, loopStallMs: meter.stalledMs() - waitFrom });
      });
    };

    const connectTimer = setTimeout(
      () => ranOut('connect_timeout', `not connected within ${options.connectTimeoutMs} ms`),
      options.connectTimeoutMs,
    );

    req.on('socket', (socket) => {
      const onConnect = (): void => {
        connected = true;
        clearTimeout(connectTimer);
        waitFrom = meter.stalledMs();
        readTimer = setTimeout(
          () => ranOut('read_timeout', `no complete answer within ${options.readTimeoutMs} ms`),
          options.readTimeoutMs,
        );
      };
      if (socket.connecting) socket.once('connect', onConnect);
      else onConnect();
    });

    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const answered = (): void => {
        const loopStallMs = meter.stalledMs();
        finish({
          kind: 'answered',
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          latencyMs: Math.max(0, performance.now() - started - loopStallMs),
          loopStallMs,
        });
      };
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = cap - size;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, room);
        // Enough read to classify; the rest is not worth waiting for.
        if (size >= cap) answered();
      });
      res.on('end', answered);
      res.on('error', (error: NodeJS.ErrnoException) => {
        const kind = classifyNetworkError(error.code ?? 'ECONNRESET', true);
        finish({ kind, message: `answer cut off: ${error.message}` });
      });
      res.on('close', () => {
        if (!res.complete) finish({ kind: 'reset', message: 'connection closed before the answer was complete' });
      });
    });

    req.on('error', (error: NodeJS.ErrnoException) => {
      finish({ kind: classifyNetworkError(error.code, connected), message: error.message });
    });

    req.end();
  });
}

/**
 * What /startupz says; anything unexpected is 'unknown', never a verdict. OpenClaw 2026.7 answers 200 with its
 * Control UI page there (no /startupz yet): only its JSON saying `started` is started.
 */
export function startupFromAnswer(outcome: HttpOutcome): StartupState {
  if (outcome.kind !== 'answered') return 'unknown';
  if (outcome.status === 200) return jsonField(outcome.body, 'status') === 'started' ? 'started' : 'unknown';
  if (outcome.status === 503) {
    const status = jsonField(outcome.body, 'status');
    if (status === 'starting' || status === 'draining') return status;
  }
  return 'unknown';
}

/** The /readyz detail when it answered with the documented JSON (200 or 503), else null. */
export function readyFromAnswer(outcome: HttpOutcome): ReadyDetail | null {
  if (outcome.kind !== 'answered') return null;
  const parsed = parseObject(outcome.body);
  if (!parsed || typeof parsed.ready !== 'boolean') return null;
  const failing = Array.isArray(parsed.failing) ? parsed.failing.map(failingName).filter((n) => n !== '') : [];
  const uptime = parsed.uptimeMs;
  return {
    ready: parsed.ready,
    failing,
    uptimeMs: typeof uptime === 'number' && Number.isFinite(uptime) ? uptime : null,
  };
}

/**
 * Whether a /healthz answer below 500 is an OpenClaw gateway's: its JSON names a `status` (`live`) or `ok`.
 * Anything else (a web page, another service's 404) means the address is wrong, not that the gateway died.
 */
export function isOpenClawHealth(body: string): boolean {
  const parsed = parseObject(body);
  return parsed !== null && (typeof parsed.status === 'string' || typeof parsed.ok === 'boolean');
}

/**
 * The verdict from what /healthz and /startupz said. Starting and draining win
 * over any /healthz status: a gateway that says so is alive, just busy. A 5xx is
 * a failing gateway; any other answer that is not OpenClaw's is `not_openclaw`.
 */
export function classifyAnswers(healthStatus: number, startup: StartupState, healthBody?: string): ProbeClass {
  if (startup === 'starting' || startup === 'draining') return startup;
  if (healthStatus < 500 && healthBody !== undefined && !isOpenClawHealth(healthBody)) return 'not_openclaw';
  if (healthStatus === 200) return 'ok';
  return `http_${healthStatus}`;
}

/** Whether a class means the gateway is dead (what counts towards a health restart). */
export function isDead(cls: ProbeClass): boolean {
  switch (cls) {
    case 'ok':
    case 'starting':
    case 'draining':
    case 'not_openclaw':
    case 'unknown':
      return false;
    case 'refused':
    case 'connect_timeout':
    case 'read_timeout':
    case 'reset':
    case 'error':
      return true;
    default: {
      const status = Number(cls.slice('http_'.length));
      return status >= 500 && status <= 599;
    }
  }
}

export async function probeGateway(options: ProbeOptions): Promise<ProbeResult> {
  const clock = options.clock ?? Date.now;
  const ts = clock();
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    return failed(ts, 'error', { code: 'not-url', url: options.baseUrl });
  }
  if (base.protocol !== 'http:') {
    return failed(ts, 'error', { code: 'not-http', protocol: base.protocol });
  }
  // Resolve endpoints under any path the base URL carries.
  const root = new URL(base.pathname.endsWith('/') ? base.href : `${base.href}/`);
  const where = base.host;
  const get = (path: string): Promise<HttpOutcome> => httpGet(new URL(path, root), options);

  const health = await get('healthz');
  if (health.kind !== 'answered') {
    const stall = health.loopStallMs ?? 0;
    if (ownDelay(health.kind, stall, options)) return unknown(ts, stall);
    return { ...failed(ts, health.kind, failureDetail(health, '/healthz', where, options)), loopStallMs: stall };
  }

  const startupAnswer = await get('startupz');
  const startup = startupFromAnswer(startupAnswer);
  // A gateway that stopped answering halfway would only make /readyz wait out its timeout too.
  const readyAnswer = startupAnswer.kind === 'answered' ? await get('readyz') : null;
  const ready = readyAnswer ? readyFromAnswer(readyAnswer) : null;

  const cls = classifyAnswers(health.status, startup, health.body);
  return {
    ts,
    class: cls,
    dead: isDead(cls),
    ok: cls === 'ok',
    latencyMs: Math.round(health.latencyMs * 10) / 10,
    startup,
    ready,
    ...found(answeredDetail(cls, health, startupAnswer, ready)),
    loopStallMs: [health, startupAnswer, readyAnswer].reduce((sum, o) => sum + (o?.loopStallMs ?? 0), 0),
  };
}

/** A deadline that ran out while BreakerBar's own loop was blocked long enough to be the reason. */
function ownDelay(kind: FailureClass, stallMs: number, options: ProbeOptions): boolean {
  if (kind === 'connect_timeout') return stallCouldExplain(stallMs, options.connectTimeoutMs);
  if (kind === 'read_timeout') return stallCouldExplain(stallMs, options.readTimeoutMs);
  return false;
}

function unknown(ts: number, stallMs: number): ProbeResult {
  return {
    ts,
    class: 'unknown',
    dead: false,
    ok: false,
    latencyMs: null,
    startup: 'unknown',
    ready: null,
    ...found({ code: 'delayed', stallMs }),
    loopStallMs: stallMs,
  };
}

function failed(ts: number, cls: FailureClass, detail: ProbeDetail): ProbeResult {
  return { ts, class: cls, dead: true, ok: false, latencyMs: null, startup: 'unknown', ready: null, ...found(detail) };
}

/** A result's detail both ways: the code and facts it is stored as, and the English line it is logged as. */
export function found(detail: ProbeDetail): { detail: string; found: ProbeDetail } {
  return { detail: probeDetailLine(detail), found: detail };
}

function failureDetail(
  outcome: { kind: FailureClass; message: string },
  path: string,
  where: string,
  options: ProbeOptions,
): ProbeDetail {
  switch (outcome.kind) {
    case 'refused':
      return { code: 'refused', where };
    case 'connect_timeout':
      return { code: 'connect-timeout', where, ms: options.connectTimeoutMs };
    case 'read_timeout':
      return { code: 'read-timeout', path, ms: options.readTimeoutMs };
    case 'reset':
      return { code: 'reset', where, path };
    case 'error':
      return { code: 'failed', path, where, message: outcome.message };
  }
}

function answeredDetail(
  cls: ProbeClass,
  health: { status: number; latencyMs: number },
  startupAnswer: HttpOutcome,
  ready: ReadyDetail | null,
): ProbeDetail {
  const startupz = startupAnswer.kind === 'answered' ? startupAnswer.status : null;
  if (cls === 'starting' || cls === 'draining') {
    // Starting or draining gateways are not ready by definition; saying so adds nothing.
    return { code: 'busy', state: cls, startupz };
  }
  const notReady = ready && !ready.ready ? { notReady: ready.failing } : {};
  if (cls === 'ok') return { code: 'live', ms: Math.round(health.latencyMs), startupz, ...notReady };
  if (cls === 'not_openclaw') return { code: 'not-openclaw', status: health.status, ...notReady };
  return { code: 'http', status: health.status, ...notReady };
}

function parseObject(body: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function jsonField(body: string, field: string): unknown {
  return parseObject(body)?.[field];
}

/** Failing checks are names in current gateways; tolerate objects that carry one. */
function failingName(item: unknown): string {
  if (typeof item === 'string') return item;
  if (item !== null && typeof item === 'object') {
    const named = (item as Record<string, unknown>).name ?? (item as Record<string, unknown>).id;
    if (typeof named === 'string') return named;
  }
  return '';
}
