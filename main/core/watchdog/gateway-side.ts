/**
 * The gateway side of the monitor, assembled from config: the health probe,
 * the watchdog with its restarter, and the notifier, wired to each other, to
 * the breakers and to the store. The monitor creates one and starts it after
 * the sources; the daemon, the app and the rehearsal get the same wiring.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { type Translator, translator } from '../../shared/messages/index.js';
import { breakerKeyOf } from '../breaker/runner.js';
import type { BreakerService } from '../breaker/service.js';
import { isLiveTransition } from '../breaker/service.js';
import type { Environment, LoadedConfig } from '../config/index.js';
import { toMs } from '../config/schema.js';
import type { GatewaySignal } from '../events.js';
import type { ServiceHealth, StrategyEnvironment, StrategyVerification } from '../gateway/control.js';
import { HealthMonitor } from '../gateway/health.js';
import { healthSettings } from '../gateway/settings.js';
import { languageOf } from '../language.js';
import type { Logger } from '../log.js';
import { createNodeNotifierChannel, type DesktopChannel } from '../notify/desktop.js';
import { AlertWindows } from '../notify/maintenance.js';
import { Notifier } from '../notify/notifier.js';
import type { RecurringWindow } from '../notify/quiet.js';
import type { WebhookConfig } from '../notify/webhook-format.js';
import { resolveGatewayEndpoint } from '../openclaw/gateway-endpoint.js';
import type { BreakerbarMetrics } from '../server/metrics.js';
import type { Store } from '../store/db.js';
import { GatewayHistory, probeRow } from '../store/gateway-history.js';
import { budgetNotice, transitionNotice } from './notices.js';
import type { StrategyCheck } from './policy.js';
import { Restarter } from './restarter.js';
import { WatchdogRunner } from './runner.js';
import { restarterSettings, watchdogCheckIntervalMs, watchdogSettings } from './settings.js';

const SEC = 1000;
/** A log line older than this when read is history (a backfill, a catch-up after sleep), not a live event. */
const LIVE_SIGNAL_MS = 60 * SEC;

export interface GatewaySideOptions {
  loaded: LoadedConfig;
  environment: Environment;
  store: Store;
  breakers: BreakerService;
  metrics: BreakerbarMetrics;
  log: Logger;
  clock: () => number;
  /** OpenClaw's own cooldown of a dependency in force at `now` (wall ms): a storm restart waits for it. */
  cooldownUntil?(dep: string, now: number): number | null;
  /** Monotonic clock for the watchdog's durations (defaults to `clock`, which tests and the rehearsal control). */
  monotonic?: () => number;
  /** The Electron app passes its native channel; undefined means node-notifier when enabled; null none. */
  desktop?: DesktopChannel | null;
  /** The words of every notice; defaults to the language the config and environment choose. */
  translator?: Translator;
}

/** The service manager's view of the gateway, as the watchdog policy weighs it. */
const SERVICE_HEALTH: Record<ServiceHealth, StrategyCheck['service']> = {
  running: 'running',
  starting: 'running',
  respawn_pending: 'parked',
  parked: 'parked',
  unloaded: 'unloaded',
  stopped: 'stopped',
  stopping: 'stopped',
  failed: 'stopped',
  disabled: 'stopped',
  unknown: 'unknown',
};

/** A strategy verification as the policy takes it: can it run, why not, and how the service is. */
export function strategyCheck(verification: StrategyVerification): StrategyCheck {
  return {
    runnable: verification.runnable,
    problem: verification.problem,
    service: verification.service === null ? 'none' : SERVICE_HEALTH[verification.service.health],
  };
}

