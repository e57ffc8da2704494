/**
 * What other hosts said about shared dependencies: the message format on the
 * wire, and the local view built from it. Pure — time comes from the clock
 * passed in — so ordering and expiry are tested without Redis.
 *
 * The same report can arrive twice (live on the channel, and again from the
 * state hash after a reconnect, or republished by its sender after an
 * outage), and the two paths race; each report carries its sender's publish
 * time and a per-process sequence number, and only a strictly newer report
 * for a host and dependency replaces the one held. Closed reports are kept as
 * tombstones so an older "open" read late from the hash cannot resurrect a
 * breaker its host has since closed.
 */
import { BREAKER_STATES, type BreakerState } from '../breaker/types.js';

/** A transition as a host announces it (the fields of breaker/types.ts's Transition, plus openUntil). */
export interface FleetTransition {
  dep: string;
  from: BreakerState;
  to: BreakerState;
  reason: string;
  /** Event time that caused it (the sender's clock). */
  ts: number;
  /** Open/throttled: when the sender's breaker may start trials. */
  openUntil: number | null;
}

/** On the wire (channel message and state-hash value): `{host, ...transition}` plus ordering fields. */
export interface TransitionMessage extends FleetTransition {
  host: string;
  /** Sender's wall clock when it published. */
  at: number;
  /** Sender's counter, orders reports published in the same millisecond. */
  seq: number;
}

/** Another host's breaker for a dependency, as it last reported it. */
export interface PeerState {
  host: string;
  dep: string;
  state: BreakerState;
  /** When that state began (the transition's event time, on the peer's clock). */
  since: number;
  reason: string;
  openUntil: number | null;
}

const STATES: ReadonlySet<string> = new Set(BREAKER_STATES);

function isState(value: unknown): value is BreakerState {
  return typeof value === 'string' && STATES.has(value);
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Parses a message from Redis; null when it is not one of ours (anyone with access can publish there). */
export function parseTransitionMessage(text: string): TransitionMessage | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const m = raw as Record<string, unknown>;
  if (typeof m.host !== 'string' || m.host === '' || typeof m.dep !== 'string' || m.dep === '') return null;
  if (!isState(m.from) || !isState(m.to) || typeof m.reason !== 'string') return null;
  if (!isTime(m.ts) || !isTime(m.at) || !Number.isSafeInteger(m.seq)) return null;
  if (m.openUntil !== null && !isTime(m.openUntil)) return null;
  return {
    host: m.host,
    dep: m.dep,
    from: m.from,
    to: m.to,
    reason: m.reason,
    ts: m.ts,
    openUntil: m.openUntil,
    at: m.at,
    seq: m.seq as number,
  };
}

export function formatTransitionMessage(message: TransitionMessage): string {
  const { host, dep, from, to, reason, ts, openUntil, at, seq } = message;
  return JSON.stringify({ host, dep, from, to, reason, ts, openUntil, at, seq });
}

interface Entry {
  message: TransitionMessage;
  /** Local time the report counts from for expiry. */
  seenAt: number;
}

export interface PeerViewOptions {
  /** This host: its own reports are not peers. */
  hostId: string;
  /** A report older than this is stale (unless its openUntil is later). */
  ttlMs: number;
  clock: () => number;
}

export class PeerView {
  /** dep → host → latest report. */
  private readonly entries = new Map<string, Map<string, Entry>>();

  constructor(private readonly options: PeerViewOptions) {}

  /**
   * Takes a report. `live`: received on the channel just now; otherwise read
   * from the state hash, where its age is its sender's publish time. Returns
   * the peer's new state when the report changed the view in a way listeners
   * should hear about, else null (own, stale, duplicate or older reports, and
   * a late-read closed report for a peer we never saw open).
   */
  apply(message: TransitionMessage, live: boolean): PeerState | null {
    if (message.host === this.options.hostId) return null;
    const now = this.options.clock();
    const seenAt = live ? now : Math.min(now, message.at);
    if (this.expired(message, seenAt, now)) return null;
    let hosts = this.entries.get(message.dep);
    const current = hosts?.get(message.host);
    if (current && !this.expired(current.message, current.seenAt, now) && !newer(message, current.message)) return null;
    if (!hosts) {
      hosts = new Map();
      this.entries.set(message.dep, hosts);
    }
    hosts.set(message.host, { message, seenAt });
    const wasOpen = current !== undefined && current.message.to !== 'closed';
    if (message.to === 'closed' && !live && !wasOpen) return null;
    return toPeerState(message);
  }

  /** Current states of other hosts (closed and stale ones left out), by dependency then host. */
  peers(dep?: string): PeerState[] {
    this.prune();
    const deps = dep === undefined ? [...this.entries.keys()].sort() : [dep];
    const out: PeerState[] = [];
    for (const d of deps) {
      const hosts = this.entries.get(d);
      if (!hosts) continue;
      for (const host of [...hosts.keys()].sort()) {
        const entry = hosts.get(host);
        if (entry && entry.message.to !== 'closed') out.push(toPeerState(entry.message));
      }
    }
    return out;
  }

  /** Drops stale reports, tombstones included. */
  prune(): void {
    const now = this.options.clock();
    for (const [dep, hosts] of this.entries) {
      for (const [host, entry] of hosts) {
        if (this.expired(entry.message, entry.seenAt, now)) hosts.delete(host);
      }
      if (hosts.size === 0) this.entries.delete(dep);
    }
  }

  private expired(message: TransitionMessage, seenAt: number, now: number): boolean {
    // A breaker open (or throttled) longer than the TTL is still open until its openUntil.
    const until = Math.max(seenAt + this.options.ttlMs, message.openUntil ?? Number.NEGATIVE_INFINITY);
    return now > until;
  }
}

function newer(a: TransitionMessage, b: TransitionMessage): boolean {
  return a.at > b.at || (a.at === b.at && a.seq > b.seq);
}

function toPeerState(message: TransitionMessage): PeerState {
  return {
    host: message.host,
    dep: message.dep,
    state: message.to,
    since: message.ts,
    reason: message.reason,
    openUntil: message.openUntil,
  };
}
