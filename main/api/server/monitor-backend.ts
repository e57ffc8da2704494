/**
 * The backend of the local API (and of the heartbeat, which words the same status) assembled from a running
 * monitor's parts: the store, breakers, sources, incidents, cooldowns, spend and gateway side, the config in
 * force, the doctor, and the monitor's own calls and signals as a stream.
 */

import type { BreakerService } from '../../core/breaker/service.js';
import type { CallEvent, GatewaySignal } from '../../core/calls/events.js';
import { defaultConfigPath, type Environment, type LoadedConfig } from '../../core/config/index.js';
import { runDoctor } from '../../core/doctor/index.js';
import type { IncidentService } from '../../core/incidents/service.js';
import type { BreakerbarMetrics } from '../../core/metrics/breakerbar-metrics.js';
import type { OpenClawCooldowns } from '../../core/openclaw/cooldowns.js';
import type { SourceStatus } from '../../core/sources/source.js';
import type { SpendTracker } from '../../core/spend/tracker.js';
import type { StoreHealth } from '../../core/store/database-watch.js';
import type { Store } from '../../core/store/db.js';
import type { GatewaySide } from '../../core/watchdog/gateway-side.js';
import type { Language } from '../../words/i18n.js';
import type { ApiBackend } from './api-backend.js';
import { createBackend } from './backend.js';

/** The monitor's own events, streamed to the API's subscribers. */
export interface MonitorFeed {
  on(event: 'calls', listener: (calls: CallEvent[]) => void): unknown;
  on(event: 'signals', listener: (signals: GatewaySignal[]) => void): unknown;
  off(event: 'calls', listener: (calls: CallEvent[]) => void): unknown;
  off(event: 'signals', listener: (signals: GatewaySignal[]) => void): unknown;
}

export interface MonitorBackendParts {
  loaded: LoadedConfig;
  environment: Environment;
  store: Store;
  storeHealth: () => StoreHealth;
  breakers: BreakerService;
  metrics: BreakerbarMetrics;
  sources: () => SourceStatus[];
  incidents?: IncidentService;
  cooldowns?: OpenClawCooldowns;
  spend: SpendTracker;
  language: Language;
  gateway?: GatewaySide;
  feed: MonitorFeed;
  clock: () => number;
}

/** The core as the local API (and the heartbeat) sees it. */
export function monitorBackend(parts: MonitorBackendParts): ApiBackend {
  const { loaded, environment, feed } = parts;
  return createBackend({
    store: parts.store,
    storeHealth: parts.storeHealth,
    breakers: parts.breakers,
    metrics: parts.metrics,
    sources: parts.sources,
    incidents: parts.incidents,
    cooldowns: parts.cooldowns,
    spend: parts.spend,
    language: parts.language,
    gateway: parts.gateway,
    configFile: loaded.file ?? defaultConfigPath(environment),
    effectiveConfig: () => loaded.config as unknown as Record<string, unknown>,
    doctor: () => runDoctor({ configFile: loaded.file ?? undefined, environment }),
    subscribeMonitor: (listener) => {
      const calls = (batch: CallEvent[]) =>
        listener({ type: 'calls', data: { count: batch.length, deps: [...new Set(batch.map((c) => c.dep))] } });
      const signals = (batch: GatewaySignal[]) => {
        for (const s of batch) listener({ type: 'signal', data: { kind: s.kind, dep: s.dep, sessionId: s.sessionId } });
      };
      feed.on('calls', calls);
      feed.on('signals', signals);
      return () => {
        feed.off('calls', calls);
        feed.off('signals', signals);
      };
    },
    clock: parts.clock,
  });
}
