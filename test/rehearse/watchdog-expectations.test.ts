/**
 * The rehearsal's pieces for the watchdog scenarios, without running one: the
 * phase keys and expectation kinds are validated naming the bad key; the new
 * expectations judge a timeline and the stored restarts as they say (and fail
 * when they should); the log lines the rehearsal writes are read by the core's
 * own parser as the signals they stand for.
 */
import { describe, expect, it } from 'vitest';
import { readGatewayLogLine } from '../../main/core/sources/gateway-log-record.js';
import { type EvaluateContext, evaluate } from '../../main/rehearse/expectations.js';
import { describePhase } from '../../main/rehearse/phases.js';
import { renderText } from '../../main/rehearse/report-text.js';
import { stepWords } from '../../main/rehearse/report-words.js';
import { type Expectation, type Scenario, ScenarioError, validateScenario } from '../../main/rehearse/scenario.js';
import type { RehearsalReport, TimelineEvent } from '../../main/rehearse/types.js';
import { gatewayRestartLine, stalledSessionLine } from '../../main/simulator/gateway-log-lines.js';

const DEP = 'anthropic/claude-sonnet-4-5';
const BASE = {
  name: 'small',
  durationSec: 100,
  agents: [{ id: 'main', deps: [DEP] }],
  phases: [
    { atSec: 10, durationSec: 20, label: 'first' },
    { atSec: 50, durationSec: 20, label: 'second' },
  ],
  expectations: [],
};

describe('watchdog scenario keys', () => {
  it('accepts the faked environments, their keys and OpenClaw cooldowns', () => {
    const cli = validateScenario({
      ...BASE,
      environment: 'openclaw-cli',
      deferredRestartSec: 90,
      cooldowns: [{ dep: DEP, reason: 'rate_limit', untilSec: 60 }],
      expectations: [{ kind: 'commands', program: 'openclaw', sequence: ['gateway restart --json --safe'] }],
    });
    expect(cli).toMatchObject({
      deferredRestartSec: 90,
      cooldowns: [{ dep: DEP, reason: 'rate_limit', untilSec: 60 }],
    });
    const launchd = validateScenario({
      ...BASE,
      environment: 'launchd',
      phases: [{ atSec: 10, durationSec: 20, gateway: 'refuse', launchdUnloads: true }],
    });
    expect(launchd.phases[0]?.launchdUnloads).toBe(true);
  });

  it('accepts a self restart, a stall, a clock step and a bare environment', () => {
    const s = validateScenario({
      ...BASE,
      environment: 'bare',
      phases: [
        { atSec: 10, durationSec: 20, selfRestart: { refuseSec: 10, startingSec: 2 } },
        { atSec: 40, durationSec: 20, stalled: true, clockStepSec: -7200 },
      ],
      expectations: [
        { kind: 'restarts', count: 1, phase: 1 },
        { kind: 'decision', decision: 'gateway_restarted', phase: 0 },
        { kind: 'no_decision', decision: 'spacing' },
        { kind: 'notification_count', notice: 'watchdog_blocked', count: 1 },
        { kind: 'no_notification', notice: 'gateway_down' },
        { kind: 'restart_evidence', evidence: 'hung', count: 1 },
        { kind: 'restart_result', result: 'recovered' },
      ],
    });
    expect(s.environment).toBe('bare');
    // `announce` defaults to true: OpenClaw logs its in-process restart.
    expect(s.phases[0]?.selfRestart).toEqual({ refuseSec: 10, startingSec: 2, announce: true });
    expect(s.phases[1]).toMatchObject({ stalled: true, clockStepSec: -7200 });
    expect(s.expectations).toHaveLength(7);
  });

  const bad = (patch: Record<string, unknown>) => ({ ...BASE, ...patch });
  it.each([
    [{ environment: 'chroot' }, /environment: must be one of inherit, bare, openclaw-cli, launchd/],
    [{ deferredRestartSec: 10 }, /deferredRestartSec: applies to environment 'openclaw-cli' only/],
    [
      { phases: [{ atSec: 1, durationSec: 2, launchdUnloads: true }] },
      /phases\[0\]\.launchdUnloads: applies to environment 'launchd' only/,
    ],
    [
      { cooldowns: [{ dep: 'zhipu/glm-5.1', reason: 'rate_limit', untilSec: 10 }] },
      /cooldowns\[0\]\.dep: unknown dependency/,
    ],
    [{ cooldowns: [{ dep: DEP, reason: 'rate_limit', untilSec: 1000 }] }, /cooldowns\[0\]\.untilSec: must be a number/],
    [
      { expectations: [{ kind: 'commands', program: 'systemctl', sequence: ['restart'] }] },
      /expectations\[0\]\.program: must be one of openclaw, launchctl/,
    ],
    [
      { expectations: [{ kind: 'commands', program: 'launchctl', sequence: [] }] },
      /expectations\[0\]\.sequence: must be a list of at least 1/,
    ],
    [
      { expectations: [{ kind: 'no_decision', decision: 'deferred', reasonIncludes: 'x' }] },
      /expectations\[0\]\.reasonIncludes: unknown key/,
    ],
    [
      { phases: [{ atSec: 1, durationSec: 2, selfRestart: { refuseSec: 10 } }] },
      /phases\[0\]\.selfRestart\.startingSec: must be a number/,
    ],
    [
      { phases: [{ atSec: 1, durationSec: 2, selfRestart: { refuseSec: 1, startingSec: 1, announce: 'yes' } }] },
      /phases\[0\]\.selfRestart\.announce: must be true or false/,
    ],
    [
      { phases: [{ atSec: 1, durationSec: 2, gateway: 'up', selfRestart: { refuseSec: 1, startingSec: 1 } }] },
      /phases\[0\]\.selfRestart: cannot be combined with gateway/,
    ],
    [{ phases: [{ atSec: 1, durationSec: 2, stalled: 1 }] }, /phases\[0\]\.stalled: must be true or false/],
    [{ phases: [{ atSec: 1, durationSec: 2, clockStepSec: 1e12 }] }, /phases\[0\]\.clockStepSec: must be a number/],
    // A misspelt notice or decision would make a "no …" expectation pass whatever happened.
    [
      { expectations: [{ kind: 'no_notification', notice: 'gateway_dwn' }] },
      /expectations\[0\]\.notice: must be one of/,
    ],
    [{ expectations: [{ kind: 'notification', notice: 'nope' }] }, /expectations\[0\]\.notice: must be one of/],
    [{ expectations: [{ kind: 'no_decision', decision: 'spaced' }] }, /expectations\[0\]\.decision: must be one of/],
    [
      { expectations: [{ kind: 'notification_count', notice: 'gateway_down', count: 1.5 }] },
      /expectations\[0\]\.count: must be a whole number/,
    ],
    [
      { expectations: [{ kind: 'restarts', count: 1, phase: 2 }] },
      /expectations\[0\]\.phase: must be a number from 0 to 1/,
    ],
    [
      { expectations: [{ kind: 'decision', decision: 'dead', phase: 0.5 }] },
      /expectations\[0\]\.phase: must be a whole/,
    ],
    [
      { expectations: [{ kind: 'restart_evidence', evidence: 'vibes' }] },
      /expectations\[0\]\.evidence: must be one of/,
    ],
    [{ expectations: [{ kind: 'restart_result', result: 'fine' }] }, /expectations\[0\]\.result: must be one of/],
  ])('%j is refused naming the key', (patch, message) => {
    expect(() => validateScenario(bad(patch))).toThrow(ScenarioError);
    expect(() => validateScenario(bad(patch))).toThrow(message);
  });
});

