import { describe, expect, it } from 'vitest';
import type { GatewaySignal } from '../../../main/core/events.js';
import { StallTracker } from '../../../main/core/traffic/stalls.js';

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const MINUTE = 60_000;
const GLM = 'zhipu/glm-5.1';
const CLAUDE = 'anthropic/claude-sonnet-4';

let nextLine = 0;

/** A gateway-log signal; a `stall` for `sessionId` at `ts` unless told otherwise. */
function signal(sessionId: string | null, ts: number, over: Partial<GatewaySignal> = {}): GatewaySignal {
  return {
    key: `gateway.log:${nextLine++}`,
    ts,
    kind: 'stall',
    sessionId,
    sessionKey: null,
    runId: null,
    dep: null,
    candidateDep: null,
    decision: null,
    reason: null,
    httpStatus: null,
    finalOutcome: null,
    lane: null,
    durationMs: 120_000,
    classification: 'stalled_agent_run',
    detail: null,
    ...over,
  };
}

/** A tracker (silence not counted) that has seen each `[session, dep]` call, successful, in order. */
function tracker(calls: ReadonlyArray<readonly [string, string]> = []): StallTracker {
  const stalls = new StallTracker();
  for (const [sessionId, dep] of calls) stalls.callSeen(sessionId, dep, T0, false);
  return stalls;
}

describe('StallTracker', () => {
  it("attributes a stall to the dependency of the session's last call", () => {
    const stalls = tracker([
      ['s1', CLAUDE],
      ['s1', GLM],
    ]);
    expect(stalls.signal(signal('s1', T0))).toBe(GLM);
    expect(stalls.stalled(GLM, T0)).toEqual({ sessions: 1, since: T0 });
    expect(stalls.stalled(CLAUDE, T0)).toBeNull();
  });

  it("prefers the session's last call over the dependency the log line names", () => {
    const stalls = tracker([['s1', GLM]]);
    expect(stalls.signal(signal('s1', T0, { dep: CLAUDE }))).toBe(GLM);
  });

  it('falls back to the dependency the log line names for an unknown session', () => {
    const stalls = tracker();
    expect(stalls.signal(signal('s9', T0, { dep: CLAUDE }))).toBe(CLAUDE);
    expect(stalls.stalled(CLAUDE, T0)?.sessions).toBe(1);
  });

  it('drops a stall it cannot attribute to any dependency', () => {
    const stalls = tracker([['s1', GLM]]);
    expect(stalls.signal(signal('s9', T0))).toBeNull();
    expect(stalls.signal(signal(null, T0, { dep: GLM }))).toBeNull();
    expect(stalls.all(T0)).toEqual([]);
  });

  it.each(['fallback_decision', 'failover_decision', 'lane_error', 'run_timeout'] as const)(
    'ignores %s signals',
    (kind) => {
      const stalls = tracker([['s1', GLM]]);
      expect(stalls.signal(signal('s1', T0, { kind }))).toBeNull();
      expect(stalls.stalled(GLM, T0)).toBeNull();
    },
  );

  it('counts each stalled session once, dated by the oldest of their latest reports', () => {
    const stalls = tracker([
      ['s1', GLM],
      ['s2', GLM],
    ]);
    stalls.signal(signal('s1', T0));
    stalls.signal(signal('s1', T0 + MINUTE));
    stalls.signal(signal('s2', T0 + 2 * MINUTE));
    expect(stalls.stalled(GLM, T0 + 2 * MINUTE)).toEqual({ sessions: 2, since: T0 + MINUTE });
  });

  it('keeps the latest report time when an older line arrives late', () => {
    const stalls = tracker([['s1', GLM]]);
    stalls.signal(signal('s1', T0 + 5 * MINUTE));
    stalls.signal(signal('s1', T0));
    expect(stalls.stalled(GLM, T0 + 5 * MINUTE)).toEqual({ sessions: 1, since: T0 + 5 * MINUTE });
  });

  it('stops flagging a stall ten minutes after its last report', () => {
    const stalls = tracker([['s1', GLM]]);
    stalls.signal(signal('s1', T0));
    expect(stalls.stalled(GLM, T0 + 10 * MINUTE)).toEqual({ sessions: 1, since: T0 });
    expect(stalls.stalled(GLM, T0 + 10 * MINUTE + 1)).toBeNull();
    expect(stalls.all(T0 + 10 * MINUTE + 1)).toEqual([]);
  });

  it('clears a stall when the session progresses on the same dependency', () => {
    const stalls = tracker([['s1', GLM]]);
    stalls.signal(signal('s1', T0));
    stalls.progressed('s1');
    expect(stalls.stalled(GLM, T0)).toBeNull();
  });

  it('lists every dependency with fresh stalls and their session counts', () => {
    const stalls = tracker([
      ['s1', GLM],
      ['s2', GLM],
      ['s3', CLAUDE],
    ]);
    for (const sessionId of ['s1', 's2', 's3']) stalls.signal(signal(sessionId, T0));
    expect(stalls.all(T0)).toEqual([
      { dep: GLM, sessions: 2 },
      { dep: CLAUDE, sessions: 1 },
    ]);
  });

  it('forgets the least recently seen session beyond 20 000, not one seen again since', () => {
    const stalls = tracker([
      ['first', GLM],
      ['touched', GLM],
    ]);
    for (let i = 0; i < 19_998; i++) stalls.callSeen(`filler-${i}`, CLAUDE, T0, false);
    stalls.callSeen('touched', GLM, T0, false);
    stalls.callSeen('newest', GLM, T0, false);
    expect(stalls.signal(signal('first', T0))).toBeNull();
    expect(stalls.signal(signal('touched', T0))).toBe(GLM);
    expect(stalls.signal(signal('newest', T0))).toBe(GLM);
  });
});

