/**
 * A minimal Redis client over `node:net` for the optional fleet layer — no
 * dependency for six commands. Built for a caller that must never wait on
 * Redis (the breaker's event path):
 *
 * - Commands issued while not connected fail at once; commands in flight are
 *   bounded (`maxInFlight`), so nothing queues without limit.
 * - Every command has a timeout. RESP has no request ids (replies come back in
 *   order), so after a timeout a late reply could be taken for the next
 *   command's: the connection is dropped and rebuilt instead. A Redis that
 *   does not answer within the timeout is unusable for us anyway.
 * - "Up" means the server answered: after connecting, AUTH / SELECT (when the
 *   URL asks) and a PING must succeed before 'up' is reported, so a port that
 *   accepts TCP but never answers stays down.
 * - Lost connections are retried forever with capped exponential backoff and
 *   jitter (so a fleet does not reconnect in lockstep after a Redis restart).
 * - An idle connection is PINGed now and then, so a peer that vanished without
 *   closing TCP is noticed in seconds, not after the OS's keepalive minutes.
 *
 * `RespClient` sends commands; `RespSubscriber` holds pub/sub subscriptions on
 * its own connection (a subscribed RESP2 connection accepts no other
 * commands) and restores them on every reconnect before reporting 'up'.
 */
import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';
import type { Logger } from '../log.js';
import { describeRedisTarget, parseRedisUrl, type RedisTarget } from './redis-url.js';
import { encodeCommand, RedisError, RespParser, type RespValue } from './resp-parser.js';

export { RedisError, RespProtocolError, type RespValue } from './resp-parser.js';

/** Redis could not be asked: not connected, connection lost, client closed, or too many commands in flight. */
export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** The command got no reply in time (the connection is dropped and rebuilt). */
export class RedisTimeoutError extends RedisUnavailableError {
  override name = 'RedisTimeoutError';
}

export interface BackoffPolicy {
  /** Delay before the first retry. */
  initialMs: number;
  /** Cap: retries never wait longer than this. */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 100, maxMs: 5_000 };

/**
 * Delay before retry number `attempt` (0-based): the exponential step capped
 * at `maxMs`, then "equal jitter" — between half and all of it — so hosts
 * spread out without ever retrying in a tight loop.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const step = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(step / 2 + (random() * step) / 2);
}

export interface RespConnectionOptions {
  /** `redis://[user:password@]host[:port][/db]`. */
  url: string;
  /** Per command, including the connect handshake's. Default 500 ms. */
  commandTimeoutMs?: number;
  /** TCP connect. Default 2 s. */
  connectTimeoutMs?: number;
  reconnect?: Partial<BackoffPolicy>;
  /** PING an idle, connected server this often (0: never). Default 5 s. */
  healthCheckMs?: number;
  /** Commands awaiting replies at most; more fail at once. Default 1000. */
  maxInFlight?: number;
  random?: () => number;
  log?: Logger;
  /** Names the connection in debug logs. */
  name?: string;
}

export interface RespConnectionEvents {
  /** Connected and answering (after AUTH, SELECT and, for subscribers, every subscription). */
  up: [];
  /** Not usable any more, or never became usable. Reported once per change, not per failed retry. */
  down: [reason: string];
}

interface Pending {
  resolve: (value: RespValue) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

type State = 'idle' | 'connecting' | 'ready' | 'backoff' | 'closed';

abstract class RespConnection extends EventEmitter<RespConnectionEvents> {
  protected readonly target: RedisTarget;
  protected readonly commandTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly backoff: BackoffPolicy;
  private readonly healthCheckMs: number;
  private readonly maxInFlight: number;
  private readonly random: () => number;
  protected readonly log: Logger | undefined;
  private readonly name: string;

  private state: State = 'idle';
  private reported: 'up' | 'down' | null = null;
  private socket: Socket | null = null;
  private parser = new RespParser();
  private readonly pending: Pending[] = [];
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private healthTimer: NodeJS.Timeout | null = null;
  private lastActivity = 0;
  private error: string | null = null;

  constructor(options: RespConnectionOptions) {
    super();
    this.target = parseRedisUrl(options.url);
    this.commandTimeoutMs = options.commandTimeoutMs ?? 500;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 2_000;
    this.backoff = { ...DEFAULT_BACKOFF, ...options.reconnect };
    this.healthCheckMs = options.healthCheckMs ?? 5_000;
    this.maxInFlight = options.maxInFlight ?? 1_000;
    this.random = options.random ?? Math.random;
    this.log = options.log;
    this.name = options.name ?? 'redis';
  }

