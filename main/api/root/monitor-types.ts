/**
 * What a host gives a Monitor and gets from it: the options of `new Monitor(config, options)`, the events it
 * emits and the status it reports. Apart from the composition itself, so that the hosts, the rehearsal and the
 * tests can name them without reading how the monitor is put together.
 */

import type { CallEvent, GatewaySignal } from '../../core/calls/events.js';
import type { Environment } from '../../core/config/index.js';
import type { DesktopChannel } from '../../core/notify/desktop.js';
import type { Logger } from '../../core/runtime/log.js';
import type { GatewayLogStatus } from '../../core/sources/gateway-log.js';
import type { MetricsStatus } from '../../core/sources/gateway-metrics.js';
import type { SourceStatus } from '../../core/sources/source.js';

export interface MonitorStatus {
  stateDir: string;
  dbPath: string;
  startedAt: number;
  /** Calls older than this (record time) are not stored: fixed at the first start. */
  backfillCutoff: number;
  caughtUp: boolean;
  sources: SourceStatus[];
  gatewayLog: GatewayLogStatus | null;
  gatewayMetrics: MetricsStatus | null;
}

export interface MonitorEvents {
  calls: [CallEvent[]];
  signals: [GatewaySignal[]];
  /** The backlog present at start has been read. */
  'caught-up': [];
}

export interface MonitorOptions {
  log: Logger;
  /** Wall clock; injected by tests and the rehearsal, which then also drives the watchdog's durations with it. */
  clock?: () => number;
  /** Monotonic clock for the watchdog's durations; defaults to `clock` when one is given, else a steady clock. */
  monotonic?: () => number;
  environment?: Environment;
  /** How often backfill progress is logged while there is a backlog. */
  progressIntervalMs?: number;
  /** Start the local API and /metrics (default true). */
  serve?: boolean;
  /** Probe the gateway, run the watchdog and send notifications (default true). */
  gateway?: boolean;
  /** How often OpenClaw's cooldown state is polled (default 5 s). */
  cooldownPollMs?: number;
  /** How often the incident rules are evaluated (default 5 s; the rehearsal compresses it with its time). */
  incidentsEvaluateMs?: number;
  /** Desktop notifications: the Electron app passes its native channel; default node-notifier when enabled. */
  desktop?: DesktopChannel | null;
  /** How often the database file's identity is compared with the opened one (default 5 s). */
  storeWatchMs?: number;
  /** How often spend budgets are checked for crossed alert shares (default 1 min). */
  spendCheckMs?: number;
  /** The dashboard's built files, served at `/` by the local API (the daemon passes dist/renderer). */
  staticDir?: string;
  /** Shows a config change's confirmation code on the desktop (default node-notifier; tests record it). */
  showConfirmationCode?: (title: string, body: string) => Promise<void>;
}
