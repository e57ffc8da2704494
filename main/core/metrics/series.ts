/**
 * The Prometheus series, registered per concern: each function declares one
 * concern's metrics on the registry and returns the handles that concern's
 * events are recorded on (scrape-time gauges need no handle: they read
 * `MetricsSources` when collected). Labels are low-cardinality only:
 * dependency, outcome, agent, source — never a user, session or message.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, type Registry } from 'prom-client';
import { STATE_GAUGE } from '../breaker/types.js';
import { METRIC_NAMES } from './names.js';
import type { MetricsSources, WatchdogGauges } from './sources.js';

/** Probe latency buckets: 25 ms to 2 s. */
const PROBE_BUCKETS_MS = [25, 50, 100, 250, 500, 1000, 2000];
/** Incident durations: a minute to a day (shorter ones do not open; longer ones land in +Inf). */
const INCIDENT_BUCKETS_SEC = [60, 120, 300, 600, 1800, 3600, 7200, 14_400, 43_200, 86_400];
/** The gateway's /healthz round trip: 5 ms to 30 s. */
const GATEWAY_PROBE_BUCKETS_SEC = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The Node.js process: CPU, memory, event-loop lag. */
export function registerProcessMetrics(registry: Registry): void {
  // Event-loop lag sampled once a second, not prom-client's every 10 ms: each sample wakes the
  // process, and a hundred wake-ups a second cost an idle daemon more CPU than everything else
  // it did (measured: 2.5 % → 1.7 % at 100 ms). A block still shows, as the lateness of the
  // sample it delays; only the lag of an event loop that is never blocked is sampled more coarsely.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 1000 });
  // prom-client names three gauges `_total`, which promtool rejects; their per-type
  // siblings (`nodejs_active_handles{type}`, …) carry the same numbers.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    registry.removeSingleMetric(name);
  }
}

/** Breakers: state and open duration read from the snapshots; transitions, rejections, skips and probes counted. */
export function registerBreakerMetrics(registry: Registry, sources: MetricsSources) {
  const registers = [registry];
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
  return {
    transitions: new Counter({
      name: METRIC_NAMES.breakerTransitions,
      help: 'Breaker state transitions per dependency.',
      labelNames: ['dep', 'from', 'to'],
      registers,
    }),
    rejections: new Counter({
      name: METRIC_NAMES.breakerRejections,
      help: 'Calls observed while the breaker was open or throttled: the calls a gateway-side breaker would have failed fast.',
      labelNames: ['dep'],
      registers,
    }),
    retryAfterSkips: new Counter({
      name: METRIC_NAMES.breakerRetryAfterSkips,
      help: "Half-open trials skipped because the provider's Retry-After was still in force.",
      labelNames: ['dep'],
      registers,
    }),
    probeLatency: new Histogram({
      name: METRIC_NAMES.breakerProbeLatency,
      help: 'Latency of active half-open probes in milliseconds (probes are tagged, never gateway traffic).',
      labelNames: ['dep'],
      buckets: PROBE_BUCKETS_MS,
      registers,
    }),
  };
}

/** Traffic: calls, tokens, token budgets, gateway log signals and stalled sessions. */
export function registerTrafficMetrics(registry: Registry, sources: MetricsSources) {
  const registers = [registry];
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
  return {
    calls: new Counter({
      name: METRIC_NAMES.calls,
      help: 'Upstream model calls observed, by dependency and outcome.',
      labelNames: ['dep', 'outcome'],
      registers,
    }),
    tokens: new Counter({
      name: METRIC_NAMES.tokens,
      help: 'Tokens used (usage.totalTokens) by dependency and agent.',
      labelNames: ['dep', 'agent'],
      registers,
    }),
    budgetExceeded: new Counter({
      name: METRIC_NAMES.tokenBudgetExceeded,
      help: 'Minutes in which an agent crossed its token budget on a dependency.',
      labelNames: ['dep', 'agent'],
      registers,
    }),
    signals: new Counter({
      name: METRIC_NAMES.signals,
      help: 'Gateway log signals (fallback and failover decisions, lane errors, stalls, run timeouts) by kind.',
      labelNames: ['kind'],
      registers,
    }),
  };
}

/** Ingestion: what each source stored, skipped and has yet to read, and how far behind it is. */
export function registerIngestMetrics(registry: Registry, sources: MetricsSources) {
  const registers = [registry];
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
    name: METRIC_NAMES.malformedLines,
    help: 'Malformed lines or rows read since BreakerBar started, per source.',
    labelNames: ['source'],
    registers,
    collect() {
      this.reset();
      for (const status of sources.sources()) this.inc({ source: status.kind }, status.malformed);
    },
  });
  return {
    ingestLag: new Gauge({
      name: METRIC_NAMES.ingestLag,
      help: 'Seconds between the newest stored record and the moment it was stored, per source: grows when ingestion falls behind.',
      labelNames: ['source'],
      registers,
    }),
  };
}