  /** Connected and answering right now. */
  get isUp(): boolean {
    return this.state === 'ready';
  }

  /** Why the last connection or attempt failed (null before any failure). Never contains the password. */
  get lastError(): string | null {
    return this.error;
  }

  /** A connection exists (handshaking or ready): commands sent now are answered in order after the handshake's. */
  protected get hasConnection(): boolean {
    return this.socket !== null;
  }

  /** Where this connects, without credentials. */
  get where(): string {
    return describeRedisTarget(this.target);
  }

  /** Starts connecting (and reconnecting, until `close`). Returns at once. */
  start(): void {
    if (this.state !== 'idle') return;
    this.connect();
  }

  /** Closes for good: fails what is in flight, stops retrying. */
  close(): void {
    if (this.state === 'closed') return;
    const wasUp = this.state === 'ready';
    this.state = 'closed';
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.stopHealthCheck();
    const socket = this.socket;
    this.socket = null;
    socket?.destroy();
    this.rejectAll(() => new RedisUnavailableError('client closed'));
    if (wasUp) this.report('down', 'client closed');
  }

  /** Subclasses: work to do on a fresh connection after the handshake and before 'up'. */
  protected afterHandshake(): Promise<void> {
    return Promise.resolve();
  }

  /** Subclasses: replies that answer no command (pub/sub messages). */
  protected isPush(_value: RespValue): boolean {
    return false;
  }

  protected onPush(_value: RespValue): void {}

  /**
   * Sends on the current connection whatever its phase (the handshake uses
   * this before 'up'); callers outside the handshake check `isUp` first.
   */
  protected send(args: readonly string[]): Promise<RespValue> {
    const socket = this.socket;
    if (!socket || this.state === 'closed') {
      return Promise.reject(new RedisUnavailableError(this.error ?? 'not connected'));
    }
    if (this.pending.length >= this.maxInFlight) {
      return Promise.reject(new RedisUnavailableError(`too many commands in flight (${this.maxInFlight})`));
    }
    return new Promise<RespValue>((resolve, reject) => {
      // Only the command's name: arguments may be a password (AUTH) or payloads.
      const what = args[0] ?? 'command';
      const entry: Pending = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const index = this.pending.indexOf(entry);
          if (index === -1) return;
          this.pending.splice(index, 1);
          const reason = `${what} timed out after ${this.commandTimeoutMs} ms`;
          reject(new RedisTimeoutError(reason));
          this.fail(socket, reason);
        }, this.commandTimeoutMs),
      };
      entry.timer.unref();
      this.pending.push(entry);
      this.lastActivity = Date.now();
      socket.write(encodeCommand(args));
    });
  }

  private connect(): void {
    this.state = 'connecting';
    this.parser = new RespParser();
    const socket = connect({ host: this.target.host, port: this.target.port });
    this.socket = socket;
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 10_000);
    const connectTimer = setTimeout(
      () => this.fail(socket, `connect timed out after ${this.connectTimeoutMs} ms`),
      this.connectTimeoutMs,
    );
    connectTimer.unref();
    socket.once('connect', () => {
      clearTimeout(connectTimer);
      void this.handshake(socket);
    });
    socket.on('data', (chunk: Buffer) => this.onData(socket, chunk));
    socket.on('error', (error) => this.fail(socket, error.message));
    socket.on('close', () => {
      clearTimeout(connectTimer);
      this.fail(socket, 'connection closed by server');
    });
  }

  private async handshake(socket: Socket): Promise<void> {
    const { username, password, db } = this.target;
    // Pipelined: one round trip. Each step names itself in the failure reason, never its arguments.
    const steps: Array<{ what: string; args: string[] }> = [];
    if (password !== null) {
      steps.push({ what: 'AUTH', args: username !== null ? ['AUTH', username, password] : ['AUTH', password] });
    }
    if (db !== 0) steps.push({ what: 'SELECT', args: ['SELECT', String(db)] });
    steps.push({ what: 'PING', args: ['PING'] });
    try {
      await Promise.all(
        steps.map(({ what, args }) =>
          this.send(args).catch((error: Error) => {
            throw error instanceof RedisError ? new RedisError(`${what} failed: ${error.message}`) : error;
          }),
        ),
      );
      await this.afterHandshake();
    } catch (error) {
      this.fail(socket, (error as Error).message);
      return;
    }
    if (socket !== this.socket || this.state !== 'connecting') return;
    this.state = 'ready';
    this.attempt = 0;
    this.startHealthCheck();
    this.log?.debug('redis connected', { conn: this.name, redis: this.where });
    this.report('up');
  }

  private onData(socket: Socket, chunk: Buffer): void {
    if (socket !== this.socket) return;
    let values: RespValue[];
    try {
      values = this.parser.push(chunk);
    } catch (error) {
      this.fail(socket, `protocol error: ${(error as Error).message}`);
      return;
    }
    for (const value of values) {
      if (socket !== this.socket) return;
      if (this.isPush(value)) {
        this.onPush(value);
        continue;
      }
      const entry = this.pending.shift();
      if (!entry) {
        this.fail(socket, 'protocol error: reply to no command');
        return;
      }
      clearTimeout(entry.timer);
      if (value instanceof RedisError) entry.reject(value);
      else entry.resolve(value);
    }
  }

  /** Drops `socket` if it is still the current one, fails what it carried, and schedules a retry. */
  private fail(socket: Socket, reason: string): void {
    if (socket !== this.socket) return;
    this.socket = null;
    socket.destroy();
    this.stopHealthCheck();
    this.error = reason;
    this.rejectAll(() => new RedisUnavailableError(reason));
    if (this.state === 'closed') return;
    this.state = 'backoff';
    this.log?.debug('redis connection failed', { conn: this.name, redis: this.where, reason });
    this.report('down', reason);
    const delay = backoffDelay(this.attempt, this.backoff, this.random);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.state === 'backoff') this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  private rejectAll(error: () => Error): void {
    for (const entry of this.pending.splice(0)) {
      clearTimeout(entry.timer);
      entry.reject(error());
    }
  }

  private report(state: 'up' | 'down', reason = ''): void {
    if (this.reported === state) return;
    this.reported = state;
    if (state === 'up') this.emit('up');
    else this.emit('down', reason);
  }

  private startHealthCheck(): void {
    if (this.healthCheckMs <= 0) return;
    this.lastActivity = Date.now();
    this.healthTimer = setInterval(() => {
      if (this.state !== 'ready' || Date.now() - this.lastActivity < this.healthCheckMs) return;
      // A missing PONG fails the connection through the command timeout; nothing else to do here.
      this.send(['PING']).catch(() => {});
    }, this.healthCheckMs);
    this.healthTimer.unref();
  }

  private stopHealthCheck(): void {
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.healthTimer = null;
  }
}

