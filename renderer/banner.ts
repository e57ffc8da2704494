/**
 * The headline banner above every view: one sentence that says what is wrong,
 * what BreakerBar is doing about it and until when, coloured by its tone. Its
 * words come from the shared headline (main/api/headline.ts), the same the
 * tray and `breakerbar status` open with; re-worded every second (times in it
 * move) and whenever a newer status arrives.
 */

import { headline, headlineText } from '../main/api/headline.js';
import type { ApiStatus } from '../main/api/types.js';
import type { Translator } from '../main/words/messages/index.js';

export class HeadlineBanner {
  private status: ApiStatus | null = null;
  private failure: string | null = null;

  constructor(
    readonly element: HTMLElement,
    private readonly words: () => Translator,
  ) {
    element.setAttribute('role', 'status');
    this.render(Date.now());
  }

  /** A status newer than the one shown (the overview's, or the shell's own read). */
  show(status: ApiStatus, now = Date.now()): void {
    if (this.status !== null && status.generatedAt < this.status.generatedAt) return;
    this.status = status;
    this.failure = null;
    this.render(now);
  }

  /** The status could not be read: said in the banner until one can. */
  failed(error: string, now = Date.now()): void {
    this.failure = error;
    this.render(now);
  }

  render(now: number): void {
    const t = this.words();
    let tone: string;
    let text: string;
    if (this.failure !== null && this.status === null) {
      tone = 'critical';
      text = t.t('dashboard.headline.failed', { error: this.failure });
    } else if (this.status === null) {
      tone = 'pending';
      text = t.t('dashboard.headline.loading');
    } else {
      const line = headline(this.status, now);
      tone = line.tone;
      text = headlineText(line, t);
    }
    if (this.element.dataset.tone !== tone) this.element.dataset.tone = tone;
    if (this.element.textContent !== text) this.element.textContent = text;
  }
}
