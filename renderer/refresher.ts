/**
 * Turns live events into refreshes: an event marks the views it affects as
 * stale; the visible view is refreshed after a short quiet period (a storm
 * sends a `calls` event per batch), but at least every `maxWaitMs` while events
 * keep coming; hidden views refresh when shown. Nothing runs while the page is
 * hidden: no timers are armed then, and everything stale is refreshed on return.
 */

export interface Refreshable {
  readonly key: string;
  readonly debounceMs: number;
  refresh(): Promise<void>;
}

export class Refresher {
  private readonly stale = new Set<string>();
  private timer: number | null = null;
  private firstPending: number | null = null;
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();

  constructor(
    private readonly visible: () => Refreshable | null,
    private readonly pageVisible: () => boolean,
    /** Upper bound on how long a continuous stream of events can hold a refresh back. */
    private readonly maxWaitMs = 5000,
  ) {}

  /** Views whose data changed. */
  markStale(keys: Iterable<string>): void {
    for (const key of keys) this.stale.add(key);
    this.schedule();
  }

  isStale(key: string): boolean {
    return this.stale.has(key);
  }

  /** Refreshes `view` now (shown, or the user asked); one refresh per view at a time, a request meanwhile runs after it. */
  async now(view: Refreshable): Promise<void> {
    this.cancel();
    this.stale.delete(view.key);
    const running = this.running.get(view.key);
    if (running) {
      this.again.add(view.key);
      return running;
    }
    const run = (async () => {
      try {
        await view.refresh();
      } finally {
        this.running.delete(view.key);
      }
      if (this.again.delete(view.key)) await this.now(view);
    })();
    this.running.set(view.key, run);
    return run;
  }

  /** Page hidden: drop the pending timer (the stale marks stay). */
  pause(): void {
    this.cancel();
  }

  /** Page visible again: refresh the visible view if anything changed meanwhile. */
  resume(): void {
    this.schedule(0);
  }

  private schedule(delay?: number): void {
    const view = this.visible();
    if (!view || !this.stale.has(view.key) || !this.pageVisible()) return;
    const now = Date.now();
    this.firstPending ??= now;
    const wait = delay ?? Math.min(view.debounceMs, Math.max(0, this.firstPending + this.maxWaitMs - now));
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => {
      this.timer = null;
      this.firstPending = null;
      const current = this.visible();
      if (current && this.stale.has(current.key) && this.pageVisible()) void this.now(current);
    }, wait);
  }

  private cancel(): void {
    if (this.timer !== null) window.clearTimeout(this.timer);
    this.timer = null;
    this.firstPending = null;
  }
}
