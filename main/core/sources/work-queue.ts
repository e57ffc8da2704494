/**
 * Inputs (files, databases) waiting for a look, worked off one per turn of the
 * event loop so that a large backlog never blocks the process, plus delayed
 * re-looks ("follow-ups") for inputs that were just busy: the file watcher
 * does not report the end of a burst, so whoever finds new data looks again
 * shortly after.
 */
export class WorkQueue {
  private readonly waiting = new Set<string>();
  private readonly followUps = new Map<string, NodeJS.Timeout>();
  private pumping = false;
  private stopped = false;

  constructor(
    private readonly work: (key: string) => void,
    private readonly followUpMs: number,
  ) {}

  /** Queues `key` for a look soon (once, however often it is added). */
  add(key: string): void {
    if (this.stopped) return;
    this.waiting.add(key);
    if (this.pumping) return;
    this.pumping = true;
    setImmediate(() => this.pump());
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
    return this.waiting.size === 0 && !this.pumping;
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

  stop(): void {
    this.stopped = true;
    for (const timer of this.followUps.values()) clearTimeout(timer);
    this.followUps.clear();
    this.waiting.clear();
  }

  private pump(): void {
    const next = this.waiting.values().next();
    if (next.done || this.stopped) {
      this.pumping = false;
      return;
    }
    this.waiting.delete(next.value);
    this.work(next.value);
    setImmediate(() => this.pump());
  }
}
