/**
 * Named scenarios: timed steps against one breaker, the transitions they must
 * cause (from→to, with reasons where the words matter) and the final snapshot.
 * Each reads as a small incident report; the numbers are worked out by hand in
 * the comments, not copied from the engine's output.
 */
import { describe, expect, it } from 'vitest';
import { Breaker } from '../../../main/core/breaker/engine.js';
import {
  type BreakerPolicy,
  type BreakerSnapshot,
  DEFAULT_POLICY,
  type OperatorAction,
  type Transition,
} from '../../../main/core/breaker/types.js';
import type { Outcome, Phase } from '../../../main/core/calls/classify.js';

type Step =
  | { kind: 'observe'; ts: number; outcome: Outcome; phase: Phase; retryAfterMs: number | null; sessionId: string }
  | { kind: 'tick'; ts: number }
  | { kind: 'control'; ts: number; action: OperatorAction; reason: string };

interface Scenario {
  name: string;
  policy?: BreakerPolicy;
  steps: Step[];
  /** `from→to` of every transition, in order. */
  transitions: string[];
  /** Reasons of the transitions, when the scenario is about the words. */
  reasons?: string[];
  final: Partial<BreakerSnapshot>;
}

const s = (seconds: number): number => seconds * 1000;

interface CallOptions {
  retryAfter?: number;
  sessions?: readonly string[];
  phase?: Phase;
}

/** `count` calls with `outcome`, `every` seconds apart from `from` seconds, rotating over `sessions`. */
function calls(from: number, count: number, every: number, outcome: Outcome, options: CallOptions = {}): Step[] {
  const sessions = options.sessions ?? ['s1', 's2', 's3'];
  return Array.from({ length: count }, (_, i) => ({
    kind: 'observe' as const,
    ts: s(from + i * every),
    outcome,
    phase: options.phase ?? (outcome === 'ok' ? 'complete' : 'before_output'),
    retryAfterMs: options.retryAfter === undefined ? null : s(options.retryAfter),
    sessionId: sessions[i % sessions.length] ?? 's1',
  }));
}

/** One call from `pattern` per second from `from`: `S` ok, `F` server error. */
function pattern(from: number, letters: string): Step[] {
  return [...letters].flatMap((c, i) => calls(from + i, 1, 1, c === 'S' ? 'ok' : 'server_error'));
}

/** Ticks every `every` seconds in [from, to]. */
function ticks(from: number, to: number, every: number): Step[] {
  const out: Step[] = [];
  for (let t = from; t <= to; t += every) out.push({ kind: 'tick', ts: s(t) });
  return out;
}

const control = (at: number, action: OperatorAction, reason: string): Step => ({
  kind: 'control',
  ts: s(at),
  action,
  reason,
});

/** Steps from several sources interleaved by time; equal times keep the order given. */
function timeline(...parts: Step[][]): Step[] {
  return parts
    .flat()
    .map((step, i) => ({ step, i }))
    .sort((a, b) => a.step.ts - b.step.ts || a.i - b.i)
    .map(({ step }) => step);
}

function run(b: Breaker, steps: readonly Step[]): Transition[] {
  return steps.flatMap((step) => {
    if (step.kind === 'tick') return b.tick(step.ts);
    if (step.kind === 'control') return b.control(step.action, step.reason, step.ts);
    const { kind: _, ...obs } = step;
    return b.observe(obs);
  });
}

