/**
 * The names of everything BreakerBar exports to Prometheus. The breaker series
 * carry the names the Prometheus rules and dashboards in deploy/ rely on
 * (`breaker_*`, label `dep`); everything else is `breakerbar_*` in base units.
 * Dashboards' and alert rules' tests import `METRIC_NAMES`, so renaming a
 * metric breaks the build where it is used.
 */
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
