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
import type { BudgetStanding, QuotaWindow } from '../spend/types.js';

export const METRIC_NAMES = {
  breakerState: 'breaker_state',
  breakerTransitions: 'breaker_transitions_total',
  breakerRejections: 'breaker_rejections_total',
  breakerProbeLatency: 'breaker_probe_latency_ms',
  breakerRetryAfterSkips: 'breaker_retry_after_skips_total',
  breakerOpenMinDuration: 'breaker_open_min_duration_seconds',
  calls: 'breakerbar_calls_total',
  turns: 'breakerbar_turns_total',
  tokens: 'breakerbar_tokens_total',
  tokenBudgetExceeded: 'breakerbar_token_budget_exceeded_total',
  eventsIngested: 'breakerbar_events_ingested_total',
  malformedLines: 'breakerbar_malformed_lines_total',
  ingestLag: 'breakerbar_ingest_lag_seconds',
  ingestPending: 'breakerbar_ingest_pending',
  ingestBacklogBytes: 'breakerbar_ingest_backlog_bytes',
  signals: 'breakerbar_signals_total',
  stalledSessions: 'breakerbar_stalled_sessions',
  gatewayUp: 'breakerbar_gateway_up',
  gatewayProbeSeconds: 'breakerbar_gateway_probe_seconds',
  gatewayProbeFailures: 'breakerbar_gateway_probe_failures_total',
  watchdogRestarts: 'breakerbar_watchdog_restarts_total',
  watchdogDecisions: 'breakerbar_watchdog_decisions_total',
  watchdogConsecutiveChecks: 'breakerbar_watchdog_consecutive_checks',
  watchdogPaused: 'breakerbar_watchdog_paused',
  watchdogDeferrals: 'breakerbar_watchdog_deferrals_total',
  watchdogBudgetRemaining: 'breakerbar_watchdog_restart_budget_remaining',
  watchdogDivergence: 'breakerbar_watchdog_divergence',
  notifications: 'breakerbar_notifications_total',
  fleetConnected: 'breakerbar_fleet_connected',
  fleetPeerTransitions: 'breakerbar_fleet_peer_transitions_total',
  fleetLeases: 'breakerbar_fleet_probe_leases_total',
  openclawCooldown: 'breakerbar_openclaw_cooldown_seconds',
  incidentsOpen: 'breakerbar_incidents_open',
  incidentDuration: 'breakerbar_incident_duration_seconds',
  budgetUsedRatio: 'breakerbar_budget_used_ratio',
  quotaUsedRatio: 'breakerbar_quota_used_ratio',
} as const;

/** The gateway dependency's name in `breaker_probe_latency_ms{dep}` (health probes feed it too). */
export const GATEWAY_DEP = 'gateway';

/** What the watchdog gauges read at scrape time. */
export interface WatchdogGauges {
  /** Last probe: 1 up, 0 down; null before the first probe. */
  gatewayUp: boolean | null;
  consecutiveChecks: number;
  paused: boolean;
  budgetRemaining: number;
  diverging: boolean;
}

/** Probe latency buckets from the field guide: 25 ms to 2 s. */
const PROBE_BUCKETS_MS = [25, 50, 100, 250, 500, 1000, 2000];

export interface MetricsSources {
  snapshots(): BreakerSnapshot[];
  sources(): SourceStatus[];
  stalledSessions(): Array<{ dep: string; sessions: number }>;
  /** Absent when no watchdog runs (e.g. the scan command). */
  watchdog?(): WatchdogGauges | null;
  /** Turns stored since BreakerBar started, by dependency and outcome (absent: no store). */
  turns?(): Array<{ dep: string; outcome: string; n: number }>;
  /**
   * Seconds until OpenClaw uses each dependency again (0: it can now), for every dependency with a
   * breaker or an OpenClaw cooldown seen since start (absent: OpenClaw's state is not read).
   */
  openclawCooldowns?(): Array<{ dep: string; seconds: number }>;
  /** Incidents open now (absent: this instance keeps none). */
  openIncidents?(): number;
  /** Spend budgets' standings (absent or empty: none configured). */
  budgets?(): BudgetStanding[];
  /** Providers' quota windows as OpenClaw last reported them (absent or empty: none read). */
  quota?(): QuotaWindow[];
}

