import { describe, expect, it } from 'vitest';
import { SEED_WATCHDOG, seedWatchdogStorms } from '../../../main/core/scan/storms.js';

const MINUTE = 60_000;
/** A whole minute, so the cron checks fall on T0 + k minutes. */
const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);
/** Time `seconds` after T0. */
const at = (seconds: number) => T0 + seconds * 1000;
/** The cron check `k` minutes after T0. */
const check = (k: number) => T0 + k * MINUTE;

/** One rate limit 10 s into each of the given minutes after T0. */
const inMinutes = (...minutes: number[]) => minutes.map((m) => at(m * 60 + 10));

describe('seedWatchdogStorms', () => {
  it('follows the seed watchdog: every 60 s, a 120 s window, restart at 3', () => {
    expect(SEED_WATCHDOG).toEqual({ checkIntervalMs: 60_000, windowMs: 120_000, threshold: 3 });
  });

  it('no rate limits, no storm', () => {
    expect(seedWatchdogStorms([])).toEqual([]);
  });

  it('a single 429 is no storm (it is seen by two checks, not three)', () => {
    expect(seedWatchdogStorms([at(10)])).toEqual([]);
    expect(seedWatchdogStorms([T0])).toEqual([]);
  });

  it('429s in three consecutive minutes: one restart, at the third check', () => {
    const storms = seedWatchdogStorms(inMinutes(0, 1, 2));
    expect(storms).toHaveLength(1);
    // Checks at 1, 2 and 3 minutes see rate limits; the third restarts, the fourth (window
    // (2 min, 4 min]) still sees the last one but starts counting from zero again.
    expect(storms[0]).toEqual({ start: check(1), end: check(4), rateLimits: 3, restarts: [check(3)] });
  });

  it('the window is (t - 120 s, t]: a 429 exactly at a check counts for that check', () => {
    // 429s at exactly 1 and 2 minutes: checks at 1, 2 and 3 minutes see them, restart at 3.
    expect(seedWatchdogStorms([check(1), check(2)]).map((s) => s.restarts)).toEqual([[check(3)]]);
    // A 429 exactly 120 s before a check is outside it: 429s at 1 and 4 minutes are seen by
    // checks 1, 2 and 4, 5; check 3's window (1 min, 3 min] is quiet, so no restart.
    expect(seedWatchdogStorms([check(1), check(4)])).toEqual([]);
  });

  it('a gap of a quiet check resets the consecutive counter', () => {
    // Minutes 0 and 3: checks 1, 2 see the first, check 3 is quiet (window (1 min, 3 min]),
    // checks 4 and 5 see the second. Never three in a row.
    expect(seedWatchdogStorms(inMinutes(0, 3))).toEqual([]);
    // Pairs of minutes separated by quiet checks never add up across the gap.
    expect(seedWatchdogStorms(inMinutes(0, 4, 8, 12))).toEqual([]);
  });

  it('two storms separated by a gap are reported separately', () => {
    const storms = seedWatchdogStorms([...inMinutes(0, 1, 2), ...inMinutes(10, 11, 12)]);
    expect(storms.map((s) => s.restarts)).toEqual([[check(3)], [check(13)]]);
    expect(storms.map((s) => s.rateLimits)).toEqual([3, 3]);
  });

  it('a long storm restarts every three checks (the counter resets after a restart)', () => {
    const minutes = Array.from({ length: 10 }, (_, i) => i);
    const [storm, ...rest] = seedWatchdogStorms(inMinutes(...minutes));
    expect(rest).toEqual([]);
    // Checks 1 .. 11 see rate limits (the last one, at 9:10, until the 11:00 check).
    expect(storm).toEqual({
      start: check(1),
      end: check(11),
      rateLimits: 10,
      restarts: [check(3), check(6), check(9)],
    });
  });

  it('counts bursts: many 429s inside one window are one check', () => {
    const burst = Array.from({ length: 50 }, (_, i) => at(10 + i));
    expect(seedWatchdogStorms(burst)).toEqual([]);
    const [storm] = seedWatchdogStorms([...burst, ...inMinutes(1, 2)]);
    expect(storm?.rateLimits).toBe(52);
    expect(storm?.restarts).toEqual([check(3)]);
  });

  it('the order of the input is irrelevant (and the input is not modified)', () => {
    const times = [...inMinutes(0, 1, 2, 3, 4, 5, 6), at(95), at(5 * 60 + 59)];
    const expected = seedWatchdogStorms(times);
    expect(expected.flatMap((s) => s.restarts)).toEqual([check(3), check(6)]);
    const shuffled = [4, 0, 8, 2, 6, 1, 7, 3, 5].map((i) => times[i] as number);
    const copy = [...shuffled];
    expect(seedWatchdogStorms(shuffled)).toEqual(expected);
    expect(seedWatchdogStorms([...times].reverse())).toEqual(expected);
    expect(shuffled).toEqual(copy);
  });

  it('honours a custom rule', () => {
    const rule = { checkIntervalMs: 30_000, windowMs: 30_000, threshold: 2 };
    // 429s at 0:10 and 0:40 are seen by the 0:30 and 1:00 checks: restart at 1:00.
    expect(seedWatchdogStorms([at(10), at(40)], rule).map((s) => s.restarts)).toEqual([[check(1)]]);
  });
});