/** OpenClaw's own state: its cooldowns and its providers' quota windows. */
export function registerOpenclawMetrics(registry: Registry, sources: MetricsSources): void {
  const registers = [registry];
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
}

/** Spend budgets' standings in their current periods. */
export function registerSpendMetrics(registry: Registry, sources: MetricsSources): void {
  new Gauge({
    name: METRIC_NAMES.budgetUsedRatio,
    help: 'Share of a spend budget used in its current calendar period (1 = the limit); unit is tokens or usd.',
    labelNames: ['provider', 'period', 'unit'],
    registers: [registry],
    collect() {
      this.reset();
      for (const b of sources.budgets?.() ?? []) {
        this.set({ provider: b.provider, period: b.period, unit: b.unit }, b.limit > 0 ? b.used / b.limit : 0);
      }
    },
  });
}

/** Incidents: how many are open, how long closed ones lasted. */
export function registerIncidentMetrics(registry: Registry, sources: MetricsSources) {
  const registers = [registry];
  new Gauge({
    name: METRIC_NAMES.incidentsOpen,
    help: 'Incidents open now (something needs a human: a breaker out for a while, the gateway dead or hung, the restart budget spent, …).',
    registers,
    collect() {
      this.set(sources.openIncidents?.() ?? 0);
    },
  });
  return {
    incidentDuration: new Histogram({
      name: METRIC_NAMES.incidentDuration,
      help: 'How long incidents lasted, observed when each closes (its mean is the time to recovery).',
      buckets: INCIDENT_BUCKETS_SEC,
      registers,
    }),
  };
}

/** The gateway side: health probes, the watchdog's decisions and restarts, its state as gauges. */
export function registerGatewayMetrics(registry: Registry, sources: MetricsSources) {
  const registers = [registry];
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
  const handles = {
    gatewayProbeSeconds: new Histogram({
      name: METRIC_NAMES.gatewayProbeSeconds,
      help: "Round trip of the gateway's /healthz probe in seconds (answered probes only).",
      buckets: GATEWAY_PROBE_BUCKETS_SEC,
      registers,
    }),
    gatewayProbeFailures: new Counter({
      name: METRIC_NAMES.gatewayProbeFailures,
      help: 'Gateway probes that were not ok, by class: refused, connect_timeout, read_timeout, reset, http_<status>, starting, draining.',
      labelNames: ['class'],
      registers,
    }),
    watchdogRestarts: new Counter({
      name: METRIC_NAMES.watchdogRestarts,
      help: 'Gateway restarts by trigger (reason: storm, health, manual) and result (done, still_starting, failed, dry_run).',
      labelNames: ['reason', 'result'],
      registers,
    }),
    watchdogDecisions: new Counter({
      name: METRIC_NAMES.watchdogDecisions,
      help: 'Watchdog decisions by what asked (check, probe, manual, tick) and what it decided (restart, counting, deferred, budget_exhausted, …).',
      labelNames: ['source', 'decision'],
      registers,
    }),
    watchdogDeferrals: new Counter({
      name: METRIC_NAMES.watchdogDeferrals,
      help: "Storm restarts deferred because the dependency's Retry-After was in force.",
      labelNames: ['dep'],
      registers,
    }),
  };
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
  return handles;
}

/** Notifications delivered or failed, per channel. */
export function registerNotificationMetrics(registry: Registry) {
  return {
    notifications: new Counter({
      name: METRIC_NAMES.notifications,
      help: 'Notifications delivered or failed, by channel (desktop, webhook:<type>#<n>).',
      labelNames: ['channel', 'result'],
      registers: [registry],
    }),
  };
}

/** The fleet link: connected or not, peers' transitions, probe leases. */
export function registerFleetMetrics(registry: Registry) {
  const registers = [registry];
  return {
    fleetConnected: new Gauge({
      name: METRIC_NAMES.fleetConnected,
      help: 'Fleet link to Redis: 1 connected; 0 down (breakers are local-only meanwhile) or no fleet configured.',
      registers,
    }),
    fleetPeerTransitions: new Counter({
      name: METRIC_NAMES.fleetPeerTransitions,
      help: "Breaker transitions received from other hosts, by dependency and the peer's new state.",
      labelNames: ['dep', 'to'],
      registers,
    }),
    fleetLeases: new Counter({
      name: METRIC_NAMES.fleetLeases,
      help: 'Half-open probe lease requests by answer: granted, held (by another host), uncoordinated (Redis down: probed locally).',
      labelNames: ['result'],
      registers,
    }),
  };
}
