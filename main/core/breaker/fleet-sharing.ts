/**
 * Breakers shared across hosts through the fleet link (Redis): this host's
 * live transitions are published; peers' are shown as "open elsewhere" and,
 * when `openOnPeerEvidence`, trip a closed breaker here too; active half-open
 * probes take the fleet-wide lease first. Redis being down never blocks
 * anything: publishing drops (counted), leases answer "uncoordinated" and the
 * breakers stay local, with a warning and a metric.
 */
import type { FleetLink, FleetStatus, PeerState } from '../fleet/link.js';
import type { BreakerbarMetrics } from '../metrics/breakerbar-metrics.js';
import type { Logger } from '../runtime/log.js';
import type { BreakerEngines } from './engines.js';
import type { Transition } from './types.js';

/** A peer's report older than this is not evidence any more (it still shows until the link forgets it). */
const EVIDENCE_MS = 10 * 60_000;

export interface FleetSharingOptions {
  link: FleetLink;
  hostId: string;
  engines: BreakerEngines;
  openOnPeerEvidence: boolean;
  leaseMs: number;
  metrics: BreakerbarMetrics;
  log: Logger;
  clock: () => number;
}

export class FleetSharing {
  private unsubscribe: (() => void) | null = null;
  // The link logs going down and up itself; here only the metric follows it.
  private readonly onStatus = (status: FleetStatus) => this.options.metrics.recordFleetConnected(status.connected);

  constructor(private readonly options: FleetSharingOptions) {}

  start(): void {
    const { link } = this.options;
    this.unsubscribe = link.onPeerTransition((peer) => this.fromPeer(peer));
    link.on('status', this.onStatus);
    link.start();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.options.link.off('status', this.onStatus);
    this.options.link.stop();
  }

  /** A live transition of this host's breaker. */
  publish(transition: Transition): void {
    const snapshot = this.options.engines.snapshots().find((s) => s.dep === transition.dep);
    this.options.link.publishTransition({ ...transition, openUntil: snapshot?.openUntil ?? null });
  }

  /** Other hosts whose breaker for `dep` is not closed. */
  elsewhere(dep: string): PeerState[] {
    return this.options.link.peers(dep).filter((peer) => peer.state !== 'closed');
  }

  status(): FleetStatus & { hostId: string } {
    return { ...this.options.link.status(), hostId: this.options.hostId };
  }

  /** The prober's lease hook: granted or uncoordinated → probe; held elsewhere → not now. */
  async lease(dep: string): Promise<{ granted: boolean; release: () => void }> {
    const { link, leaseMs, metrics } = this.options;
    const answer = await link.acquireProbeLease(dep, leaseMs);
    metrics.recordFleetLease(answer.kind);
    if (answer.kind === 'granted') {
      return { granted: true, release: () => void link.releaseProbeLease(dep, answer.token).catch(() => false) };
    }
    return { granted: answer.kind === 'uncoordinated', release: () => {} };
  }

  private fromPeer(peer: PeerState): void {
    const { engines, openOnPeerEvidence, clock, metrics, log } = this.options;
    metrics.recordPeerTransition(peer.dep, peer.state);
    if (!openOnPeerEvidence || (peer.state !== 'open' && peer.state !== 'throttled')) return;
    if (clock() - peer.since > EVIDENCE_MS) return;
    const transitions = engines.peerTripped(
      peer.dep,
      peer.state,
      { code: 'peer', state: peer.state, host: peer.host, said: peer.reason },
      peer.state === 'throttled' ? peer.openUntil : null,
    );
    if (transitions.length > 0)
      log.info("breaker tripped on a peer host's evidence", { dep: peer.dep, host: peer.host });
  }
}