describe('StallTracker: sessions gone silent after a failure', () => {
  const AFTER = 3 * MINUTE;

  it('flags a session whose latest call failed once it has been silent for silentAfterMs', () => {
    const stalls = new StallTracker(AFTER);
    stalls.callSeen('s1', GLM, T0, false);
    stalls.callSeen('s1', GLM, T0 + 1000, true);
    expect(stalls.stalled(GLM, T0 + 1000 + AFTER - 1)).toBeNull();
    expect(stalls.stalled(GLM, T0 + 1000 + AFTER)).toEqual({ sessions: 1, since: T0 + 1000 });
    expect(stalls.all(T0 + 1000 + AFTER)).toEqual([{ dep: GLM, sessions: 1 }]);
  });

  it('does not flag a session whose latest call succeeded, or one that went on elsewhere after the failure', () => {
    const stalls = new StallTracker(AFTER);
    stalls.callSeen('ok', GLM, T0, true);
    stalls.callSeen('ok', GLM, T0 + 1000, false);
    stalls.callSeen('fell-back', GLM, T0, true);
    stalls.callSeen('fell-back', CLAUDE, T0 + 2000, false);
    expect(stalls.all(T0 + 10 * MINUTE)).toEqual([]);
  });

  it('judges by event time: an older call read late does not hide a newer failure', () => {
    const stalls = new StallTracker(AFTER);
    stalls.callSeen('s1', GLM, T0 + 5000, true);
    stalls.callSeen('s1', CLAUDE, T0, false);
    expect(stalls.stalled(GLM, T0 + 5000 + AFTER)).toEqual({ sessions: 1, since: T0 + 5000 });
    // Stall reports are attributed to the latest call's dependency too.
    expect(stalls.signal(signal('s1', T0 + 6000))).toBe(GLM);
  });

  it('stops counting a silent session an hour after its failure, and never counts it again', () => {
    const stalls = new StallTracker(AFTER);
    stalls.callSeen('s1', GLM, T0, true);
    expect(stalls.stalled(GLM, T0 + 60 * MINUTE)?.sessions).toBe(1);
    expect(stalls.stalled(GLM, T0 + 60 * MINUTE + 1)).toBeNull();
    expect(stalls.stalled(GLM, T0 + 30 * MINUTE)).toBeNull();
  });

  it('counts a session both silent and reported stalled once, since the earlier of the two', () => {
    const stalls = new StallTracker(AFTER);
    stalls.callSeen('s1', GLM, T0, true);
    stalls.callSeen('s2', GLM, T0, true);
    stalls.signal(signal('s1', T0 + 4 * MINUTE));
    expect(stalls.stalled(GLM, T0 + 4 * MINUTE)).toEqual({ sessions: 2, since: T0 });
  });

  it('silentAfterMs 0 turns the silence rule off; reports still count', () => {
    const stalls = new StallTracker(0);
    stalls.callSeen('s1', GLM, T0, true);
    expect(stalls.stalled(GLM, T0 + 10 * MINUTE)).toBeNull();
    stalls.signal(signal('s1', T0 + 10 * MINUTE));
    expect(stalls.stalled(GLM, T0 + 10 * MINUTE)?.sessions).toBe(1);
  });

  it('forgets the failure of a session evicted beyond 20 000', () => {
    const stalls = new StallTracker(AFTER);
    stalls.callSeen('old', GLM, T0, true);
    for (let i = 0; i < 20_000; i++) stalls.callSeen(`filler-${i}`, CLAUDE, T0, false);
    expect(stalls.stalled(GLM, T0 + AFTER)).toBeNull();
  });
});
