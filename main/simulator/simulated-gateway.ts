/**
 * A simulated OpenClaw gateway: a real HTTP server on 127.0.0.1 serving the
 * probe endpoints as OpenClaw does (shared docs, "Gateway HTTP probes"), whose
 * health can be switched to each way a real gateway fails. Used by tests and
 * by `breakerbar rehearse` to exercise the watchdog end to end.
 *
 * States:
 * - `up`: /healthz 200 live, /startupz 200 started, /readyz ready (unless `failing` names checks).
 * - `starting` / `draining`: /healthz still 200 live (the listener is up), /startupz 503 saying so, /readyz not ready.
 * - `hang`: connections are accepted and requests read, never answered.
 * - `refuse`: the listener is really closed (connections get ECONNREFUSED); it listens again on the same
 *   port when the state changes back.
 * - `reset`: the connection is reset as soon as a request arrives.
 * - `error500`: 500 on every endpoint.
 *
 * `restart()` behaves like a gateway restart: the listener goes away for `refuseMs`, comes back
 * `starting` for `restartMs`, then `up` (both can be given per restart: OpenClaw's own in-process
 * restart refuses for 4–9 s, then says starting for about 2 s). /readyz and /startupz report
 * `uptimeMs` as OpenClaw computes it, the wall clock minus the process's start: reset by a restart
 * and when it listens again after `refuse` (a new process), and moved by a wall-clock step (backwards
 * too, below zero).
 *
 * Control endpoints, so another process — e.g. a `watchdog.restartCommand` like
 * `["node", "-e", "fetch('http://127.0.0.1:PORT/__sim/restart',{method:'POST'})"]` — can drive it:
 * - `POST /__sim/restart` → 202, then restart() (after the answer is sent);
 * - `POST /__sim/state` with `{"state":"hang"}` → 200, then the state changes;
 * - `GET /__sim/state` → `{"state","restarts","requests"}`.
 * They answer in every state the listener is up (a hung or 500ing gateway can still be restarted
 * through them), not while `refuse`. Loopback peers only, and requests carrying an `Origin` header
 * (a browser page) are refused, so a web page cannot drive it. They are not counted in `requests`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type SimulatedGatewayState = 'up' | 'starting' | 'draining' | 'hang' | 'refuse' | 'reset' | 'error500';

export const SIMULATED_GATEWAY_STATES: readonly SimulatedGatewayState[] = [
  'up',
  'starting',
  'draining',
  'hang',
  'refuse',
  'reset',
  'error500',
];

export interface SimulatedGatewayOptions {
  host?: '127.0.0.1';
  /** 0 (default) = a random free port. */
  port?: number;
  /** Time spent 'starting' after a restart (default 0). */
  restartMs?: number;
  /** Time the listener stays closed during a restart (default 50). */
  refuseMs?: number;
  /** Initial state (default 'up'). */
  state?: SimulatedGatewayState;
  /** An older gateway without /startup and /startupz (they answer 404). */
  withoutStartupz?: boolean;
  /** Wall clock for /readyz's uptimeMs (default Date.now); the rehearsal's, which can be stepped. */
  clock?: () => number;
}

export interface SimulatedGateway {
  readonly port: number;
  readonly baseUrl: string;
  /** Settable at any time; leaving or entering 'refuse' reopens or closes the listener (see settled()). */
  state: SimulatedGatewayState;
  /** Checks /readyz reports as failing while up (settable). */
  failing: string[];
  /** How many times restart() was called. */
  readonly restarts: number;
  /** Requests received per path (a snapshot), answered or not; /__sim/ control requests excluded. */
  readonly requests: Record<string, number>;
  /**
   * Simulates a gateway restart: refuse for `refuseMs`, then 'starting' for `startingMs`, then 'up' (defaults:
   * the options' refuseMs and restartMs). Resolves once listening again.
   */
  restart(timing?: RestartTiming): Promise<void>;
  /** Why the listener could not be reopened on its port (taken meanwhile); null normally. */
  readonly listenError: string | null;
  /** Resolves once the listener matches the current state (listening unless 'refuse'). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export interface RestartTiming {
  refuseMs?: number;
  startingMs?: number;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const CONTROL_BODY_CAP = 4096;

function isState(value: unknown): value is SimulatedGatewayState {
  return typeof value === 'string' && (SIMULATED_GATEWAY_STATES as readonly string[]).includes(value);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

class Simulation implements SimulatedGateway {
  readonly port: number;
  readonly baseUrl: string;
  failing: string[] = [];
  private current: SimulatedGatewayState;
  private restartCount = 0;
  private readonly counts: Record<string, number> = {};
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Wakes pending restart() sleeps when closing, so close() never waits for them. */
  private readonly wakers = new Set<() => void>();
  private listening = true;
  /** Why the listener could not be reopened on its port, if it could not. */
  listenError: string | null = null;
  private closed = false;
  /** Bumped by every state change from outside a restart: a restart in progress stops its own transitions. */
  private generation = 0;
  private transitions: Promise<void> = Promise.resolve();
  private bootedAt: number;
  private readonly clock: () => number;

