/**
 * The off-box heartbeat as the composition root builds it: the core's
 * `Heartbeat` carries what it is given to push, and what it says is the
 * headline of the status the local API answers, in the daemon's language.
 */
import type { Config } from '../../core/config/index.js';
import { heartbeatSettings } from '../../core/notify/config.js';
import { Heartbeat, type HeartbeatSaying } from '../../core/notify/heartbeat.js';
import type { Logger } from '../../core/runtime/log.js';
import type { Store } from '../../core/store/db.js';
import { GatewayHistory } from '../../core/store/gateway-history.js';
import type { GatewaySide } from '../../core/watchdog/gateway-side.js';
import type { Translator } from '../../words/messages/index.js';
import { headline, headlineText } from '../headline.js';
import type { ApiBackend } from '../server/api-backend.js';
import type { ApiStatus } from '../types.js';

/** The headline's tone and words, and the last probe's latency, of the status `status()` answers at `now`. */
export function headlineSaying(status: () => ApiStatus, translator: Translator): (now: number) => HeartbeatSaying {
  return (now) => {
    const answered = status();
    const line = headline(answered, now);
    return {
      status: line.tone,
      text: headlineText(line, translator),
      pingMs: answered.gateway?.last?.latencyMs ?? null,
    };
  };
}

export interface HeartbeatComposition {
  config: Config;
  store: Store;
  gateway: GatewaySide | null;
  /** The status the heartbeat words: the local API's backend. */
  backend: ApiBackend;
  translator: Translator;
  clock: () => number;
  log: Logger;
  /** Keeps the last push's outcome across restarts. */
  setMeta: (key: string, value: string) => void;
}

/** The off-box heartbeat, when `heartbeat.url` is set (null otherwise). */
export function composeHeartbeat(options: HeartbeatComposition): Heartbeat | null {
  const settings = heartbeatSettings(options.config.heartbeat);
  if (settings === null) return null;
  const history = options.gateway?.history ?? new GatewayHistory(options.store.db);
  return new Heartbeat({
    config: settings,
    say: headlineSaying(() => options.backend.status(), options.translator),
    clock: options.clock,
    log: options.log,
    record: (row) => history.recordNotification(row),
    setMeta: options.setMeta,
  });
}
