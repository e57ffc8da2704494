/**
 * Agents that keep a real gateway busy: each session sends a turn through OpenClaw's own CLI, then the next,
 * until stopped, so a storm meets runs in flight the way a busy install has them. Shared by the recovery
 * scenarios and the recovery benchmark.
 */
import type { RealGateway, TurnResult } from './gateway.js';

/** A turn with when it ran (epoch ms). */
export interface TimedTurn extends TurnResult {
  startedAt: number;
  endedAt: number;
}

export interface KeepSendingOptions {
  /** The model a session's turns name (undefined: the agent's primary, with its fallbacks). */
  model?: (session: string) => string | undefined;
  /** Pause between one turn of a session and its next (0: back to back). */
  paceMs?: number;
}

export interface Agents {
  /** Every turn finished so far, in the order they finished. */
  readonly turns: TimedTurn[];
  /**
   * Starts no new turn and waits for those in flight: all of them, or at most `timeoutMs` (stopping the
   * gateway then ends the rest). Safe to call more than once.
   */
  stop(timeoutMs?: number): Promise<void>;
}

export function keepSending(
  gateway: RealGateway,
  sessions: readonly string[],
  options: KeepSendingOptions = {},
): Agents {
  const { model = () => undefined, paceMs = 0 } = options;
  let stopped = false;
  /** The pauses under way, each ended early by stop(). */
  const pauses = new Set<() => void>();
  const turns: TimedTurn[] = [];
  let n = 0;
  const loops = Promise.all(
    sessions.map(async (session) => {
      while (!stopped) {
        n += 1;
        const startedAt = Date.now();
        const result = await gateway.turn(`${session}-${n}`, model(session));
        turns.push({ ...result, startedAt, endedAt: Date.now() });
        if (paceMs > 0 && !stopped) await pause(paceMs);
      }
    }),
  );
  // A person's pace between turns, cut short by stop().
  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(end, ms);
      function end() {
        clearTimeout(timer);
        pauses.delete(end);
        resolve();
      }
      pauses.add(end);
    });
  }
  return {
    turns,
    stop: async (timeoutMs) => {
      stopped = true;
      for (const end of [...pauses]) end();
      if (timeoutMs === undefined) {
        await loops;
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([loops, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
    },
  };
}
