/**
 * The missing-tool policy: skip with the reason on a developer's machine, fail under
 * BREAKERBAR_REQUIRE_TOOLS=1 (as CI runs).
 */
import { describe, expect, it } from 'vitest';
import { decideTools, missingTools, type Tool, toolsRequired } from './tools.js';

const only =
  (...installed: Tool[]) =>
  (tool: Tool) =>
    installed.includes(tool);

describe('the missing-tool policy', () => {
  it('runs the tests when every tool is present, with their titles unchanged', () => {
    const check = decideTools(['redis-server', 'promtool'], {}, only('redis-server', 'promtool'));
    expect(check.skip).toBe(false);
    expect(check.reason).toBe('');
    expect(check.title('talks to Redis')).toBe('talks to Redis');
  });

  it('skips locally, naming each missing tool and its package in the title', () => {
    const check = decideTools(['redis-server', 'promtool', 'chromium'], {}, only('chromium'));
    expect(check.skip).toBe(true);
    expect(check.reason).toBe(
      'redis-server is not installed (apt-get install redis-server); promtool is not installed (apt-get install prometheus (it ships promtool))',
    );
    expect(check.title('talks to Redis')).toBe(`talks to Redis (skipped: ${check.reason})`);
    expect(check.partTitle('scrapes')).toBe(`scrapes (in part: ${check.reason})`);
  });

  it('fails instead of skipping under BREAKERBAR_REQUIRE_TOOLS=1', () => {
    expect(() => decideTools(['systemd-analyze'], { BREAKERBAR_REQUIRE_TOOLS: '1' }, only())).toThrow(
      'BREAKERBAR_REQUIRE_TOOLS=1 and systemd-analyze is not installed (apt-get install systemd)',
    );
    expect(decideTools(['systemd-analyze'], { BREAKERBAR_REQUIRE_TOOLS: '1' }, only('systemd-analyze')).skip).toBe(
      false,
    );
  });

  it('reads only "1" as required', () => {
    expect(toolsRequired({ BREAKERBAR_REQUIRE_TOOLS: '1' })).toBe(true);
    expect(toolsRequired({ BREAKERBAR_REQUIRE_TOOLS: '0' })).toBe(false);
    expect(toolsRequired({})).toBe(false);
    expect(missingTools(['openssl'], only('openssl'))).toBe('');
  });
});
