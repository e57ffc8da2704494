import { describe, expect, it } from 'vitest';
import { isNoticeKind, maxSeverity, NOTICE_KINDS, severityOf } from '../../../main/core/notify/notice.js';

describe('severityOf', () => {
  it('is critical when someone should act now', () => {
    for (const kind of ['restart_failed', 'restart_budget_exhausted', 'gateway_down'] as const) {
      expect(severityOf(kind), kind).toBe('critical');
    }
  });

  it('is info for recoveries', () => {
    for (const kind of ['restart_succeeded', 'gateway_up', 'breaker_closed'] as const) {
      expect(severityOf(kind), kind).toBe('info');
    }
  });

  it('is warning for degraded-but-handled events', () => {
    for (const kind of ['breaker_opened', 'breaker_throttled', 'restart_started', 'divergence'] as const) {
      expect(severityOf(kind), kind).toBe('warning');
    }
  });

  it('knows every kind', () => {
    for (const kind of NOTICE_KINDS) expect(['info', 'warning', 'critical']).toContain(severityOf(kind));
  });
});

describe('isNoticeKind / maxSeverity', () => {
  it('accepts exactly the listed kinds', () => {
    expect(isNoticeKind('gateway_down')).toBe(true);
    expect(isNoticeKind('gateway_exploded')).toBe(false);
    expect(isNoticeKind('*')).toBe(false);
  });

  it('picks the louder severity', () => {
    expect(maxSeverity('info', 'critical')).toBe('critical');
    expect(maxSeverity('warning', 'info')).toBe('warning');
    expect(maxSeverity('warning', 'warning')).toBe('warning');
  });
});