const SCENARIOS: Scenario[] = [
  {
    name: 'zhipu 429 storm with Retry-After 120 s',
    // 429s with Retry-After 120 s at 0, 5, 10, 15, 20 s. The first throttles at once (until 120 s);
    // the other four are rejections, each pushing Retry-After to 125 … 140 s. The cooldown ends at
    // 30 s, so the ticks at 30, 40, …, 130 s are 11 skipped half-open attempts; the tick at 140 s
    // half-opens (at 140 s), and two sessions' successes close it.
    steps: timeline(
      calls(0, 5, 5, 'rate_limited', { retryAfter: 120 }),
      ticks(10, 200, 10),
      calls(141, 1, 1, 'ok', { sessions: ['s1'] }),
      calls(142, 1, 1, 'ok', { sessions: ['s2'] }),
    ),
    transitions: ['closed→throttled', 'throttled→half_open', 'half_open→closed'],
    reasons: ['rate limited, Retry-After 120 s', 'Retry-After over', '2 successful trials'],
    final: {
      state: 'closed',
      since: s(142),
      rejections: 4,
      retryAfterSkips: 11,
      retryAfterUntil: null,
      openUntil: null,
      openDurationMs: s(30),
    },
  },
  {
    name: 'long 429 storm whose trials failed: the provider answering ends it, not the 8-minute wait',
    // 429s without Retry-After at 0–4 s throttle at 4 s until 34 s. Each trial fails: at 34 s (60 s, until
    // 94 s), 94 s (120 s, until 214 s), 214 s (240 s, until 454 s), 454 s (480 s, until 934 s). The 429s at
    // 100, 200, 300 and 400 s are rejections. The provider is back at 500 s: s1's success there is an answer
    // while throttled (a rejection too) and the first trial; s2's at 501 s closes, 433 s before 934 s.
    steps: timeline(
      calls(0, 5, 1, 'rate_limited'),
      calls(34, 1, 1, 'rate_limited'),
      calls(94, 1, 1, 'rate_limited'),
      calls(214, 1, 1, 'rate_limited'),
      calls(454, 1, 1, 'rate_limited'),
      calls(100, 4, 100, 'rate_limited'),
      calls(500, 1, 1, 'ok', { sessions: ['s1'] }),
      calls(501, 1, 1, 'ok', { sessions: ['s2'] }),
      ticks(510, 1000, 10),
    ),
    transitions: [
      'closed→throttled',
      ...Array.from({ length: 4 }, () => ['throttled→half_open', 'half_open→throttled']).flat(),
      'throttled→half_open',
      'half_open→closed',
    ],
    reasons: [
      '5 consecutive failures',
      ...Array.from({ length: 4 }, () => ['cooldown over', 'trial failed: rate_limited']).flat(),
      'answered while throttled',
      '2 successful trials',
    ],
    final: { state: 'closed', since: s(501), rejections: 5, openUntil: null, openDurationMs: s(30) },
  },
  {
    name: 'a quota letting one call in ten through stays throttled: its odd success is not a recovery',
    // 429s every 0.5 s from 0 to 59.5 s, a success at 0.25, 5.25, …, 55.25 s. The 429s at 0.5–2.5 s are 5 in a
    // row: throttled at 2.5 s until 32.5 s. At 5.25 s the window holds 13 calls, too few for the rate to count,
    // so that success is an answer (half-open) and the 429 at 5.5 s fails it: throttled 60 s, until 65.5 s.
    // From 10.25 s on the window holds 20 calls or more, about 90 % failed: the successes are rejections like
    // the 429s (5 + 1 before 5.25 s, 108 + 10 from 6 s), and nothing moves again before 65.5 s.
    steps: timeline(calls(0, 120, 0.5, 'rate_limited'), calls(0.25, 12, 5, 'ok'), ticks(10, 60, 10)),
    transitions: ['closed→throttled', 'throttled→half_open', 'half_open→throttled'],
    reasons: ['5 consecutive failures', 'answered while throttled', 'trial failed: rate_limited'],
    final: { state: 'throttled', since: s(5.5), openUntil: s(65.5), openDurationMs: s(60), rejections: 124 },
  },
  {
    name: '503 storm then recovery',
    // 503s every second from 0 to 9 s: the 5th (4 s) opens until 34 s, 5–9 s are rejections.
    // The success at 35 s half-opens (at 34 s) and is the first trial; the next, from another session, closes.
    steps: timeline(calls(0, 10, 1, 'server_error'), calls(35, 2, 1, 'ok')),
    transitions: ['closed→open', 'open→half_open', 'half_open→closed'],
    reasons: ['5 consecutive failures', 'cooldown over', '2 successful trials'],
    final: { state: 'closed', rejections: 5, since: s(36), consecutiveFailures: 0, openDurationMs: s(30) },
  },
  {
    name: 'flapping dependency',
    // Opens at 4 s (until 34 s); a timeout at 35 s half-opens it and fails the trial: open 60 s, until 95 s.
    // Successes at 96 and 97 s close it (duration back to 30 s); failures at 100–104 s open it until 134 s.
    steps: timeline(
      calls(0, 5, 1, 'server_error'),
      calls(35, 1, 1, 'timeout'),
      calls(96, 2, 1, 'ok'),
      calls(100, 5, 1, 'connection_reset'),
    ),
    transitions: [
      'closed→open',
      'open→half_open',
      'half_open→open',
      'open→half_open',
      'half_open→closed',
      'closed→open',
    ],
    reasons: [
      '5 consecutive failures',
      'cooldown over',
      'trial failed: timeout',
      'cooldown over',
      '2 successful trials',
      '5 consecutive failures',
    ],
    final: { state: 'open', since: s(104), openDurationMs: s(30), openUntil: s(134) },
  },
  {
    name: 'slow recovery with growing cooldown',
    // Opens at 4 s; every trial fails right when it is allowed: durations 60, 120, 240, 480, 600, 600 s
    // (capped at 10 min), half-opening at 34, 94, 214, 454, 934, 1534 and 2134 s. Then two sessions succeed.
    steps: timeline(
      calls(0, 5, 1, 'server_error'),
      ...[34, 94, 214, 454, 934, 1534].map((t) => calls(t, 1, 1, 'overloaded')),
      calls(2134, 2, 1, 'ok'),
    ),
    transitions: [
      'closed→open',
      ...Array.from({ length: 6 }, () => ['open→half_open', 'half_open→open']).flat(),
      'open→half_open',
      'half_open→closed',
    ],
    final: { state: 'closed', openDurationMs: s(30), since: s(2135), rejections: 0 },
  },
  {
    name: 'slow recovery: the cap holds',
    // Same as above, stopped while open after the 6th failed trial (at 1534 s): 600 s, open until 2134 s.
    steps: timeline(
      calls(0, 5, 1, 'server_error'),
      ...[34, 94, 214, 454, 934, 1534].map((t) => calls(t, 1, 1, 'overloaded')),
      ticks(1600, 2100, 100),
    ),
    transitions: ['closed→open', ...Array.from({ length: 6 }, () => ['open→half_open', 'half_open→open']).flat()],
    final: { state: 'open', openDurationMs: s(600), openUntil: s(2134), since: s(1534) },
  },
  {
    name: 'partial decay: 65 % failures at 20+ calls',
    // S F F six times then S F: 13 of 20 failed, never 3 in a row. The 20th call (19 s) is the first with
    // enough calls to judge, and 65 % > 60 %.
    steps: pattern(0, 'SFFSFFSFFSFFSFFSFFSF'),
    transitions: ['closed→open'],
    reasons: ['13 of 20 calls failed (65%) in 30 s'],
    final: { state: 'open', since: s(19), openUntil: s(49), consecutiveFailures: 1 },
  },
  {
    name: 'partial decay below the line: 55 % stays closed',
    // F F then S F nine times: 11 of every 20 calls fail, never more than 3 in a row. The 30 s window holds a
    // whole period plus 10 calls (at most 6 failures): at most 17 of 30 (57 %), and 55–59 % while it fills.
    // At 59 s the window (29 s, 59 s] holds 5 + 11 failures.
    steps: pattern(0, 'FFSFSFSFSFSFSFSFSFSF'.repeat(3)),
    transitions: [],
    final: { state: 'closed', window: { calls: 30, failures: 16, successes: 14, failureRate: 16 / 30 } },
  },
  {
    name: 'rate limits without Retry-After: throttled by the window',
    // Rate limits and successes alternate 2:1 from 0 s; the 20th call (19 s) sees 14 of 20 failed, all quota.
    steps: [...'FFSFFSFFSFFSFFSFFSFF'].flatMap((c, i) =>
      calls(i, 1, 1, c === 'S' ? 'ok' : 'rate_limited', { sessions: [`s${i % 4}`] }),
    ),
    transitions: ['closed→throttled'],
    reasons: ['14 of 20 calls failed (70%) in 30 s'],
    final: { state: 'throttled', retryAfterUntil: null, openUntil: s(49) },
  },
  {
    name: 'mid-stream aborts and auth errors are reported, never tripped on',
    steps: timeline(
      calls(0, 40, 0.5, 'server_error', { phase: 'mid_stream' }),
      calls(0.25, 40, 0.5, 'auth'),
      calls(20, 20, 1, 'timeout', { phase: 'mid_stream' }),
    ),
    transitions: [],
    final: { state: 'closed', window: { calls: 0, failures: 0, successes: 0, failureRate: 0 }, lastEventAt: s(39) },
  },
  {
    name: 'one sticky session cannot close it alone while others are around',
    // Opens at 4 s (sessions s1–s3). s3 is seen (rejected: a call its user aborted, which proves nothing, where a
    // success would have ended the open period) at 20 s. After the cooldown, s1 succeeds at 35 and 36 s: the
    // second counts for nothing while s3 is in the window; s3's success at 40 s closes.
    steps: timeline(
      calls(0, 5, 1, 'timeout'),
      calls(20, 1, 1, 'aborted', { sessions: ['s3'] }),
      calls(35, 2, 1, 'ok', { sessions: ['s1'] }),
      calls(40, 1, 1, 'ok', { sessions: ['s3'] }),
    ),
    transitions: ['closed→open', 'open→half_open', 'half_open→closed'],
    final: { state: 'closed', since: s(40), rejections: 1 },
  },
  {
    name: 'late records from a backfill land in their own time buckets',
    // Live traffic is healthy at 100–119 s; a replay then delivers 30 failures from 0–29 s. They are far
    // outside the window (89 s, 119 s], so they neither trip nor show in it, nor extend a run.
    steps: [...calls(100, 20, 1, 'ok'), ...calls(0, 30, 1, 'server_error')],
    transitions: [],
    final: {
      state: 'closed',
      consecutiveFailures: 0,
      lastEventAt: s(119),
      window: { calls: 20, failures: 0, successes: 20, failureRate: 0 },
    },
  },
  {
    name: 'maintenance: force open then reset',
    // Healthy traffic; the operator holds it open at 10 s. Calls at 10.5–14.5 s are rejections, time passes
    // without a half-open, and the reset at 1000 s closes it with a clean slate.
    steps: timeline(
      calls(0, 10, 1, 'ok'),
      [control(10, 'force_open', 'provider maintenance window')],
      calls(10.5, 5, 1, 'server_error'),
      ticks(20, 990, 10),
      [control(1000, 'reset', 'maintenance over')],
    ),
    transitions: ['closed→open', 'open→closed'],
    reasons: ['operator: provider maintenance window', 'operator: maintenance over'],
    final: {
      state: 'closed',
      forced: null,
      reason: 'operator: maintenance over',
      since: s(1000),
      rejections: 5,
      retryAfterSkips: 0,
      consecutiveFailures: 0,
      openDurationMs: s(30),
    },
  },
  {
    name: 'force closed rides out a storm, reset hands control back',
    // Held closed, 30 failures change nothing; after the reset at 40 s, 5 more open it.
    steps: timeline(
      [control(0, 'force_closed', 'known flaky, keep traffic flowing')],
      calls(1, 30, 1, 'server_error'),
      [control(40, 'reset', 'back to automatic')],
      calls(41, 5, 1, 'server_error'),
    ),
    transitions: ['closed→closed', 'closed→closed', 'closed→open'],
    final: { state: 'open', forced: null, since: s(45) },
  },
  {
    name: 'two independent quota and outage episodes are told apart',
    // A 429 with Retry-After 45 s throttles until 45 s; recovery at 46/47 s; an outage from 60 s opens.
    steps: timeline(
      calls(0, 1, 1, 'rate_limited', { retryAfter: 45 }),
      calls(46, 2, 1, 'ok'),
      calls(60, 5, 1, 'timeout'),
    ),
    transitions: ['closed→throttled', 'throttled→half_open', 'half_open→closed', 'closed→open'],
    reasons: ['rate limited, Retry-After 45 s', 'Retry-After over', '2 successful trials', '5 consecutive failures'],
    final: { state: 'open', retryAfterUntil: null, openUntil: s(94) },
  },
];

describe('breaker scenarios', () => {
  it.each(SCENARIOS)('$name', (scenario) => {
    const b = new Breaker('zai/glm-4.6', scenario.policy ?? DEFAULT_POLICY);
    const transitions = run(b, scenario.steps);
    expect(transitions.map((t) => `${t.from}→${t.to}`)).toEqual(scenario.transitions);
    if (scenario.reasons !== undefined) expect(transitions.map((t) => t.reason)).toEqual(scenario.reasons);
    expect(b.snapshot()).toMatchObject(scenario.final);
  });

  it('every scenario replays to the same transitions and snapshot', () => {
    for (const scenario of SCENARIOS) {
      const first = new Breaker('dep', scenario.policy ?? DEFAULT_POLICY);
      const second = new Breaker('dep', scenario.policy ?? DEFAULT_POLICY);
      expect(run(second, scenario.steps)).toEqual(run(first, scenario.steps));
      expect(second.snapshot()).toEqual(first.snapshot());
    }
  });
});
