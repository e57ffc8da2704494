/**
 * One host's link to the fleet over Redis (optional, off by default): it
 * announces this host's breaker transitions, keeps a view of other hosts'
 * breakers for the same dependencies, and serializes half-open probes across
 * hosts with a lease.
 *
 * Redis is a helper, never a dependency of the event path: nothing here
 * blocks or throws because Redis is slow or gone. Publishing is
 * fire-and-forget (dropped and counted while disconnected, and this host's
 * latest state per dependency is published again on reconnect); lease calls
 * answer "uncoordinated" within the command timeout, and the caller carries
 * on with local-only breakers.
 *
 * Keys, under `<prefix>` (default `breakerbar`):
 * - `<prefix>:transitions` — channel; each transition as JSON.
 * - `<prefix>:state:<dep>` — hash host → latest transition JSON, so a host that
 *   starts (or reconnects) late learns where its peers stand. TTL `stateTtlMs`.
 * - `<prefix>:deps` — set of dependencies with a state hash.
 * - `<prefix>:lease:<dep>` — the probe lease, `<host>:<token>`, with PX expiry.
 * - `<prefix>:fence:<dep>` — the fencing-token counter.
 * A single Redis (or a primary) is assumed: Redis Cluster is not supported.
 * The Redis protocol, TLS and reconnecting are ioredis's (see connection.ts).
 */
import { EventEmitter } from 'node:events';
import type { ConnectionOptions } from 'node:tls';
import type { Redis } from 'ioredis';
import type { BackoffPolicy } from '../runtime/backoff.js';
import type { Logger } from '../runtime/log.js';
import { isRedisReplyError, RedisConnection } from './connection.js';
import {
  type FleetTransition,
  formatTransitionMessage,
  type PeerState,
  PeerView,
  parseTransitionMessage,
  type TransitionMessage,
} from './peers.js';
import { defineScripts, type FleetScripts } from './scripts.js';

export type { FleetTransition, PeerState } from './peers.js';

export interface FleetLinkOptions {
  /** `redis://[user:password@]host[:port][/db]`, or `rediss://…` for TLS (see redis-options.ts). */
  url: string;
  /** Extra TLS options for a `rediss://` URL, e.g. the CA of a privately run Redis. */
  tls?: ConnectionOptions;
  /** This host's name in the fleet: unique per BreakerBar instance, stable across restarts. */
  hostId: string;
  /** Key and channel prefix, so several fleets (or tests) can share one Redis. Default `breakerbar`. */
  prefix?: string;
  log: Logger;
  /** Wall clock (ms): publish times, report ages, lease expiry estimates, fencing seed. */
  clock: () => number;
  /** Per Redis command. Default 500 ms. */
  commandTimeoutMs?: number;
  /** A peer's report counts this long (or until its openUntil, if later). Default 10 min. */
  stateTtlMs?: number;
  reconnect?: Partial<BackoffPolicy>;
  /** PING idle connections this often to notice a vanished server. Default 5 s. */
  healthCheckMs?: number;
}

export interface FleetStatus {
  /** Publishing, receiving and leases all work right now. */
  connected: boolean;
  /** When `connected` last changed (null until the first connect attempt settled). */
  since: number | null;
  /** Why Redis was last unusable (kept after recovery, for diagnosis). Never contains the password. */
  lastError: string | null;
  /** Transitions not published (Redis down or the command failed) since start. */
  dropped: number;
}

/**
 * The answer to "may this host run the half-open probe for this dependency?".
 * - `granted`: this host holds the fleet-wide lease; probe, then release it.
 *   `token` is the fencing token (larger for every grant of this dependency);
 *   `expiresAt` is a conservative local estimate of when the lease lapses.
 * - `held`: another host holds it (`holder`); do not probe now.
 * - `uncoordinated`: Redis cannot be asked (down, timed out, refused the
 *   script); nothing is known about other hosts — behave as a single host
 *   would and probe locally. Never means "held elsewhere".
 */
