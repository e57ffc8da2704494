/**
 * Storm control for notifications: a 429 storm can open the same breaker
 * hundreds of times a minute, and nobody wants hundreds of pings. The first
 * notice of a (kind, dep) goes out at once; the rest of that interval is
 * folded into one summary. Pure: time is only what the caller passes in.
 */
import type { Formatters } from '../../words/i18n.js';
import { type Translator, translator } from '../../words/messages/index.js';
import { maxSeverity, type Notice } from './notice.js';

interface Slot {
  /** When the last notice of this key went out: the interval runs from here. */
  sentAt: number;
  /** Events folded since then (sum of their counts). */
  folded: number;
  /** The newest folded notice: the summary shows it, since it is the most current. */
  latest: Notice | null;
}

export class Coalescer {
  private readonly slots = new Map<string, Slot>();

  constructor(
    private readonly intervalMs: number,
    /** The words of a summary (the daemon's language). */
    private readonly t: Translator = translator('en'),
  ) {}

  /** The notice to send now, or null when it was folded into a later summary. */
  offer(notice: Notice, now: number): Notice | null {
    const key = keyOf(notice);
    const slot = this.slots.get(key);
    if (slot === undefined) {
      this.slots.set(key, { sentAt: now, folded: 0, latest: null });
      return notice;
    }
    if (now - slot.sentAt < this.intervalMs) {
      slot.folded += notice.count;
      slot.latest =
        slot.latest === null ? notice : { ...notice, severity: maxSeverity(slot.latest.severity, notice.severity) };
      return null;
    }
    // The interval is over. If due() has not collected the folded ones yet, this
    // notice joins them and the summary goes out now, so nothing is reported out of order.
    if (slot.latest === null) {
      slot.sentAt = now;
      return notice;
    }
    const summary = summarize(
      { ...notice, severity: maxSeverity(slot.latest.severity, notice.severity) },
      slot.folded + notice.count,
      now - slot.sentAt,
      this.t,
    );
    this.slots.set(key, { sentAt: now, folded: 0, latest: null });
    return summary;
  }

  /** One summary per key whose interval ended with folded notices; quiet keys are forgotten. */
  due(now: number): Notice[] {
    const out: Notice[] = [];
    for (const [key, slot] of this.slots) {
      if (now - slot.sentAt < this.intervalMs) continue;
      if (slot.latest === null) {
        this.slots.delete(key);
        continue;
      }
      out.push(summarize(slot.latest, slot.folded, now - slot.sentAt, this.t));
      this.slots.set(key, { sentAt: now, folded: 0, latest: null });
    }
    return out;
  }

  /** Keys remembered (memory use: quiet keys are dropped by due()). */
  tracked(): number {
    return this.slots.size;
  }

  /** Events folded and not yet reported in a summary. */
  pending(): number {
    let total = 0;
    for (const slot of this.slots.values()) total += slot.folded;
    return total;
  }
}

function keyOf(notice: Notice): string {
  return JSON.stringify([notice.kind, notice.dep]);
}

function summarize(latest: Notice, count: number, spanMs: number, t: Translator): Notice {
  return { ...latest, count, body: t.t('notices.coalesced', { body: latest.body, count, spanMs: roundSpan(spanMs) }) };
}

/** A summary's span to one unit (45 s, 5 min, 2 h): it is approximate anyway, and shorter to read. */
export function roundSpan(ms: number): number {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 90) return seconds * 1000;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return minutes * 60_000;
  return Math.round(minutes / 60) * 3_600_000;
}

/** `45 s`, `5 min`, `2 h` (in the formatters' language). */
export function formatSpan(ms: number, f: Formatters = translator('en')): string {
  return f.duration(roundSpan(ms));
}
