/**
 * Which Node runs the real OpenClaw: the check of a version against the
 * `engines.node` range each OpenClaw version declares (test/e2e/openclaw/harness/runtime.ts).
 * Kept out of the real-OpenClaw suite so it runs with the fast tests.
 */
import { describe, expect, it } from 'vitest';
import { satisfiesRange } from './openclaw/harness/runtime.js';

/** As openclaw@2026.9.6 and openclaw@2026.7.1 declare them in their package.json. */
const OPENCLAW_2026_9_6 = '>=24.16.0 <25 || >=26.1.0';
const OPENCLAW_2026_7_1 = '>=22.22.3 <23 || >=24.15.0 <25 || >=25.9.0';

describe('satisfiesRange', () => {
  it.each([
    ['24.22.3', true],
    ['24.16.0', true],
    ['24.15.9', false],
    ['25.0.0', false],
    ['25.9.0', false],
    ['26.0.9', false],
    ['26.1.0', true],
    ['22.22.3', false],
    ['20.20.2', false],
  ])("openclaw@2026.9.6's range with Node %s: %s", (version, expected) => {
    expect(satisfiesRange(version, OPENCLAW_2026_9_6)).toBe(expected);
  });

  it.each([
    ['22.22.2', false],
    ['22.22.3', true],
    ['23.0.0', false],
    ['24.14.1', false],
    ['24.15.0', true],
    ['25.8.9', false],
    ['25.9.0', true],
    ['v24.22.3', true],
  ])("openclaw@2026.7.1's range with Node %s: %s", (version, expected) => {
    expect(satisfiesRange(version, OPENCLAW_2026_7_1)).toBe(expected);
  });

  it('reads every comparator, partial versions included', () => {
    expect(satisfiesRange('24.0.0', '>24')).toBe(false);
    expect(satisfiesRange('24.0.1', '>24')).toBe(true);
    expect(satisfiesRange('24.0.0', '<=24')).toBe(true);
    expect(satisfiesRange('24.1.0', '<=24')).toBe(false);
    expect(satisfiesRange('24.1.0', '24.1')).toBe(true);
    expect(satisfiesRange('24.1.0', '=24.1.1')).toBe(false);
  });

  it('refuses a range it cannot read instead of guessing', () => {
    expect(() => satisfiesRange('24.1.0', '^24.1.0')).toThrow(
      'unsupported comparator "^24.1.0" in the Node range "^24.1.0"',
    );
    expect(() => satisfiesRange('24.1.0', '24.x')).toThrow('unsupported comparator "24.x"');
    expect(() => satisfiesRange('24.1.0', '>=22 || ')).toThrow('empty alternative');
    expect(() => satisfiesRange('24.1.0-pre', '>=22')).toThrow('"24.1.0-pre" is not a version');
  });
});