/** What the restart strategies need to know about this machine. */
export function strategyEnvironment(environment: Environment, profile: string | null): StrategyEnvironment {
  return {
    platform: environment.platform,
    uid: typeof process.getuid === 'function' ? process.getuid() : null,
    profile,
    env: environment.env,
    home: environment.home,
    fileExists: existsSync,
    exists(path) {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
  };
}

export class GatewaySide {
  readonly history: GatewayHistory;
  readonly health: HealthMonitor;
  readonly watchdog: WatchdogRunner;
  readonly notifier: Notifier;
  readonly restarter: Restarter;
  /** Quiet hours and maintenance windows (by hand or recurring). */
  readonly windows: AlertWindows;
  private readonly unsubscribe: Array<() => void> = [];
  /** The daemon's language, resolved once: every notice is worded in it. */
  private readonly words: Translator;

  constructor(private readonly options: GatewaySideOptions) {
    const { loaded, environment, store, breakers, metrics, log, clock } = options;
    const { config } = loaded;
    this.words = options.translator ?? translator(languageOf(config, environment.env));
    this.history = new GatewayHistory(store.db);
    const endpoint = resolveGatewayEndpoint(loaded, environment);
    this.health = new HealthMonitor({
      baseUrl: endpoint.baseUrl,
      ...healthSettings(config),
      clock,
      log,
      record: (result) => {
        metrics.recordGatewayProbe(result);
        this.history.recordProbe(probeRow(result));
      },
    });
    this.restarter = new Restarter(restarterSettings(config), strategyEnvironment(environment, config.profile));
    this.windows = new AlertWindows({
      store,
      clock,
      // listOf's type admits '*'; the days list is parsed without it.
      quietHours: config.alerts.quietHours as RecurringWindow[],
      maintenance: config.alerts.maintenance as RecurringWindow[],
    });
    this.notifier = new Notifier({
      desktop:
        options.desktop !== undefined
          ? options.desktop
          : config.notifications.desktop
            ? createNodeNotifierChannel()
            : null,
      webhooks: config.notifications.webhooks as WebhookConfig[],
      coalesceMs: toMs(config.notifications.coalesceSec, 'sec'),
      desktopMinSeverity: config.notifications.desktopMinSeverity,
      digest: config.notifications.digest,
      quiet: (now) => this.windows.state(now),
      quietHoursAllowCritical: config.alerts.quietHoursAllowCritical,
      clock,
      log,
      translator: this.words,
      record: (delivery) => {
        // A suppressed notice is history, not a failed delivery.
        if (!delivery.suppressed) metrics.recordNotification(delivery.channel, delivery.ok);
        this.history.recordNotification(delivery);
      },
    });
    this.watchdog = new WatchdogRunner({
      settings: watchdogSettings(config),
      checkIntervalMs: watchdogCheckIntervalMs(config),
      store,
      history: this.history,
      restarter: this.restarter,
      breakers: () => breakers.snapshots(),
      stalled: () =>
        breakers
          .breakers()
          .flatMap((b) =>
            b.stalled ? [{ dep: b.dep, sessions: b.stalled.sessions, since: b.stalled.stuckSince }] : [],
          ),
      verifyStrategy: async () => strategyCheck(await this.restarter.verify()),
      breakerKey: (dep) => breakerKeyOf({ dep, provider: dep.split('/')[0] ?? dep }, config.breakers.key),
      notify: (notice) => this.notifier.notify(notice),
      maintenance: () => this.windows.maintenance()?.reason ?? null,
      translator: this.words,
      fastProbes: (on) => this.health.setFast(on),
      metrics,
      log,
      clock,
      monotonic: options.monotonic,
      cooldownUntil: options.cooldownUntil ? (dep, now) => options.cooldownUntil?.(dep, now) ?? null : undefined,
    });
  }

  start(): void {
    const { breakers, clock } = this.options;
    const onProbe = this.health.on.bind(this.health);
    onProbe('probe', (result) => this.watchdog.probe(result));
    const transition = (t: Parameters<typeof transitionNotice>[0]) => {
      // History read during a backfill is stored, not announced.
      if (!isLiveTransition(t, clock())) return;
      const notice = transitionNotice(t, clock(), this.words);
      if (notice) this.notifier.notify(notice);
    };
    const budget = (rate: Parameters<typeof budgetNotice>[0]) =>
      this.notifier.notify(budgetNotice(rate, clock(), this.words));
    breakers.on('transition', transition);
    breakers.on('budget', budget);
    this.unsubscribe.push(
      () => breakers.off('transition', transition),
      () => breakers.off('budget', budget),
    );
    this.notifier.start();
    this.watchdog.start();
    this.health.start();
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
    this.health.removeAllListeners('probe');
    await this.health.stop();
    await this.watchdog.stop();
    await this.notifier.stop();
  }

  /**
   * Gateway log signals as they are read. The gateway announcing its own in-process restart tells the
   * watchdog before its port starts refusing: that restart is not a death. Lines read from history are not news.
   */
  gatewaySignals(signals: readonly GatewaySignal[]): void {
    const now = this.options.clock();
    for (const signal of signals) {
      if (signal.kind !== 'gateway_restart' || now - signal.ts > LIVE_SIGNAL_MS) continue;
      this.watchdog.gatewayRestarting('the gateway log says it is restarting itself (SIGUSR2)');
    }
  }

  /** For the metrics gauges. */
  gauges() {
    const now = this.options.clock();
    const status = this.watchdog.policy.state();
    const last = this.health.health().last;
    return {
      gatewayUp: last === null ? null : last.ok,
      consecutiveChecks: status.consecutiveChecks,
      paused: this.watchdog.policy.paused(now),
      budgetRemaining: this.watchdog.policy.budgetRemaining(now),
      diverging: status.divergenceAlerted,
    };
  }
}