const scenario = (expectations: Expectation[]): Scenario => validateScenario({ ...BASE, expectations });
const CTX: EvaluateContext = { scale: 10, slackSec: 2, written: [], maxDeferralSec: 600, restarts: [] };
const phases: TimelineEvent[] = [
  { t: 10, type: 'phase', index: 0, label: 'first', deps: [], gateway: null },
  { t: 50, type: 'phase', index: 1, label: 'second', deps: [], gateway: null },
];
const decision = (t: number, kind: string, alerts: string[] = []): TimelineEvent => ({
  t,
  type: 'decision',
  decision: kind,
  source: 'probe',
  dep: null,
  reason: `${kind} for a reason`,
  alerts,
});
const notice = (t: number, kind: string, count = 1): TimelineEvent => ({
  t,
  type: 'notice',
  notice: kind,
  dep: null,
  title: kind,
  severity: 'warning',
  count,
});
const restart = (t: number, id: number, evidence = 'dead'): TimelineEvent => ({
  t,
  type: 'restart',
  id,
  trigger: 'health',
  evidence,
  reason: 'dead',
});
const row = (id: number, evidence: string | null, result: string) => ({
  id,
  trigger: 'health',
  evidence,
  result,
  reason: 'r',
  detail: null,
});
const judge = (e: Expectation, timeline: TimelineEvent[], ctx: Partial<EvaluateContext> = {}) =>
  evaluate(scenario([e]), timeline, { ...CTX, ...ctx })[0];