/** Commands on one connection, pipelined, each with a timeout; fails fast while not connected. */
export class RespClient extends RespConnection {
  /**
   * Sends a command. Rejects with RedisError when Redis refuses it, and with
   * RedisUnavailableError (RedisTimeoutError on timeout) when it cannot be
   * asked — at once while not connected.
   */
  command(args: readonly string[]): Promise<RespValue> {
    if (!this.isUp) return Promise.reject(new RedisUnavailableError(this.lastError ?? 'not connected'));
    return this.send(args);
  }
}

/** Pub/sub on its own connection; subscriptions survive reconnects. */
export class RespSubscriber extends RespConnection {
  private readonly channels = new Map<string, (message: string) => void>();

  /**
   * Registers `onMessage` for `channel` (replacing an earlier one). Takes
   * effect now when connected, otherwise on the next connect — 'up' is only
   * reported once every registered channel is subscribed again.
   */
  subscribe(channel: string, onMessage: (message: string) => void): void {
    const known = this.channels.has(channel);
    this.channels.set(channel, onMessage);
    // Also mid-handshake: the handshake may already have listed the channels. A duplicate SUBSCRIBE is
    // harmless; a failure fails the connection, and the reconnect subscribes again.
    if (!known && this.hasConnection) this.send(['SUBSCRIBE', channel]).catch(() => {});
  }

  unsubscribe(channel: string): void {
    if (!this.channels.delete(channel)) return;
    if (this.hasConnection) this.send(['UNSUBSCRIBE', channel]).catch(() => {});
  }

  protected override async afterHandshake(): Promise<void> {
    await Promise.all([...this.channels.keys()].map((channel) => this.send(['SUBSCRIBE', channel])));
  }

  protected override isPush(value: RespValue): boolean {
    return Array.isArray(value) && value[0] === 'message';
  }

  protected override onPush(value: RespValue): void {
    if (!Array.isArray(value)) return;
    const [, channel, message] = value;
    if (typeof channel !== 'string' || typeof message !== 'string') return;
    const handler = this.channels.get(channel);
    if (!handler) return;
    try {
      handler(message);
    } catch (error) {
      // A listener's bug must not take the connection (and every other subscription) down.
      this.log?.warn('redis message handler failed', { channel, error: (error as Error).message });
    }
  }
}
