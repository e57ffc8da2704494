/**
 * Warnings about refused requests and connections, at most a few per window. Each one is worth a line when it
 * is rare (a misconfigured client, a probe), but a client sending thousands a second would otherwise write
 * megabytes of log a minute and bury everything else: past the first ones in a window, they are counted, and
 * the count is said in one line when the window ends.
 */
import type { LogFields, Logger } from '../../core/runtime/log.js';

export interface ThrottleOptions {
  /** Lines written per window before counting starts. */
  perWindow?: number;
  windowMs?: number;
  clock?: () => number;
}

export interface ThrottledWarnings {
  warn(message: string, fields?: LogFields): void;
  /** Says what is still counted (at shutdown); the window's timer does it otherwise. */
  flush(): void;
}

export function throttleWarnings(log: Logger, options: ThrottleOptions = {}): ThrottledWarnings {
  const perWindow = options.perWindow ?? 10;
  const windowMs = options.windowMs ?? 10_000;
  const clock = options.clock ?? Date.now;
  let windowStart = Number.NEGATIVE_INFINITY;
  let written = 0;
  let held = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;

  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    for (const [message, count] of held) {
      log.warn(`${message} (${count} more, not logged one by one)`, { count, windowSec: windowMs / 1000 });
    }
    held = new Map();
  };

  return {
    warn(message, fields) {
      const now = clock();
      if (now - windowStart >= windowMs) {
        flush();
        windowStart = now;
        written = 0;
      }
      if (written < perWindow) {
        written += 1;
        log.warn(message, fields);
        return;
      }
      held.set(message, (held.get(message) ?? 0) + 1);
      if (!timer) {
        timer = setTimeout(flush, Math.max(0, windowStart + windowMs - now));
        timer.unref?.();
      }
    },
    flush,
  };
}
