/**
 * The 1 s ticker for countdowns and relative times, running only while the
 * page is visible: a hidden window or background tab costs no CPU.
 */
import { countdown, relativeTime, timeLeft, words } from './format.js';

/** Re-renders every `data-live` element under `root` for `now`. */
export function renderLive(root: ParentNode, now = Date.now()): void {
  for (const element of root.querySelectorAll<HTMLElement>('[data-live]')) {
    const ts = Number(element.dataset.ts);
    if (!Number.isFinite(ts)) continue;
    const kind = element.dataset.live;
    const value =
      kind === 'countdown'
        ? countdown(ts, now)
        : kind === 'left'
          ? timeLeft(ts, now)
          : kind === 'since'
            ? words().duration(now - ts)
            : relativeTime(ts, now);
    if (element.textContent !== value) element.textContent = value;
    if (kind !== 'since') element.title = new Date(ts).toLocaleString();
  }
}

export class Ticker {
  private timer: number | null = null;

  constructor(
    private readonly root: ParentNode,
    private readonly onTick: (now: number) => void = () => {},
  ) {}

  start(): void {
    if (this.timer !== null) return;
    this.tick();
    this.timer = window.setInterval(() => this.tick(), 1000);
  }

  stop(): void {
    if (this.timer === null) return;
    window.clearInterval(this.timer);
    this.timer = null;
  }

  get running(): boolean {
    return this.timer !== null;
  }

  private tick(): void {
    const now = Date.now();
    renderLive(this.root, now);
    this.onTick(now);
  }
}