export type ProbeLease =
  | { kind: 'granted'; token: number; expiresAt: number }
  | { kind: 'held'; holder: string; token: number | null }
  | { kind: 'uncoordinated'; reason: string };

/** Is a granted lease still ours? `unknown`: Redis cannot be asked. */
export type LeaseCheck = 'valid' | 'lost' | 'unknown';

export interface FleetLinkEvents {
  status: [FleetStatus];
  /**
   * Peer states were read from Redis after a (re)connect: `reports` is how
   * many were found (stale ones and this host's own included, though only
   * current peers' are taken). A failed read is not announced; the next
   * reconnect tries again.
   */
  resynced: [reports: number];
}

const DEFAULT_STATE_TTL_MS = 10 * 60_000;

export class FleetLink extends EventEmitter<FleetLinkEvents> {
  readonly hostId: string;
  private readonly prefix: string;
  private readonly log: Logger;
  private readonly clock: () => number;
  private readonly stateTtlMs: number;
  private readonly cmd: RedisConnection;
  private readonly sub: RedisConnection;
  private readonly scripts: Redis & FleetScripts;
  private readonly view: PeerView;
  private readonly peerListeners = new Set<(peer: PeerState) => void>();
  /** This host's latest report per dependency, published again after an outage. */
  private readonly own = new Map<string, TransitionMessage>();
  private seq = 0;
  private connected = false;
  private since: number | null = null;
  private lastError: string | null = null;
  private dropped = 0;
  private stopped = false;
  /** Last warning about Redis refusing our scripts, so a persistent refusal is logged once. */
  private warned: string | null = null;

  constructor(options: FleetLinkOptions) {
    super();
    if (!options.hostId || /\s/.test(options.hostId)) {
      throw new Error('fleet hostId must be non-empty, without spaces');
    }
    this.hostId = options.hostId;
    this.prefix = options.prefix ?? 'breakerbar';
    this.log = options.log;
    this.clock = options.clock;
    this.stateTtlMs = options.stateTtlMs ?? DEFAULT_STATE_TTL_MS;
    const connection = {
      url: options.url,
      tls: options.tls,
      commandTimeoutMs: options.commandTimeoutMs ?? 500,
      reconnect: options.reconnect,
      healthCheckMs: options.healthCheckMs,
      log: options.log,
    };
    this.cmd = new RedisConnection({ ...connection, name: 'fleet-commands' });
    this.scripts = defineScripts(this.cmd.client);
    this.sub = new RedisConnection({
      ...connection,
      name: 'fleet-subscriber',
      subscriptions: new Map([[this.key('transitions'), (text: string) => this.onMessage(text)]]),
    });
    this.view = new PeerView({ hostId: this.hostId, ttlMs: this.stateTtlMs, clock: this.clock });
    for (const connection of [this.cmd, this.sub]) {
      connection.on('up', () => {
        if (!this.stopped && this.cmd.isUp && this.sub.isUp) this.setConnected(true);
      });
      connection.on('down', (reason) => {
        if (this.stopped) return;
        this.lastError = reason;
        this.setConnected(false);
      });
    }
  }

  /** Starts connecting; returns at once (status events tell when the fleet is reachable). */
  start(): void {
    if (this.stopped) return;
    this.cmd.start();
    this.sub.start();
  }

