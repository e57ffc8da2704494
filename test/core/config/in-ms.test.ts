/**
 * The one conversion of durations: `inMs` turns a group's `…Sec` keys into `…Ms` keys in milliseconds by the
 * unit each field declares, in nested groups, records and lists too, and leaves everything else as parsed.
 */
import { describe, expect, it } from 'vitest';
import { inMs } from '../../../main/core/config/durations.js';
import { bool, group, int, list, millis, parseWith, record, seconds } from '../../../main/core/config/schema.js';

const node = group({
  enabled: bool(true, 'A flag.'),
  count: int(3, 0, 10, 'A count: no unit, left as it is.'),
  waitSec: seconds(30, 0, 600, 'Seconds.'),
  leaseMs: millis(2500, 0, 60_000, 'Already milliseconds.'),
  inner: group({ everySec: seconds(5, 1, 60, 'Nested seconds.') }),
  byName: record({ timeoutSec: seconds(1, 1, 60, 'Seconds in a record.') }, 'Per name.', /^\w+$/, 'names'),
  items: list({ timeoutSec: seconds(10, 1, 60, 'Seconds in a list.') }, 'Items.', 'items {timeoutSec?}'),
});

describe('inMs', () => {
  it('renames each duration key to …Ms and converts it by its declared unit', () => {
    const value = parseWith(node, { waitSec: 45, byName: { a: { timeoutSec: 2 }, b: {} }, items: [{}] });
    expect(inMs(node, value)).toEqual({
      enabled: true,
      count: 3,
      waitMs: 45_000,
      leaseMs: 2500,
      inner: { everyMs: 5000 },
      // A record's entries keep only the keys they set.
      byName: { a: { timeoutMs: 2000 }, b: {} },
      items: [{ timeoutMs: 10_000 }],
    });
  });

  it('leaves the parsed value as it was', () => {
    const value = parseWith(node, {});
    inMs(node, value);
    expect(value.waitSec).toBe(30);
  });
});