/** Incident durations: a minute to a day (shorter ones do not open; longer ones land in +Inf). */
const INCIDENT_BUCKETS_SEC = [60, 120, 300, 600, 1800, 3600, 7200, 14_400, 43_200, 86_400];

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
  private readonly gatewayProbeSeconds;
  private readonly gatewayProbeFailures;
  private readonly watchdogRestarts;
  private readonly watchdogDecisions;
  private readonly watchdogDeferrals;
  private readonly notifications;
  private readonly fleetConnected;
  private readonly fleetPeerTransitions;
  private readonly fleetLeases;
  private readonly incidentDuration;
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
      help: 'Bytes (files) or rows (databases) present but not yet stored, per source.',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        for (const status of sources.sources()) this.set({ source: status.kind }, status.pending);
      },
    });
    new Gauge({
      name: METRIC_NAMES.ingestBacklogBytes,
      help: 'Bytes of transcript and log files not yet stored (listed, being read or stored), per file source: the backfill still to do.',
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        for (const status of sources.sources()) {
          if (status.pendingUnit === 'bytes') this.set({ source: status.kind }, status.pending);
        }
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
      name: METRIC_NAMES.turns,
      help: 'Turns (run outcomes: transcript records, and turns OpenClaw refused itself) stored since BreakerBar started, by dependency and outcome.',
      labelNames: ['dep', 'outcome'],
      registers,
      collect() {
        this.reset();
        for (const row of sources.turns?.() ?? []) this.inc({ dep: row.dep, outcome: row.outcome }, row.n);
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
      name: METRIC_NAMES.openclawCooldown,
      help: "Seconds until OpenClaw's own cooldown lets it call the dependency again (every auth profile of its provider cooling down, disabled or blocked for it); 0 when none.",
      labelNames: ['dep'],
      registers,
      collect() {
        this.reset();
        for (const row of sources.openclawCooldowns?.() ?? []) this.set({ dep: row.dep }, row.seconds);
      },
    });
    new Gauge({
      name: METRIC_NAMES.incidentsOpen,
      help: 'Incidents open now (something needs a human: a breaker out for a while, the gateway dead or hung, the restart budget spent, …).',
      registers,
      collect() {
        this.set(sources.openIncidents?.() ?? 0);
      },
    });
    this.incidentDuration = new Histogram({
      name: METRIC_NAMES.incidentDuration,
      help: 'How long incidents lasted, observed when each closes (its mean is the time to recovery).',
      buckets: INCIDENT_BUCKETS_SEC,
      registers,
    });
    new Gauge({
      name: METRIC_NAMES.budgetUsedRatio,
      help: 'Share of a spend budget used in its current calendar period (1 = the limit); unit is tokens or usd.',
      labelNames: ['provider', 'period', 'unit'],
      registers,
      collect() {
        this.reset();
        for (const b of sources.budgets?.() ?? []) {
          this.set({ provider: b.provider, period: b.period, unit: b.unit }, b.limit > 0 ? b.used / b.limit : 0);
        }
      },
    });
    new Gauge({
      name: METRIC_NAMES.quotaUsedRatio,
      help: "Share of a provider's quota window used, as OpenClaw reports it (1 = exhausted); windows of unknown use are left out.",
      labelNames: ['provider', 'window'],
      registers,
      collect() {
        this.reset();
        for (const q of sources.quota?.() ?? []) {
          if (q.usedShare !== null) this.set({ provider: q.provider, window: q.window }, q.usedShare);
        }
      },
    });
    new Gauge({
      name: METRIC_NAMES.stalledSessions,
      help: 'Sessions stalled on a dependency now: reported by the gateway log, or silent since a failed call.',
      labelNames: ['dep'],
      registers,
      collect() {
        this.reset();
        for (const stall of sources.stalledSessions()) this.set({ dep: stall.dep }, stall.sessions);
      },
    });
    this.gatewayProbeSeconds = new Histogram({
      name: METRIC_NAMES.gatewayProbeSeconds,
      help: "Round trip of the gateway's /healthz probe in seconds (answered probes only).",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.gatewayProbeFailures = new Counter({
      name: METRIC_NAMES.gatewayProbeFailures,
      help: 'Gateway probes that were not ok, by class: refused, connect_timeout, read_timeout, reset, http_<status>, starting, draining.',
      labelNames: ['class'],
      registers,
    });
    this.watchdogRestarts = new Counter({
      name: METRIC_NAMES.watchdogRestarts,
      help: 'Gateway restarts by trigger (reason: storm, health, manual) and result (done, still_starting, failed, dry_run).',
      labelNames: ['reason', 'result'],
      registers,
    });
    this.watchdogDecisions = new Counter({
      name: METRIC_NAMES.watchdogDecisions,
      help: 'Watchdog decisions by what asked (check, probe, manual, tick) and what it decided (restart, counting, deferred, budget_exhausted, …).',
      labelNames: ['source', 'decision'],
      registers,
    });
    this.watchdogDeferrals = new Counter({
      name: METRIC_NAMES.watchdogDeferrals,
      help: "Storm restarts deferred because the dependency's Retry-After was in force.",
      labelNames: ['dep'],
      registers,
    });
    this.notifications = new Counter({
      name: METRIC_NAMES.notifications,
      help: 'Notifications delivered or failed, by channel (desktop, webhook:<type>#<n>).',
      labelNames: ['channel', 'result'],
      registers,
    });
    this.fleetConnected = new Gauge({
      name: METRIC_NAMES.fleetConnected,
      help: 'Fleet link to Redis: 1 connected; 0 down (breakers are local-only meanwhile) or no fleet configured.',
      registers,
    });
    this.fleetPeerTransitions = new Counter({
      name: METRIC_NAMES.fleetPeerTransitions,
      help: "Breaker transitions received from other hosts, by dependency and the peer's new state.",
      labelNames: ['dep', 'to'],
      registers,
    });
    this.fleetLeases = new Counter({
      name: METRIC_NAMES.fleetLeases,
      help: 'Half-open probe lease requests by answer: granted, held (by another host), uncoordinated (Redis down: probed locally).',
      labelNames: ['result'],
      registers,
    });
    const watchdog = () => sources.watchdog?.() ?? null;
    const gauge = (name: string, help: string, read: (w: WatchdogGauges) => number | null) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.reset();
          const state = watchdog();
          const value = state === null ? null : read(state);
          if (value !== null) this.set(value);
        },
      });
    gauge(METRIC_NAMES.gatewayUp, 'Gateway health at the last probe: 1 up (started), 0 down or starting.', (w) =>
      w.gatewayUp === null ? null : Number(w.gatewayUp),
    );
    gauge(
      METRIC_NAMES.watchdogConsecutiveChecks,
      'Consecutive rate-limit checks with new rate_limited calls (restart at the threshold).',
      (w) => w.consecutiveChecks,
    );
    gauge(METRIC_NAMES.watchdogPaused, '1 while the watchdog is paused.', (w) => Number(w.paused));
    gauge(
      METRIC_NAMES.watchdogBudgetRemaining,
      'Automatic restarts left in the rolling hour (0: the watchdog waits for the budget or a human).',
      (w) => w.budgetRemaining,
    );
    gauge(
      METRIC_NAMES.watchdogDivergence,
      '1 while health probes are green but a breaker has been open or throttled past watchdog.divergenceSec.',
      (w) => Number(w.diverging),
    );
  }

  /** One gateway health probe: latency into the histograms, failures by class. */
  recordGatewayProbe(probe: { class: string; latencyMs: number | null }): void {
    if (probe.latencyMs !== null) {
      this.gatewayProbeSeconds.observe(probe.latencyMs / 1000);
      this.probeLatency.observe({ dep: GATEWAY_DEP }, probe.latencyMs);
    }
    if (probe.class !== 'ok') this.gatewayProbeFailures.inc({ class: probe.class });
  }

  recordRestart(trigger: string, result: string): void {
    this.watchdogRestarts.inc({ reason: trigger, result });
  }

  recordDecision(source: string, decision: string): void {
    this.watchdogDecisions.inc({ source, decision });
  }

  /** A deferred storm restart is a Retry-After skip too: it shows on the breaker's counter as well. */
  recordDeferral(dep: string): void {
    this.watchdogDeferrals.inc({ dep });
    this.retryAfterSkips.inc({ dep });
  }

  recordFleetConnected(connected: boolean): void {
    this.fleetConnected.set(connected ? 1 : 0);
  }

  recordPeerTransition(dep: string, to: string): void {
    this.fleetPeerTransitions.inc({ dep, to });
  }

  recordFleetLease(result: string): void {
    this.fleetLeases.inc({ result });
  }

  /** An incident closed after `seconds`. */
  recordIncidentClosed(seconds: number): void {
    this.incidentDuration.observe(Math.max(0, seconds));
  }

  recordNotification(channel: string, ok: boolean): void {
    this.notifications.inc({ channel, result: ok ? 'delivered' : 'failed' });
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
