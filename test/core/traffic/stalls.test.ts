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

/** A tracker that has seen each `[session, dep]` call in order. */
function tracker(calls: ReadonlyArray<readonly [string, string]> = []): StallTracker {
  const stalls = new StallTracker();
  for (const [sessionId, dep] of calls) stalls.callSeen(sessionId, dep);
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
    for (let i = 0; i < 19_998; i++) stalls.callSeen(`filler-${i}`, CLAUDE);
    stalls.callSeen('touched', GLM);
    stalls.callSeen('newest', GLM);
    expect(stalls.signal(signal('first', T0))).toBeNull();
    expect(stalls.signal(signal('touched', T0))).toBe(GLM);
    expect(stalls.signal(signal('newest', T0))).toBe(GLM);
  });
});
