/**
 * Which core the app talks to. There is exactly one core per data directory
 * (its lock says whether one runs): when a BreakerBar daemon holds it (a
 * service installed with `breakerbar service install`, or a daemon started by
 * hand) the app attaches to that one through its local API; otherwise the app
 * starts the same daemon code itself, in an Electron utility process, and then
 * attaches to it the same way. Pure: the lock's state and the address file's
 * content in, a decision out.
 */
import type { LockState } from '../core/runtime/lock.js';

export type CoreDecision =
  /** A daemon holds the data directory: talk to it (`url` null: it has not written its address yet). */
  | { kind: 'attach'; pid: number | null; url: string | null }
  /** Nobody does: start our own core. */
  | { kind: 'start' }
  /** The lock cannot be read and nothing says where a core would be: tell the user why. */
  | { kind: 'unknown'; reason: string };

export function decideCore(lock: LockState, writtenUrl: string | null): CoreDecision {
  if (lock.held === true) return { kind: 'attach', pid: lock.pid, url: writtenUrl };
  if (lock.held === false) return { kind: 'start' };
  // An unreadable lock (permissions, a damaged file) is no reason to start a second core on top of a
  // running one: an address written by an instance is worth trying (the supervisor checks it answers).
  return writtenUrl === null
    ? { kind: 'unknown', reason: lock.reason }
    : { kind: 'attach', pid: null, url: writtenUrl };
}

/** The daemon flag that keeps the core's own desktop notifications off: the app shows native ones instead. */
export const NO_DESKTOP_FLAG = '--no-desktop';

/** The arguments our own core runs with: the very `breakerbar daemon`, its desktop notifications left to the app. */
export function embeddedCoreArgs(): string[] {
  return ['daemon', NO_DESKTOP_FLAG];
}

/**
 * How long to wait before starting our core again after it exited: doubling from `minMs` to `maxMs`, and
 * from `minMs` again once a run lasted `stableMs` (a core that ran for an hour and crashed is no loop).
 */
export function nextBackoff(previousMs: number | null, ranForMs: number, t: BackoffTiming): number {
  if (previousMs === null || ranForMs >= t.stableMs) return t.minMs;
  return Math.min(previousMs * 2, t.maxMs);
}

export interface BackoffTiming {
  minMs: number;
  maxMs: number;
  stableMs: number;
}
