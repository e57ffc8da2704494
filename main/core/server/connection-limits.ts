/**
 * How many connections the local API holds, and which one goes when it is full.
 *
 * Clients on loopback cannot be told apart (every one is 127.0.0.1; the process behind a port is
 * unknown), so a per-client quota is impossible. What keeps one process from locking everyone out is
 * which connection gives way: a refused new connection punishes whoever comes next, while an idle
 * keep-alive connection (or one that connected and never sent a request) costs its owner nothing
 * but a reconnect. So, at the cap, the connection idle the longest is closed to make room; only when
 * every connection is busy (a request in flight, or an event stream, which the event hub caps
 * separately) is the new one refused. A connection that sends nothing soon after connecting is closed
 * too, so idle sockets cannot sit on slots in the first place.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log.js';

/** Connections at once: a local tool needs few, and each costs a socket and memory. */
export const MAX_CONNECTIONS = 128;

export type Admission<T> = { admit: true; evict: T | null } | { admit: false };

/**
 * The bookkeeping, without sockets: which connections are idle, in the order they became idle (a Map
 * iterates in insertion order, so the first key is the longest idle).
 */
export class ConnectionTable<T> {
  private readonly all = new Set<T>();
  private readonly idle = new Map<T, true>();

  constructor(private readonly max: number) {}

  get size(): number {
    return this.all.size;
  }

  /** A new connection: admitted (it starts idle), possibly at the expense of the longest-idle one. */
  admit(connection: T): Admission<T> {
    let evict: T | null = null;
    if (this.all.size >= this.max) {
      const oldest = this.idle.keys().next();
      if (oldest.done) return { admit: false };
      evict = oldest.value;
      this.remove(evict);
    }
    this.all.add(connection);
    this.idle.set(connection, true);
    return { admit: true, evict };
  }

  busy(connection: T): void {
    this.idle.delete(connection);
  }

  /** Idle again (a response ended): the newest idle, the last to be closed. */
  rest(connection: T): void {
    if (!this.all.has(connection)) return;
    this.idle.delete(connection);
    this.idle.set(connection, true);
  }

  remove(connection: T): void {
    this.all.delete(connection);
    this.idle.delete(connection);
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
  const table = new ConnectionTable<Socket>(max);
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
      log.debug('api connection closed', { reason: `longest idle, to make room (${max} connections)` });
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

  const onRequest = (req: { socket: Socket }, res: { once(event: 'finish' | 'close', f: () => void): unknown }) => {
    const socket = req.socket;
    clearWaiting(socket);
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
