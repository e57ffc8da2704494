/** The Logs view's folding and filtering, on rows shaped as the store returns them. */
import { describe, expect, it } from 'vitest';
import type { DecisionRow, NotificationRow, ProbeRow, RestartRow } from '../../main/core/store/gateway-history.js';
import {
  collapseRuns,
  decisionLevel,
  filterCounts,
  isDefaultFilter,
  LOG_KINDS,
  type LogRecords,
  logSections,
  passes,
  probeLevel,
  SHOW_ALL,
} from '../../renderer/log-entries.js';

const probe = (ts: number, status: string, latencyMs: number | null = 20): ProbeRow => ({
  ts,
  ok: status === 'ok',
  status,
  startup: status === 'ok' ? 'started' : null,
  latencyMs: status === 'ok' ? latencyMs : null,
  detail: status === 'ok' ? null : `${status} at /healthz`,
});
const decision = (ts: number, kind: string, source = 'probe'): DecisionRow => ({
  ts,
  source,
  decision: kind,
  reason: `${kind} reason`,
  dep: null,
});
const restart = (ts: number, result: string): RestartRow => ({
  id: ts,
  ts,
  trigger: 'health',
  reason: 'dead',
  result,
  evidence: 'dead',
  durationMs: 1000,
  strategy: null,
  command: null,
  exitCode: 0,
  output: null,
  recoveryMs: null,
  detail: null,
});
const notification = (ts: number, kind: string, ok: boolean): NotificationRow => ({
  ts,
  kind,
  channel: 'webhook',
  title: kind,
  ok,
  error: ok ? null : 'HTTP 500',
  dep: null,
});

/** An hour of probes every 15 s, oldest first: healthy, refused for a minute, healthy again. */
function probeHour(): ProbeRow[] {
  const rows: ProbeRow[] = [];
  for (let i = 0; i < 240; i++) rows.push(probe(i * 15_000, i >= 100 && i < 104 ? 'refused' : 'ok'));
  return rows;
}

const records = (partial: Partial<LogRecords>): LogRecords => ({
  restarts: [],
  notifications: [],
  decisions: [],
  probes: [],
  transitions: [],
  ...partial,
});

describe('folding runs', () => {
  it('makes a run of each stretch of the same class and starts a new one at each change', () => {
    const runs = collapseRuns(
      ['a', 'a', 'b', 'a', 'a', 'a'],
      (x) => x,
      () => 'info',
    );
    expect(runs.map((r) => [r.cls, r.rows.length])).toEqual([
      ['a', 2],
      ['b', 1],
      ['a', 3],
    ]);
  });

  it('never folds rows whose class is null', () => {
    expect(
      collapseRuns(
        [1, 1, 1],
        () => null,
        () => 'warn',
      ),
    ).toHaveLength(3);
  });

  it('turns an hour of probes into its changes, newest first, with each run spanning its records', () => {
    const { probes } = logSections(records({ probes: probeHour() }), 'all');
    expect(probes.records).toBe(240);
    expect(probes.runs.map((r) => [r.cls, r.rows.length])).toEqual([
      ['ok', 136],
      ['refused', 4],
      ['ok', 100],
    ]);
    const [latest, down] = probes.runs;
    expect(latest!.newest.ts).toBe(239 * 15_000);
    expect(latest!.oldest.ts).toBe(104 * 15_000);
    expect(down!.level).toBe('error');
    expect(latest!.level).toBe('info');
  });

  it('folds runs of nothing-to-do decisions only: a restart between them stays its own row', () => {
    const decisions = [
      decision(1, 'healthy'),
      decision(2, 'healthy'),
      decision(3, 'dead'),
      decision(4, 'restart'),
      decision(5, 'quiet', 'check'),
      decision(6, 'quiet', 'check'),
      decision(7, 'quiet', 'check'),
      decision(8, 'counting', 'check'),
      decision(9, 'counting', 'check'),
    ];
    const { decisions: section } = logSections(records({ decisions }), 'all');
    expect(section.runs.map((r) => [r.newest.decision, r.rows.length])).toEqual([
      ['counting', 1],
      ['counting', 1],
      ['quiet', 3],
      ['restart', 1],
      ['dead', 1],
      ['healthy', 2],
    ]);
    expect(section.total).toBe(6);
  });
});

describe('filtering', () => {
  it('keeps what the level asks for', () => {
    expect(passes('info', 'all')).toBe(true);
    expect(passes('info', 'warn')).toBe(false);
    expect(passes('warn', 'warn')).toBe(true);
    expect(passes('warn', 'error')).toBe(false);
    expect(passes('error', 'error')).toBe(true);
  });

  it('rates records: failures and outages are errors, the watchdog acting a warning, all-is-well info', () => {
    expect(probeLevel(probe(0, 'refused'))).toBe('error');
    expect(probeLevel(probe(0, 'starting'))).toBe('warn');
    expect(probeLevel(probe(0, 'ok'))).toBe('info');
    expect(decisionLevel(decision(0, 'budget_exhausted'))).toBe('error');
    expect(decisionLevel(decision(0, 'deferred'))).toBe('warn');
    expect(decisionLevel(decision(0, 'quiet'))).toBe('info');
  });

  it('hides rows below the level in every kind and counts rows over the kinds shown', () => {
    const all = records({
      probes: probeHour(),
      restarts: [restart(1, 'recovered'), restart(2, 'failed')],
      notifications: [
        notification(1, 'breaker_opened', true),
        notification(2, 'breaker_closed', true),
        notification(3, 'gateway_down', false),
      ],
      decisions: [decision(1, 'healthy'), decision(2, 'dead'), decision(3, 'healthy')],
      transitions: [
        { dep: 'a/b', from: 'closed', to: 'open', reason: '5 failures', ts: 1, at: 1 },
        { dep: 'a/b', from: 'half_open', to: 'closed', reason: 'trials passed', ts: 2, at: 2 },
      ],
    });
    const errors = logSections(all, 'error');
    expect(errors.probes.runs.map((r) => r.cls)).toEqual(['refused']);
    expect(errors.restarts.runs.map((r) => r.newest.result)).toEqual(['failed']);
    expect(errors.notifications.runs.map((r) => r.newest.kind)).toEqual(['gateway_down']);
    expect(errors.decisions.runs.map((r) => r.newest.decision)).toEqual(['dead']);
    expect(errors.transitions.runs.map((r) => r.newest.to)).toEqual(['open']);
    const warnings = logSections(all, 'warn');
    expect(warnings.restarts.runs).toHaveLength(2);
    expect(warnings.notifications.runs.map((r) => r.newest.kind)).toEqual(['gateway_down', 'breaker_opened']);

    const everything = logSections(all, 'all');
    expect(filterCounts(everything, SHOW_ALL)).toEqual({ shown: 3 + 2 + 3 + 3 + 2, total: 13 });
    const onlyProbes = { kinds: new Set(['probes'] as const), level: 'error' as const };
    expect(filterCounts(errors, onlyProbes)).toEqual({ shown: 1, total: 3 });
    expect(isDefaultFilter(SHOW_ALL)).toBe(true);
    expect(isDefaultFilter(onlyProbes)).toBe(false);
    expect(isDefaultFilter({ kinds: new Set(LOG_KINDS), level: 'warn' })).toBe(false);
  });
});
