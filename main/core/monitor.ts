/**
 * The composition root of the core: opens the store, wires the sources into it,
 * makes every service (the breakers and the gateway side through compose.ts;
 * incidents, spend, cooldowns, the heartbeat, the local API here) and runs the
 * housekeeping around them (backfill progress, retention). Hosts (the daemon,
 * the Electron app, the rehearsal) create one Monitor and start it.
 */
import { EventEmitter } from 'node:events';
import type { ApiBackend } from '../shared/api/types.js';
import type { Language } from '../shared/i18n.js';
import { type Translator, translator } from '../shared/messages/index.js';
import { removeApiUrl, writeApiUrl } from './api-files/address.js';
import { loadOrCreateApiToken } from './api-files/token.js';
import type { BreakerService } from './breaker/service.js';
import { composeBreakers, composeGatewaySide } from './compose.js';
import { defaultConfigPath, type Environment, type LoadedConfig, processEnvironment } from './config/index.js';
import { runDoctor } from './doctor/index.js';
import type { CallEvent, GatewaySignal } from './events.js';
import { wireIncidentNotices } from './incidents/notices.js';
import { IncidentService } from './incidents/service.js';
import { incidentSettings } from './incidents/settings.js';
import { IncidentStore } from './incidents/store.js';
import { languageOf } from './language.js';
import { type DataDirLock, lockDataDir } from './lock.js';
import type { Logger } from './log.js';
import { BreakerbarMetrics } from './metrics/breakerbar-metrics.js';
import { createDesktopText, type DesktopChannel } from './notify/desktop.js';
import { Heartbeat } from './notify/heartbeat.js';
import { CooldownLoopDetector } from './openclaw/cooldown-loop.js';
import { OpenClawCooldowns } from './openclaw/cooldowns.js';
import { resolveGatewayEndpoint } from './openclaw/gateway-endpoint.js';
import { DEFAULT_QUOTA_COMMAND, QuotaReader } from './openclaw/quota.js';
import { createBackend } from './server/backend.js';
import type { ConfirmationDelivery } from './server/handlers.js';
import { type ApiServer, startApiServer } from './server/http.js';
import { GatewayLogSource, type GatewayLogStatus } from './sources/gateway-log.js';
import { GatewayMetricsSource, type MetricsStatus } from './sources/gateway-metrics.js';
import type { IngestSink, Source, SourceStatus } from './sources/source.js';
import { JsonlTranscriptSource } from './sources/transcripts-jsonl.js';
import { SqliteTranscriptSource } from './sources/transcripts-sqlite.js';
import { SpendTracker } from './spend/tracker.js';
import type { QuotaWindow } from './spend/types.js';
import { explainStartupError } from './startup-errors.js';
import { steadyClock } from './steady-clock.js';
import { DatabaseWatch, fileIdOf, type StoreHealth } from './store/database-watch.js';
import { Store } from './store/db.js';
import { GatewayHistory } from './store/gateway-history.js';
import { IngestWriter } from './store/ingest-writer.js';
import { ensurePrivateDir } from './store/private-files.js';
import { RoomWatch, roomCheck } from './store/room.js';
import { storeFullNotice, storeRoomNotice } from './store/room-notices.js';
import { version } from './version.js';
import type { GatewaySide } from './watchdog/gateway-side.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
const MINUTE_MS = 60 * 1000;
/** A dependency seen in transcripts this recently is theirs: gateway metrics do not count it again. */
const TRANSCRIPT_TRUTH_MS = DAY_MS;
/** How often OpenClaw's cooldown state is looked at: a stat per database, a query only when one changed. */
const COOLDOWN_POLL_MS = 5000;

/** The local API could not start; the message names the cause (see startup-errors.ts). */
export class ServeError extends Error {
  override name = 'ServeError';
}

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

