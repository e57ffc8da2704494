/**
 * The breaker's sliding window over event time: observations kept in time
 * order, with counts that stay exact, without walking the window, for the two
 * window ends a breaker asks about:
 *
 * - the latest event time seen (`add`'s `end`): what trips a closed breaker;
 * - the latest time of any kind seen (`at(t)` with the newest `t`, which a
 *   tick moves past the newest event): what a snapshot shows.
 *
 * Each end has its own head pointer that only ever moves forward, so every
 * entry is counted in and out of each window at most once: O(1) amortised per
 * observation, whatever the window size and however ticks interleave with
 * observations. An observation arriving in time order is appended; a late one
 * is placed by binary search and shifts only the entries newer than it. Only a
 * question about an end between those two walks the window (the breaker never
 * asks one); an end before the latest event time is not answered: the entries
 * that left the window then are gone.
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

export class TimeWindow {
  private entries: WindowEntry[] = [];
  /** First entry in the window ending at `end` (earlier ones have left it). */
  private head = 0;
  private counts = emptyCounts();
  /** The latest `end` given to `add`: the time `counts` is exact for. */
  private end = Number.NEGATIVE_INFINITY;
  /** First entry in the window ending at `latest` (never before `head`: `latest` ≥ `end`). */
  private latestHead = 0;
  private latestCounts = emptyCounts();
  /** The latest time seen by `add` or `at`. */
  private latest = Number.NEGATIVE_INFINITY;
  /** Calls per session among the entries from `head` on: which sessions the window has seen. */
  private readonly sessions = new Map<string, number>();
  private visits = 0;

  constructor(private readonly spanMs: number) {}

  /**
   * Entries looked at to keep or answer the counts, since the window was made: a cost measure that lets
   * tests prove the bookkeeping stays O(1) amortised without timing anything.
   */
  get entriesVisited(): number {
    return this.visits;
  }

  /**
   * Adds `entry` to the window ending at `end` (≥ entry.ts; an `end` earlier than one given before counts as
   * that one: the window never slides back); false when the entry is already too old to count.
   */
  add(entry: WindowEntry, end: number): boolean {
    this.slideEnd(end);
    if (entry.ts <= this.end - this.spanMs) return false;
    const index = this.insertionIndex(entry.ts);
    if (index === this.entries.length) this.entries.push(entry);
    else {
      // A late entry shifts the newer ones: the cost of arriving out of order.
      this.visits += this.entries.length - index;
      this.entries.splice(index, 0, entry);
    }
    addTo(this.counts, entry, 1);
    this.sessions.set(entry.sessionId, (this.sessions.get(entry.sessionId) ?? 0) + 1);
    // Entries before `index` are not newer than this one: if it is out of the latest window, so are they,
    // and `latestHead` (at or after `index`) moves with the entries it pointed at.
    if (entry.ts > this.latest - this.spanMs) addTo(this.latestCounts, entry, 1);
    else this.latestHead++;
    return true;
  }

  clear(): void {
    this.entries = [];
    this.head = 0;
    this.counts = emptyCounts();
    this.end = Number.NEGATIVE_INFINITY;
    this.latestHead = 0;
    this.latestCounts = emptyCounts();
    this.latest = Number.NEGATIVE_INFINITY;
    this.sessions.clear();
  }

  /** Counts for the window ending at the latest `end` given to `add`. */
  current(): Readonly<WindowCounts> {
    return this.counts;
  }

  /** Counts for the window `(at - span, at]`, for an `at` not before the latest `end` given to `add`. */
  at(at: number): WindowCounts {
    if (at === this.end) return { ...this.counts };
    if (at >= this.latest) {
      this.slideLatest(at);
      return { ...this.latestCounts };
    }
    // An end between the latest event time and the latest time seen: never asked by the breaker, so walked.
    const counts = emptyCounts();
    for (let i = this.head; i < this.entries.length; i++) {
      const entry = this.entries[i] as WindowEntry;
      this.visits++;
      if (entry.ts > at - this.spanMs && entry.ts <= at) addTo(counts, entry, 1);
    }
    return counts;
  }

  /** Whether any session outside `known` has an entry (any verdict) in the window ending at the latest `end`. */
  hasSessionOutside(known: readonly string[]): boolean {
    let present = 0;
    for (const session of new Set(known)) if (this.sessions.has(session)) present++;
    return this.sessions.size > present;
  }

  private slideEnd(end: number): void {
    if (end <= this.end) return;
    this.end = end;
    const from = end - this.spanMs;
    for (let e = this.entries[this.head]; e !== undefined && e.ts <= from; e = this.entries[this.head]) {
      this.visits++;
      addTo(this.counts, e, -1);
      const left = (this.sessions.get(e.sessionId) ?? 1) - 1;
      if (left === 0) this.sessions.delete(e.sessionId);
      else this.sessions.set(e.sessionId, left);
      this.head++;
    }
    if (end > this.latest) {
      // The latest window is this one now: its head can only be ahead of the new `head` if it was
      // already further on, which an earlier `latest` cannot be.
      this.latest = end;
      this.latestHead = this.head;
      this.latestCounts = { ...this.counts };
    }
    this.compact();
  }

  private slideLatest(at: number): void {
    if (at === this.latest) return;
    this.latest = at;
    const from = at - this.spanMs;
    for (let e = this.entries[this.latestHead]; e !== undefined && e.ts <= from; e = this.entries[this.latestHead]) {
      this.visits++;
      addTo(this.latestCounts, e, -1);
      this.latestHead++;
    }
  }

  /** After the last entry with the same or an earlier time, so equal times keep arrival order. */
  private insertionIndex(ts: number): number {
    const last = this.entries[this.entries.length - 1];
    if (last === undefined || last.ts <= ts) return this.entries.length;
    let lo = this.head;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.entries[mid] as WindowEntry).ts <= ts) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private compact(): void {
    if (this.head <= COMPACT_AFTER || this.head * 2 <= this.entries.length) return;
    this.entries = this.entries.slice(this.head);
    this.latestHead -= this.head;
    this.head = 0;
  }
}
