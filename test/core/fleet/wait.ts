/** Small waiting helpers for the fleet tests (real sockets, real time). */
import type { EventEmitter } from 'node:events';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves when `predicate` holds (polled every 5 ms); rejects after `timeoutMs` naming `what`. */
export async function waitUntil(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(5);
  }
}

/** The next `event` (its arguments), or a rejection after `timeoutMs`. */
export function nextEvent<T extends unknown[]>(emitter: EventEmitter, event: string, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      emitter.off(event, handler);
      reject(new Error(`no '${event}' within ${timeoutMs} ms`));
    }, timeoutMs);
    const handler = (...args: unknown[]) => {
      clearTimeout(timer);
      resolve(args as T);
    };
    emitter.once(event, handler);
  });
}

/** A Logger that keeps every line, to check what was (and was not) logged. */
export function recordingLogger() {
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      lines.push({ level, msg, fields });
    };
  return {
    lines,
    text: () => JSON.stringify(lines),
    log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
  };
}
