/**
 * The breaker's sliding window over event time, with counts that stay exact,
 * without walking the window, for the two window ends a breaker asks about:
 *
 * - the latest event time seen (`add`'s `end`): what trips a closed breaker;
 * - the latest time of any kind seen (`at(t)` with the newest `t`, which a
 *   tick moves past the newest event): what a snapshot shows.
 *
 * Observations arriving in time order (the usual case) are appended to a
 * sorted array that each window leaves through its own head pointer, which
 * only ever moves forward: O(1) amortised. Late ones (older than one already
 * held: calls of one session read after another session's newer ones) go to a
 * time-ordered heap per window instead of being inserted into the array (which
 * would shift every newer entry): O(log late). So every entry enters and leaves
 * each window once, whatever the window size, the arrival order, and however
 * ticks interleave with observations. Only a question about an end between
 * those two walks the window (the breaker never asks one); an end before the
 * latest event time is not answered: the entries that left the window then are
 * gone.
 */
import type { Verdict } from './types.js';

export interface WindowEntry {
  ts: number;
  verdict: Verdict;
  quota: boolean;
  sessionId: string;
}

export interface WindowCounts {
  calls: number;
  failures: number;
  quotaFailures: number;
}

/** Entries dropped from the front are removed in bulk once they are most of the array (not one shift per call). */
const COMPACT_AFTER = 1024;

function emptyCounts(): WindowCounts {
  return { calls: 0, failures: 0, quotaFailures: 0 };
}

function addTo(counts: WindowCounts, entry: WindowEntry, sign: 1 | -1): void {
  if (entry.verdict === 'neutral') return;
  counts.calls += sign;
  if (entry.verdict === 'failure') {
    counts.failures += sign;
    if (entry.quota) counts.quotaFailures += sign;
  }
}

/** Entries by time, oldest on top; `steps` counts the entries moved past (the heap's share of the cost). */
class TimeHeap {
  private items: WindowEntry[] = [];
  steps = 0;

  get size(): number {
    return this.items.length;
  }

  peek(): WindowEntry | undefined {
    return this.items[0];
  }

  push(entry: WindowEntry): void {
    const items = this.items;
    let i = items.length;
    items.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = items[parent] as WindowEntry;
      if (above.ts <= entry.ts) break;
      items[i] = above;
      i = parent;
      this.steps++;
    }
    items[i] = entry;
  }

  pop(): WindowEntry | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child =
        right < items.length && (items[right] as WindowEntry).ts < (items[left] as WindowEntry).ts ? right : left;
      const below = items[child] as WindowEntry;
      if (below.ts >= last.ts) break;
      items[i] = below;
      i = child;
      this.steps++;
    }
    items[i] = last;
    return top;
  }

  values(): readonly WindowEntry[] {
    return this.items;
  }

  clear(): void {
    this.items = [];
  }
}

/** One window end: where it leaves the in-order entries, its late entries, its counts. */
interface End {
  at: number;
  head: number;
  late: TimeHeap;
  counts: WindowCounts;
}

function newEnd(): End {
  return { at: Number.NEGATIVE_INFINITY, head: 0, late: new TimeHeap(), counts: emptyCounts() };
}

export class TimeWindow {
  /** Entries that arrived in time order (sorted by ts); late ones are in each end's heap. */
  private entries: WindowEntry[] = [];
  /** The window ending at the latest `end` given to `add`. */
  private eventEnd = newEnd();
  /** The window ending at the latest time seen by `add` or `at` (never before `eventEnd`). */
  private latestEnd = newEnd();
  /** Entries per session in the window ending at `eventEnd`: which sessions the window has seen. */
  private readonly sessions = new Map<string, number>();
  private visits = 0;

  constructor(private readonly spanMs: number) {}

  /**
   * Entries looked at or moved to keep or answer the counts, since the window was made: a cost measure that
   * lets tests prove the bookkeeping stays cheap without timing anything.
   */
  get entriesVisited(): number {
    return this.visits + this.eventEnd.late.steps + this.latestEnd.late.steps;
  }

