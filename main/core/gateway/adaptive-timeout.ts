/**
 * The read timeout for gateway health probes, learned from the gateway's own
 * answers: a fixed short timeout is what made naive watchdogs kill gateways that
 * were merely slow (shared docs, "Restarting well"). The timeout follows the
 * recent p99 latency with head-room, never below a floor (a jittery fast
 * gateway should not trip on one slow answer) nor above a ceiling (a hung one
 * must still be noticed). Until a few answers have been measured, the ceiling
 * applies: a slow gateway we know nothing about is not declared dead.
 *
 * Pure: no clock, no I/O. Only successful round trips should be recorded —
 * a timeout is not a latency sample.
 */

export interface AdaptiveTimeoutOptions {
  floorMs: number;
  ceilingMs: number;
  /** How many recent latencies the p99 is taken over (default 50). */
  samples?: number;
}

/** Head-room over the p99: a gateway that is a little slower than its recent worst is still alive. */
export const HEADROOM = 1.4;
/** Fewer samples than this say nothing about a p99. */
export const MIN_SAMPLES = 5;

export class AdaptiveTimeout {
  private readonly floorMs: number;
  private readonly ceilingMs: number;
  private readonly capacity: number;
  /** Ring of the last `capacity` latencies (insertion order does not matter for a percentile). */
  private readonly ring: number[] = [];
  private next = 0;

  constructor(options: AdaptiveTimeoutOptions) {
    const { floorMs, ceilingMs, samples = 50 } = options;
    if (!Number.isFinite(floorMs) || floorMs < 0) throw new RangeError(`floorMs must be >= 0 (got ${floorMs})`);
    if (!Number.isFinite(ceilingMs) || ceilingMs < floorMs) {
      throw new RangeError(`ceilingMs must be >= floorMs (got ${ceilingMs} < ${floorMs})`);
    }
    if (!Number.isInteger(samples) || samples < 1)
      throw new RangeError(`samples must be a positive integer (got ${samples})`);
    this.floorMs = floorMs;
    this.ceilingMs = ceilingMs;
    this.capacity = samples;
  }

  /** Records one successful round trip; nonsense values (negative, NaN, infinite) are ignored. */
  record(latencyMs: number): void {
    if (!Number.isFinite(latencyMs) || latencyMs < 0) return;
    if (this.ring.length < this.capacity) {
      this.ring.push(latencyMs);
    } else {
      this.ring[this.next] = latencyMs;
    }
    this.next = (this.next + 1) % this.capacity;
  }

  /** Samples currently held (at most `samples`). */
  get size(): number {
    return this.ring.length;
  }

  /** The read timeout to use now, in ms. */
  current(): number {
    if (this.ring.length < MIN_SAMPLES) return this.ceilingMs;
    const timeout = p99(this.ring) * HEADROOM;
    return Math.min(this.ceilingMs, Math.max(this.floorMs, timeout));
  }
}

/** Nearest-rank 99th percentile: with under 100 samples, the largest one. */
function p99(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil(0.99 * sorted.length);
  return sorted[Math.max(0, rank - 1)] ?? 0;
}
