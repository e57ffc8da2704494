/**
 * The core as the local API sees it: status, history, metrics, controls and a
 * stream of changes, assembled from the monitor's parts. The HTTP layer
 * (http.ts) only speaks this interface.
 */

import type { BreakerService } from '../../core/breaker/service.js';
import type { Transition } from '../../core/breaker/types.js';
import { emptyOutcomeCounts } from '../../core/calls/classify.js';
import type { CallSummary } from '../../core/calls/summary.js';
import { readConfigFile, writeConfigFile } from '../../core/config/file.js';
import type { DoctorReport } from '../../core/doctor/index.js';
import type { HealthProber } from '../../core/gateway/health.js';
import type { ProbeResult } from '../../core/gateway/probe.js';
import type { IncidentService } from '../../core/incidents/service.js';
import type { BreakerbarMetrics } from '../../core/metrics/breakerbar-metrics.js';
import type { AlertWindows } from '../../core/notify/maintenance.js';
import type { Notice } from '../../core/notify/notice.js';
import type { Notifier } from '../../core/notify/notifier.js';
import type { OpenClawCooldowns } from '../../core/openclaw/cooldowns.js';
import { version } from '../../core/runtime/version.js';
import type { SourceStatus } from '../../core/sources/source.js';
import type { SpendTracker } from '../../core/spend/tracker.js';
import type { StoreHealth } from '../../core/store/database-watch.js';
import type { Store } from '../../core/store/db.js';
import {
  type GatewayHistory,
  type NotificationRow,
  probeRow,
  type RestartRow,
} from '../../core/store/gateway-history.js';
import type { Watchdog } from '../../core/watchdog/watchdog.js';
import type { Language } from '../../words/i18n.js';
import type {
  ApiEvent,
  ApiHistory,
  ApiStatus,
  ConfigSaveResponse,
  ConfigView,
  HistoryQuery,
  MaintenanceRequest,
  MaintenanceResponse,
  TokenRate,
  WatchdogRequest,
  WatchdogResponse,
} from '../types.js';
import type { ApiBackend } from './api-backend.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const LAST_DAY_REFRESH_MS = 10_000;

export interface BackendParts {
  /** The daemon's language (reported in the status; notifications are worded in it). */
  language?: Language;
  store: Store;
  /** Whether the database file is still the one opened (absent: not watched). */
  storeHealth?: () => StoreHealth;
  breakers: BreakerService;
  metrics: BreakerbarMetrics;
  sources: () => SourceStatus[];
  /** Incidents, when this instance keeps them. */
  incidents?: Pick<IncidentService, 'status' | 'list' | 'detail'>;
  /** Subscribes to the monitor's own events (calls, signals); returns the unsubscribe function. */
  subscribeMonitor: (listener: (event: ApiEvent) => void) => () => void;
  clock: () => number;
  /** The config file the running instance reads (and follows, in the daemon), and its configuration in force. */
  configFile: string;
  effectiveConfig: () => Record<string, unknown>;
  /** What `breakerbar doctor` finds, for the first-run view. */
  doctor: () => Promise<DoctorReport>;
  /** Spend, budgets and quota windows: the root's tracker (the backend builds no part of its own). */
  spend: Pick<SpendTracker, 'report' | 'budgets' | 'quota'>;
  /** OpenClaw's cooldowns, when this instance reads them. */
  cooldowns?: Pick<OpenClawCooldowns, 'forDependency' | 'status'>;
  /** The gateway side, when this instance probes and restarts the gateway. */
  gateway?: {
    history: GatewayHistory;
    health: HealthProber;
    watchdog: Watchdog;
    notifier: Notifier;
    windows: AlertWindows;
  };
}

const MAX_PROBES = 5000;
const MAX_ROWS = 1000;

