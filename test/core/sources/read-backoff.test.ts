/**
 * Rule: an input that keeps failing is retried ever more slowly up to a cap, and the log hears of it once per
 * change of state, never once per retry; busy is contention, retried soon and never reported.
 */
import { describe, expect, it } from 'vitest';
import {
  delayAfter,
  FAILURE_BACKOFF,
  HEALTHY,
  type ReadHealth,
  readFailed,
  readSucceeded,
} from '../../../main/core/sources/read-backoff.js';

const T0 = 1_000_000;

describe('read backoff', () => {
  it('doubles from 1 s up to 10 minutes and stays there', () => {
    const delays = Array.from({ length: 14 }, (_, i) => delayAfter(i + 1, FAILURE_BACKOFF));
    expect(delays).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000, 600_000, 600_000, 600_000, 600_000,
    ]);
    expect(delayAfter(10_000, FAILURE_BACKOFF)).toBe(600_000);
  });

  it('announces the first failure, a different reason and the recovery; repeats stay quiet', () => {
    let health: ReadHealth = HEALTHY;
    const changes: Array<string | null> = [];
    let now = T0;
    const fail = (problem: string) => {
      const after = readFailed(health, problem, false, now);
      health = after.health;
      changes.push(after.change);
      now += after.delayMs;
    };
    fail('file is not a database');
    expect(health).toEqual({ failures: 1, problem: 'file is not a database', since: T0, retryAt: T0 + 1000 });
    for (let i = 0; i < 20; i++) fail('file is not a database');
    fail('database disk image is malformed');
    expect(changes[0]).toBe('unreadable');
    expect(changes.slice(1, 21)).toEqual(Array(20).fill(null));
    expect(changes[21]).toBe('still_unreadable');
    expect(health.since).toBe(T0);
    expect(health.retryAt).toBe(now);
    expect(readSucceeded(health)).toEqual({ health: HEALTHY, change: 'readable_again' });
    expect(readSucceeded(HEALTHY).change).toBeNull();
  });

  it('retries a busy database within 5 s and never reports it', () => {
    let health: ReadHealth = HEALTHY;
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      const after = readFailed(health, 'database is locked', true, T0);
      expect(after.change).toBeNull();
      health = after.health;
      delays.push(after.delayMs);
    }
    expect(delays).toEqual([50, 100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
    expect(health.problem).toBeNull();
    expect(readSucceeded(health).change).toBeNull();
  });
});
