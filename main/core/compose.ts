/**
 * Where the core's services are made and wired to each other, from config: the
 * breakers (engines, prober, token rates, stalls, the fleet link), the gateway
 * side (health probe, restarter, alert windows, notifier, watchdog), incidents
 * and the heartbeat. The monitor calls these and owns what they return; no
 * service creates another, so every dependency between them is visible here.
 */
import { hostname } from 'node:os';
import { type Translator, translator } from '../words/messages/index.js';
import { DependencyCap } from './breaker/dependency-cap.js';
import { BreakerEngines, breakerKeyOf } from './breaker/engines.js';
import { FleetSharing } from './breaker/fleet-sharing.js';
import { Prober } from './breaker/prober.js';
import { BreakerService } from './breaker/service.js';
import type { Config, Environment, LoadedConfig } from './config/index.js';
import { FleetLink } from './fleet/link.js';
import { healthSettings } from './gateway/config.js';
import { HealthProber, resumableStreak } from './gateway/health.js';
import { incidentSettings } from './incidents/config.js';
import { wireIncidentNotices } from './incidents/incident-notices.js';
import { IncidentService } from './incidents/service.js';
import { IncidentStore } from './incidents/store.js';
import type { BreakerbarMetrics } from './metrics/breakerbar-metrics.js';
import { notificationSettings } from './notify/config.js';
import { createNodeNotifierChannel, type DesktopChannel } from './notify/desktop.js';
import { AlertWindows } from './notify/maintenance.js';
import { Notifier } from './notify/notifier.js';
import type { RecurringWindow } from './notify/quiet.js';
import { resolveGatewayEndpoint } from './openclaw/gateway-endpoint.js';
import { languageOf } from './runtime/language.js';
import type { Logger } from './runtime/log.js';
import type { SourceStatus } from './sources/source.js';
import type { QuotaWindow } from './spend/types.js';
import type { Store } from './store/db.js';
import { GatewayHistory, probeRow } from './store/gateway-history.js';
import { reportWriteFailure, type WriteFailures } from './store/room.js';
import { AgentDependencies } from './traffic/dependents.js';
import { type Stalled, StallTracker } from './traffic/stalls.js';
import { TokenRates } from './traffic/tokens.js';
import { watchdogCheckIntervalMs, watchdogSettings } from './watchdog/config.js';
import { GatewaySide } from './watchdog/gateway-side.js';
import { restarterFor } from './watchdog/restarter.js';
import { strategyCheck } from './watchdog/strategy-check.js';
import { Watchdog } from './watchdog/watchdog.js';

export interface BreakerComposition {
  config: Config;
  store: Store;
  metrics: BreakerbarMetrics;
  log: Logger;
  clock: () => number;
  /** The environment active probes run with (their credentials come from it). */
  env: NodeJS.ProcessEnv;
  /** This host's name when `fleet.hostId` is null (the machine's hostname). */
  hostname?: string;
  /** Told of every write that failed for lack of room. */
  writes?: WriteFailures;
}

