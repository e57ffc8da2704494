/**
 * The composition root of the core: opens the store, wires the sources into it,
 * makes every service (the breakers, the gateway side, incidents and the
 * heartbeat through compose.ts; the store, sources, OpenClaw's readers, spend
 * and the local API from their own modules) and runs the housekeeping around
 * them (backfill progress, retention) on its timers. Hosts (the daemon, the
 * Electron app, the rehearsal) create one Monitor and start it.
 */
import { EventEmitter } from 'node:events';
import type { BreakerService } from '../../core/breaker/service.js';
import { composeBreakers, composeGatewaySide, composeIncidents } from '../../core/compose.js';
import { type LoadedConfig, processEnvironment } from '../../core/config/index.js';
import type { IncidentService } from '../../core/incidents/service.js';
import { BreakerbarMetrics } from '../../core/metrics/breakerbar-metrics.js';
import type { Heartbeat } from '../../core/notify/heartbeat.js';
import type { OpenClawCooldowns } from '../../core/openclaw/cooldowns.js';
import { OpenClawReaders } from '../../core/openclaw/readers.js';
import { languageOf } from '../../core/runtime/language.js';
import type { Logger } from '../../core/runtime/log.js';
import { steadyClock } from '../../core/runtime/steady-clock.js';
import { FollowedSources } from '../../core/sources/followed-sources.js';
import { checkSpendBudgets, spendBudgetsSafely } from '../../core/spend/budget-alerts.js';
import { SpendTracker } from '../../core/spend/tracker.js';
import type { Store } from '../../core/store/db.js';
import { StoreSide } from '../../core/store/store-side.js';
import type { GatewaySide } from '../../core/watchdog/gateway-side.js';
import type { Language } from '../../words/i18n.js';
import { type Translator, translator } from '../../words/messages/index.js';
import { LocalApi } from '../server/local-api.js';
import { monitorBackend } from '../server/monitor-backend.js';
import { composeHeartbeat } from './heartbeat.js';
import type { MonitorEvents, MonitorOptions, MonitorStatus } from './monitor-types.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
const MINUTE_MS = 60 * 1000;
/** How often OpenClaw's cooldown state is looked at: a stat per database, a query only when one changed. */
const COOLDOWN_POLL_MS = 5000;

export class Monitor extends EventEmitter<MonitorEvents> {
  /** The store, its writer thread and its watches (null before start and after stop). */
  private storeSide: StoreSide | null = null;
  /** The store of the store side, at hand (null before start and after stop). */
  private store: Store | null = null;
  private readonly sources: FollowedSources;
  private readonly openclaw: OpenClawReaders;
  private readonly api: LocalApi;
  private timers: NodeJS.Timeout[] = [];
  private breakerService: BreakerService | null = null;
  private metrics: BreakerbarMetrics | null = null;
  private gatewaySide: GatewaySide | null = null;
  private incidentService: IncidentService | null = null;
  private heartbeat: Heartbeat | null = null;
  private spendTracker: SpendTracker | null = null;
  private startedAt = 0;
  private cutoff = 0;
  private wasCaughtUp = false;
  private readonly clock: () => number;
  private readonly log: Logger;

  constructor(
    readonly loaded: LoadedConfig,
    private readonly options: MonitorOptions,
  ) {
    super();
    this.clock = options.clock ?? Date.now;
    this.log = options.log;
    const { clock, log } = this;
    this.sources = new FollowedSources({
      log,
      clock,
      onCalls: (calls) => this.emit('calls', calls),
      onSignals: (signals) => this.emit('signals', signals),
    });
    this.openclaw = new OpenClawReaders({
      log,
      clock,
      onEndless: (notice) => {
        if (notice.dep) this.incidentService?.cooldownLoop(notice.dep);
        this.gatewaySide?.notifier.notify(notice);
      },
    });
    this.api = new LocalApi({
      loaded,
      log,
      clock,
      words: () => this.words(),
      staticDir: options.staticDir,
      showConfirmationCode: options.showConfirmationCode,
    });
    // Everything the sources store reaches the breakers (registered once, whatever the restarts).
    this.on('calls', (calls) => {
      this.breakerService?.observe(calls);
      this.incidentService?.calls(calls);
    });
    this.on('signals', (signals) => {
      this.breakerService?.signal(signals);
      this.gatewaySide?.gatewaySignals(signals);
    });
  }

  /** The language every notice, webhook and the heartbeat are worded in: the config's, else the system's. */
  private language(): Language {
    return languageOf(this.loaded.config, (this.options.environment ?? processEnvironment()).env);
  }