describe('watchdog expectations', () => {
  it('counts a watchdog alert each time it is raised, even when the notifier folded the repeats', () => {
    const once = [...phases, decision(20, 'unverified', ['watchdog_blocked']), notice(20, 'watchdog_blocked')];
    const e: Expectation = { kind: 'notification_count', notice: 'watchdog_blocked', count: 1 };
    expect(judge(e, once)).toMatchObject({ passed: true, detail: expect.stringContaining('raised once') });
    // Raised on every probe, but coalesced into one notification: still three times.
    const thrice = [
      ...once,
      decision(30, 'unverified', ['watchdog_blocked']),
      decision(40, 'unverified', ['watchdog_blocked']),
    ];
    expect(judge(e, thrice)).toMatchObject({ passed: false, detail: expect.stringContaining('raised 3 times') });
    // A coalesced summary counts every notice it folds.
    const summary = [...phases, notice(20, 'breaker_opened'), notice(60, 'breaker_opened', 4)];
    expect(judge({ kind: 'notification_count', notice: 'breaker_opened', count: 5 }, summary)?.passed).toBe(true);
  });

  it('no_notification fails on one raised alert that was never sent', () => {
    const e: Expectation = { kind: 'no_notification', notice: 'gateway_down' };
    expect(judge(e, phases)?.passed).toBe(true);
    expect(judge(e, [...phases, decision(20, 'restart', ['gateway_down'])])?.passed).toBe(false);
  });

  it('judges restarts and decisions within a phase, from its start to its end plus the allowance', () => {
    const timeline = [...phases, restart(25, 1), restart(31, 2), restart(60, 3), decision(55, 'spacing')];
    // Phase 0 runs 10–30 s; 31 s is within the 2 s allowance, 60 s is phase 1's.
    expect(judge({ kind: 'restarts', count: 2, phase: 0 }, timeline)?.passed).toBe(true);
    expect(judge({ kind: 'restarts', count: 1, phase: 1 }, timeline)?.passed).toBe(true);
    expect(judge({ kind: 'restarts', count: 3 }, timeline)?.passed).toBe(true);
    expect(judge({ kind: 'no_decision', decision: 'spacing', phase: 0 }, timeline)?.passed).toBe(true);
    expect(judge({ kind: 'no_decision', decision: 'spacing', phase: 1 }, timeline)?.passed).toBe(false);
    expect(judge({ kind: 'no_decision', decision: 'spacing' }, timeline)).toMatchObject({
      passed: false,
      detail: expect.stringContaining('first at 55 s'),
    });
    expect(judge({ kind: 'decision', decision: 'spacing', phase: 0 }, timeline)?.passed).toBe(false);
    // A phase that never started is a failure, not a vacuous pass.
    expect(judge({ kind: 'restarts', count: 0, phase: 1 }, phases.slice(0, 1))).toMatchObject({
      passed: false,
      detail: 'phase 1 never started',
    });
  });

  it('restart_evidence and restart_result read the stored rows, dry runs aside', () => {
    const hung = { kind: 'restart_evidence', evidence: 'hung', count: 1 } as const;
    expect(judge(hung, phases, { restarts: [row(1, 'hung', 'recovered')] })?.passed).toBe(true);
    expect(judge(hung, phases, { restarts: [row(1, 'hung', 'recovered'), row(2, 'dead', 'recovered')] })).toMatchObject(
      { passed: false, detail: 'stored evidence: #1 hung, #2 dead' },
    );
    expect(judge(hung, phases, { restarts: [] })?.passed).toBe(false);
    expect(judge(hung, phases, { restarts: [row(1, 'hung', 'recovered'), row(2, 'dead', 'dry_run')] })?.passed).toBe(
      true,
    );
    const recovered = { kind: 'restart_result', result: 'recovered' } as const;
    expect(judge(recovered, phases, { restarts: [row(1, 'hung', 'recovered')] })?.passed).toBe(true);
    expect(judge(recovered, phases, { restarts: [row(1, 'hung', 'recovering')] })?.passed).toBe(false);
    expect(judge(recovered, phases, { restarts: [] })?.passed).toBe(false);
  });

  it('commands: exactly the matching calls of that program, in order', () => {
    const call = (program: string, ...args: string[]) => ({ program, args });
    const e: Expectation = { kind: 'commands', program: 'launchctl', sequence: ['bootstrap', 'kickstart gui/'] };
    const print = call('launchctl', 'print', 'gui/501/ai.openclaw.gateway');
    const bootstrap = call('launchctl', 'bootstrap', 'gui/501', '/p.plist');
    const kickstart = call('launchctl', 'kickstart', 'gui/501/ai.openclaw.gateway');
    expect(judge(e, phases, { commands: [print, bootstrap, kickstart, print] })?.passed).toBe(true);
    expect(judge(e, phases, { commands: [kickstart, bootstrap] })?.passed).toBe(false);
    expect(judge(e, phases, { commands: [bootstrap, kickstart, kickstart] })?.passed).toBe(false);
    expect(judge(e, phases, { commands: [call('launchctl', 'kickstart', '-k', 'gui/501/x')] })?.passed).toBe(false);
    // Another program's calls do not count.
    expect(
      judge(e, phases, { commands: [call('openclaw', 'bootstrap'), call('openclaw', 'kickstart gui/')] }),
    ).toMatchObject({ passed: false, detail: '0 calls of launchctl; matching: none' });
  });

  it('decision with reasonIncludes counts only decisions saying it', () => {
    const timeline = [...phases, decision(20, 'deferred')];
    expect(judge({ kind: 'decision', decision: 'deferred', reasonIncludes: 'for a reason' }, timeline)?.passed).toBe(
      true,
    );
    expect(judge({ kind: 'decision', decision: 'deferred', reasonIncludes: 'OpenClaw holds' }, timeline)?.passed).toBe(
      false,
    );
  });

  it('no_restart fails on a dry run, and on any stored restart row', () => {
    const e: Expectation = { kind: 'no_restart' };
    expect(judge(e, phases)?.passed).toBe(true);
    const dry: TimelineEvent = { t: 20, type: 'dry_run', id: 1, trigger: 'health', evidence: 'dead', reason: 'r' };
    expect(judge(e, [...phases, dry])?.passed).toBe(false);
    expect(judge(e, phases, { restarts: [row(1, 'dead', 'dry_run')] })).toMatchObject({
      passed: false,
      detail: expect.stringContaining('1 restart row stored (#1 dry_run)'),
    });
  });
});