  /** Disconnects for good. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.cmd.close();
    this.sub.close();
    if (this.connected) this.setConnected(false);
  }

  status(): FleetStatus {
    // While down, the failing connection's latest attempt says more than the failure that took the link down.
    const failing = !this.connected && !this.stopped ? [this.cmd, this.sub].find((c) => !c.isUp) : undefined;
    const lastError = failing?.lastError ?? this.lastError;
    return { connected: this.connected, since: this.since, lastError, dropped: this.dropped };
  }

  /**
   * Announces a transition of this host's breaker. Returns at once: never
   * awaits Redis, never throws; while disconnected the announcement is
   * dropped (counted in `status().dropped`) and the dependency's latest state
   * goes out on reconnect.
   */
  publishTransition(transition: FleetTransition): void {
    const { dep, from, to, reason, ts, openUntil } = transition;
    this.seq += 1;
    const message: TransitionMessage = {
      host: this.hostId,
      dep,
      from,
      to,
      reason,
      ts,
      openUntil,
      at: this.clock(),
      seq: this.seq,
    };
    this.own.set(dep, message);
    // Down as a whole (either connection lost) is down: the command connection may not have noticed yet.
    if (!this.connected || !this.cmd.isUp) {
      this.dropped += 1;
      return;
    }
    this.send(message).catch((error: Error) => {
      this.dropped += 1;
      this.log.debug('fleet transition not published', { dep, error: error.message });
    });
  }

  /** Calls `listener` when another host's breaker changes (live, or learned on connect). Returns an unsubscribe. */
  onPeerTransition(listener: (peer: PeerState) => void): () => void {
    this.peerListeners.add(listener);
    return () => this.peerListeners.delete(listener);
  }

  /**
   * Other hosts' current breaker states (all dependencies, or one): closed
   * and stale reports left out. Kept while disconnected — check `status()` to
   * know whether the view is live.
   */
  peers(dep?: string): PeerState[] {
    return this.view.peers(dep);
  }

  /** Asks for the fleet-wide probe lease on `dep` for `ttlMs`. Never rejects (except on a bad ttlMs). */
  async acquireProbeLease(dep: string, ttlMs: number): Promise<ProbeLease> {
    if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
      throw new RangeError(`lease ttlMs must be a positive integer (${ttlMs})`);
    if (!this.cmd.isUp) return { kind: 'uncoordinated', reason: this.unavailable() };
    const requestedAt = this.clock();
    let reply: unknown;
    try {
      reply = await this.cmd.call('lease script', () =>
        this.scripts.breakerbarAcquireLease(
          this.key('lease', dep),
          this.key('fence', dep),
          this.hostId,
          String(ttlMs),
          String(Math.max(0, Math.floor(requestedAt))),
        ),
      );
    } catch (error) {
      // A timeout is ambiguous (the lease may have been granted); it lapses by itself after ttlMs.
      return { kind: 'uncoordinated', reason: this.refused(error as Error) };
    }
    if (Array.isArray(reply) && reply[0] === 1 && typeof reply[1] === 'number') {
      return { kind: 'granted', token: reply[1], expiresAt: requestedAt + ttlMs };
    }
    if (Array.isArray(reply) && reply[0] === 0 && typeof reply[1] === 'string') {
      return { kind: 'held', ...parseHolder(reply[1]) };
    }
    return { kind: 'uncoordinated', reason: 'unexpected reply to the lease script' };
  }

  /**
   * Gives the lease back early. Deletes it only if it still carries this
   * host's `token` (an expired lease since taken by another host is left
   * alone). True when released; false when it was not ours any more or
   * Redis cannot be asked (it then lapses by itself). Never rejects.
   */
  async releaseProbeLease(dep: string, token: number): Promise<boolean> {
    if (!this.cmd.isUp) return false;
    try {
      const reply = await this.cmd.call('release script', () =>
        this.scripts.breakerbarReleaseLease(this.key('lease', dep), this.value(token)),
      );
      return reply === 1;
    } catch (error) {
      this.refused(error as Error);
      return false;
    }
  }

  /** Whether this host still holds the lease with `token` (for a probe to check before acting on its result). */
  async validateFencing(dep: string, token: number): Promise<LeaseCheck> {
    if (!this.cmd.isUp) return 'unknown';
    try {
      const reply = await this.cmd.call('GET', (client) => client.get(this.key('lease', dep)));
      return reply === this.value(token) ? 'valid' : 'lost';
    } catch (error) {
      this.refused(error as Error);
      return 'unknown';
    }
  }

