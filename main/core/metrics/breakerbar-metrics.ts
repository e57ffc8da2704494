/**
 * Everything BreakerBar exports to Prometheus, in one registry: the series are
 * declared per concern (series.ts) and recorded here, on the events the
 * services report. The local API only exposes the registry at /metrics; the
 * registry belongs to no server, so every concern can record on it.
 */
import { Registry } from 'prom-client';
import type { BreakerSnapshot, Transition } from '../breaker/types.js';
import { OUTCOMES } from '../calls/classify.js';
import type { CallEvent } from '../calls/events.js';
import { GATEWAY_DEP } from './names.js';
import {
  registerBreakerMetrics,
  registerFleetMetrics,
  registerGatewayMetrics,
  registerIncidentMetrics,
  registerIngestMetrics,
  registerNotificationMetrics,
  registerOpenclawMetrics,
  registerProcessMetrics,
  registerSpendMetrics,
  registerTrafficMetrics,
} from './series.js';
import type { MetricsSources } from './sources.js';

export class BreakerbarMetrics {
  readonly registry = new Registry();
  private readonly breakers;
  private readonly traffic;
  private readonly ingest;
  private readonly incidents;
  private readonly gateway;
  private readonly notifications;
  private readonly fleet;
  /** Rejections and skips are cumulative in the snapshots; the counters add what is new. */
  private readonly seen = new Map<string, { rejections: number; retryAfterSkips: number }>();
  private readonly declared = new Set<string>();

  constructor(sources: MetricsSources) {
    registerProcessMetrics(this.registry);
    this.breakers = registerBreakerMetrics(this.registry, sources);
    this.traffic = registerTrafficMetrics(this.registry, sources);
    this.ingest = registerIngestMetrics(this.registry, sources);
    registerOpenclawMetrics(this.registry, sources);
    this.incidents = registerIncidentMetrics(this.registry, sources);
    registerSpendMetrics(this.registry, sources);
    this.gateway = registerGatewayMetrics(this.registry, sources);
    this.notifications = registerNotificationMetrics(this.registry);
    this.fleet = registerFleetMetrics(this.registry);
  }

  /** One gateway health probe: latency into the histograms, failures by class. */
  recordGatewayProbe(probe: { class: string; latencyMs: number | null }): void {
    if (probe.latencyMs !== null) {
      this.gateway.gatewayProbeSeconds.observe(probe.latencyMs / 1000);
      this.breakers.probeLatency.observe({ dep: GATEWAY_DEP }, probe.latencyMs);
    }
    if (probe.class !== 'ok') this.gateway.gatewayProbeFailures.inc({ class: probe.class });
  }

  recordRestart(trigger: string, result: string): void {
    this.gateway.watchdogRestarts.inc({ reason: trigger, result });
  }

  recordDecision(source: string, decision: string): void {
    this.gateway.watchdogDecisions.inc({ source, decision });
  }

  /** A deferred storm restart is a Retry-After skip too: it shows on the breaker's counter as well. */
  recordDeferral(dep: string): void {
    this.gateway.watchdogDeferrals.inc({ dep });
    this.breakers.retryAfterSkips.inc({ dep });
  }

  recordFleetConnected(connected: boolean): void {
    this.fleet.fleetConnected.set(connected ? 1 : 0);
  }

  recordPeerTransition(dep: string, to: string): void {
    this.fleet.fleetPeerTransitions.inc({ dep, to });
  }

  recordFleetLease(result: string): void {
    this.fleet.fleetLeases.inc({ result });
  }

  /** An incident closed after `seconds`. */
  recordIncidentClosed(seconds: number): void {
    this.incidents.incidentDuration.observe(Math.max(0, seconds));
  }

  recordNotification(channel: string, ok: boolean): void {
    this.notifications.notifications.inc({ channel, result: ok ? 'delivered' : 'failed' });
  }

  recordCalls(calls: readonly CallEvent[], now: number): void {
    const newest = new Map<string, number>();
    for (const call of calls) {
      this.traffic.calls.inc({ dep: call.dep, outcome: call.outcome });
      if (call.usage.totalTokens > 0)
        this.traffic.tokens.inc({ dep: call.dep, agent: call.agentId }, call.usage.totalTokens);
      newest.set(call.source, Math.max(newest.get(call.source) ?? 0, call.ts));
    }
    for (const [source, ts] of newest) this.ingest.ingestLag.set({ source }, Math.max(0, (now - ts) / 1000));
  }

  /** Makes every outcome of a dependency visible (at 0) as soon as the dependency is known. */
  declareDependency(dep: string): void {
    if (this.declared.has(dep)) return;
    this.declared.add(dep);
    for (const outcome of OUTCOMES) this.traffic.calls.inc({ dep, outcome }, 0);
  }

  recordTransition(transition: Transition): void {
    this.breakers.transitions.inc({ dep: transition.dep, from: transition.from, to: transition.to });
  }

  /** Adds the rejections and Retry-After skips a breaker counted since the last look. */
  recordCounters(snapshot: BreakerSnapshot): void {
    const before = this.seen.get(snapshot.dep) ?? { rejections: 0, retryAfterSkips: 0 };
    const rejected = snapshot.rejections - before.rejections;
    const skipped = snapshot.retryAfterSkips - before.retryAfterSkips;
    if (rejected > 0) this.breakers.rejections.inc({ dep: snapshot.dep }, rejected);
    if (skipped > 0) this.breakers.retryAfterSkips.inc({ dep: snapshot.dep }, skipped);
    this.seen.set(snapshot.dep, { rejections: snapshot.rejections, retryAfterSkips: snapshot.retryAfterSkips });
  }

  /** Takes the breakers' counters as they are (rebuilt from history at start) without counting them as new. */
  baseline(snapshots: readonly BreakerSnapshot[]): void {
    for (const s of snapshots) this.seen.set(s.dep, { rejections: s.rejections, retryAfterSkips: s.retryAfterSkips });
  }

  recordProbe(dep: string, latencyMs: number): void {
    this.breakers.probeLatency.observe({ dep }, latencyMs);
  }

  recordBudgetExceeded(dep: string, agent: string): void {
    this.traffic.budgetExceeded.inc({ dep, agent });
  }

  recordSignal(kind: string): void {
    this.traffic.signals.inc({ kind });
  }

  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
