import { describe, expect, it } from 'vitest';
import { CommitPollPace } from '../../../main/core/sources/commit-poll-pace.js';

describe('CommitPollPace', () => {
  it('starts at the shortest wait', () => {
    expect(new CommitPollPace(50, 500).nextMs).toBe(50);
  });

  it('doubles the wait after each poll whose commits the watcher had reported, up to the longest', () => {
    const pace = new CommitPollPace(50, 500);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      pace.reported();
      waits.push(pace.nextMs);
    }
    expect(waits).toEqual([100, 200, 400, 500, 500, 500]);
  });

  it('goes back to the shortest wait at the first commit the watcher did not report', () => {
    const pace = new CommitPollPace(50, 500);
    for (let i = 0; i < 5; i++) pace.reported();
    pace.unreported();
    expect(pace.nextMs).toBe(50);
    pace.reported();
    expect(pace.nextMs).toBe(100);
  });
});