  private key(kind: 'transitions' | 'deps'): string;
  private key(kind: 'state' | 'lease' | 'fence', dep: string): string;
  private key(kind: string, dep?: string): string {
    return dep === undefined ? `${this.prefix}:${kind}` : `${this.prefix}:${kind}:${dep}`;
  }

  private value(token: number): string {
    return `${this.hostId}:${token}`;
  }

  private send(message: TransitionMessage): Promise<unknown> {
    return this.cmd.call('publish script', () =>
      this.scripts.breakerbarPublishTransition(
        this.key('state', message.dep),
        this.key('deps'),
        this.hostId,
        formatTransitionMessage(message),
        String(this.stateTtlMs),
        this.key('transitions'),
        message.dep,
      ),
    );
  }

  private onMessage(text: string): void {
    const message = parseTransitionMessage(text);
    if (!message) {
      this.log.debug('fleet: ignored a message that is not a transition', { channel: this.key('transitions') });
      return;
    }
    this.take(message, true);
  }

  private take(message: TransitionMessage, live: boolean): void {
    const peer = this.view.apply(message, live);
    if (!peer) return;
    for (const listener of this.peerListeners) {
      try {
        listener(peer);
      } catch (error) {
        this.log.warn('fleet peer listener failed', { dep: peer.dep, error: (error as Error).message });
      }
    }
  }

  /** Connected means both connections answer; either one failing is enough to be down. */
  private setConnected(connected: boolean): void {
    if (this.since !== null && connected === this.connected) return;
    this.connected = connected;
    this.since = this.clock();
    if (connected) {
      this.log.info('fleet: connected to Redis', { redis: this.cmd.where, host: this.hostId });
      void this.resync();
    } else if (!this.stopped) {
      this.log.warn('fleet: Redis unreachable, breakers are local-only', {
        redis: this.cmd.where,
        reason: this.lastError,
      });
    }
    this.emit('status', this.status());
  }

  /** After (re)connecting: publish this host's latest states again, and read what peers reported meanwhile. */
  private async resync(): Promise<void> {
    for (const message of this.own.values()) {
      this.send(message).catch((error: Error) => this.log.debug('fleet: republish failed', { error: error.message }));
    }
    try {
      const deps = await this.cmd.call('SMEMBERS', (client) => client.smembers(this.key('deps')));
      const hashes = await Promise.all(
        deps.map((dep) => this.cmd.call('HGETALL', (client) => client.hgetall(this.key('state', dep)))),
      );
      let reports = 0;
      for (const hash of hashes) {
        for (const text of Object.values(hash)) {
          reports += 1;
          const message = parseTransitionMessage(text);
          if (message) this.take(message, false);
        }
      }
      this.emit('resynced', reports);
    } catch (error) {
      // The next reconnect tries again; live messages keep flowing meanwhile.
      this.log.debug('fleet: reading peer states failed', { error: (error as Error).message });
    }
  }

  private unavailable(): string {
    return this.cmd.lastError ?? this.lastError ?? (this.stopped ? 'fleet link stopped' : 'not connected to Redis');
  }

  /** Reason text for an uncoordinated answer; a Redis that refuses our scripts is worth one warning. */
  private refused(error: Error): string {
    if (isRedisReplyError(error) && this.warned !== error.message) {
      this.warned = error.message;
      this.log.warn('fleet: Redis refused a lease command; probes are not coordinated', { error: error.message });
    }
    return error.message;
  }
}

function parseHolder(value: string): { holder: string; token: number | null } {
  const colon = value.lastIndexOf(':');
  const token = colon === -1 ? Number.NaN : Number(value.slice(colon + 1));
  return Number.isSafeInteger(token) ? { holder: value.slice(0, colon), token } : { holder: value, token: null };
}
