/**
 * What the recovery benchmark watches beside BreakerBar, from outside it, once a second: the gateway's
 * process start time (from `/readyz`'s `uptimeMs`: an in-process restart keeps the pid, so the uptime is what
 * tells a restart), the time its probe went unanswered, and OpenClaw's own cooldown of the storm's model (read
 * from OpenClaw's state databases with BreakerBar's read-only reader, the state a restart keeps).
 */

import { OpenClawCooldowns } from '../main/core/openclaw/cooldowns.js';
import { silentLogger } from '../main/core/runtime/log.js';
import type { RealGateway } from '../test/e2e/openclaw/harness/gateway.js';

/** A process start later than the one before by more than this is a new process (uptime is wall-clock ms). */
const NEW_PROCESS_SLACK_MS = 5000;
/** Generous: on a loaded machine a probe answered late is not an outage. */
const PROBE_TIMEOUT_MS = 3000;

export interface GatewayWatch {
  /** When each gateway process seen started (epoch ms, from now − uptime), the first one included. */
  readonly starts: number[];
  /** When a new start was first seen by the watch. */
  readonly startsSeenAt: number[];
  /**
   * Total ms from a `/readyz` probe that got no answer (refused, reset, 3 s without one) to the next one that
   * did; a span still open when the watch stops is counted up to then.
   */
  readonly unansweredMs: number;
  /** OpenClaw's cooldown of `dep` as last read (epoch ms), or null when none is in force. */
  cooldownUntil(at?: number): number | null;
  /** Every change of the cooldown deadline seen (null: none in force), in order, with when it was first seen. */
  readonly cooldowns: Array<{ seenAt: number; until: number | null }>;
  stop(): Promise<void>;
}

export function watchGateway(gateway: RealGateway, dep: string, intervalMs = 1000): GatewayWatch {
  const starts: number[] = [];
  const startsSeenAt: number[] = [];
  const cooldowns: Array<{ seenAt: number; until: number | null }> = [];
  const reader = new OpenClawCooldowns({ stateDir: gateway.stateDir, log: silentLogger, clock: Date.now });
  let unansweredMs = 0;
  let downSince: number | null = null;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const asked = Date.now();
      const answer = await gateway.probe('/readyz', PROBE_TIMEOUT_MS);
      const now = Date.now();
      // Unreachable from the first unanswered probe until the next answered one was asked.
      if (answer.status === null) downSince ??= asked;
      else if (downSince !== null) {
        unansweredMs += asked - downSince;
        downSince = null;
      }
      const uptime = uptimeOf(answer.body);
      if (uptime !== null) {
        const start = now - uptime;
        const last = starts.at(-1);
        if (last === undefined || start > last + NEW_PROCESS_SLACK_MS) {
          starts.push(start);
          startsSeenAt.push(now);
        }
      }
      reader.poll();
      const until = reader.cooldownUntil(dep, now);
      if ((cooldowns.at(-1)?.until ?? null) !== until) cooldowns.push({ seenAt: now, until });
      const wait = asked + intervalMs - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return {
    starts,
    startsSeenAt,
    get unansweredMs() {
      return unansweredMs + (downSince === null ? 0 : Date.now() - downSince);
    },
    cooldownUntil: (at = Date.now()) => {
      let deadline: number | null = null;
      for (const c of cooldowns) if (c.seenAt <= at) deadline = c.until;
      return deadline !== null && deadline > at ? deadline : null;
    },
    cooldowns,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

function uptimeOf(body: string): number | null {
  try {
    const parsed = JSON.parse(body) as { uptimeMs?: unknown };
    return typeof parsed.uptimeMs === 'number' && Number.isFinite(parsed.uptimeMs) ? parsed.uptimeMs : null;
  } catch {
    return null;
  }
}
