/**
 * What the watchdog is given (the store, the restarter, the clocks, and the callbacks that read the
 * breakers and the gateway's stalled sessions) and what it tells its listeners. Its own module, so that the
 * parts the watchdog is made of take the same options without importing the watchdog.
 */
import type { Translator } from '../../words/messages/index.js';
import type { BreakerSnapshot } from '../breaker/types.js';
import type { BreakerbarMetrics } from '../metrics/breakerbar-metrics.js';
import type { NoticeInput } from '../notify/notice.js';
import type { Logger } from '../runtime/log.js';
import type { Store } from '../store/db.js';
import type { GatewayHistory, RestartRow } from '../store/gateway-history.js';
import type { WriteFailures } from '../store/room.js';
import type { WatchdogSettings } from './config.js';
import type { Decision } from './policy-decisions.js';
import type { StrategyCheck } from './policy-inputs.js';
import type { Restarter } from './restarter.js';

export interface WatchdogOptions {
  settings: WatchdogSettings;
  checkIntervalMs: number;
  store: Store;
  history: GatewayHistory;
  restarter: Restarter;
  /** Breaker snapshots (Retry-After deadlines, open states). */
  breakers(): BreakerSnapshot[];
  /** The breaker key of a call's dependency (model, provider or credential keyed). */
  breakerKey(dep: string): string;
  /** OpenClaw's own cooldown of a dependency in force at `now` (wall ms), if any. */
  cooldownUntil?(dep: string, now: number): number | null;
  /**
   * Sessions the gateway's log reports stalled, per dependency (null: not known), stuck since when and last
   * reported when (wall ms).
   */
  stalled(): Array<{ dep: string | null; sessions: number; since: number; reportedAt: number }>;
  /** Whether the restart strategy can run here, and how the gateway's service is. */
  verifyStrategy(): Promise<StrategyCheck>;
  notify(notice: NoticeInput): void;
  /** The maintenance window in force, if any (its reason): automatic restarts wait for its end. */
  maintenance?(): string | null;
  /** The words of the notices, in the daemon's language (English when not given). */
  translator?: Translator;
  /** Probe faster while a restart is verified. */
  fastProbes(on: boolean): void;
  metrics: BreakerbarMetrics;
  log: Logger;
  /** Wall clock (stored and shown times). */
  clock: () => number;
  /** Monotonic clock for every duration the policy judges; defaults to `clock`. */
  monotonic?: () => number;
  /** Told of every write that failed for lack of room (the watchdog acts all the same, unrecorded). */
  writes?: WriteFailures;
}

export interface WatchdogEvents {
  decision: [Decision & { ts: number }];
  restart: [RestartRow];
}
