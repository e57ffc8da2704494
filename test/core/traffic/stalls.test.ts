import { describe, expect, it } from 'vitest';
import type { GatewaySignal } from '../../../main/core/calls/events.js';
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

/** A tracker that has seen each `[session, dep]` call at T0, in order. */
function tracker(calls: ReadonlyArray<readonly [string, string]> = []): StallTracker {
  const stalls = new StallTracker();
  for (const [sessionId, dep] of calls) stalls.callSeen(sessionId, dep, T0);
  return stalls;
}

describe('StallTracker', () => {
  it("attributes a stall to the dependency of the session's last call", () => {
    const stalls = tracker([
      ['s1', CLAUDE],
      ['s1', GLM],
    ]);
    expect(stalls.signal(signal('s1', T0))).toBe(GLM);
    expect(stalls.stalled(GLM, T0)).toMatchObject({ sessions: 1, since: T0 });
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

  it('puts a stall it cannot attribute on no breaker, and still counts it as stalled without a dependency', () => {
    // A session stuck in its first call: nothing of it stored yet, and OpenClaw's stall line names no model.
    const stalls = tracker([['s1', GLM]]);
    expect(stalls.signal(signal('s9', T0, { durationMs: 6 * MINUTE }))).toBeNull();
    expect(stalls.all(T0)).toEqual([]);
    expect(stalls.withoutDependency(T0)).toEqual({ sessions: 1, since: T0, latest: T0, stuckSince: T0 - 6 * MINUTE });
    // Once a call of it is seen after the line, it is no longer stalled.
    stalls.callSeen('s9', GLM, T0 + 1000);
    expect(stalls.withoutDependency(T0 + 1000)).toBeNull();
  });

  it("forgets the stalls reported before the gateway's in-process restart, not the ones after it", () => {
    const stalls = tracker([
      ['s1', GLM],
      ['s2', GLM],
    ]);
    stalls.signal(signal('s1', T0 + MINUTE));
    stalls.signal(signal('s9', T0 + MINUTE));
    stalls.signal(signal(null, T0 + 2 * MINUTE, { kind: 'gateway_restart' }));
    stalls.signal(signal('s2', T0 + 3 * MINUTE));
    expect(stalls.all(T0 + 3 * MINUTE)).toEqual([{ dep: GLM, sessions: 1 }]);
    expect(stalls.stalled(GLM, T0 + 3 * MINUTE)).toMatchObject({ since: T0 + 3 * MINUTE });
    expect(stalls.withoutDependency(T0 + 3 * MINUTE)).toBeNull();
  });

  it('follows no stall without a session', () => {
    const stalls = tracker([['s1', GLM]]);
    expect(stalls.signal(signal(null, T0, { dep: GLM }))).toBeNull();
    expect(stalls.all(T0)).toEqual([]);
    expect(stalls.withoutDependency(T0)).toBeNull();
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
    expect(stalls.stalled(GLM, T0 + 2 * MINUTE)).toMatchObject({ sessions: 2, since: T0 + MINUTE });
  });

  it('keeps the latest report time when an older line arrives late', () => {
    const stalls = tracker([['s1', GLM]]);
    stalls.signal(signal('s1', T0 + 5 * MINUTE));
    stalls.signal(signal('s1', T0));
    expect(stalls.stalled(GLM, T0 + 5 * MINUTE)).toMatchObject({ sessions: 1, since: T0 + 5 * MINUTE });
  });

  it('stops flagging a stall ten minutes after its last report', () => {
    const stalls = tracker([['s1', GLM]]);
    stalls.signal(signal('s1', T0));
    expect(stalls.stalled(GLM, T0 + 10 * MINUTE)).toMatchObject({ sessions: 1, since: T0 });
    expect(stalls.stalled(GLM, T0 + 10 * MINUTE + 1)).toBeNull();
    expect(stalls.all(T0 + 10 * MINUTE + 1)).toEqual([]);
  });

  it('clears a stall when the session makes a call after the line, on any dependency, failed or not', () => {
    const stalls = tracker([
      ['s1', GLM],
      ['s2', GLM],
    ]);
    stalls.signal(signal('s1', T0 + MINUTE));
    stalls.signal(signal('s2', T0 + MINUTE));
    stalls.callSeen('s1', GLM, T0 + 2 * MINUTE);
    stalls.callSeen('s2', CLAUDE, T0 + 2 * MINUTE);
    expect(stalls.all(T0 + 2 * MINUTE)).toEqual([]);
  });

  it('keeps a stall when a call from before the line is read after it', () => {
    const stalls = tracker([['s1', GLM]]);
    stalls.signal(signal('s1', T0 + 2 * MINUTE));
    stalls.callSeen('s1', CLAUDE, T0 + MINUTE);
    // Still stalled, now on the dependency of its latest call (all before the line).
    expect(stalls.stalled(CLAUDE, T0 + 2 * MINUTE)).toMatchObject({ sessions: 1, since: T0 + 2 * MINUTE });
    expect(stalls.stalled(GLM, T0 + 2 * MINUTE)).toBeNull();
  });

  it('ignores a line older than a call already seen, and ends in the same state whatever the order', () => {
    const lineFirst = tracker([['s1', GLM]]);
    lineFirst.signal(signal('s1', T0 + MINUTE));
    lineFirst.callSeen('s1', GLM, T0 + 2 * MINUTE);
    const callFirst = tracker([['s1', GLM]]);
    callFirst.callSeen('s1', GLM, T0 + 2 * MINUTE);
    expect(callFirst.signal(signal('s1', T0 + MINUTE))).toBeNull();
    for (const stalls of [lineFirst, callFirst]) expect(stalls.all(T0 + 2 * MINUTE)).toEqual([]);
    // A new line after the call stalls it again.
    expect(callFirst.signal(signal('s1', T0 + 3 * MINUTE))).toBe(GLM);
    expect(callFirst.stalled(GLM, T0 + 3 * MINUTE)).toMatchObject({ sessions: 1, since: T0 + 3 * MINUTE });
  });

  it('treats failed attempts while a run retries (calls from the gateway log) as progress', () => {
    const stalls = tracker([['s1', GLM]]);
    stalls.signal(signal('s1', T0 + MINUTE));
    // Whether a call failed is not the tracker's business: any call after the line is progress.
    stalls.callSeen('s1', GLM, T0 + MINUTE + 30_000);
    expect(stalls.stalled(GLM, T0 + 2 * MINUTE)).toBeNull();
  });

  it('places a stall reported before any call of the session once a call from before the line is seen', () => {
    const stalls = tracker();
    expect(stalls.signal(signal('s1', T0 + MINUTE))).toBeNull();
    expect(stalls.all(T0 + MINUTE)).toEqual([]);
    stalls.callSeen('s1', GLM, T0);
    expect(stalls.stalled(GLM, T0 + MINUTE)).toMatchObject({ sessions: 1, since: T0 + MINUTE });
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
    for (let i = 0; i < 19_998; i++) stalls.callSeen(`filler-${i}`, CLAUDE, T0);
    stalls.callSeen('touched', GLM, T0);
    stalls.callSeen('newest', GLM, T0);
    expect(stalls.signal(signal('first', T0))).toBeNull();
    expect(stalls.signal(signal('touched', T0))).toBe(GLM);
    expect(stalls.signal(signal('newest', T0))).toBe(GLM);
  });
});

describe('StallTracker: idle sessions are not stalled', () => {
  it('never flags a session whose last turn failed and that then went quiet, not even after an hour', () => {
    const stalls = new StallTracker();
    stalls.callSeen('s1', GLM, T0);
    // The failed call that ended the turn: the tracker is not told how calls ended, only that they happened.
    stalls.callSeen('s1', GLM, T0 + 1000);
    for (const later of [3 * MINUTE, 10 * MINUTE, 60 * MINUTE, 120 * MINUTE]) {
      expect(stalls.stalled(GLM, T0 + later)).toBeNull();
      expect(stalls.all(T0 + later)).toEqual([]);
    }
  });

  it('flags that session once the gateway log reports it stalled, until a call after the line', () => {
    const stalls = new StallTracker();
    stalls.callSeen('s1', GLM, T0);
    expect(stalls.signal(signal('s1', T0 + 60 * MINUTE))).toBe(GLM);
    expect(stalls.stalled(GLM, T0 + 61 * MINUTE)).toMatchObject({ sessions: 1, since: T0 + 60 * MINUTE });
    stalls.callSeen('s1', GLM, T0 + 62 * MINUTE);
    expect(stalls.stalled(GLM, T0 + 62 * MINUTE)).toBeNull();
  });

  it('judges by event time: an older call read late does not change the dependency of a newer one', () => {
    const stalls = new StallTracker();
    stalls.callSeen('s1', GLM, T0 + 5000);
    stalls.callSeen('s1', CLAUDE, T0);
    expect(stalls.signal(signal('s1', T0 + 6000))).toBe(GLM);
  });

  it("does not follow calls or stalls without a session (the gateway log's per-attempt calls name none)", () => {
    const stalls = new StallTracker();
    stalls.callSeen('unknown', GLM, T0);
    stalls.callSeen('', GLM, T0);
    expect(stalls.knows('unknown')).toBe(false);
    expect(stalls.signal(signal('unknown', T0 + MINUTE, { dep: GLM }))).toBeNull();
    expect(stalls.signal(signal('', T0 + MINUTE, { dep: GLM }))).toBeNull();
    expect(stalls.all(T0 + MINUTE)).toEqual([]);
  });

  it('forgets the calls of a session evicted beyond 20 000', () => {
    const stalls = new StallTracker();
    stalls.callSeen('old', GLM, T0);
    for (let i = 0; i < 20_000; i++) stalls.callSeen(`filler-${i}`, CLAUDE, T0);
    expect(stalls.knows('old')).toBe(false);
    expect(stalls.signal(signal('old', T0 + MINUTE))).toBeNull();
  });

  it("dates how long sessions have made no progress from the lines' own ages, however often they repeat", () => {
    const stalls = tracker([['s1', GLM]]);
    // OpenClaw repeats the line every 30 s while the session stays stuck; its age grows with it.
    for (let i = 0; i < 6; i++)
      stalls.signal(signal('s1', T0 + 2 * MINUTE + i * 30_000, { durationMs: 120_000 + i * 30_000 }));
    expect(stalls.stalled(GLM, T0 + 5 * MINUTE)).toEqual({
      sessions: 1,
      since: T0 + 4 * MINUTE + 30_000,
      latest: T0 + 4 * MINUTE + 30_000,
      stuckSince: T0,
    });
    // A line without an age dates the stall by its own time.
    const bare = tracker([['s2', GLM]]);
    bare.signal(signal('s2', T0 + MINUTE, { durationMs: null }));
    expect(bare.stalled(GLM, T0 + MINUTE)?.stuckSince).toBe(T0 + MINUTE);
  });
});
