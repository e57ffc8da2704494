/**
 * The JSON BreakerBar's local API speaks. The dashboard (in a browser or in
 * Electron through the preload) imports these types only, never the core.
 */

import type { DependencyCapStatus } from '../core/breaker/dependency-cap.js';
import type { BreakerView } from '../core/breaker/service.js';
import type { OperatorAction, Transition } from '../core/breaker/types.js';
import type { Outcome } from '../core/calls/classify.js';
import type { CallSummary } from '../core/calls/summary.js';
import type { DangerousChange } from '../core/config/dangerous-changes.js';
import type { GatewayHealth } from '../core/gateway/health.js';
import type { IncidentsStatus } from '../core/incidents/types.js';
import type { Notice } from '../core/notify/notice.js';
import type { DependencyCooldown } from '../core/openclaw/cooldown-state.js';
import type { OpenClawCooldownsStatus } from '../core/openclaw/cooldowns.js';
import type { SourceStatus } from '../core/sources/source.js';
import type { BudgetStanding, QuotaWindow } from '../core/spend/types.js';
import type { StoreHealth } from '../core/store/database-watch.js';
import type { DecisionRow, NotificationRow, ProbeRow, RestartRow } from '../core/store/gateway-history.js';
import type { TokenRate } from '../core/traffic/tokens.js';
import type { WatchdogStatus } from '../core/watchdog/watchdog-status.js';
import type { DecisionReason } from '../words/decision-reasons.js';
import type { Language } from '../words/i18n.js';

/** The core's own types that travel on the wire as they are: the dashboard and the clients name them from here. */
export type { BreakerView } from '../core/breaker/service.js';
export type { BreakerSnapshot, BreakerState, OperatorAction, Transition } from '../core/breaker/types.js';
export type { Outcome } from '../core/calls/classify.js';
export type { DangerousChange } from '../core/config/dangerous-changes.js';
export type { DoctorReport, Finding } from '../core/doctor/index.js';
export type { IncidentDetail, IncidentEvent, IncidentList, IncidentSummary } from '../core/incidents/types.js';
export type { BudgetStanding, QuotaWindow, SpendReport, SpendRow } from '../core/spend/types.js';
export type { DecisionRow, NotificationRow, ProbeRow, RestartRow } from '../core/store/gateway-history.js';
export type { TokenRate } from '../core/traffic/tokens.js';
export type { WatchdogStatus } from '../core/watchdog/watchdog-status.js';

/** A breaker as the API shows it: the breakers' own view, and OpenClaw's cooldown, which the backend adds. */
export interface ApiBreaker extends BreakerView {
  /**
   * OpenClaw's own cooldown on this dependency: every auth profile of its provider is in a cooldown,
   * disable or block that covers it, so OpenClaw will not call it before `until` (the soonest of those
   * windows to end, with its reason and profile). Null when OpenClaw can use it, or nothing is known.
   */
  openclawCooldown: DependencyCooldown | null;
}

export interface ApiStatus {
  version: string;
  generatedAt: number;
  breakers: ApiBreaker[];
  tokens: TokenRate[];
  sources: SourceStatus[];
  /** Gateway health (null when this instance does not probe the gateway). */
  gateway: GatewayHealth | null;
  watchdog: WatchdogStatus | null;
  /** The fleet link (Redis), when configured: connected, since when, why not, transitions dropped. */
  fleet: { hostId: string; connected: boolean; since: number | null; lastError: string | null; dropped: number } | null;
  /** Notification channels configured (targets redacted). */
  notifications: Array<{ name: string; kind: string; target: string }>;
  /**
   * The last 24 hours as stored: calls (upstream requests) and turns (run outcomes: transcript
   * records and turns OpenClaw refused itself), each by outcome and dependency.
   */
  lastDay: CallSummary;
  /**
   * OpenClaw's cooldowns as read from its state: every window in force (one per profile and window,
   * keyed `provider/model` or `provider`) and each database read with its error. Null when this
   * instance does not read them.
   */
  openclawCooldowns: OpenClawCooldownsStatus | null;
  /** Open incidents, the last closed one, recovery by week (null when this instance keeps none). */
  incidents: IncidentsStatus | null;
  /** Provider quota windows OpenClaw reports (empty when it reports none). */
  quota: QuotaWindow[];
  /** Budgets configured (`budgets.spend`) and where each stands. */
  budgets: BudgetStanding[];
  /** Quiet hours or a maintenance window in force: no notifications, no automatic restarts. */
  quiet: { until: number | null; reason: string; kind: 'maintenance' | 'quiet_hours' } | null;
  /** The daemon's language (notifications and webhooks are worded in it). */
  language: Language;
  /** Dependencies with their own breaker and metrics, the ceiling (`breakers.maxDependencies`), how many were folded past it. */
  dependencies?: DependencyCapStatus;
  /** BreakerBar's own database: `ok` false when its file was deleted or replaced while running (see `detail`). */
  store?: StoreHealth;
}

export interface HistoryQuery {
  dep?: string;
  from: number;
  to: number;
  stepMs: number;
}