  /**
   * Adds `entry` to the window ending at `end` (≥ entry.ts; an `end` earlier than one given before counts as
   * that one: the window never slides back); false when the entry is already too old to count.
   */
  add(entry: WindowEntry, end: number): boolean {
    if (end > this.latestEnd.at) this.slide(this.latestEnd, end, false);
    if (end > this.eventEnd.at) this.slide(this.eventEnd, end, true);
    if (entry.ts <= this.eventEnd.at - this.spanMs) return false;
    addTo(this.eventEnd.counts, entry, 1);
    this.sessions.set(entry.sessionId, (this.sessions.get(entry.sessionId) ?? 0) + 1);
    const inLatest = entry.ts > this.latestEnd.at - this.spanMs;
    if (inLatest) addTo(this.latestEnd.counts, entry, 1);
    const last = this.entries[this.entries.length - 1];
    if (last === undefined || last.ts <= entry.ts) {
      // Appended: if it is already out of the latest window, so is everything before it, and the latest
      // window's head (then at the end of the array) steps over it.
      this.entries.push(entry);
      if (!inLatest) this.latestEnd.head = this.entries.length;
    } else {
      this.eventEnd.late.push(entry);
      if (inLatest) this.latestEnd.late.push(entry);
    }
    this.compact();
    return true;
  }

  clear(): void {
    this.entries = [];
    this.eventEnd = newEnd();
    this.latestEnd = newEnd();
    this.sessions.clear();
  }

  /** Counts for the window ending at the latest `end` given to `add`. */
  current(): Readonly<WindowCounts> {
    return this.eventEnd.counts;
  }

  /** Counts for the window `(at - span, at]`, for an `at` not before the latest `end` given to `add`. */
  at(at: number): WindowCounts {
    if (at === this.eventEnd.at) return { ...this.eventEnd.counts };
    if (at >= this.latestEnd.at) {
      this.slide(this.latestEnd, at, false);
      return { ...this.latestEnd.counts };
    }
    // An end between the latest event time and the latest time seen: never asked by the breaker, so walked.
    const counts = emptyCounts();
    const count = (entry: WindowEntry): void => {
      this.visits++;
      if (entry.ts > at - this.spanMs && entry.ts <= at) addTo(counts, entry, 1);
    };
    for (let i = this.eventEnd.head; i < this.entries.length; i++) count(this.entries[i] as WindowEntry);
    for (const entry of this.eventEnd.late.values()) count(entry);
    return counts;
  }

  /** Whether any session outside `known` has an entry (any verdict) in the window ending at the latest `end`. */
  hasSessionOutside(known: readonly string[]): boolean {
    let present = 0;
    for (const session of new Set(known)) if (this.sessions.has(session)) present++;
    return this.sessions.size > present;
  }

  /** Moves `end` to `at` (later than it), letting out what is now too old. */
  private slide(end: End, at: number, tracksSessions: boolean): void {
    end.at = at;
    const from = at - this.spanMs;
    const leave = (entry: WindowEntry): void => {
      this.visits++;
      addTo(end.counts, entry, -1);
      if (!tracksSessions) return;
      const left = (this.sessions.get(entry.sessionId) ?? 1) - 1;
      if (left === 0) this.sessions.delete(entry.sessionId);
      else this.sessions.set(entry.sessionId, left);
    };
    for (let e = this.entries[end.head]; e !== undefined && e.ts <= from; e = this.entries[end.head]) {
      leave(e);
      end.head++;
    }
    for (let e = end.late.peek(); e !== undefined && e.ts <= from; e = end.late.peek()) {
      end.late.pop();
      leave(e);
    }
  }

  private compact(): void {
    const head = this.eventEnd.head;
    if (head <= COMPACT_AFTER || head * 2 <= this.entries.length) return;
    this.entries = this.entries.slice(head);
    this.eventEnd.head = 0;
    // The latest window starts no earlier than the event window.
    this.latestEnd.head -= head;
  }
}
