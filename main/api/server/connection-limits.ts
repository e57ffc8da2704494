/**
 * How many connections the local API holds, and which one goes when it is full.
 *
 * Clients on loopback cannot be told apart (every one is 127.0.0.1; the process behind a port is
 * unknown), so a per-client quota is impossible. What keeps one process from locking everyone out is
 * which connection gives way: a refused new connection punishes whoever comes next, while an idle
 * keep-alive connection (or one that connected and never sent a request) costs its owner nothing
 * but a reconnect. So, at the cap, the connection idle the longest is closed to make room; when none is
 * idle, the one whose request body has been arriving the longest (a request whose headers came but
 * whose body has not: 128 bodies sent a byte at a time would otherwise hold every slot until the request
 * timeout, `/healthz` included). Only when every connection is busy with a whole request (being
 * answered, or an event stream, which the event hub caps separately) is the new one refused. A
 * connection that sends nothing soon after connecting is closed too, so idle sockets cannot sit on
 * slots in the first place.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../../core/runtime/log.js';

/** Connections at once: a local tool needs few, and each costs a socket and memory. */
export const MAX_CONNECTIONS = 128;

export type Admission<T> = { admit: true; evict: T | null } | { admit: false };

/**
 * The bookkeeping, without sockets: which connections are idle, in the order they became idle, and which
 * are busy, in the order they became busy (a Map iterates in insertion order, so the first key is the
 * longest idle, or busy).
 */
export class ConnectionTable<T> {
  private readonly all = new Set<T>();
  private readonly idle = new Map<T, true>();
  private readonly busySince = new Map<T, true>();

  /** `receiving`: whether a busy connection's request is still arriving (its body not all there yet). */
  constructor(
    private readonly max: number,
    private readonly receiving: (connection: T) => boolean = () => false,
  ) {}

  get size(): number {
    return this.all.size;
  }

  /**
   * A new connection: admitted (it starts idle), possibly at the expense of the longest-idle one, or else of
   * the one whose request has been arriving the longest.
   */
  admit(connection: T): Admission<T> {
    let evict: T | null = null;
    if (this.all.size >= this.max) {
      evict = this.idle.keys().next().value ?? this.longestReceiving();
      if (evict === null) return { admit: false };
      this.remove(evict);
    }
    this.all.add(connection);
    this.idle.set(connection, true);
    return { admit: true, evict };
  }

  busy(connection: T): void {
    this.idle.delete(connection);
    this.busySince.delete(connection);
    this.busySince.set(connection, true);
  }

  /** Idle again (a response ended): the newest idle, the last to be closed. */
  rest(connection: T): void {
    if (!this.all.has(connection)) return;
    this.busySince.delete(connection);
    this.idle.delete(connection);
    this.idle.set(connection, true);
  }

  remove(connection: T): void {
    this.all.delete(connection);
    this.idle.delete(connection);
    this.busySince.delete(connection);
  }

  private longestReceiving(): T | null {
    for (const connection of this.busySince.keys()) if (this.receiving(connection)) return connection;
    return null;
  }
}

export interface ConnectionLimitOptions {
  max?: number;
  /** A connection that sends nothing within this is closed (ms). */
  firstRequestMs: number;
  log: Logger;
}

/** Applies the table to `server`'s sockets. Call before the server starts listening. */
export function limitConnections(server: Server, options: ConnectionLimitOptions): ConnectionTable<Socket> {
  const max = options.max ?? MAX_CONNECTIONS;
  const { log } = options;
  /** Each busy socket's request: `complete` once the parser has all of it, body included. */
  const requests = new WeakMap<Socket, { complete: boolean }>();
  const table = new ConnectionTable<Socket>(max, (socket) => requests.get(socket)?.complete === false);
  /** Sockets that have not sent a request yet, with the timer that closes them if they never do. */
  const waiting = new Map<Socket, NodeJS.Timeout>();

  const clearWaiting = (socket: Socket) => {
    const timer = waiting.get(socket);
    if (timer !== undefined) clearTimeout(timer);
    waiting.delete(socket);
  };

  server.on('connection', (socket: Socket) => {
    const admission = table.admit(socket);
    if (!admission.admit) {
      log.warn('api connection refused', { reason: `${max} connections, all busy` });
      socket.destroy();
      return;
    }
    if (admission.evict !== null) {
      const why = requests.get(admission.evict)?.complete === false ? 'request arriving the longest' : 'longest idle';
      log.debug('api connection closed', { reason: `${why}, to make room (${max} connections)` });
      admission.evict.destroy();
    }
    const timer = setTimeout(() => {
      // Bytes arrived: a request is on its way, however slowly; the request timeout answers that one.
      if (socket.bytesRead > 0) return;
      log.debug('api connection closed', { reason: `no request within ${options.firstRequestMs} ms` });
      socket.destroy();
    }, options.firstRequestMs);
    timer.unref();
    waiting.set(socket, timer);
    socket.once('close', () => {
      clearWaiting(socket);
      table.remove(socket);
    });
  });

  const onRequest = (
    req: { socket: Socket; complete: boolean },
    res: { once(event: 'finish' | 'close', f: () => void): unknown },
  ) => {
    const socket = req.socket;
    clearWaiting(socket);
    requests.set(socket, req);
    table.busy(socket);
    const rest = () => {
      if (!socket.destroyed) table.rest(socket);
    };
    res.once('finish', rest);
    res.once('close', rest);
  };
  server.on('request', onRequest);
  server.on('checkContinue', onRequest);
  return table;
}
