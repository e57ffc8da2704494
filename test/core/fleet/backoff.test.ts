import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../../main/core/fleet/backoff.js';

describe('backoffDelay', () => {
  const policy = { initialMs: 100, maxMs: 5_000 };

  it('doubles per attempt, between half and all of the step', () => {
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, policy, () => 0))).toEqual([50, 100, 200, 400]);
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, policy, () => 1))).toEqual([100, 200, 400, 800]);
  });

  it('is capped, even after very many attempts', () => {
    expect(backoffDelay(6, policy, () => 1)).toBe(5_000);
    expect(backoffDelay(10_000, policy, () => 1)).toBe(5_000);
    expect(backoffDelay(10_000, policy, () => 0)).toBe(2_500);
  });

  it('spreads hosts out (jitter) without ever retrying at once', () => {
    const delays = Array.from({ length: 200 }, () => backoffDelay(3, policy));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(400);
    expect(Math.max(...delays)).toBeLessThanOrEqual(800);
    expect(new Set(delays).size).toBeGreaterThan(20);
  });
});