  constructor(
    private readonly server: ReturnType<typeof createServer>,
    port: number,
    private readonly options: SimulatedGatewayOptions,
  ) {
    this.port = port;
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.clock = options.clock ?? Date.now;
    this.bootedAt = this.clock();
    this.current = options.state ?? 'up';
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req, res) => this.handle(req, res));
    if (this.current === 'refuse') this.apply('refuse');
  }

  get state(): SimulatedGatewayState {
    return this.current;
  }

  set state(next: SimulatedGatewayState) {
    if (!isState(next)) throw new TypeError(`unknown simulated gateway state: ${String(next)}`);
    this.generation++;
    this.apply(next);
  }

  get restarts(): number {
    return this.restartCount;
  }

  get requests(): Record<string, number> {
    return { ...this.counts };
  }

  settled(): Promise<void> {
    return this.transitions;
  }

  async restart(timing: RestartTiming = {}): Promise<void> {
    if (this.closed) return;
    this.restartCount++;
    const generation = ++this.generation;
    this.apply('refuse');
    await this.sleep(timing.refuseMs ?? this.options.refuseMs ?? 50);
    if (generation !== this.generation || this.closed) return;
    const restartMs = timing.startingMs ?? this.options.restartMs ?? 0;
    this.apply(restartMs > 0 ? 'starting' : 'up');
    await this.settled();
    this.bootedAt = this.clock();
    if (restartMs > 0) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (generation === this.generation && !this.closed) this.apply('up');
      }, restartMs);
      this.timers.add(timer);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return this.transitions;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const wake of this.wakers) wake();
    this.stopListening();
    await this.transitions;
  }

  private apply(next: SimulatedGatewayState): void {
    // Nothing listening is a gateway process gone: whatever listens again is a new one, its uptime from zero.
    if (this.current === 'refuse' && next !== 'refuse') this.bootedAt = this.clock();
    this.current = next;
    if (this.closed) return;
    // Closing happens at once, so a probe right after `state = 'refuse'` is refused; reopening is async.
    if (next === 'refuse') this.stopListening();
    else this.transitions = this.transitions.then(() => this.reopen());
  }

  private stopListening(): void {
    if (!this.listening) return;
    this.listening = false;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    this.transitions = this.transitions.then(() => closed);
  }

  private shouldListen(): boolean {
    return !this.closed && this.current !== 'refuse';
  }

  private async reopen(): Promise<void> {
    if (this.listening || !this.shouldListen()) return;
    // The port was ours a moment ago; a few retries cover a close that is still settling.
    for (let attempt = 0; !this.listening; attempt++) {
      try {
        await new Promise<void>((resolve, reject) => {
          const onError = (error: Error): void => reject(error);
          this.server.once('error', onError);
          this.server.listen({ port: this.port, host: '127.0.0.1' }, () => {
            this.server.off('error', onError);
            resolve();
          });
        });
        this.listening = true;
      } catch (error) {
        if (attempt >= 20 || this.closed) {
          // Someone else took the port: stay closed (connections are refused) and say why.
          this.listenError = error instanceof Error ? error.message : String(error);
          return;
        }
        await this.sleep(25);
      }
    }
    this.listenError = null;
    // The state may have moved to 'refuse' (or the gateway closed) while the listen was pending.
    if (!this.shouldListen()) this.stopListening();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.timers.delete(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.timers.add(timer);
      this.wakers.add(wake);
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path.startsWith('/__sim/')) {
      this.control(path, req, res);
      return;
    }
    this.counts[path] = (this.counts[path] ?? 0) + 1;
    switch (this.current) {
      case 'hang':
        return; // Read, never answered: the socket is tracked and destroyed on close.
      case 'reset':
        req.socket.resetAndDestroy();
        return;
      case 'error500':
        sendJson(res, 500, { ok: false, error: 'internal error (simulated)' });
        return;
      case 'refuse':
        // Only reachable in the instant before the listener closed.
        req.socket.destroy();
        return;
      default:
        this.serveProbe(path, res, this.current);
    }
  }

  private serveProbe(path: string, res: ServerResponse, state: 'up' | 'starting' | 'draining'): void {
    switch (path) {
      case '/health':
      case '/healthz':
        sendJson(res, 200, { ok: true, status: 'live' });
        return;
      case '/startup':
      case '/startupz':
        if (this.options.withoutStartupz) sendJson(res, 404, { ok: false, error: 'not found' });
        else if (state === 'up') sendJson(res, 200, { ok: true, status: 'started', uptimeMs: this.uptimeMs() });
        else sendJson(res, 503, { ok: false, status: state });
        return;
      case '/ready':
      case '/readyz': {
        const ready = state === 'up' && this.failing.length === 0;
        const failing = state === 'up' ? [...this.failing] : [];
        sendJson(res, ready ? 200 : 503, { ready, failing, uptimeMs: this.uptimeMs() });
        return;
      }
      default:
        sendJson(res, 404, { ok: false, error: 'not found' });
    }
  }

  /** OpenClaw's `Date.now() - startedAt`: a wall clock stepped back past the start makes it negative. */
  private uptimeMs(): number {
    return this.clock() - this.bootedAt;
  }

  private control(path: string, req: IncomingMessage, res: ServerResponse): void {
    if (!LOOPBACK.has(req.socket.remoteAddress ?? '') || req.headers.origin !== undefined) {
      sendJson(res, 403, { ok: false, error: 'loopback clients only, no browsers' });
      return;
    }
    res.setHeader('connection', 'close');
    if (path === '/__sim/state' && req.method === 'GET') {
      sendJson(res, 200, { state: this.current, restarts: this.restartCount, requests: this.requests });
      return;
    }
    if (path === '/__sim/restart' && req.method === 'POST') {
      req.resume();
      sendJson(res, 202, { ok: true, restarts: this.restartCount + 1 });
      // After the answer has left: the restart closes the listener and this connection with it.
      res.once('finish', () => setImmediate(() => void this.restart()));
      return;
    }
    if (path === '/__sim/state' && req.method === 'POST') {
      readCapped(req, CONTROL_BODY_CAP)
        .then((body) => {
          let next: unknown;
          try {
            next = (JSON.parse(body) as { state?: unknown } | null)?.state;
          } catch {
            next = undefined;
          }
          if (!isState(next)) {
            sendJson(res, 400, { ok: false, error: `state must be one of ${SIMULATED_GATEWAY_STATES.join(', ')}` });
            return;
          }
          sendJson(res, 200, { ok: true, state: next });
          res.once('finish', () =>
            setImmediate(() => {
              if (!this.closed) this.state = next;
            }),
          );
        })
        .catch(() => req.socket.destroy());
      return;
    }
    sendJson(res, 404, { ok: false, error: 'unknown control endpoint' });
  }
}

function readCapped(req: IncomingMessage, cap: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) {
        reject(new Error('control body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startSimulatedGateway(options: SimulatedGatewayOptions = {}): Promise<SimulatedGateway> {
  const server = createServer();
  // No keep-alive lingering past close, and no Node default timeouts cutting a 'hang' short.
  server.keepAliveTimeout = 1000;
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('simulated gateway: no TCP address');
  return new Simulation(server, address.port, options);
}