export interface ApiHistory {
  from: number;
  to: number;
  stepMs: number;
  /** One entry per step (oldest first), counts by outcome; `dep` filters when given. */
  steps: Array<{ t: number; outcomes: Record<Outcome, number> }>;
  transitions: Array<Transition & { at: number }>;
  restarts: RestartRow[];
  /** Health probes in the range (newest 5,000 at most). */
  probes: ProbeRow[];
  /** Notifications sent in the range, each with its delivery result (newest 1,000 at most). */
  notifications: NotificationRow[];
  /** Watchdog decisions in the range, including each decision not to restart (newest 1,000 at most). */
  decisions: DecisionRow[];
}

/** `GET /api/incidents?limit=&since=`: at most `limit` (1..1000, default 50) incidents opened at or after `since`. */
export interface IncidentQuery {
  limit: number;
  /** Epoch ms; null: any time. */
  since: number | null;
}

export type WatchdogAction = 'restart' | 'pause' | 'resume';

export type WatchdogRequest =
  | { action: 'restart'; reason: string; force: boolean }
  | { action: 'pause'; durationSec: number | null; reason: string }
  | { action: 'resume' };

/** What the watchdog decided about a request (`restart`: restart, in_flight; `pause`: paused; …). */
/** A one-time sign-in code (`POST /api/session/code`): the browser trades it for the token within a minute. */
export interface SignInCode {
  code: string;
  /** Epoch ms. */
  expiresAt: number;
}

export interface WatchdogResponse {
  decision: string;
  /** Why, as the policy's English line. */
  reason: string;
  /** Why, as a code and its facts, for a client to word in its reader's language (absent from older instances). */
  why?: DecisionReason;
  status: WatchdogStatus;
}

/** `POST /api/maintenance`: start (or replace) a maintenance window; `durationSec` null = until stopped. */
export interface MaintenanceRequest {
  durationSec: number | null;
  reason: string;
}

/** The answer of `GET`, `POST` and `DELETE /api/maintenance`. */
export interface MaintenanceResponse {
  /** The window started by hand, if in force: since, until (null = until stopped), why. */
  manual: { startedAt: number; until: number | null; reason: string } | null;
  /** What holds notifications now (maintenance by hand or recurring, or quiet hours), as in `status.quiet`. */
  quiet: ApiStatus['quiet'];
  /** `DELETE` only: whether a window started by hand was in force. */
  stopped?: boolean;
}

export interface ControlRequest {
  dep: string;
  action: OperatorAction;
  reason: string;
}

/** `POST /api/breakers/<dep>/control` answers with the transitions the control caused. */
export interface ControlResponse {
  transitions: Transition[];
}

/** One config key as the settings view shows it (from the schema: one place per fact). */
export interface ConfigField {
  /** Dotted path, e.g. `watchdog.maxRestartsPerHour`. */
  path: string;
  default: unknown;
  doc: string;
  /** What it accepts, in words ("an integer from 1 to 1000"). */
  expected: string;
}

/** `GET /api/config` (token required: the file may hold webhook secrets). */
export interface ConfigView {
  /** The file the daemon reads and follows (written by `POST /api/config`). */
  file: string;
  exists: boolean;
  /** The file's JSON as written (only the keys set), `{}` when there is none. */
  raw: Record<string, unknown>;
  /** The configuration in force, defaults filled in. */
  effective: Record<string, unknown>;
  fields: ConfigField[];
}

/**
 * `POST /api/config` with `{"config": {...}}`: validated against the schema first; an invalid one is a 400
 * whose `param` is the offending key path and nothing is written. A valid one is written atomically; the
 * daemon (which follows its file) applies it within seconds. From a browser, a change to a dangerous
 * setting first needs a one-time code (see ConfigConfirmation), sent back as `confirmCode`.
 */
export interface ConfigSaveResponse {
  ok: true;
  file: string;
  note: string;
}

/**
 * The `confirm` of a refused `POST /api/config` from a browser that changes dangerous settings: 428 when a
 * one-time code was just sent out of band (the daemon's log and a desktop notification), 403 when the
 * code given was wrong, used, expired or for another change, 429 when too many codes were sent lately.
 * The same body sent again with `confirmCode` saves it.
 */
export interface ConfigConfirmation {
  keys: string[];
  changes: DangerousChange[];
  /** When the code just sent stops working (epoch ms); null when none was sent with this answer. */
  expiresAt: number | null;
}

/** Every 4xx/5xx answer: what went wrong, and which parameter when one was at fault. */
export interface ApiError {
  error: string;
  param?: string;
}

/** Every state change pushed on `/api/events` (server-sent events: `event: <type>`, `data: <json>`). */
export type ApiEvent =
  | { type: 'transition'; data: Transition }
  | { type: 'calls'; data: { count: number; deps: string[] } }
  | { type: 'budget'; data: TokenRate }
  | { type: 'signal'; data: { kind: string; dep: string | null; sessionId: string | null } }
  | { type: 'probe'; data: ProbeRow }
  | { type: 'restart'; data: RestartRow }
  | { type: 'decision'; data: DecisionRow }
  | { type: 'notification'; data: NotificationRow }
  /** A notification as it is sent (after coalescing), for the tray app's native notifications. */
  | { type: 'notice'; data: Notice };
