/**
 * The descriptors a tailer keeps open for the files it looked at most recently
 * (a few dozen at most), and letting them go: why they are kept is said at
 * `HELD_FILES`.
 */
import { closeSync } from 'node:fs';

/**
 * Files whose descriptor stays open after a look, the most recently looked-at: what a writer appends and then
 * deletes (or replaces) before the next look is read through it, instead of being lost with the name. Files
 * are looked at when they change, so these are the active ones; the rest cost no descriptor. Not on Windows,
 * where an open file's name cannot be used again until it is closed (a writer recreating the file would fail).
 */
const HELD_FILES = process.platform === 'win32' ? 0 : 32;

/** A followed file, as far as holding its descriptor goes. */
export interface Holder {
  /** The descriptor kept open since its last look, or null. */
  held: number | null;
}

export class HeldFiles<T extends Holder> {
  /** Files with a descriptor held open, least recently looked-at first. */
  private readonly holding = new Set<T>();

  /**
   * Keeps `fd` open as `tracked`'s held descriptor (see `HELD_FILES`); false when it is not kept (the caller
   * closes it). The least recently looked-at file beyond the limit lets its descriptor go.
   */
  hold(tracked: T, fd: number): boolean {
    if (HELD_FILES === 0) return false;
    if (tracked.held !== null && tracked.held !== fd) closeSync(tracked.held);
    tracked.held = fd;
    this.holding.delete(tracked);
    this.holding.add(tracked);
    if (this.holding.size > HELD_FILES) {
      const oldest = this.holding.values().next().value;
      if (oldest) this.release(oldest);
    }
    return true;
  }

  release(tracked: T): void {
    this.holding.delete(tracked);
    if (tracked.held === null) return;
    closeSync(tracked.held);
    tracked.held = null;
  }

  /** Lets every held descriptor go. */
  releaseAll(): void {
    for (const tracked of [...this.holding]) this.release(tracked);
  }
}
