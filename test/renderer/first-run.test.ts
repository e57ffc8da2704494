/** When the dashboard opens on the Doctor instead of an empty overview. */
import { describe, expect, it } from 'vitest';
import type { ApiStatus } from '../../main/api/types.js';
import { CallTally } from '../../main/core/calls/summary.js';
import type { DoctorReport, Finding } from '../../main/core/doctor/index.js';
import type { SourceStatus } from '../../main/core/sources/source.js';
import { opensOnDoctor } from '../../renderer/first-run.js';
import { breakerSnapshot } from '../helpers/fake-backend.js';

const report = (...findings: Finding[]): DoctorReport => ({
  findings,
  summary: { ok: 0, info: 0, warn: 0, error: findings.filter((f) => f.level === 'error').length },
});

const source = (calls: number): SourceStatus => ({
  kind: 'jsonl',
  roots: ['/x'],
  inputs: calls > 0 ? 1 : 0,
  lines: calls,
  malformed: 0,
  calls,
  stored: calls,
  duplicates: 0,
  pending: 0,
  lastEventAt: null,
  lastError: null,
});

const status = (breakers: number, calls: number): ApiStatus => ({
  version: '0',
  generatedAt: 0,
  lastDay: new CallTally().summary(),
  breakers: Array.from({ length: breakers }, (_, i) => ({
    ...breakerSnapshot(`p/m${i}`),
    soleDependents: [],
    stalled: null,
    elsewhere: [],
    openclawCooldown: null,
  })),
  tokens: [],
  openclawCooldowns: null,
  sources: [source(calls)],
  gateway: null,
  watchdog: null,
  notifications: [],
  fleet: null,
  incidents: null,
  quota: [],
  budgets: [],
  quiet: null,
  language: 'en',
});

describe('first run', () => {
  it('with no status to tell, opens on the Doctor for an error about OpenClaw, the sources or the gateway', () => {
    for (const area of ['openclaw', 'sources', 'gateway'] as const) {
      expect(opensOnDoctor(report({ area, level: 'error', title: 'missing' }), null), area).toBe(true);
    }
  });

  it('once anything was read, opens on the Overview even while the gateway is unreachable or a source fails', () => {
    // Found trying it as a new user would: an outage opened the Doctor ("cannot watch OpenClaw yet") while the
    // transcripts were read and a storm was under way, exactly when the Overview was needed.
    for (const area of ['openclaw', 'sources', 'gateway'] as const) {
      expect(opensOnDoctor(report({ area, level: 'error', title: 'unreachable' }), status(2, 10)), area).toBe(false);
    }
  });

  it('stays on the overview for warnings, or errors elsewhere (a webhook, the restart strategy)', () => {
    expect(opensOnDoctor(report({ area: 'sources', level: 'warn', title: 'no gateway log' }), status(2, 10))).toBe(
      false,
    );
    expect(opensOnDoctor(report({ area: 'notifications', level: 'error', title: 'bad webhook' }), status(2, 10))).toBe(
      false,
    );
    expect(opensOnDoctor(null, status(2, 10))).toBe(false);
  });

  it('opens on the Doctor when nothing was read at all, whatever the doctor says', () => {
    expect(opensOnDoctor(null, status(0, 0))).toBe(true);
    expect(opensOnDoctor(report(), status(0, 0))).toBe(true);
    expect(opensOnDoctor(report(), status(0, 3))).toBe(false);
  });
});
