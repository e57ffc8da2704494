import { afterEach, describe, expect, it, vi } from 'vitest';
import { WorkQueue } from '../../../main/core/sources/work-queue.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('WorkQueue', () => {
  it('is settled only when nothing is queued, busy or waiting for a follow-up', async () => {
    vi.useFakeTimers();
    const looked: string[] = [];
    const queue = new WorkQueue((key) => {
      looked.push(key);
    }, 100);
    expect(queue.settled).toBe(true);

    queue.add('a');
    expect(queue.idle).toBe(false);
    await vi.advanceTimersToNextTimerAsync();
    expect(looked).toEqual(['a']);
    expect(queue.settled).toBe(true);

    queue.later('a');
    expect(queue.idle).toBe(true);
    expect(queue.settled).toBe(false);
    expect(queue.followingUp('a')).toBe(true);
    expect(queue.followingUp('b')).toBe(false);

    await vi.advanceTimersByTimeAsync(99);
    expect(looked).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(1);
    expect(queue.followingUp('a')).toBe(false);
    await vi.runAllTimersAsync();
    expect(looked).toEqual(['a', 'a']);
    expect(queue.settled).toBe(true);
  });

  it('forgets pending follow-ups when stopped', async () => {
    vi.useFakeTimers();
    const looked: string[] = [];
    const queue = new WorkQueue((key) => {
      looked.push(key);
    }, 100);
    queue.later('a');
    await queue.stop();
    expect(queue.settled).toBe(true);
    await vi.runAllTimersAsync();
    expect(looked).toEqual([]);
  });
});