  private words(): Translator {
    return translator(this.language());
  }

  async start(): Promise<void> {
    const { dbPath } = this.loaded;
    const storeSide = StoreSide.open({
      loaded: this.loaded,
      log: this.log,
      clock: this.clock,
      notifier: () => this.gatewaySide?.notifier,
      words: () => this.words(),
    });
    this.storeSide = storeSide;
    const { store, room } = storeSide;
    this.store = store;
    this.every(this.options.storeWatchMs ?? 5000, () => this.storeSide?.check());
    this.startedAt = this.clock();
    const { backfillDays } = this.loaded.config.ingest;
    const firstCutoff = backfillDays === 0 ? this.startedAt : this.startedAt - backfillDays * DAY_MS;
    // Fixed at the first start, so a restart does not change what counts as history.
    this.cutoff = Number(store.getOrInitMeta('ingest.backfillCutoff', String(firstCutoff)));
    this.sources.remember(store, this.startedAt);

    const turnsBefore = store.lastTurnId();
    this.metrics = new BreakerbarMetrics({
      turns: () => store.turnsStoredAfter(turnsBefore),
      snapshots: () => this.breakerService?.snapshots() ?? [],
      sources: () => this.sources.statuses(),
      stalledSessions: () => this.breakerService?.stalledSessions() ?? [],
      watchdog: () => this.gatewaySide?.gauges() ?? null,
      openclawCooldowns: () =>
        this.openclaw.cooldownGauges(() => (this.breakerService?.snapshots() ?? []).map((snapshot) => snapshot.dep)),
      openIncidents: () => this.incidentService?.openCount() ?? 0,
      budgets: () => spendBudgetsSafely(this.spendTracker, this.log),
      quota: () => this.openclaw.quotaWindows(),
    });
    const environment = this.options.environment ?? processEnvironment();
    this.breakerService = composeBreakers({
      config: this.loaded.config,
      store,
      metrics: this.metrics,
      log: this.log,
      clock: this.clock,
      env: environment.env,
      writes: room,
    });
    this.breakerService.start();

    const sink = storeSide.ingestSink();
    this.sources.follow({ loaded: this.loaded, environment, sink, cutoff: this.cutoff });
    // Read before the watchdog starts, so that its first check already knows OpenClaw's cooldowns; the
    // loop detector first looks at the next poll, once the notifier is there to tell someone.
    this.openclaw.readCooldowns(this.loaded.stateDir, this.words());
    this.openclaw.pollCooldowns(false);
    this.every(this.options.cooldownPollMs ?? COOLDOWN_POLL_MS, () => this.openclaw.pollCooldowns(true));
    this.log.info('following OpenClaw', {
      stateDir: this.loaded.stateDir,
      gatewayLogs: this.loaded.gatewayLogDir,
      db: dbPath,
      backfillSince: new Date(this.cutoff).toISOString(),
    });

    if (this.options.gateway !== false) {
      this.gatewaySide = composeGatewaySide({
        loaded: this.loaded,
        environment,
        store,
        breakers: this.breakerService,
        metrics: this.metrics,
        log: this.log,
        clock: this.clock,
        monotonic: this.options.monotonic ?? (this.options.clock ? this.options.clock : steadyClock()),
        cooldownUntil: (dep, now) => this.openclaw.cooldownUntil(dep, now),
        desktop: this.options.desktop,
        translator: this.words(),
        writes: room,
      });
      this.gatewaySide.start();
    }
    this.incidentService = composeIncidents({
      config: this.loaded.config,
      store,
      breakers: this.breakerService,
      metrics: this.metrics,
      gateway: () => this.gatewaySide,
      sources: () => this.sources.statuses(),
      inCooldown: (dep, now) => this.openclaw.cooldownUntil(dep, now) !== null,
      quota: () => this.openclaw.quotaWindows(),
      log: this.log,
      clock: this.clock,
      writes: room,
      evaluateMs: this.options.incidentsEvaluateMs,
      translator: this.words(),
    });
    this.incidentService.start();

    const spend = this.startSpend(store, environment.env);

    storeSide.prune();
    this.every(HOUR_MS, () => this.storeSide?.prune());
    this.every(this.options.progressIntervalMs ?? 5000, () => this.reportProgress());
    // Made whether or not it is served: the heartbeat words the same status the API answers.
    const backend = monitorBackend({
      loaded: this.loaded,
      environment,
      store,
      storeHealth: () => this.storeSide?.health() ?? { ok: true },
      breakers: this.breakerService,
      metrics: this.metrics,
      sources: () => this.sources.statuses(),
      incidents: this.incidentService,
      cooldowns: this.openclaw.cooldowns ?? undefined,
      spend,
      language: this.language(),
      gateway: this.gatewaySide ?? undefined,
      feed: this,
      clock: this.clock,
    });
    this.heartbeat = composeHeartbeat({
      config: this.loaded.config,
      store,
      gateway: this.gatewaySide,
      backend,
      translator: this.words(),
      clock: this.clock,
      log: this.log,
      setMeta: (key, value) => this.store?.setMeta(key, value),
    });
    this.heartbeat?.start();
    if (this.options.serve !== false) {
      try {
        await this.api.serve(backend);
      } catch (error) {
        await this.stop();
        throw error;
      }
    }
  }

