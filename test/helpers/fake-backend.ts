/**
 * An in-memory ApiBackend for the HTTP server's tests: canned status, history
 * and metrics, a record of every control() and history() call, and emit() to
 * push events to subscribers. Also a Logger that keeps its lines, so a test can
 * check that a rejection was logged (and that no secret was).
 */

import type { ApiBackend } from '../../main/api/server/api-backend.js';
import type {
  ApiEvent,
  ApiHistory,
  ApiStatus,
  ConfigSaveResponse,
  ConfigView,
  ControlRequest,
  HistoryQuery,
  IncidentQuery,
  MaintenanceRequest,
  MaintenanceResponse,
  WatchdogRequest,
  WatchdogResponse,
} from '../../main/api/types.js';
import type { BreakerSnapshot, Transition } from '../../main/core/breaker/types.js';
import { CallTally } from '../../main/core/calls/summary.js';
import type { DoctorReport } from '../../main/core/doctor/index.js';
import type { IncidentDetail, IncidentList } from '../../main/core/incidents/types.js';
import type { LogFields, Logger, LogLevel } from '../../main/core/runtime/log.js';
import type { SpendPeriod, SpendReport } from '../../main/core/spend/types.js';

export function breakerSnapshot(dep: string, overrides: Partial<BreakerSnapshot> = {}): BreakerSnapshot {
  const made: BreakerSnapshot = {
    dep,
    state: 'closed',
    forced: null,
    reason: '',
    since: 0,
    openUntil: null,
    retryAfterUntil: null,
    openDurationMs: 30_000,
    window: { calls: 0, failures: 0, successes: 0, failureRate: 0 },
    consecutiveFailures: 0,
    trialSuccesses: 0,
    rejections: 0,
    retryAfterSkips: 0,
    lastEventAt: null,
    outSince: null,
    ...overrides,
  };
  // An open breaker's outage began when it last left closed: by default, when its state began.
  return {
    ...made,
    outSince: overrides.outSince !== undefined ? overrides.outSince : made.state === 'closed' ? null : made.since,
  };
}

/** A period with no calls. */
export function emptySpendPeriod(from: number, to: number): SpendPeriod {
  return {
    from,
    to,
    total: { key: 'total', calls: 0, failures: 0, tokens: 0, cost: 0 },
    byProvider: [],
    byModel: [],
    byAgent: [],
  };
}

export class FakeBackend implements ApiBackend {
  readonly controls: ControlRequest[] = [];
  readonly historyQueries: HistoryQuery[] = [];
  readonly incidentQueries: IncidentQuery[] = [];
  /** What incidents() and incident(id) answer (a detail per id; an id not here is unknown). */
  incidentDetails: IncidentDetail[] = [];
  readonly watchdogRequests: WatchdogRequest[] = [];
  readonly savedConfigs: unknown[] = [];
  /** When set, watchdog() throws it (an instance without a watchdog). */
  watchdogError: Error | null = null;
  metricsResult = {
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
    body: '# HELP breaker_state 0 closed, 1 half_open, 2 open, 3 throttled\n# TYPE breaker_state gauge\nbreaker_state{dep="openai/gpt-4o"} 0\n',
  };
  /** When set, control() throws it (a control the engine refuses). */
  controlError: Error | null = null;
  statusResult: ApiStatus = {
    version: '0.0.0-test',
    generatedAt: 1_700_000_000_000,
    lastDay: new CallTally().summary(),
    breakers: [
      { ...breakerSnapshot('openai/gpt-4o'), soleDependents: [], stalled: null, elsewhere: [], openclawCooldown: null },
    ],
    tokens: [],
    sources: [],
    gateway: null,
    watchdog: null,
    notifications: [],
    fleet: null,
    openclawCooldowns: null,
    incidents: null,
    quota: [],
    budgets: [],
    quiet: null,
    language: 'en',
  };
  private readonly listeners = new Set<(event: ApiEvent) => void>();

  status(): ApiStatus {
    return this.statusResult;
  }

  history(query: HistoryQuery): ApiHistory {
    this.historyQueries.push(query);
    return {
      from: query.from,
      to: query.to,
      stepMs: query.stepMs,
      steps: [],
      transitions: [],
      restarts: [],
      probes: [],
      notifications: [],
      decisions: [],
    };
  }

  incidents(query: IncidentQuery): IncidentList {
    this.incidentQueries.push(query);
    const incidents = this.incidentDetails
      .filter((incident) => query.since === null || incident.openedAt >= query.since)
      .map(({ timeline: _timeline, ...summary }) => summary);
    return { incidents: incidents.slice(0, query.limit) };
  }

  incident(id: number): IncidentDetail | null {
    return this.incidentDetails.find((incident) => incident.id === id) ?? null;
  }

  spendResult: SpendReport = {
    generatedAt: 1_700_000_000_000,
    today: emptySpendPeriod(1_699_990_000_000, 1_700_000_000_000),
    week: emptySpendPeriod(1_699_395_200_000, 1_700_000_000_000),
    month: emptySpendPeriod(1_697_408_000_000, 1_700_000_000_000),
    burn: [],
    budgets: [],
    quota: [],
  };

  spend(): SpendReport {
    return this.spendResult;
  }

  async metrics(): Promise<{ contentType: string; body: string }> {
    return this.metricsResult;
  }

  control(request: ControlRequest): Transition[] {
    this.controls.push(request);
    if (this.controlError) throw this.controlError;
    const to = request.action === 'force_open' ? 'open' : 'closed';
    return [{ dep: request.dep, from: 'closed', to, reason: `operator: ${request.reason}`, ts: 1_700_000_000_000 }];
  }

  watchdog(request: WatchdogRequest): WatchdogResponse {
    this.watchdogRequests.push(request);
    if (this.watchdogError) throw this.watchdogError;
    // Only the shape matters to the HTTP layer; the status is the real runner's in monitor tests.
    return { decision: request.action === 'restart' ? 'restart' : 'paused', reason: 'fake', status: null as never };
  }

  /** Every maintenance call: a request (start), null (stop), undefined (read). */
  readonly maintenanceRequests: Array<MaintenanceRequest | null | undefined> = [];

  maintenance(request?: MaintenanceRequest | null): MaintenanceResponse {
    this.maintenanceRequests.push(request);
    const manual = request ? { startedAt: 1_700_000_000_000, until: null, reason: request.reason } : null;
    return { manual, quiet: manual && { kind: 'maintenance', until: null, reason: manual.reason } };
  }

  config(): ConfigView {
    return { file: '/fake/config.json', exists: false, raw: {}, effective: {}, fields: [] };
  }

  saveConfig(config: unknown): ConfigSaveResponse {
    this.savedConfigs.push(config);
    return { ok: true, file: '/fake/config.json', note: 'saved' };
  }

  async doctor(): Promise<DoctorReport> {
    return { findings: [], summary: { ok: 0, info: 0, warn: 0, error: 0 } };
  }

  subscribe(listener: (event: ApiEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: ApiEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  get subscribers(): number {
    return this.listeners.size;
  }
}

export interface LogLine {
  level: LogLevel;
  msg: string;
  fields: LogFields;
}

export interface RecordingLogger extends Logger {
  readonly lines: LogLine[];
  /** Every line as one string, to search for things that must never be logged. */
  text(): string;
}

export function recordingLogger(): RecordingLogger {
  const lines: LogLine[] = [];
  const at =
    (level: LogLevel) =>
    (msg: string, fields: LogFields = {}) => {
      lines.push({ level, msg, fields });
    };
  return {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    text: () => lines.map((line) => JSON.stringify(line)).join('\n'),
  };
}
