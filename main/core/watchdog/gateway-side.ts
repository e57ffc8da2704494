/**
 * The gateway side of the monitor: the health probe, the watchdog with its
 * restarter, and the notifier, as the composition root (compose.ts) made and
 * wired them. This object runs them as one: it starts and stops them in order,
 * words breaker transitions and budget crossings as notices, passes the gateway
 * log's restart announcements to the watchdog, and reads the watchdog's gauges.
 */
import { GATEWAY_LOG_RESTARTING } from '../../words/decision-reasons.js';
import type { Translator } from '../../words/messages/index.js';
import type { BreakerService } from '../breaker/service.js';
import { isLiveTransition } from '../breaker/service.js';
import type { GatewaySignal } from '../calls/events.js';
import type { HealthProber } from '../gateway/health.js';
import type { WatchdogGauges } from '../metrics/sources.js';
import type { AlertWindows } from '../notify/maintenance.js';
import type { Notifier } from '../notify/notifier.js';
import type { GatewayHistory } from '../store/gateway-history.js';
import type { Restarter } from './restarter.js';
import type { Watchdog } from './watchdog.js';
import { budgetNotice, transitionNotice } from './watchdog-notices.js';

const SEC = 1000;
/** A log line older than this when read is history (a backfill, a catch-up after sleep), not a live event. */
const LIVE_SIGNAL_MS = 60 * SEC;

export interface GatewaySideParts {
  history: GatewayHistory;
  health: HealthProber;
  watchdog: Watchdog;
  notifier: Notifier;
  restarter: Restarter;
  /** Quiet hours and maintenance windows (by hand or recurring). */
  windows: AlertWindows;
  /** Whose transitions and budget crossings are worded as notices. */
  breakers: BreakerService;
  clock: () => number;
  /** The daemon's language, resolved once: every notice is worded in it. */
  translator: Translator;
}

export class GatewaySide {
  readonly history: GatewayHistory;
  readonly health: HealthProber;
  readonly watchdog: Watchdog;
  readonly notifier: Notifier;
  readonly restarter: Restarter;
  /** Quiet hours and maintenance windows (by hand or recurring). */
  readonly windows: AlertWindows;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly words: Translator;

  constructor(private readonly options: GatewaySideParts) {
    this.history = options.history;
    this.health = options.health;
    this.watchdog = options.watchdog;
    this.notifier = options.notifier;
    this.restarter = options.restarter;
    this.windows = options.windows;
    this.words = options.translator;
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
      this.watchdog.gatewayRestarting(GATEWAY_LOG_RESTARTING);
    }
  }

  /** For the metrics gauges. */
  gauges(): WatchdogGauges {
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
