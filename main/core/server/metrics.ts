/**
 * Everything BreakerBar exports to Prometheus, declared once. The breaker
 * series carry the names the field guide fixes (`breaker_*`, label `dep`);
 * everything else is `breakerbar_*` in base units. Labels are low-cardinality
 * only: dependency, outcome, agent, source — never a user, session or message.
 * `METRIC_NAMES` is what dashboards and alert rules may rely on; their tests
 * import it, so renaming a metric breaks the build where it is used.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type BreakerSnapshot, STATE_GAUGE, type Transition } from '../breaker/types.js';
import { OUTCOMES } from '../classify.js';
import type { CallEvent } from '../events.js';
import type { SourceStatus } from '../sources/source.js';

export const METRIC_NAMES = {
  breakerState: 'breaker_state',
  breakerTransitions: 'breaker_transitions_total',
  breakerRejections: 'breaker_rejections_total',
  breakerProbeLatency: 'breaker_probe_latency_ms',
  breakerRetryAfterSkips: 'breaker_retry_after_skips_total',
  breakerOpenMinDuration: 'breaker_open_min_duration_seconds',
  calls: 'breakerbar_calls_total',
  tokens: 'breakerbar_tokens_total',
  tokenBudgetExceeded: 'breakerbar_token_budget_exceeded_total',
  eventsIngested: 'breakerbar_events_ingested_total',
  malformedLines: 'breakerbar_malformed_lines_total',
  ingestLag: 'breakerbar_ingest_lag_seconds',
  ingestPending: 'breakerbar_ingest_pending',
  signals: 'breakerbar_signals_total',
  stalledSessions: 'breakerbar_stalled_sessions',
} as const;

/** Probe latency buckets from the field guide: 25 ms to 2 s. */
const PROBE_BUCKETS_MS = [25, 50, 100, 250, 500, 1000, 2000];

export interface MetricsSources {
  snapshots(): BreakerSnapshot[];
  sources(): SourceStatus[];
  stalledSessions(): Array<{ dep: string; sessions: number }>;
}