export class Monitor extends EventEmitter<MonitorEvents> {
  private store: Store | null = null;
  /** Stores the transcript batches off the event loop (see ingest-writer.ts). */
  private writer: IngestWriter | null = null;
  private lock: DataDirLock | null = null;
  /** Notices the database file deleted or replaced under the running store. */
  private dbWatch: DatabaseWatch | null = null;
  /** Notices the store out of room (a full disk), and room again. */
  private room: RoomWatch | null = null;
  private sources: Source[] = [];
  private transcriptSources: Source[] = [];
  private gatewayLog: GatewayLogSource | null = null;
  private gatewayMetrics: GatewayMetricsSource | null = null;
  /** Last record time of a transcript call per dependency (the metrics source's "source of truth" test). */
  private readonly transcriptDeps = new Map<string, number>();
  private timers: NodeJS.Timeout[] = [];
  private breakerService: BreakerService | null = null;
  private metrics: BreakerbarMetrics | null = null;
  private server: ApiServer | null = null;
  private gatewaySide: GatewaySide | null = null;
  private incidentService: IncidentService | null = null;
  private heartbeat: Heartbeat | null = null;
  private cooldownReader: OpenClawCooldowns | null = null;
  private cooldownLoops = new CooldownLoopDetector();
  /** Dependencies OpenClaw had a cooldown on since start: their gauge stays (at 0) once it ends. */
  private readonly cooldownDeps = new Set<string>();
  private spendTracker: SpendTracker | null = null;
  private quotaReader: QuotaReader | null = null;
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
    const { dataDir, dbPath } = this.loaded;
    const dir = ensurePrivateDir(dataDir);
    if (dir.kind === 'tightened') this.log.info('data directory made private (0700)', { dataDir });
    if (dir.kind === 'foreign') {
      this.log.warn('data directory is open to other users; left as it is', {
        dataDir,
        mode: dir.mode.toString(8),
        why: dir.reason,
      });
    }
    this.lock = lockDataDir(dataDir);
    try {
      this.store = Store.open(dbPath);
    } catch (error) {
      this.lock.release();
      throw error;
    }
    const opened = fileIdOf(dbPath);
    this.dbWatch = opened ? new DatabaseWatch(dbPath, opened, this.log, this.clock) : null;
    this.room = this.watchRoom(this.store);
    this.every(this.options.storeWatchMs ?? 5000, () => {
      this.dbWatch?.check();
      this.room?.check();
    });
    this.startedAt = this.clock();
    const { backfillDays } = this.loaded.config.ingest;
    const firstCutoff = backfillDays === 0 ? this.startedAt : this.startedAt - backfillDays * DAY_MS;
    // Fixed at the first start, so a restart does not change what counts as history.
    this.cutoff = Number(this.store.getOrInitMeta('ingest.backfillCutoff', String(firstCutoff)));
    for (const { dep, ts } of this.store.recentDependencies(
      ['jsonl', 'sqlite'],
      this.startedAt - TRANSCRIPT_TRUTH_MS,
    )) {
      this.transcriptDeps.set(dep, ts);
    }

    const store = this.store;
    const turnsBefore = store.lastTurnId();
    this.metrics = new BreakerbarMetrics({
      turns: () => store.turnsStoredAfter(turnsBefore),
      snapshots: () => this.breakerService?.snapshots() ?? [],
      sources: () => this.sources.map((source) => source.status()),
      stalledSessions: () => this.breakerService?.stalledSessions() ?? [],
      watchdog: () => this.gatewaySide?.gauges() ?? null,
      openclawCooldowns: () => this.cooldownGauges(),
      openIncidents: () => this.incidentService?.openCount() ?? 0,
      budgets: () => this.spendBudgetsSafely(),
      quota: () => this.quotaReader?.windows() ?? [],
    });
    const environment = this.options.environment ?? processEnvironment();
    this.breakerService = composeBreakers({
      config: this.loaded.config,
      store,
      metrics: this.metrics,
      log: this.log,
      clock: this.clock,
      env: environment.env,
      writes: this.room,
    });
    this.breakerService.start();