export function createBackend(parts: BackendParts): ApiBackend {
  // The day's counts are a scan of a day of calls, and every open dashboard asks for the status every
  // few seconds: they are computed again only when something was stored, or the window moved a while.
  let lastDay: { at: number; stamp: string; summary: CallSummary } | null = null;
  const lastDaySummary = (): CallSummary => {
    const now = parts.clock();
    const stamp = parts.store.changeStamp();
    if (lastDay === null || lastDay.stamp !== stamp || Math.abs(now - lastDay.at) >= LAST_DAY_REFRESH_MS) {
      lastDay = { at: now, stamp, summary: parts.store.summary({ since: now - DAY_MS }) };
    }
    return lastDay.summary;
  };
  const { spend } = parts;
  return {
    status(): ApiStatus {
      const now = parts.clock();
      const cooldowns = parts.cooldowns;
      return {
        version: version(),
        generatedAt: now,
        breakers: parts.breakers.breakers().map((breaker) => ({
          ...breaker,
          openclawCooldown: cooldowns?.forDependency(breaker.dep, now) ?? null,
        })),
        tokens: parts.breakers.tokenRates(),
        sources: parts.sources(),
        gateway: parts.gateway?.health.health() ?? null,
        watchdog: parts.gateway?.watchdog.status() ?? null,
        notifications: parts.gateway?.notifier.channels() ?? [],
        lastDay: lastDaySummary(),
        fleet: parts.breakers.fleet?.status() ?? null,
        openclawCooldowns: cooldowns?.status(now) ?? null,
        incidents: parts.incidents?.status() ?? null,
        quota: spend.quota(),
        budgets: spend.budgets(),
        quiet: parts.gateway?.windows.state(now) ?? null,
        language: parts.language ?? 'en',
        dependencies: parts.breakers.dependencies(),
        store: parts.storeHealth?.() ?? { ok: true },
      };
    },

    history(query: HistoryQuery): ApiHistory {
      const history = parts.gateway?.history;
      const count = Math.max(1, Math.ceil((query.to - query.from) / query.stepMs));
      const steps = Array.from({ length: count }, (_, i) => ({
        t: query.from + i * query.stepMs,
        outcomes: emptyOutcomeCounts(),
      }));
      for (const row of parts.store.outcomeSteps(query.from, query.to, query.stepMs, query.dep)) {
        const step = steps[row.step];
        if (step) step.outcomes[row.outcome] += row.n;
      }
      return {
        from: query.from,
        to: query.to,
        stepMs: query.stepMs,
        steps,
        transitions: parts.store.transitionsBetween(query.from, query.to, query.dep),
        restarts: history?.restarts(query.from, query.to, MAX_ROWS) ?? [],
        probes: history?.probes(query.from, query.to, MAX_PROBES) ?? [],
        notifications: history?.notifications(query.from, query.to, MAX_ROWS) ?? [],
        decisions: history?.decisions(query.from, query.to, MAX_ROWS) ?? [],
      };
    },

    incidents: (query) => parts.incidents?.list(query.limit, query.since) ?? { incidents: [] },

    incident: (id) => parts.incidents?.detail(id) ?? null,
    spend: () => spend.report(),

    metrics: () => parts.metrics.exposition(),

    control: (request) => parts.breakers.control(request.dep, request.action, request.reason),

    watchdog(request: WatchdogRequest): WatchdogResponse {
      const watchdog = parts.gateway?.watchdog;
      if (!watchdog) throw new Error('this BreakerBar instance runs no watchdog');
      const decision =
        request.action === 'restart'
          ? watchdog.restartNow(request.reason, request.force)
          : request.action === 'pause'
            ? watchdog.pause(request.durationSec === null ? null : request.durationSec * 1000, request.reason)
            : watchdog.resume();
      const why = decision.why === undefined ? {} : { why: decision.why };
      return { decision: decision.kind, reason: decision.reason, ...why, status: watchdog.status() };
    },

    maintenance(request?: MaintenanceRequest | null): MaintenanceResponse {
      const windows = parts.gateway?.windows;
      if (!windows) throw new Error('this BreakerBar instance runs no watchdog or notifications');
      let stopped: boolean | undefined;
      if (request === null) stopped = windows.stop();
      else if (request !== undefined)
        windows.start(request.durationSec === null ? null : request.durationSec * 1000, request.reason);
      const manual = windows.current();
      return {
        manual: manual && { ...manual },
        quiet: windows.state(),
        ...(stopped === undefined ? {} : { stopped }),
      };
    },

    config(): ConfigView {
      const view = readConfigFile(parts.configFile);
      return { ...view, effective: parts.effectiveConfig() };
    },

    saveConfig(config: unknown): ConfigSaveResponse {
      writeConfigFile(parts.configFile, config);
      return {
        ok: true,
        file: parts.configFile,
        note: 'saved; a running daemon follows this file and applies it within seconds',
      };
    },

    doctor: () => parts.doctor(),

    subscribe(listener) {
      const transition = (data: Transition) => listener({ type: 'transition', data });
      const budget = (data: TokenRate) => listener({ type: 'budget', data });
      parts.breakers.on('transition', transition);
      parts.breakers.on('budget', budget);
      const unsubscribeMonitor = parts.subscribeMonitor(listener);
      const unsubscribeGateway = parts.gateway ? subscribeGateway(parts.gateway, listener) : () => {};
      return () => {
        unsubscribeGateway();
        parts.breakers.off('transition', transition);
        parts.breakers.off('budget', budget);
        unsubscribeMonitor();
      };
    },
  };
}

function subscribeGateway(
  gateway: NonNullable<BackendParts['gateway']>,
  listener: (event: ApiEvent) => void,
): () => void {
  const probe = (result: ProbeResult) => listener({ type: 'probe', data: probeRow(result) });
  const restart = (row: RestartRow) => listener({ type: 'restart', data: row });
  const decision = (d: { ts: number; source: string; kind: string; reason: string; dep: string | null }) =>
    listener({
      type: 'decision',
      data: { ts: d.ts, source: d.source, decision: d.kind, reason: d.reason, dep: d.dep },
    });
  const delivered = (row: NotificationRow) => listener({ type: 'notification', data: row });
  gateway.health.on('probe', probe);
  gateway.watchdog.on('restart', restart);
  gateway.watchdog.on('decision', decision);
  gateway.notifier.on('delivered', delivered);
  const notice = (data: Notice) => listener({ type: 'notice', data });
  gateway.notifier.on('notice', notice);
  return () => {
    gateway.health.off('probe', probe);
    gateway.watchdog.off('restart', restart);
    gateway.watchdog.off('decision', decision);
    gateway.notifier.off('delivered', delivered);
    gateway.notifier.off('notice', notice);
  };
}