  /**
   * Spend: the report and budget standings over the store, budget alerts checked every minute (told through
   * the notifier), and the quota reader running OpenClaw's usage command on its own timer.
   */
  private startSpend(store: Store, env: NodeJS.ProcessEnv): SpendTracker {
    this.openclaw.readQuota(this.loaded, env);
    const tracker = new SpendTracker({
      store,
      budgets: () => this.loaded.config.budgets.spend,
      quota: () => this.openclaw.quotaWindows(),
      clock: this.clock,
      language: this.language(),
    });
    this.spendTracker = tracker;
    this.every(this.options.spendCheckMs ?? MINUTE_MS, () =>
      checkSpendBudgets(this.spendTracker, {
        log: this.log,
        notifier: this.gatewaySide?.notifier,
        writes: this.storeSide?.room,
      }),
    );
    return tracker;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.api.close();
    // Before the gateway side and the store: an open incident stays open in the store, resumed at the next start.
    this.incidentService?.stop();
    this.incidentService = null;
    await this.heartbeat?.stop();
    this.heartbeat = null;
    await this.gatewaySide?.stop();
    this.gatewaySide = null;
    this.breakerService?.stop();
    this.breakerService = null;
    await this.openclaw.stop();
    this.spendTracker = null;
    await this.sources.stop();
    await this.storeSide?.closeWriter();
    this.sources.clear();
    this.storeSide?.close();
    this.storeSide = null;
    this.store = null;
  }

  /** Where the local API listens, once started. */
  get apiUrl(): string | null {
    return this.api.url;
  }

  /** The breakers (null before start). */
  get breakers(): BreakerService | null {
    return this.breakerService;
  }

  /**
   * OpenClaw's own cooldowns, read from its state (null before start):
   * `cooldowns(now)` lists the windows in force, `cooldownUntil(dep, now)` says until when OpenClaw
   * will not call a dependency.
   */
  get openclawCooldowns(): OpenClawCooldowns | null {
    return this.openclaw.cooldowns;
  }

  /** The health probe, watchdog and notifier (null when started with `gateway: false`). */
  get gateway(): GatewaySide | null {
    return this.gatewaySide;
  }

  /** Incidents (null before start). */
  get incidents(): IncidentService | null {
    return this.incidentService;
  }

  /** Spend, budgets and quota (null before start). */
  get spend(): SpendTracker | null {
    return this.spendTracker;
  }

  get caughtUp(): boolean {
    return this.sources.caughtUp;
  }

  status(): MonitorStatus {
    return {
      stateDir: this.loaded.stateDir,
      dbPath: this.loaded.dbPath,
      startedAt: this.startedAt,
      backfillCutoff: this.cutoff,
      caughtUp: this.caughtUp,
      sources: this.sources.statuses(),
      gatewayLog: this.sources.gatewayLog?.gatewayStatus() ?? null,
      gatewayMetrics: this.sources.gatewayMetrics?.metricsStatus() ?? null,
    };
  }

  private every(ms: number, action: () => void): void {
    const timer = setInterval(action, ms);
    timer.unref?.();
    this.timers.push(timer);
  }

  private reportProgress(): void {
    if (this.caughtUp) {
      if (!this.wasCaughtUp) {
        this.wasCaughtUp = true;
        const stored = this.sources.all.reduce((sum, s) => sum + s.status().stored, 0);
        this.log.info('caught up; following live', { storedSinceStart: stored });
        this.emit('caught-up');
      }
      return;
    }
    for (const status of this.sources.statuses()) {
      if (status.pending === 0) continue;
      this.log.info('reading backlog', {
        source: status.kind,
        inputs: status.inputs,
        pending: status.pending,
        calls: status.calls,
        stored: status.stored,
      });
    }
  }
}