    this.sources = this.createSources(store);
    for (const source of this.sources) source.start();
    // Read before the watchdog starts, so that its first check already knows OpenClaw's cooldowns; the
    // loop detector first looks at the next poll, once the notifier is there to tell someone.
    this.cooldownReader = new OpenClawCooldowns({ stateDir: this.loaded.stateDir, log: this.log, clock: this.clock });
    this.cooldownLoops = new CooldownLoopDetector(undefined, this.words());
    this.pollCooldowns(false);
    this.every(this.options.cooldownPollMs ?? COOLDOWN_POLL_MS, () => this.pollCooldowns(true));
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
        cooldownUntil: (dep, now) => this.cooldownReader?.cooldownUntil(dep, now) ?? null,
        desktop: this.options.desktop,
        translator: this.words(),
        writes: this.room,
      });
      this.gatewaySide.start();
    }
    this.incidentService = this.createIncidents(store, this.breakerService, this.metrics);

    this.startSpend(store, environment.env);

    this.prune();
    this.every(HOUR_MS, () => this.prune());
    this.every(this.options.progressIntervalMs ?? 5000, () => this.reportProgress());
    // Made whether or not it is served: the heartbeat words the same status the API answers.
    const backend = this.createBackend(store, this.breakerService, this.metrics);
    this.startHeartbeat(store, backend);
    if (this.options.serve !== false) {
      try {
        await this.serve(backend);
      } catch (error) {
        await this.stop();
        throw error;
      }
    }
  }

  /**
   * Incidents, fed with what the breakers, the gateway side and OpenClaw's cooldowns report, and evaluated on
   * a timer. Started after the gateway side so that its first look already sees the probes and the watchdog.
   */
  private createIncidents(store: Store, breakers: BreakerService, metrics: BreakerbarMetrics): IncidentService {
    const service = new IncidentService({
      store: new IncidentStore(store.db),
      settings: incidentSettings(this.loaded.config),
      clock: this.clock,
      log: this.log,
      writes: this.room ?? undefined,
      ...(this.options.incidentsEvaluateMs ? { evaluateMs: this.options.incidentsEvaluateMs } : {}),
      onClosed: (incident) =>
        metrics.recordIncidentClosed(((incident.closedAt ?? incident.openedAt) - incident.openedAt) / 1000),
      inputs: {
        breakers: () => breakers.breakers(),
        stalledWithoutDependency: () => breakers.stalledWithoutDependency(),
        lastProbe: () => this.gatewaySide?.health.health().last ?? null,
        watchdog: () => this.gatewaySide?.watchdog.status() ?? null,
        sources: () => this.sources.map((source) => source.status()),
        inCooldown: (dep, now) => (this.cooldownReader?.cooldownUntil(dep, now) ?? null) !== null,
        quota: () => this.quotaWindows(),
      },
    });
    breakers.on('transition', (transition) => service.transition(transition));
    const gateway = this.gatewaySide;
    if (gateway) {
      gateway.health.on('probe', (result) => service.probe(result));
      gateway.watchdog.on('decision', (decision) => service.decision(decision));
      gateway.watchdog.on('restart', (row) => service.restart(row));
      gateway.notifier.on('delivered', (row) => service.delivered(row));
      // One alert when an incident opens (another if it turns critical), one recovery when it closes.
      wireIncidentNotices(service, gateway.notifier, this.words(), this.clock);
    }
    service.start();
    return service;
  }

  /** Provider quota windows as OpenClaw last reported them (an exhausted one opens an incident). */
  private quotaWindows(): QuotaWindow[] {
    return this.quotaReader?.windows() ?? [];
  }

  /** Incidents (null before start). */
  get incidents(): IncidentService | null {
    return this.incidentService;
  }

  /** The off-box heartbeat, when `heartbeat.url` is set. */
  private startHeartbeat(store: Store, backend: ApiBackend): void {
    const { heartbeat } = this.loaded.config;
    if (heartbeat.url === null) return;
    const history = this.gatewaySide?.history ?? new GatewayHistory(store.db);
    this.heartbeat = new Heartbeat({
      config: { ...heartbeat, url: heartbeat.url },
      status: () => backend.status(),
      translator: this.words(),
      clock: this.clock,
      log: this.log,
      record: (row) => history.recordNotification(row),
      setMeta: (key, value) => this.store?.setMeta(key, value),
    });
    this.heartbeat.start();
  }

  /** The core as the local API (and the heartbeat) sees it. */
  private createBackend(store: Store, breakers: BreakerService, metrics: BreakerbarMetrics): ApiBackend {
    const environment = this.options.environment ?? processEnvironment();
    return createBackend({
      store,
      storeHealth: () => this.storeHealth(),
      breakers,
      metrics,
      sources: () => this.sources.map((source) => source.status()),
      incidents: this.incidentService ?? undefined,
      cooldowns: this.cooldownReader ?? undefined,
      spend: this.spendTracker ?? undefined,
      language: this.language(),
      gateway: this.gatewaySide ?? undefined,
      configFile: this.loaded.file ?? defaultConfigPath(environment),
      effectiveConfig: () => this.loaded.config as unknown as Record<string, unknown>,
      doctor: () => runDoctor({ configFile: this.loaded.file ?? undefined, environment }),
      subscribeMonitor: (listener) => {
        const calls = (batch: CallEvent[]) =>
          listener({ type: 'calls', data: { count: batch.length, deps: [...new Set(batch.map((c) => c.dep))] } });
        const signals = (batch: GatewaySignal[]) => {
          for (const s of batch)
            listener({ type: 'signal', data: { kind: s.kind, dep: s.dep, sessionId: s.sessionId } });
        };
        this.on('calls', calls);
        this.on('signals', signals);
        return () => {
          this.off('calls', calls);
          this.off('signals', signals);
        };
      },
      clock: this.clock,
    });
  }

  /** Starts the local API and /metrics on the configured loopback port. */
  private async serve(backend: ApiBackend): Promise<void> {
    const { server } = this.loaded.config;
    try {
      this.server = await startApiServer({
        backend,
        host: server.host,
        port: server.port,
        allowNonLoopback: server.allowNonLoopback,
        token: loadOrCreateApiToken(this.loaded.dataDir),
        log: this.log,
        version: version(),
        clock: this.clock,
        staticDir: this.options.staticDir,
        deliverConfirmation: (delivery) => this.showConfirmationCode(delivery),
      });
      writeApiUrl(this.loaded.dataDir, this.server.url);
    } catch (error) {
      // Say what the cause is (a port taken, a permission, a full disk) and what to do about it.
      const { dataDir, dbPath } = this.loaded;
      const address = `${server.host}:${server.port}`;
      const explained = explainStartupError(error, { dataDir, dbPath, address });
      throw new ServeError(explained ?? (error as Error).message, { cause: error });
    }
  }

  /**
   * A code confirming a dangerous config change from a browser, on this machine's desktop (besides the
   * log line the server writes). Whatever `notifications.desktop` says: the code is no notice, and the
   * person making the change needs it.
   */
  private showConfirmationCode(delivery: ConfirmationDelivery): void {
    const { t } = this.words();
    const keys = [...new Set(delivery.changes.map((change) => change.key))];
    const body = t('confirm.notify.body', { code: delivery.code, keys, validMs: delivery.expiresAt - this.clock() });
    const show = this.options.showConfirmationCode ?? this.showDesktopText;
    show(t('confirm.notify.title'), body).catch((error: unknown) =>
      this.log.warn('confirmation code not shown on the desktop', { error: (error as Error).message }),
    );
  }

  private readonly showDesktopText = createDesktopText();

  /** Where the local API listens, once started. */
  get apiUrl(): string | null {
    return this.server?.url ?? null;
  }

  private createSources(store: Store): Source[] {
    const { config, stateDir, gatewayLogDir } = this.loaded;
    // Made with the sources, late in start: a failure to serve the API stops the monitor, the writer with it.
    const room = this.room ?? undefined;
    const writer = new IngestWriter({ store, dbPath: this.loaded.dbPath, log: this.log, writes: room });
    this.writer = writer;
    // A batch refused for lack of room is told to the room watch (said once there); the source keeps its
    // position and reads the same records again, so they are stored once there is room.
    const refused = (error: unknown): never => {
      room?.failed(error, 'calls read from OpenClaw');
      throw error;
    };
    const sink: IngestSink = {
      cursors: (kind) => store.cursors(kind),
      commit: (batch) => {
        try {
          return store.commit(batch);
        } catch (error) {
          return refused(error);
        }
      },
      commitLater: (batch) => writer.commit(batch).catch(refused),
    };
    const common = { sink, cutoff: this.cutoff, reconcileIntervalMs: config.ingest.reconcileIntervalMs, log: this.log };
    const fromTranscripts = (calls: CallEvent[]) => {
      for (const call of calls)
        this.transcriptDeps.set(call.dep, Math.max(call.ts, this.transcriptDeps.get(call.dep) ?? 0));
      this.emit('calls', calls);
    };
    this.transcriptSources = [
      new JsonlTranscriptSource({
        ...common,
        stateDir,
        includeArchives: config.ingest.includeArchives,
        maxLineBytes: config.ingest.maxLineBytes,
        onStored: fromTranscripts,
      }),
      new SqliteTranscriptSource({
        ...common,
        stateDir,
        clock: this.clock,
        onStored: fromTranscripts,
      }),
    ];
    this.gatewayLog = new GatewayLogSource({
      ...common,
      logDir: gatewayLogDir,
      profile: config.profile,
      maxLineBytes: config.ingest.maxLineBytes,
      transcriptsCover: (agentId) => this.transcriptsCoverAgent(agentId),
      onStored: (calls) => this.emit('calls', calls),
      onSignals: (signals) => this.emit('signals', signals),
    });
    const sources: Source[] = [...this.transcriptSources, this.gatewayLog];
    if (config.gatewayMetrics.enabled) {
      const endpoint = resolveGatewayEndpoint(this.loaded, this.options.environment ?? processEnvironment());
      for (const warning of endpoint.warnings) this.log.warn(warning);
      this.gatewayMetrics = new GatewayMetricsSource({
        endpoint: { baseUrl: endpoint.baseUrl, token: endpoint.token, tokenSource: endpoint.tokenSource },
        intervalMs: config.gatewayMetrics.intervalMs,
        sink,
        log: this.log,
        clock: this.clock,
        transcriptsCover: (dep) => this.transcriptsCoverDependency(dep),
        onStored: (calls) => this.emit('calls', calls),
      });
      sources.push(this.gatewayMetrics);
    }
    return sources;
  }

  /**
   * The gateway log's fallback decisions become calls only for agents whose
   * transcripts BreakerBar cannot read; a line naming no agent counts when no
   * transcript is readable at all.
   */
  private transcriptsCoverAgent(agentId: string | null): boolean {
    return this.transcriptSources.some((source) => {
      const agents = source.coveredAgents?.() ?? new Set<string>();
      return agentId === null ? agents.size > 0 : agents.has(agentId);
    });
  }

  /** Transcripts are the source of truth for every dependency they delivered calls for in the last day. */
  private transcriptsCoverDependency(dep: string): boolean {
    const last = this.transcriptDeps.get(dep);
    return last !== undefined && last >= this.clock() - TRANSCRIPT_TRUTH_MS && this.transcriptsCoverAgent(null);
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    if (this.server) removeApiUrl(this.loaded.dataDir, this.server.url);
    await this.server?.close();
    this.server = null;
    // Before the gateway side and the store: an open incident stays open in the store, resumed at the next start.
    this.incidentService?.stop();
    this.incidentService = null;
    await this.heartbeat?.stop();
    this.heartbeat = null;
    await this.gatewaySide?.stop();
    this.gatewaySide = null;
    this.breakerService?.stop();
    this.breakerService = null;
    this.cooldownReader = null;
    await this.quotaReader?.stop();
    this.quotaReader = null;
    this.spendTracker = null;
    await Promise.all(this.sources.map((source) => source.stop()));
    this.sources = [];
    await this.writer?.close();
    this.writer = null;
    this.transcriptSources = [];
    this.gatewayLog = null;
    this.gatewayMetrics = null;
    this.dbWatch = null;
    this.room?.removeAllListeners();
    this.room = null;
    this.store?.close();
    this.store = null;
    this.lock?.release();
    this.lock = null;
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
    return this.cooldownReader;
  }

  /** The health probe, watchdog and notifier (null when started with `gateway: false`). */
  get gateway(): GatewaySide | null {
    return this.gatewaySide;
  }

  get caughtUp(): boolean {
    return this.sources.every((source) => source.caughtUp);
  }

  status(): MonitorStatus {
    return {
      stateDir: this.loaded.stateDir,
      dbPath: this.loaded.dbPath,
      startedAt: this.startedAt,
      backfillCutoff: this.cutoff,
      caughtUp: this.caughtUp,
      sources: this.sources.map((source) => source.status()),
      gatewayLog: this.gatewayLog?.gatewayStatus() ?? null,
      gatewayMetrics: this.gatewayMetrics?.metricsStatus() ?? null,
    };
  }

  private every(ms: number, action: () => void): void {
    const timer = setInterval(action, ms);
    timer.unref?.();
    this.timers.push(timer);
  }

  /**
   * Spend: the report and budget standings over the store, budget alerts checked every minute (told through
   * the notifier), and the quota reader running OpenClaw's usage command on its own timer.
   */
  private startSpend(store: Store, env: NodeJS.ProcessEnv): void {
    const { quota } = this.loaded.config;
    if (quota.enabled) {
      this.quotaReader = new QuotaReader({
        command: quota.command ?? DEFAULT_QUOTA_COMMAND,
        intervalMs: quota.intervalSec * 1000,
        timeoutMs: quota.timeoutSec * 1000,
        // The CLI reads the same OpenClaw state (profile) this instance follows.
        env: { ...env, OPENCLAW_STATE_DIR: this.loaded.stateDir },
        clock: this.clock,
        log: this.log,
      });
      this.quotaReader.start();
    }
    this.spendTracker = new SpendTracker({
      store,
      budgets: () => this.loaded.config.budgets.spend,
      quota: () => this.quotaReader?.windows() ?? [],
      clock: this.clock,
      language: this.language(),
    });
    this.every(this.options.spendCheckMs ?? MINUTE_MS, () => this.checkSpendBudgets());
  }

  private checkSpendBudgets(): void {
    try {
      for (const notice of this.spendTracker?.checkBudgets() ?? []) {
        this.log.warn('spend budget crossed', { title: notice.title });
        this.gatewaySide?.notifier.notify(notice);
      }
    } catch (error) {
      if (this.room?.failed(error, 'a spend alert')) return;
      this.log.warn('checking spend budgets failed; will retry', { error: (error as Error).message });
    }
  }

  /** Budget standings for /metrics; a failing query must not fail the scrape. */
  private spendBudgetsSafely() {
    try {
      return this.spendTracker?.budgets() ?? [];
    } catch (error) {
      this.log.warn('spend budgets unavailable', { error: (error as Error).message });
      return [];
    }
  }

  /** Spend, budgets and quota (null before start). */
  get spend(): SpendTracker | null {
    return this.spendTracker;
  }

  /** Reads OpenClaw's cooldown state if it changed; with `announce`, tells a human about a cooldown that does not end. */
  private pollCooldowns(announce: boolean): void {
    const reader = this.cooldownReader;
    if (!reader) return;
    try {
      reader.poll();
      const now = this.clock();
      for (const cooldown of reader.cooldowns(now)) this.cooldownDeps.add(cooldown.dep);
      if (!announce) return;
      const notices = this.cooldownLoops.observe(reader.snapshot(), now);
      for (const notice of notices) {
        this.log.warn('OpenClaw cooldown does not end', { dep: notice.dep, title: notice.title });
        if (notice.dep) this.incidentService?.cooldownLoop(notice.dep);
        this.gatewaySide?.notifier.notify(notice);
      }
    } catch (error) {
      this.log.warn('reading OpenClaw cooldowns failed; will retry', { error: (error as Error).message });
    }
  }

  /** Seconds of OpenClaw cooldown left per dependency: every breaker's, and every one that had a cooldown. */
  private cooldownGauges(): Array<{ dep: string; seconds: number }> {
    const reader = this.cooldownReader;
    if (!reader) return [];
    const now = this.clock();
    const deps = new Set(this.cooldownDeps);
    for (const snapshot of this.breakerService?.snapshots() ?? []) deps.add(snapshot.dep);
    return [...deps].sort().map((dep) => {
      const until = reader.cooldownUntil(dep, now);
      return { dep, seconds: until === null ? 0 : Math.max(0, (until - now) / 1000) };
    });
  }

  /** The room watch of the store, telling a human (once) when it is full and when it has room again. */
  private watchRoom(store: Store): RoomWatch {
    const { dataDir, dbPath } = this.loaded;
    const room = new RoomWatch({
      clock: this.clock,
      log: this.log,
      dbPath,
      check: roomCheck(dataDir, () => store.tryGrowth()),
    });
    room.on('full', (shortage) => this.gatewaySide?.notifier.notify(storeFullNotice(shortage, dbPath, this.words())));
    room.on('room', (ended) => this.gatewaySide?.notifier.notify(storeRoomNotice(ended, this.words())));
    return room;
  }

  /** The store as the status reports it: a file deleted or replaced under it comes first, then no room. */
  private storeHealth(): StoreHealth {
    const file = this.dbWatch?.health() ?? { ok: true };
    const shortage = this.room?.state();
    if (!file.ok || !shortage) return file;
    return {
      ok: false,
      problem: 'full',
      detail: `${this.loaded.dbPath} cannot grow (${shortage.error}): free space on its disk; nothing read is lost`,
      since: shortage.since,
      refused: shortage.refused,
    };
  }

  private prune(): void {
    if (!this.store) return;
    try {
      const before = this.clock() - this.loaded.config.retention.days * DAY_MS;
      const removed = this.store.prune(before) + new IncidentStore(this.store.db).prune(before);
      if (removed > 0)
        this.log.info('pruned history past retention', { rows: removed, before: new Date(before).toISOString() });
    } catch (error) {
      if (this.room?.failed(error, 'pruning old history')) return;
      this.log.warn('pruning failed; will retry in an hour', { error: (error as Error).message });
    }
  }

  private reportProgress(): void {
    if (this.caughtUp) {
      if (!this.wasCaughtUp) {
        this.wasCaughtUp = true;
        const stored = this.sources.reduce((sum, s) => sum + s.status().stored, 0);
        this.log.info('caught up; following live', { storedSinceStart: stored });
        this.emit('caught-up');
      }
      return;
    }
    for (const status of this.sources.map((source) => source.status())) {
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