/** The breaker service and its parts; the fleet link only when `fleet.redisUrl` is set. */
export function composeBreakers(options: BreakerComposition): BreakerService {
  const { config, store, metrics, log, clock } = options;
  // The engines announce through the service, which holds them: the service is bound once made,
  // before anything can feed the engines (they only transition on observe, tick and replay).
  let service: BreakerService | null = null;
  const cap = new DependencyCap(config.breakers.maxDependencies, (dep, bucket, max) =>
    log.warn('too many distinct dependencies: calls to further ones count under <provider>/other', {
      max,
      first: dep,
      bucket,
      fix: 'see `folded` under dependencies in `breakerbar status`; raise breakers.maxDependencies if they are real',
    }),
  );
  const engines = new BreakerEngines({
    config: config.breakers,
    store,
    clock,
    jitter: Math.random,
    dependencyOf: (call) => cap.dependencyOf(call),
    onTransition: (transition) => service?.announce(transition),
    onSnapshot: (snapshot) => metrics.recordCounters(snapshot),
    storeFailed: (what, error) => reportWriteFailure(options.writes, log, what, error),
  });
  const redisUrl = config.fleet.redisUrl;
  let fleet: FleetSharing | null = null;
  if (redisUrl) {
    const hostId = config.fleet.hostId ?? options.hostname ?? hostname();
    fleet = new FleetSharing({
      link: new FleetLink({ url: redisUrl, hostId, log, clock }),
      hostId,
      engines,
      openOnPeerEvidence: config.fleet.openOnPeerEvidence,
      leaseMs: config.fleet.probeLeaseMs,
      metrics,
      log,
      clock,
    });
  }
  const sharing = fleet;
  const prober = new Prober({
    probes: config.breakers.probes,
    engines,
    env: options.env,
    log,
    clock,
    onLatency: (dep, ms) => metrics.recordProbe(dep, ms),
    // Without a fleet a probe needs no lease: the prober probes as a single host would.
    lease: sharing ? (dep) => sharing.lease(dep) : undefined,
  });
  service = new BreakerService({
    config,
    store,
    metrics,
    log,
    clock,
    engines,
    prober,
    tokens: new TokenRates(config.budgets.rates),
    stalls: new StallTracker(),
    dependents: new AgentDependencies(),
    fleet,
    cap,
  });
  return service;
}

export interface GatewayComposition {
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
  /** Told of every write that failed for lack of room. */
  writes?: WriteFailures;
}

/** The health probe, restarter, alert windows, notifier and watchdog, wired to each other, the breakers and the store. */
export function composeGatewaySide(options: GatewayComposition): GatewaySide {
  const { loaded, environment, store, breakers, metrics, log, clock } = options;
  const { config } = loaded;
  const words = options.translator ?? translator(languageOf(config, environment.env));
  const history = new GatewayHistory(store.db);
  const endpoint = resolveGatewayEndpoint(loaded, environment);
  const settings = healthSettings(config.health);
  const health = new HealthProber({
    baseUrl: endpoint.baseUrl,
    ...settings,
    // "Down since" goes on across a config reload or a quick restart of the daemon.
    resume: resumableStreak(history.lastStreak(), clock(), settings),
    clock,
    log,
    record: (result) => {
      metrics.recordGatewayProbe(result);
      try {
        history.recordProbe(probeRow(result));
      } catch (error) {
        reportWriteFailure(options.writes, log, 'a health probe', error);
      }
    },
  });
  const restarter = restarterFor(config, environment, endpoint.baseUrl);
  const windows = new AlertWindows({
    store,
    clock,
    storeFailed: (what, error) => reportWriteFailure(options.writes, log, what, error),
    // listOf's type admits '*'; the days list is parsed without it.
    quietHours: config.alerts.quietHours as RecurringWindow[],
    maintenance: config.alerts.maintenance as RecurringWindow[],
  });
  const notifications = notificationSettings(config.notifications);
  const notifier = new Notifier({
    desktop:
      options.desktop !== undefined ? options.desktop : notifications.desktop ? createNodeNotifierChannel() : null,
    webhooks: notifications.webhooks,
    coalesceMs: notifications.coalesceMs,
    desktopMinSeverity: notifications.desktopMinSeverity,
    digest: notifications.digest,
    quiet: (now) => windows.state(now),
    quietHoursAllowCritical: config.alerts.quietHoursAllowCritical,
    clock,
    log,
    translator: words,
    record: (delivery) => {
      // A suppressed notice is history, not a failed delivery.
      if (!delivery.suppressed) metrics.recordNotification(delivery.channel, delivery.ok);
      try {
        history.recordNotification(delivery);
      } catch (error) {
        reportWriteFailure(options.writes, log, 'a notification delivery', error);
      }
    },
  });
  const watchdog = new Watchdog({
    settings: watchdogSettings(config.watchdog),
    checkIntervalMs: watchdogCheckIntervalMs(config.watchdog),
    store,
    history,
    restarter,
    breakers: () => breakers.snapshots(),
    stalled: () => {
      const unattributed = breakers.stalledWithoutDependency();
      return [
        ...breakers.breakers().flatMap((b) => (b.stalled ? [{ dep: b.dep, ...stallOf(b.stalled) }] : [])),
        ...(unattributed ? [{ dep: null, ...stallOf(unattributed) }] : []),
      ];
    },
    verifyStrategy: async () => strategyCheck(await restarter.verify(health.health().last?.ok ?? null)),
    breakerKey: (dep) => breakerKeyOf({ dep, provider: dep.split('/')[0] ?? dep }, config.breakers.key),
    notify: (notice) => notifier.notify(notice),
    maintenance: () => windows.maintenance()?.reason ?? null,
    translator: words,
    fastProbes: (on) => health.setFast(on),
    metrics,
    log,
    clock,
    writes: options.writes,
    monotonic: options.monotonic,
    cooldownUntil: options.cooldownUntil ? (dep, now) => options.cooldownUntil?.(dep, now) ?? null : undefined,
  });
  return new GatewaySide({
    history,
    health,
    watchdog,
    notifier,
    restarter,
    windows,
    breakers,
    clock,
    translator: words,
  });
}

