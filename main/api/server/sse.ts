/**
 * A small server-sent-events hub for `/api/events`: one serialisation per
 * event, fanned out to every connected client.
 *
 * A stream is held open indefinitely, so it is where a local server is easiest
 * to exhaust: the hub caps the number of clients, and drops a client whose
 * unsent data piles up (a reader that stopped reading would otherwise grow
 * BreakerBar's memory without bound). Heartbeat comments keep idle streams
 * alive through proxies and let a dead peer surface as a write error.
 * Format: https://html.spec.whatwg.org/multipage/server-sent-events.html
 */
import type { Logger } from '../../core/runtime/log.js';

/** What the hub needs of a response; `http.ServerResponse` has all of it. */
export interface SseResponse {
  writeHead(statusCode: number, headers: Record<string, string>): unknown;
  write(chunk: string): boolean;
  end(): unknown;
  destroy(): unknown;
  once(event: 'close', listener: () => void): unknown;
  readonly writableLength: number;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
}

export interface SseHubOptions {
  /** Comment line sent to every client this often (default 15 s); 0 sends none (tests call `heartbeat()`). */
  heartbeatMs?: number;
  /** Clients beyond this are refused with 503 (default 32). */
  maxClients?: number;
  /** A client with more unsent bytes than this is dropped (default 256 KiB). */
  maxBufferedBytes?: number;
  /** The reconnect delay suggested to EventSource (default 3 s). */
  retryMs?: number;
  log?: Logger;
}

export type AttachResult = { ok: true; detach(): void } | { ok: false; status: 503; error: string };

export interface SseHub {
  /** Starts a stream on `res` (writes the status and headers), or refuses when full or closing. */
  attach(res: SseResponse): AttachResult;
  /** `event: <type>` / `data: <json>` to every client. */
  send(type: string, data: unknown): void;
  /** One heartbeat comment to every client (what the timer does). */
  heartbeat(): void;
  readonly size: number;
  /** Ends every stream and refuses new ones. */
  close(): void;
}

/** Event names go on their own line of the stream, so they must not be able to break it. */
const EVENT_TYPE = /^[A-Za-z0-9_.-]{1,64}$/;

export function createSseHub(options: SseHubOptions = {}): SseHub {
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const maxClients = options.maxClients ?? 32;
  const maxBufferedBytes = options.maxBufferedBytes ?? 256 * 1024;
  const retryMs = options.retryMs ?? 3_000;
  const log = options.log;
  const clients = new Set<SseResponse>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const remove = (res: SseResponse) => {
    clients.delete(res);
    if (clients.size === 0 && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  };

  const write = (res: SseResponse, chunk: string) => {
    if (res.destroyed || res.writableEnded) {
      remove(res);
      return;
    }
    if (res.writableLength > maxBufferedBytes) {
      log?.warn('api event stream client dropped', { reason: 'slow reader', bufferedBytes: res.writableLength });
      remove(res);
      res.destroy();
      return;
    }
    res.write(chunk);
  };

  const broadcast = (chunk: string) => {
    // A copy: write() may remove clients while iterating.
    for (const res of [...clients]) write(res, chunk);
  };

  return {
    attach(res) {
      if (closed) return { ok: false, status: 503, error: 'server is shutting down' };
      if (clients.size >= maxClients) {
        return { ok: false, status: 503, error: `too many event streams (at most ${maxClients})` };
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        // no-cache is what SSE clients expect; no-store as for every other API response.
        'cache-control': 'no-cache, no-store',
        // nginx and similar proxies buffer responses unless told not to, which would hold events back.
        'x-accel-buffering': 'no',
      });
      clients.add(res);
      res.once('close', () => remove(res));
      // The first bytes flush the headers, so the client knows the stream is open.
      res.write(`retry: ${retryMs}\n: connected\n\n`);
      if (timer === null && heartbeatMs > 0) {
        timer = setInterval(() => broadcast(': heartbeat\n\n'), heartbeatMs);
        timer.unref();
      }
      return { ok: true, detach: () => remove(res) };
    },
    send(type, data) {
      if (!EVENT_TYPE.test(type)) throw new Error(`invalid event type ${JSON.stringify(type)}`);
      if (clients.size === 0) return;
      // JSON.stringify escapes line breaks, so the payload is always a single data line.
      broadcast(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    heartbeat() {
      broadcast(': heartbeat\n\n');
    },
    get size() {
      return clients.size;
    },
    close() {
      closed = true;
      for (const res of [...clients]) {
        remove(res);
        if (!res.destroyed && !res.writableEnded) res.end();
      }
    },
  };
}
