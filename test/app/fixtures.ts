/**
 * Status objects as a core answers them, built from a healthy baseline with
 * the one thing a test is about changed.
 */

import type { ApiBreaker, ApiStatus } from '../../main/api/types.js';
import { CallTally } from '../../main/core/calls/summary.js';
import type { GatewayHealth } from '../../main/core/gateway/health.js';
import type { ProbeResult } from '../../main/core/gateway/probe.js';
import type { Notice } from '../../main/core/notify/notice.js';
import type { SourceStatus } from '../../main/core/sources/source.js';
import type { RestartRow } from '../../main/core/store/gateway-history.js';
import type { WatchdogStatus } from '../../main/core/watchdog/watchdog-status.js';

export const NOW = Date.UTC(2026, 4, 12, 10, 0, 0);
export const MIN = 60_000;

export function breaker(dep: string, overrides: Partial<ApiBreaker> = {}): ApiBreaker {
  const made: ApiBreaker = {
    dep,
    state: 'closed',
    forced: null,
    reason: '',
    since: NOW - 60 * MIN,
    openUntil: null,
    retryAfterUntil: null,
    openDurationMs: 30_000,
    elsewhere: [],
    window: { calls: 10, failures: 0, successes: 10, failureRate: 0 },
    consecutiveFailures: 0,
    trialSuccesses: 0,
    rejections: 0,
    retryAfterSkips: 0,
    lastEventAt: NOW - 5000,
    soleDependents: [],
    stalled: null,
    openclawCooldown: null,
    outSince: null,
    ...overrides,
  };
  // An open breaker's outage began when it last left closed: by default, when its state began.
  return {
    ...made,
    outSince: overrides.outSince !== undefined ? overrides.outSince : made.state === 'closed' ? null : made.since,
  };
}

export function probe(overrides: Partial<ProbeResult> = {}): ProbeResult {
  return {
    ts: NOW - 12_000,
    class: 'ok',
    dead: false,
    ok: true,
    latencyMs: 14,
    startup: 'started',
    ready: { ready: true, failing: [], uptimeMs: 3 * 3600_000 },
    detail: 'ok in 14 ms',
    ...overrides,
  };
}

export function gateway(overrides: Partial<GatewayHealth> = {}): GatewayHealth {
  return {
    baseUrl: 'http://127.0.0.1:18789',
    last: probe(),
    upSince: NOW - 2 * 3600_000,
    downSince: null,
    readTimeoutMs: 2000,
    ...overrides,
  };
}

export function restartRow(overrides: Partial<RestartRow> = {}): RestartRow {
  return {
    id: 7,
    ts: NOW - 3 * MIN,
    trigger: 'storm',
    reason: '3 checks in a row saw new rate_limited calls',
    result: 'recovered',
    durationMs: 4000,
    strategy: 'openclaw',
    command: ['openclaw', 'gateway', 'restart', '--wait', '30'],
    exitCode: 0,
    output: null,
    recoveryMs: 48_000,
    detail: null,
    evidence: 'storm',
    ...overrides,
  };
}

export function watchdog(overrides: Partial<WatchdogStatus> = {}): WatchdogStatus {
  return {
    enabled: true,
    dryRun: false,
    paused: false,
    pausedUntil: null,
    consecutiveChecks: 0,
    threshold: 3,
    stormRestart: true,
    healthFailures: 0,
    healthFailuresBeforeRestart: 2,
    budgetRemaining: 4,
    maxRestartsPerHour: 4,
    restartInFlight: null,
    recovering: null,
    deferral: null,
    storm: null,
    rateLimited: null,
    seenHealthy: true,
    verified: { runnable: true, problem: null, service: 'running' },
    diverging: false,
    lastDecision: null,
    lastRestart: null,
    strategy: { description: 'openclaw gateway restart', argv: ['openclaw', 'gateway', 'restart'], problem: null },
    ...overrides,
  };
}

export function source(overrides: Partial<SourceStatus> = {}): SourceStatus {
  return {
    kind: 'jsonl',
    roots: ['/home/me/.openclaw/agents'],
    inputs: 3,
    lines: 100,
    malformed: 0,
    calls: 40,
    stored: 40,
    duplicates: 0,
    pending: 0,
    lastEventAt: NOW - 5000,
    lastError: null,
    ...overrides,
  };
}

export function apiStatus(overrides: Partial<ApiStatus> = {}): ApiStatus {
  return {
    version: '0.1.0',
    generatedAt: NOW,
    lastDay: new CallTally().summary(),
    breakers: [breaker('deepseek/deepseek-v4-pro'), breaker('zhipu/glm-5.1')],
    tokens: [],
    sources: [source()],
    gateway: gateway(),
    watchdog: watchdog(),
    notifications: [],
    fleet: null,
    openclawCooldowns: null,
    incidents: null,
    quota: [],
    budgets: [],
    quiet: null,
    language: 'en',
    ...overrides,
  };
}

export function notice(overrides: Partial<Notice> = {}): Notice {
  return {
    kind: 'restart_succeeded',
    dep: null,
    title: 'Gateway restarted after a 429 storm',
    body: 'The gateway is back and calls succeed again (recovered in 48 s).',
    severity: 'info',
    ts: NOW,
    count: 1,
    ...overrides,
  };
}
