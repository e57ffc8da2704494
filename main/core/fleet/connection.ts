/**
 * One ioredis connection, held to what the fleet link needs from it: a caller
 * on the breaker's event path must never wait on Redis.
 *
 * - Commands issued while not connected fail at once (no offline queue), and
 *   every command has a timeout. A command that times out also drops the
 *   connection and starts a new one: a Redis that does not answer within the
 *   timeout is unusable for us, and a fresh connection finds out sooner
 *   whether it is back.
 * - "Up" means the server answered: ioredis's ready check (after AUTH and
 *   SELECT) must succeed, and for a subscriber every channel must be
 *   subscribed again, before 'up' is reported. A port that accepts TCP but
 *   never answers stays down.
 * - Lost connections are retried forever with capped exponential backoff and
 *   jitter (`runtime/backoff.ts`, through ioredis's `retryStrategy`).
 * - A connected server is PINGed now and then, so one that vanished without
 *   closing TCP is noticed in seconds, not after the OS's keepalive minutes.
 *
 * Subscriptions are renewed here on every connect rather than by ioredis's
 * `autoResubscribe`, because ioredis reports 'ready' before its resubscribe is
 * answered, and 'up' must mean "messages reach us".
 */
import { EventEmitter } from 'node:events';
import type { ConnectionOptions } from 'node:tls';
import { Redis } from 'ioredis';
import type { BackoffPolicy } from '../runtime/backoff.js';
import type { Logger } from '../runtime/log.js';
import { backoffDelay, DEFAULT_BACKOFF } from './backoff.js';
import { redact, redisTarget } from './redis-options.js';

/** Redis could not be asked: not connected, connection lost, client closed, or too many commands in flight. */
export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** The command got no reply in time (the connection is dropped and rebuilt). */
export class RedisTimeoutError extends RedisUnavailableError {
  override name = 'RedisTimeoutError';
}

/** Redis answered with an error (a refused script, a wrong password, a read-only replica…). */
export function isRedisReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError';
}

export interface RedisConnectionOptions {
  /** `redis://` or `rediss://` URL (see redis-options.ts). */
  url: string;
  /** Extra TLS options for a `rediss://` URL (a private CA, a client certificate). */
  tls?: ConnectionOptions;
  /** Per command, including the ready check's and subscriptions'. Default 500 ms. */
  commandTimeoutMs?: number;
  /** TCP (and TLS) connect. Default 2 s. */
  connectTimeoutMs?: number;
  reconnect?: Partial<BackoffPolicy>;
  /** PING a connected server this often (0: never). Default 5 s. */
  healthCheckMs?: number;
  /** Commands awaiting replies at most; more fail at once. Default 1000. */
  maxInFlight?: number;
  /** Channels to hold (a subscriber connection accepts no other commands). */
  subscriptions?: ReadonlyMap<string, (message: string) => void>;
  random?: () => number;
  log?: Logger;
  /** Names the connection in debug logs. */
  name?: string;
}

export interface RedisConnectionEvents {
  /** Connected and answering (and, for a subscriber, subscribed to every channel). */
  up: [];
  /** Not usable any more, or never became usable. Reported once per change, not per failed retry. */
  down: [reason: string];
}

export class RedisConnection extends EventEmitter<RedisConnectionEvents> {
  /** Where this connects, without credentials. */
  readonly where: string;
  /** The ioredis client, for commands defined on it (Lua scripts); call it through `call`. */
  readonly client: Redis;
  private readonly secrets: string[];
  private readonly commandTimeoutMs: number;
  private readonly healthCheckMs: number;
  private readonly maxInFlight: number;
  private readonly subscriptions: ReadonlyMap<string, (message: string) => void>;
  private readonly log: Logger | undefined;
  private readonly name: string;
  private up = false;
  private closed = false;
  private started = false;
  private reported: 'up' | 'down' | null = null;
  private error: string | null = null;
  /** What went wrong on the current connection attempt (cleared once it is up): the reason its close reports. */
  private attemptError: string | null = null;
  /** Counts connections: work begun on one (a resubscribe) is dropped if another replaced it meanwhile. */
  private epoch = 0;
  private inFlight = 0;
  private healthTimer: NodeJS.Timeout | null = null;
  private readonly guarded = new WeakSet<object>();

  constructor(options: RedisConnectionOptions) {
    super();
    const target = redisTarget(options.url, { tls: options.tls });
    this.where = target.where;
    this.secrets = target.secrets;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 500;
    this.healthCheckMs = options.healthCheckMs ?? 5_000;
    this.maxInFlight = options.maxInFlight ?? 1_000;
    this.subscriptions = options.subscriptions ?? new Map();
    this.log = options.log;
    this.name = options.name ?? 'redis';
    const backoff = { ...DEFAULT_BACKOFF, ...options.reconnect };
    const random = options.random ?? Math.random;
    this.client = new Redis({
      ...target.options,
      // The link's own behaviour, whatever the URL's `?` options say.
      lazyConnect: true,
      enableOfflineQueue: false,
      enableReadyCheck: true,
      autoResubscribe: false,
      autoResendUnfulfilledCommands: false,
      // 0: commands in flight when the connection drops fail at once instead of waiting out their timeout.
      maxRetriesPerRequest: 0,
      commandTimeout: this.commandTimeoutMs,
      connectTimeout: options.connectTimeoutMs ?? 2_000,
      // CLIENT SETINFO would be two more round trips before the ready check, each with its own timeout.
      disableClientInfo: true,
      keepAlive: 10_000,
      noDelay: true,
      // ioredis counts attempts from 1.
      retryStrategy: (attempt) => backoffDelay(attempt - 1, backoff, random),
    });
    this.client.on('error', (error: Error) => {
      this.guardStream();
      // ioredis's own timeouts (its ready check, AUTH, SELECT while connecting) say neither what nor how long.
      this.attemptError =
        error.message === 'Command timed out'
          ? `connected, but no answer within ${this.commandTimeoutMs} ms`
          : this.clean(error.message);
      this.log?.debug('redis connection error', { conn: this.name, redis: this.where, error: this.attemptError });
    });
    this.client.on('ready', () => void this.onReady());
    this.client.on('close', () => this.onClose());
    // 'end' without close(): ioredis gave up on a connection it could not even begin (no retry of its own).
    this.client.on('end', () => this.onEnd(backoffDelay(0, backoff, random)));
    this.client.on('message', (channel: string, message: string) => this.onMessage(channel, message));
  }

