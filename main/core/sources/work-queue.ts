/**
 * Inputs (files, databases) waiting for a look, worked off one per turn of the
 * event loop so that a large backlog never blocks the process, plus delayed
 * re-looks ("follow-ups") for inputs that were just busy: the file watcher
 * does not report the end of a burst, so whoever finds new data looks again
 * shortly after.
 *
 * A look may finish later (it returns a promise: its results are being stored
 * off the event loop). Meanwhile other inputs are looked at, never the same one
 * twice at once, and at most `maxBusy` at a time, so reading never runs far
 * ahead of storing.
 */
export class WorkQueue {
  private readonly waiting = new Set<string>();
  private readonly followUps = new Map<string, NodeJS.Timeout>();
  /** Looks that have not finished, by key. */
  private readonly busy = new Map<string, Promise<void>>();
  private pumping = false;
  private stopped = false;

  constructor(
    private readonly work: (key: string) => void | Promise<void>,
    private readonly followUpMs: number,
    private readonly maxBusy = 8,
  ) {}

  /** Queues `key` for a look soon (once, however often it is added). */
  add(key: string): void {
    if (this.stopped) return;
    this.waiting.add(key);
    this.schedule();
  }

  has(key: string): boolean {
    return this.waiting.has(key);
  }

  delete(key: string): void {
    this.waiting.delete(key);
  }

  keys(): string[] {
    return [...this.waiting];
  }

  /** Nothing queued and nothing being worked on. */
  get idle(): boolean {
    return this.waiting.size === 0 && !this.pumping && this.busy.size === 0;
  }

  /** Idle, and no follow-up look is pending either: nothing will happen until something is added. */
  get settled(): boolean {
    return this.idle && this.followUps.size === 0;
  }

  /** A follow-up look at `key` is pending. */
  followingUp(key: string): boolean {
    return this.followUps.has(key);
  }

  /** Looks at `key` again after the follow-up delay (a pending follow-up is pushed back). */
  later(key: string): void {
    if (this.stopped) return;
    const existing = this.followUps.get(key);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.followUps.delete(key);
      this.add(key);
    }, this.followUpMs);
    timer.unref?.();
    this.followUps.set(key, timer);
  }

  /** Stops taking work; resolves when the looks still running have finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.followUps.values()) clearTimeout(timer);
    this.followUps.clear();
    this.waiting.clear();
    await Promise.all(this.busy.values());
  }

  private schedule(): void {
    if (this.pumping || this.stopped) return;
    this.pumping = true;
    setImmediate(() => this.pump());
  }

  private pump(): void {
    this.pumping = false;
    if (this.stopped || this.busy.size >= this.maxBusy) return;
    const key = this.nextFree();
    if (key === undefined) return;
    this.waiting.delete(key);
    const done = this.work(key);
    if (done instanceof Promise) {
      const settled = done
        .catch(() => {})
        .finally(() => {
          this.busy.delete(key);
          // Added again while busy, or held back by the limit: its turn now.
          if (this.waiting.size > 0) this.schedule();
        });
      this.busy.set(key, settled);
    }
    if (this.waiting.size > 0) this.schedule();
  }

  /** The first waiting key not being worked on. */
  private nextFree(): string | undefined {
    for (const key of this.waiting) if (!this.busy.has(key)) return key;
    return undefined;
  }
}