describe('the report shows the watchdog', () => {
  it('lists stored restarts with their evidence, alerts with their decisions, and clock steps', () => {
    const report: RehearsalReport = {
      scenario: { name: 's', description: '', durationSec: 100, rate: 1 },
      timeScale: 10,
      format: 'jsonl',
      slackMs: 200,
      startedAt: new Date(0).toISOString(),
      wallMs: 10_000,
      stateDir: null,
      calls: { total: 0, failed: 0, byDep: {} },
      policy: {
        maxRestartsPerHour: 4,
        restartSpacingSec: 60,
        startupGraceSec: 300,
        maxDeferralSec: 600,
        deadAfterSec: 20,
        hungAfterSec: 300,
        healthIntervalSec: 15,
        breakerCooldownMs: 30_000,
      },
      timeline: [
        decision(5, 'unverified', ['watchdog_blocked']),
        { t: 6, type: 'clock_step', stepSec: -7200, offsetSec: -7200 },
        restart(7, 1, 'hung'),
      ],
      restarts: [row(1, 'hung', 'recovered')],
      commands: [],
      latencies: [],
      expectations: [],
      passed: true,
    };
    const text = renderText(report);
    expect(text).toContain('unverified: unverified for a reason [alert: watchdog_blocked]');
    expect(text).toContain('wall clock stepped back 2 h (now -2 h from the monotonic clock)');
    expect(text).toContain('#1 health (evidence: hung)');
    expect(text).toMatch(
      /Restarts \(as stored\)\n#\s+trigger\s+evidence\s+result\s+reason\n1\s+health\s+hung\s+recovered/,
    );
  });

  it('describes the new phases in words', () => {
    const [a, b] = validateScenario({
      ...BASE,
      phases: [
        { atSec: 1, durationSec: 2, selfRestart: { refuseSec: 10, startingSec: 2, announce: false } },
        { atSec: 5, durationSec: 0, clockStepSec: -7200, stalled: true },
      ],
    }).phases;
    if (!a || !b) throw new Error('phases');
    expect(describePhase(a)).toBe('gateway restarts itself (refuses 10 s, starting 2 s, not logged)');
    expect(describePhase(b)).toBe(
      'gateway stalled: no upstream calls, sessions reported stalled; wall clock stepped back 2 h',
    );
    expect(stepWords(90)).toBe('1 min 30 s');
    expect(stepWords(-600)).toBe('10 min');
    expect(stepWords(-7200)).toBe('2 h');
  });
});

describe('the log lines the rehearsal writes', () => {
  const read = (line: string) => {
    const buf = Buffer.from(line);
    return readGatewayLogLine(buf, 0, buf.length, 'f@0');
  };

  it('a stalled-session report is a stall signal for that session, at its time', () => {
    const ts = Date.UTC(2026, 10, 30, 8, 0, 0);
    const record = read(stalledSessionLine({ ts, sessionId: 's-1', sessionKey: 'agent:main:main', ageMs: 216_000 }));
    expect(record).toMatchObject({
      kind: 'signal',
      signal: { kind: 'stall', ts, sessionId: 's-1', sessionKey: 'agent:main:main', durationMs: 216_000 },
    });
  });

  it('the in-process restart line is the gateway_restart signal', () => {
    const ts = Date.UTC(2026, 10, 30, 8, 0, 0);
    expect(read(gatewayRestartLine(ts))).toMatchObject({ kind: 'signal', signal: { kind: 'gateway_restart', ts } });
  });
});