  /** Connected and answering right now. */
  get isUp(): boolean {
    return this.up;
  }

  /** Why the last connection or attempt failed (null before any failure). Never contains the password. */
  get lastError(): string | null {
    // An attempt under way that already failed says more than the failure before it.
    return this.up ? this.error : (this.attemptError ?? this.error);
  }

  /** Starts connecting (and reconnecting, until `close`). Returns at once. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    // Failures arrive as 'error' and 'close' events; the promise adds nothing.
    this.client.connect().catch(() => {});
  }

  /** Closes for good: fails what is in flight, stops retrying. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const wasUp = this.up;
    this.up = false;
    this.stopHealthCheck();
    this.client.disconnect();
    if (wasUp) this.report('down', 'client closed');
  }

  /**
   * Runs one command (`what` names it in errors, never its arguments). Rejects
   * with the server's ReplyError when Redis refuses it, with
   * RedisTimeoutError when it does not answer in time, and with
   * RedisUnavailableError when it cannot be asked — at once while not connected.
   */
  async call<T>(what: string, run: (client: Redis) => Promise<T>): Promise<T> {
    if (!this.up) throw new RedisUnavailableError(this.error ?? 'not connected');
    if (this.inFlight >= this.maxInFlight) {
      throw new RedisUnavailableError(`too many commands in flight (${this.maxInFlight})`);
    }
    const epoch = this.epoch;
    this.inFlight += 1;
    try {
      return await run(this.client);
    } catch (error) {
      if (isRedisReplyError(error)) throw error;
      const message = (error as Error).message;
      if (message === 'Command timed out') {
        const reason = `${what} timed out after ${this.commandTimeoutMs} ms`;
        this.drop(epoch, reason);
        throw new RedisTimeoutError(reason);
      }
      // Lost mid-command: the connection's failure says more than ioredis's flush message.
      throw new RedisUnavailableError(this.up ? this.clean(message) : (this.error ?? this.clean(message)));
    } finally {
      this.inFlight -= 1;
    }
  }

  private async onReady(): Promise<void> {
    if (this.closed) return;
    const epoch = this.epoch;
    if (this.subscriptions.size > 0) {
      try {
        await this.client.subscribe(...this.subscriptions.keys());
      } catch (error) {
        const message = (error as Error).message;
        const reason =
          message === 'Command timed out' ? `SUBSCRIBE timed out after ${this.commandTimeoutMs} ms` : message;
        this.drop(epoch, reason);
        return;
      }
      if (epoch !== this.epoch || this.closed) return;
    }
    this.up = true;
    this.attemptError = null;
    this.startHealthCheck();
    this.log?.debug('redis connected', { conn: this.name, redis: this.where });
    this.report('up');
  }

  private onClose(): void {
    this.epoch += 1;
    this.up = false;
    this.stopHealthCheck();
    if (this.closed) return;
    // A close after an 'error' (or a drop) has that as its reason; otherwise the server hung up.
    this.error = this.attemptError ?? 'connection closed by server';
    this.attemptError = null;
    this.log?.debug('redis connection failed', { conn: this.name, redis: this.where, reason: this.error });
    this.report('down', this.error);
  }

  private onEnd(retryInMs: number): void {
    if (this.closed) return;
    this.error = this.attemptError ?? this.error ?? 'connection ended';
    this.report('down', this.error);
    setTimeout(() => {
      if (!this.closed) this.client.connect().catch(() => {});
    }, retryInMs).unref();
  }

  /** Drops the connection `epoch` if it is still the current one; ioredis then reconnects with backoff. */
  private drop(epoch: number, reason: string): void {
    if (epoch !== this.epoch || this.closed) return;
    this.attemptError = reason;
    this.up = false;
    this.client.disconnect(true);
  }

  private onMessage(channel: string, message: string): void {
    const handler = this.subscriptions.get(channel);
    if (!handler) return;
    try {
      handler(message);
    } catch (error) {
      // A listener's bug must not take the connection (and every other subscription) down.
      this.log?.warn('redis message handler failed', { channel, error: (error as Error).message });
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
    this.stopHealthCheck();
    this.healthTimer = setInterval(() => {
      // A missing PONG drops the connection through `call`'s timeout handling; nothing else to do here.
      if (this.up) this.call('PING', (client) => client.ping()).catch(() => {});
    }, this.healthCheckMs);
    this.healthTimer.unref();
  }

  private stopHealthCheck(): void {
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.healthTimer = null;
  }

  /**
   * ioredis listens for one 'error' per socket; a TLS socket can emit a second
   * (a failed certificate check, then the alert that follows), which nothing
   * would catch and which would end the process. The first error is reported
   * through ioredis already: later ones on the same socket are ignored here.
   */
  private guardStream(): void {
    const stream = this.client.stream;
    if (!stream || this.guarded.has(stream)) return;
    this.guarded.add(stream);
    stream.on('error', () => {});
  }

  private clean(message: string): string {
    return redact(message, this.secrets);
  }
}