export class BreakerbarMetrics {
  readonly registry = new Registry();
  private readonly transitions;
  private readonly rejections;
  private readonly retryAfterSkips;
  private readonly probeLatency;
  private readonly calls;
  private readonly tokens;
  private readonly budgetExceeded;
  private readonly signals;
  private readonly ingestLag;
  /** Rejections and skips are cumulative in the snapshots; the counters add what is new. */
  private readonly seen = new Map<string, { rejections: number; retryAfterSkips: number }>();
  private readonly declared = new Set<string>();

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    // Event-loop lag sampled every 100 ms, not prom-client's 10 ms: a hundred wake-ups a
    // second cost an idle daemon more CPU than everything else it does (measured: 2.5 % → 1.7 %).
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
    // prom-client names three gauges `_total`, which promtool rejects; their per-type
    // siblings (`nodejs_active_handles{type}`, …) carry the same numbers.
    for (const name of [
      'nodejs_active_handles_total',
      'nodejs_active_requests_total',
      'nodejs_active_resources_total',
    ]) {
      this.registry.removeSingleMetric(name);
    }
    new Gauge({
      name: METRIC_NAMES.breakerState,
      help: 'Breaker state per dependency: 0 closed, 1 half_open, 2 open, 3 throttled (quota).',
      labelNames: ['dep'],
      registers,
      collect() {
        this.reset();
        for (const snapshot of sources.snapshots()) this.set({ dep: snapshot.dep }, STATE_GAUGE[snapshot.state]);
      },
    });
    new Gauge({
      name: METRIC_NAMES.breakerOpenMinDuration,
      help: 'Minimum open duration in force per dependency (grows on failed trials): policy-extended downtime shows here.',
      labelNames: ['dep'],
      registers,
      collect() {
        this.reset();
        for (const snapshot of sources.snapshots()) this.set({ dep: snapshot.dep }, snapshot.openDurationMs / 1000);
      },
    });
    this.transitions = new Counter({
      name: METRIC_NAMES.breakerTransitions,
      help: 'Breaker state transitions per dependency.',
      labelNames: ['dep', 'from', 'to'],
      registers,
    });
    this.rejections = new Counter({
      name: METRIC_NAMES.breakerRejections,
      help: 'Calls observed while the breaker was open or throttled: the calls a gateway-side breaker would have failed fast.',
      labelNames: ['dep'],
      registers,
    });
    this.retryAfterSkips = new Counter({
      name: METRIC_NAMES.breakerRetryAfterSkips,
      help: "Half-open trials skipped because the provider's Retry-After was still in force.",
      labelNames: ['dep'],
      registers,
    });
    this.probeLatency = new Histogram({
      name: METRIC_NAMES.breakerProbeLatency,
      help: 'Latency of active half-open probes in milliseconds (probes are tagged, never gateway traffic).',
      labelNames: ['dep'],
      buckets: PROBE_BUCKETS_MS,
      registers,
    });
    this.calls = new Counter({
      name: METRIC_NAMES.calls,
      help: 'Upstream model calls observed, by dependency and outcome.',
      labelNames: ['dep', 'outcome'],
      registers,
    });
    this.tokens = new Counter({
      name: METRIC_NAMES.tokens,
      help: 'Tokens used (usage.totalTokens) by dependency and agent.',
      labelNames: ['dep', 'agent'],
      registers,
    });
    this.budgetExceeded = new Counter({
      name: METRIC_NAMES.tokenBudgetExceeded,
      help: 'Minutes in which an agent crossed its token budget on a dependency.',
      labelNames: ['dep', 'agent'],
      registers,
    });
    this.signals = new Counter({
      name: METRIC_NAMES.signals,
      help: 'Gateway log signals (fallback and failover decisions, lane errors, stalls, run timeouts) by kind.',
      labelNames: ['kind'],
      registers,
    });
    this.ingestLag = new Gauge({
      name: METRIC_NAMES.ingestLag,
      help: 'Seconds between the newest stored record and the moment it was stored, per source: grows when ingestion falls behind.',
      labelNames: ['source'],
      registers,
    });
    new Gauge({
      name: METRIC_NAMES.ingestPending,
      help: 'Bytes (files) or rows (databases) present but not yet read, per source.',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        for (const status of sources.sources()) this.set({ source: status.kind }, status.pending);
      },
    });
    // Counters read from the sources at scrape time: they only grow while BreakerBar runs.
    new Counter({
      name: METRIC_NAMES.eventsIngested,
      help: 'Calls stored since BreakerBar started, per source.',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        for (const status of sources.sources()) this.inc({ source: status.kind }, status.stored);
      },
    });
    new Counter({
      name: METRIC_NAMES.malformedLines,
      help: 'Malformed lines or rows read since BreakerBar started, per source.',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        for (const status of sources.sources()) this.inc({ source: status.kind }, status.malformed);
      },
    });
    new Gauge({
      name: METRIC_NAMES.stalledSessions,
      help: 'Sessions reported stalled on a dependency recently (gateway log stall diagnostics).',
      labelNames: ['dep'],
      registers,
      collect() {
        this.reset();
        for (const stall of sources.stalledSessions()) this.set({ dep: stall.dep }, stall.sessions);
      },
    });
  }

  recordCalls(calls: readonly CallEvent[], now: number): void {
    const newest = new Map<string, number>();
    for (const call of calls) {
      this.calls.inc({ dep: call.dep, outcome: call.outcome });
      if (call.usage.totalTokens > 0) this.tokens.inc({ dep: call.dep, agent: call.agentId }, call.usage.totalTokens);
      newest.set(call.source, Math.max(newest.get(call.source) ?? 0, call.ts));
    }
    for (const [source, ts] of newest) this.ingestLag.set({ source }, Math.max(0, (now - ts) / 1000));
  }

  /** Makes every outcome of a dependency visible (at 0) as soon as the dependency is known. */
  declareDependency(dep: string): void {
    if (this.declared.has(dep)) return;
    this.declared.add(dep);
    for (const outcome of OUTCOMES) this.calls.inc({ dep, outcome }, 0);
  }

  recordTransition(transition: Transition): void {
    this.transitions.inc({ dep: transition.dep, from: transition.from, to: transition.to });
  }

  /** Adds the rejections and Retry-After skips a breaker counted since the last look. */
  recordCounters(snapshot: BreakerSnapshot): void {
    const before = this.seen.get(snapshot.dep) ?? { rejections: 0, retryAfterSkips: 0 };
    const rejected = snapshot.rejections - before.rejections;
    const skipped = snapshot.retryAfterSkips - before.retryAfterSkips;
    if (rejected > 0) this.rejections.inc({ dep: snapshot.dep }, rejected);
    if (skipped > 0) this.retryAfterSkips.inc({ dep: snapshot.dep }, skipped);
    this.seen.set(snapshot.dep, { rejections: snapshot.rejections, retryAfterSkips: snapshot.retryAfterSkips });
  }

  /** Takes the breakers' counters as they are (rebuilt from history at start) without counting them as new. */
  baseline(snapshots: readonly BreakerSnapshot[]): void {
    for (const s of snapshots) this.seen.set(s.dep, { rejections: s.rejections, retryAfterSkips: s.retryAfterSkips });
  }

  recordProbe(dep: string, latencyMs: number): void {
    this.probeLatency.observe({ dep }, latencyMs);
  }

  recordBudgetExceeded(dep: string, agent: string): void {
    this.budgetExceeded.inc({ dep, agent });
  }

  recordSignal(kind: string): void {
    this.signals.inc({ kind });
  }

  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
