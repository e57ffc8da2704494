/**
 * The core as the local API sees it: status, history, metrics, controls and a
 * stream of changes, assembled from the monitor's parts. The HTTP layer
 * (http.ts) only speaks this interface.
 */
import type { BreakerService } from '../breaker/service.js';
import type { Transition } from '../breaker/types.js';
import { emptyOutcomeCounts } from '../classify.js';
import type { SourceStatus } from '../sources/source.js';
import type { Store } from '../store/db.js';
import { version } from '../version.js';
import type { ApiBackend, ApiEvent, ApiHistory, ApiStatus, HistoryQuery, TokenRate } from './api-types.js';
import type { BreakerbarMetrics } from './metrics.js';

export interface BackendParts {
  store: Store;
  breakers: BreakerService;
  metrics: BreakerbarMetrics;
  sources: () => SourceStatus[];
  /** Subscribes to the monitor's own events (calls, signals); returns the unsubscribe function. */
  subscribeMonitor: (listener: (event: ApiEvent) => void) => () => void;
  clock: () => number;
}

export function createBackend(parts: BackendParts): ApiBackend {
  return {
    status(): ApiStatus {
      return {
        version: version(),
        generatedAt: parts.clock(),
        breakers: parts.breakers.breakers(),
        tokens: parts.breakers.tokenRates(),
        sources: parts.sources(),
        gateway: null,
        watchdog: null,
      };
    },

    history(query: HistoryQuery): ApiHistory {
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
        restarts: parts.store.restartsBetween(query.from, query.to),
      };
    },

    metrics: () => parts.metrics.exposition(),

    control: (request) => parts.breakers.control(request.dep, request.action, request.reason),

    subscribe(listener) {
      const transition = (data: Transition) => listener({ type: 'transition', data });
      const budget = (data: TokenRate) => listener({ type: 'budget', data });
      parts.breakers.on('transition', transition);
      parts.breakers.on('budget', budget);
      const unsubscribeMonitor = parts.subscribeMonitor(listener);
      return () => {
        parts.breakers.off('transition', transition);
        parts.breakers.off('budget', budget);
        unsubscribeMonitor();
      };
    },
  };
}
