import { describe, expect, it } from 'vitest';
import { AdaptiveTimeout, HEADROOM, MIN_SAMPLES } from '../../../main/core/gateway/adaptive-timeout.js';

describe('AdaptiveTimeout', () => {
  it('uses the ceiling until five latencies have been measured', () => {
    const timeout = new AdaptiveTimeout({ floorMs: 500, ceilingMs: 30_000 });
    for (let i = 0; i < MIN_SAMPLES - 1; i++) {
      timeout.record(1000);
      expect(timeout.current()).toBe(30_000);
    }
    timeout.record(1000);
    expect(timeout.current()).toBe(1000 * HEADROOM);
  });

  it('follows the p99 of the recent samples with 1.4× head-room', () => {
    const timeout = new AdaptiveTimeout({ floorMs: 10, ceilingMs: 100_000, samples: 200 });
    // 1..200 ms: nearest-rank p99 of 200 samples is the 198th smallest.
    for (let ms = 200; ms >= 1; ms--) timeout.record(ms);
    expect(timeout.current()).toBeCloseTo(198 * 1.4, 6);
  });

  it('with fewer than 100 samples the p99 is the slowest one', () => {
    const timeout = new AdaptiveTimeout({ floorMs: 10, ceilingMs: 100_000 });
    for (const ms of [20, 30, 2000, 25, 22, 21]) timeout.record(ms);
    expect(timeout.current()).toBeCloseTo(2800, 6);
  });

  it('clamps to the floor and the ceiling', () => {
    const fast = new AdaptiveTimeout({ floorMs: 1500, ceilingMs: 30_000 });
    for (let i = 0; i < 10; i++) fast.record(3);
    expect(fast.current()).toBe(1500);

    const slow = new AdaptiveTimeout({ floorMs: 1500, ceilingMs: 30_000 });
    for (let i = 0; i < 10; i++) slow.record(60_000);
    expect(slow.current()).toBe(30_000);
  });

  it('forgets samples older than the window', () => {
    const timeout = new AdaptiveTimeout({ floorMs: 1, ceilingMs: 1_000_000, samples: 10 });
    for (let i = 0; i < 10; i++) timeout.record(10_000);
    expect(timeout.current()).toBe(14_000);
    for (let i = 0; i < 9; i++) timeout.record(100);
    // One slow sample is still in the window of 10.
    expect(timeout.current()).toBe(14_000);
    timeout.record(100);
    expect(timeout.current()).toBeCloseTo(140, 6);
    expect(timeout.size).toBe(10);
  });

  it('ignores nonsense latencies', () => {
    const timeout = new AdaptiveTimeout({ floorMs: 1, ceilingMs: 10_000 });
    for (const ms of [Number.NaN, -5, Number.POSITIVE_INFINITY]) timeout.record(ms);
    expect(timeout.size).toBe(0);
    expect(timeout.current()).toBe(10_000);
  });

  it('rejects an impossible configuration', () => {
    expect(() => new AdaptiveTimeout({ floorMs: 5000, ceilingMs: 1000 })).toThrow(RangeError);
    expect(() => new AdaptiveTimeout({ floorMs: -1, ceilingMs: 1000 })).toThrow(RangeError);
    expect(() => new AdaptiveTimeout({ floorMs: 1, ceilingMs: 1000, samples: 0 })).toThrow(RangeError);
  });
});