export interface IncidentComposition {
  config: Config;
  store: Store;
  breakers: BreakerService;
  metrics: BreakerbarMetrics;
  /** The gateway side in force (null when the gateway is not probed, and after stop). */
  gateway: () => GatewaySide | null;
  sources: () => SourceStatus[];
  /** Whether OpenClaw has a cooldown on a dependency at `now`. */
  inCooldown: (dep: string, now: number) => boolean;
  /** Provider quota windows as OpenClaw last reported them (an exhausted one opens an incident). */
  quota: () => QuotaWindow[];
  log: Logger;
  clock: () => number;
  /** Told of every write that failed for lack of room. */
  writes?: WriteFailures;
  /** How often the rules are evaluated (default: the service's). */
  evaluateMs?: number;
  /** The words of the incident notices. */
  translator: Translator;
}

/**
 * Incidents, fed with what the breakers, the gateway side and OpenClaw's cooldowns report, and evaluated on
 * a timer. Made after the gateway side so that its first look already sees the probes and the watchdog.
 */
export function composeIncidents(options: IncidentComposition): IncidentService {
  const { store, breakers, metrics, gateway: gatewaySide, clock } = options;
  const service = new IncidentService({
    store: new IncidentStore(store.db),
    settings: incidentSettings(options.config.incidents),
    clock,
    log: options.log,
    writes: options.writes,
    ...(options.evaluateMs ? { evaluateMs: options.evaluateMs } : {}),
    onClosed: (incident) =>
      metrics.recordIncidentClosed(((incident.closedAt ?? incident.openedAt) - incident.openedAt) / 1000),
    inputs: {
      breakers: () => breakers.breakers(),
      stalledWithoutDependency: () => breakers.stalledWithoutDependency(),
      lastProbe: () => gatewaySide()?.health.health().last ?? null,
      watchdog: () => gatewaySide()?.watchdog.status() ?? null,
      sources: options.sources,
      inCooldown: options.inCooldown,
      quota: options.quota,
    },
  });
  breakers.on('transition', (transition) => service.transition(transition));
  const gateway = gatewaySide();
  if (gateway) {
    gateway.health.on('probe', (result) => service.probe(result));
    gateway.watchdog.on('decision', (decision) => service.decision(decision));
    gateway.watchdog.on('restart', (row) => service.restart(row));
    gateway.notifier.on('delivered', (row) => service.delivered(row));
    // One alert when an incident opens (another if it turns critical), one recovery when it closes.
    wireIncidentNotices(service, gateway.notifier, options.translator, clock);
  }
  return service;
}

/** A stall as the watchdog weighs it: how many sessions, stuck since when, last reported when. */
function stallOf(stalled: Stalled): { sessions: number; since: number; reportedAt: number } {
  return { sessions: stalled.sessions, since: stalled.stuckSince, reportedAt: stalled.latest };
}
