import { describe, expect, it } from 'vitest';
import { Breaker, PROBE_JITTER_MS, PROBE_SPACING_MS } from '../../../main/core/breaker/engine.js';
import {
  type BreakerPolicy,
  DEFAULT_POLICY,
  type Observation,
  type Transition,
} from '../../../main/core/breaker/types.js';
import { isQuota, verdictOf } from '../../../main/core/breaker/verdict.js';
import { OUTCOMES, type Outcome, type Phase } from '../../../main/core/calls/classify.js';

/** The fake clock: plain numbers, in seconds from an arbitrary origin. */
const s = (seconds: number): number => seconds * 1000;

function call(ts: number, outcome: Outcome = 'ok', over: Partial<Observation> = {}): Observation {
  const phase: Phase = outcome === 'ok' ? 'complete' : 'before_output';
  return { ts, outcome, phase, retryAfterMs: null, sessionId: 'a', ...over };
}
const ok = (ts: number, sessionId = 'a') => call(ts, 'ok', { sessionId });
const fail = (ts: number, outcome: Outcome = 'server_error', sessionId = 'a') => call(ts, outcome, { sessionId });
const limited = (ts: number, retryAfterMs: number | null) => call(ts, 'rate_limited', { retryAfterMs });

const arrows = (ts: readonly Transition[]) => ts.map((t) => `${t.from}→${t.to}`);

/** Feeds observations in order and returns every transition they caused. */
function feed(b: Breaker, observations: readonly Observation[]): Transition[] {
  return observations.flatMap((o) => b.observe(o));
}

/** `n` failures one second apart from `start` seconds, alternating sessions. */
function failures(start: number, n: number, outcome: Outcome = 'server_error'): Observation[] {
  return Array.from({ length: n }, (_, i) => fail(s(start + i), outcome, i % 2 === 0 ? 'a' : 'b'));
}

/** A breaker tripped to `open` by 5 server errors at 0–4 s (open until 34 s). */
function tripped(policy: BreakerPolicy = DEFAULT_POLICY): Breaker {
  const b = new Breaker('zai/glm-4.6', policy);
  feed(b, failures(0, 5));
  expect(b.snapshot().state).toBe('open');
  return b;
}

/** Tripped, then half-open at 34 s. */
function halfOpen(policy: BreakerPolicy = DEFAULT_POLICY): Breaker {
  const b = tripped(policy);
  expect(arrows(b.tick(s(34)))).toEqual(['open→half_open']);
  return b;
}

const noConsecutive: BreakerPolicy = { ...DEFAULT_POLICY, consecutiveFailures: 1000 };

describe('verdictOf / isQuota', () => {
  const failuresOutcomes: Outcome[] = ['timeout', 'connection_reset', 'server_error', 'overloaded', 'rate_limited'];
  const neutralOutcomes: Outcome[] = ['auth', 'billing', 'context_overflow', 'other_error', 'aborted'];

  it('covers every outcome exactly once', () => {
    expect([...failuresOutcomes, ...neutralOutcomes, 'ok'].sort()).toEqual([...OUTCOMES].sort());
  });

  it.each(failuresOutcomes.filter((outcome) => outcome !== 'rate_limited'))(
    '%s before output is a failure, mid-stream neutral',
    (outcome) => {
      expect(verdictOf({ outcome, phase: 'before_output' })).toBe('failure');
      expect(verdictOf({ outcome, phase: 'complete' })).toBe('failure');
      expect(verdictOf({ outcome, phase: 'mid_stream' })).toBe('neutral');
    },
  );

  it('rate_limited is a failure in every phase: the quota refused, whenever it was said', () => {
    for (const phase of ['complete', 'before_output', 'mid_stream'] as const) {
      expect(verdictOf({ outcome: 'rate_limited', phase })).toBe('failure');
    }
  });

  it.each(neutralOutcomes)('%s is neutral in every phase', (outcome) => {
    for (const phase of ['complete', 'before_output', 'mid_stream'] as const) {
      expect(verdictOf({ outcome, phase })).toBe('neutral');
    }
  });

  it('ok is a success', () => {
    expect(verdictOf({ outcome: 'ok', phase: 'complete' })).toBe('success');
  });

  it('only rate_limited is quota', () => {
    expect(OUTCOMES.filter((outcome) => isQuota({ outcome }))).toEqual(['rate_limited']);
  });
});

describe('closed: consecutive failures', () => {
  it('trips on the 5th failure in a row, at its event time', () => {
    const b = new Breaker('dep');
    expect(feed(b, failures(0, 4))).toEqual([]);
    expect(b.observe(fail(s(4)))).toMatchObject([
      { dep: 'dep', from: 'closed', to: 'open', reason: '5 consecutive failures', ts: s(4) },
    ]);
    expect(b.snapshot()).toMatchObject({ state: 'open', since: s(4), openUntil: s(34), openDurationMs: s(30) });
  });

  it('a success breaks the run; a neutral outcome does not', () => {
    const b = new Breaker('dep');
    feed(b, failures(0, 4));
    b.observe(ok(s(4)));
    expect(b.snapshot().consecutiveFailures).toBe(0);
    feed(b, failures(5, 4));
    b.observe(call(s(9), 'auth'));
    expect(b.snapshot().consecutiveFailures).toBe(4);
    expect(arrows(b.observe(fail(s(10))))).toEqual(['closed→open']);
  });
});

describe('closed: failure rate', () => {
  it('needs minCalls calls in the window before the rate counts', () => {
    const b = new Breaker('dep', noConsecutive);
    expect(feed(b, failures(0, 19))).toEqual([]);
    expect(b.snapshot().window).toEqual({ calls: 19, failures: 19, successes: 0, failureRate: 1 });
    const t = b.observe(fail(s(19)));
    expect(t.map((x) => [x.to, x.reason])).toEqual([['open', '20 of 20 calls failed (100%) in 30 s']]);
  });

  it('exactly at the threshold does not trip (more than 60 % is needed)', () => {
    const b = new Breaker('dep', noConsecutive);
    feed(
      b,
      Array.from({ length: 8 }, (_, i) => ok(s(i))),
    );
    expect(feed(b, failures(8, 12))).toEqual([]);
    expect(b.snapshot().window).toMatchObject({ calls: 20, failures: 12, failureRate: 0.6 });
    const t = b.observe(fail(s(20)));
    expect(t.map((x) => x.reason)).toEqual(['13 of 21 calls failed (62%) in 30 s']);
  });

  it('catches partial decay that never makes 5 in a row', () => {
    const b = new Breaker('dep');
    // S F F, six times, then S F: 13 failures of 20, never more than 2 in a row.
    const pattern = [...'SFFSFFSFFSFFSFFSFFSF'];
    const obs = pattern.map((c, i) => (c === 'S' ? ok(s(i)) : fail(s(i))));
    const t = feed(b, obs);
    expect(t.map((x) => [x.to, x.reason, x.ts])).toEqual([['open', '13 of 20 calls failed (65%) in 30 s', s(19)]]);
  });

  it('the window slides: failures older than 30 s no longer count', () => {
    const b = new Breaker('dep', noConsecutive);
    feed(b, failures(0, 15));
    // 15 s of quiet, then successes: at 40 s the window (10 s, 40 s] holds 4 failures and 6 successes.
    feed(
      b,
      Array.from({ length: 6 }, (_, i) => ok(s(35 + i))),
    );
    expect(b.snapshot().window).toEqual({ calls: 10, failures: 4, successes: 6, failureRate: 0.4 });
  });
});

describe('neutral outcomes and mid-stream failures', () => {
  it('never trip, and change nothing but lastEventAt', () => {
    const b = new Breaker('dep');
    const before = b.snapshot();
    let ts = 0;
    for (let round = 0; round < 30; round++) {
      for (const outcome of ['auth', 'billing', 'context_overflow', 'other_error', 'aborted'] as const) {
        expect(b.observe(fail(ts++, outcome))).toEqual([]);
      }
      for (const outcome of ['timeout', 'connection_reset', 'server_error', 'overloaded'] as const) {
        expect(b.observe(call(ts++, outcome, { phase: 'mid_stream', retryAfterMs: s(120) }))).toEqual([]);
      }
    }
    expect(b.snapshot()).toEqual({ ...before, lastEventAt: ts - 1 });
  });

  it('but a mid-stream rate limit with a Retry-After throttles at once, as one before output does', () => {
    const b = new Breaker('dep');
    const out = b.observe(call(s(10), 'rate_limited', { phase: 'mid_stream', retryAfterMs: s(120) }));
    expect(arrows(out)).toEqual(['closed→throttled']);
    expect(b.snapshot()).toMatchObject({ state: 'throttled', retryAfterUntil: s(130) });
  });
});

describe('throttled (quota) vs open (outage)', () => {
  it('5 rate limits in a row throttle', () => {
    const b = new Breaker('dep');
    expect(arrows(feed(b, failures(0, 5, 'rate_limited')))).toEqual(['closed→throttled']);
  });

  it('a run that is mostly rate limits throttles, mostly outage opens', () => {
    const mostlyQuota = new Breaker('dep');
    feed(mostlyQuota, [...failures(0, 3, 'rate_limited'), ...failures(3, 2, 'timeout')]);
    expect(mostlyQuota.snapshot().state).toBe('throttled');
    const mostlyOutage = new Breaker('dep');
    feed(mostlyOutage, [...failures(0, 2, 'rate_limited'), ...failures(2, 3, 'overloaded')]);
    expect(mostlyOutage.snapshot().state).toBe('open');
  });

  it('a rate trip throttles when most of the window’s failures were rate limits', () => {
    const b = new Breaker('dep');
    // F F S, never 5 failures in a row: 14 failures of 20, 10 of them rate limits, 4 timeouts.
    const obs: Observation[] = [];
    for (let i = 0; i < 20; i++) {
      if (i % 3 === 2) obs.push(ok(s(i)));
      else obs.push(fail(s(i), i === 0 || i === 4 || i === 9 || i === 13 ? 'timeout' : 'rate_limited'));
    }
    const t = feed(b, obs);
    expect(t.map((x) => [x.to, x.reason])).toEqual([['throttled', '14 of 20 calls failed (70%) in 30 s']]);
  });
});

describe('Retry-After', () => {
  it('trips to throttled at once and is binding: no half-open before it, skipped attempts counted', () => {
    const b = new Breaker('zai/glm-4.6');
    expect(b.observe(limited(0, s(120)))).toMatchObject([
      { dep: 'zai/glm-4.6', from: 'closed', to: 'throttled', reason: 'rate limited, Retry-After 120 s', ts: 0 },
    ]);
    expect(b.snapshot()).toMatchObject({ openUntil: s(120), retryAfterUntil: s(120), openDurationMs: s(30) });
    expect(b.tick(s(29))).toEqual([]);
    expect(b.snapshot().retryAfterSkips).toBe(0);
    // The cooldown is over at 30 s; every look until 120 s is a skipped half-open attempt.
    for (const t of [30, 60, 90, 119.999]) expect(b.tick(s(t))).toEqual([]);
    // A call that proves nothing (a success would: see 'open / throttled') is a rejection and moves nothing.
    expect(b.observe(call(s(100), 'auth'))).toEqual([]);
    expect(b.snapshot()).toMatchObject({ state: 'throttled', retryAfterSkips: 5, rejections: 1 });
    expect(b.wantsProbe(s(119.999))).toBe(false);
    expect(b.wantsProbe(s(120))).toBe(true);
    expect(b.tick(s(125))).toMatchObject([
      { dep: 'zai/glm-4.6', from: 'throttled', to: 'half_open', reason: 'Retry-After over', ts: s(120) },
    ]);
  });

  it('a Retry-After shorter than the cooldown leaves the cooldown in force', () => {
    const b = new Breaker('dep');
    b.observe(limited(0, s(10)));
    expect(b.snapshot()).toMatchObject({ state: 'throttled', openUntil: s(30), retryAfterUntil: s(10) });
    expect(b.tick(s(30)).map((t) => [t.to, t.reason])).toEqual([['half_open', 'cooldown over']]);
    expect(b.snapshot().retryAfterSkips).toBe(0);
  });

  it('is capped at maxRetryAfterMs', () => {
    const b = new Breaker('dep', { ...DEFAULT_POLICY, maxRetryAfterMs: s(3600) });
    const [t] = b.observe(limited(0, s(7200)));
    expect(t?.reason).toBe('rate limited, Retry-After 7200 s (capped at 3600 s)');
    expect(b.snapshot()).toMatchObject({ retryAfterUntil: s(3600), openUntil: s(3600) });
  });

  it('one already over when it arrives (a late record) is a plain failure', () => {
    const b = new Breaker('dep');
    b.observe(ok(s(300)));
    expect(b.observe(limited(s(100), s(120)))).toEqual([]);
    expect(b.snapshot().state).toBe('closed');
  });

  it('Retry-After 0 is a plain failure', () => {
    const b = new Breaker('dep');
    expect(b.observe(limited(0, 0))).toEqual([]);
  });

  it('while throttled, a longer Retry-After extends the wait; a shorter one does not', () => {
    const b = new Breaker('dep');
    b.observe(limited(0, s(120)));
    b.observe(limited(s(10), s(60)));
    expect(b.snapshot()).toMatchObject({ retryAfterUntil: s(120), openUntil: s(120), rejections: 1 });
    b.observe(limited(s(20), s(200)));
    expect(b.snapshot()).toMatchObject({ retryAfterUntil: s(220), openUntil: s(220), rejections: 2 });
    expect(b.tick(s(219))).toEqual([]);
    expect(b.tick(s(220)).map((t) => t.ts)).toEqual([s(220)]);
  });

  it('while open (outage), a rate limit with Retry-After binds too, without changing the state', () => {
    const b = tripped();
    b.observe(limited(s(5), s(100)));
    expect(b.snapshot()).toMatchObject({ state: 'open', retryAfterUntil: s(105), openUntil: s(105) });
    expect(b.tick(s(34))).toEqual([]);
    expect(b.snapshot().retryAfterSkips).toBe(1);
  });

  it('a rate limit with Retry-After during half-open throttles at once, with the grown duration', () => {
    const b = halfOpen();
    const t = b.observe(limited(s(40), s(120)));
    expect(t.map((x) => [x.from, x.to, x.reason])).toEqual([
      ['half_open', 'throttled', 'trial failed: rate_limited, Retry-After 120 s'],
    ]);
    expect(b.snapshot()).toMatchObject({ openDurationMs: s(60), retryAfterUntil: s(160), openUntil: s(160) });
  });
});

describe('open / throttled', () => {
  it('counts failures and neutral calls as rejections and does not change state', () => {
    const b = tripped();
    const calls = [
      fail(s(10)),
      fail(s(11), 'timeout', 'b'),
      call(s(12), 'auth'),
      call(s(13), 'aborted', { sessionId: 'b' }),
    ];
    expect(feed(b, calls)).toEqual([]);
    expect(b.snapshot()).toMatchObject({ state: 'open', rejections: 4, openUntil: s(34), openDurationMs: s(30) });
  });

  it('half-opens when the cooldown is over, at the instant it ended', () => {
    const b = tripped();
    expect(b.tick(s(33.999))).toEqual([]);
    expect(b.tick(s(50))).toMatchObject([
      { dep: 'zai/glm-4.6', from: 'open', to: 'half_open', reason: 'cooldown over', ts: s(34) },
    ]);
    expect(b.snapshot()).toMatchObject({ state: 'half_open', since: s(34), openUntil: null });
  });

  it('an observation after the cooldown half-opens and is itself the first trial', () => {
    const b = tripped();
    expect(arrows(b.observe(ok(s(40))))).toEqual(['open→half_open']);
    expect(b.snapshot().trialSuccesses).toBe(1);
  });
});

/**
 * The breaker is passive: the gateway calls the provider while it is "open", so BreakerBar sees the answers. A
 * success is the provider answering again: it ends the open period at once instead of hiding the recovery until
 * the (grown) open period runs out.
 */
describe('open / throttled: the dependency answers', () => {
  it('a success ends the open period at once: half-open, the success the first trial, another session closes', () => {
    const b = tripped(); // open since 4 s, until 34 s
    expect(b.observe(ok(s(10), 'a'))).toMatchObject([
      { dep: 'zai/glm-4.6', from: 'open', to: 'half_open', reason: 'answered while open', ts: s(10) },
    ]);
    expect(b.snapshot()).toMatchObject({
      state: 'half_open',
      reason: 'answered while open',
      since: s(10),
      openUntil: null,
      retryAfterUntil: null,
      trialSuccesses: 1,
      // The call was made while open: one a gateway-side breaker would have refused.
      rejections: 1,
    });
    // The usual closing rule: a repeat of session a waits while b is in the window…
    expect(b.observe(ok(s(11), 'a'))).toEqual([]);
    // …and b's success is the second trial.
    expect(b.observe(ok(s(12), 'b'))).toMatchObject([
      { dep: 'zai/glm-4.6', from: 'half_open', to: 'closed', reason: '2 successful trials', ts: s(12) },
    ]);
    expect(b.snapshot()).toMatchObject({ state: 'closed', rejections: 1, openDurationMs: s(30) });
  });

  it('with trialsToClose 1, the one success half-opens and closes: both transitions, in order', () => {
    const b = tripped({ ...DEFAULT_POLICY, trialsToClose: 1 });
    expect(b.observe(ok(s(10)))).toMatchObject([
      { dep: 'zai/glm-4.6', from: 'open', to: 'half_open', reason: 'answered while open', ts: s(10) },
      { dep: 'zai/glm-4.6', from: 'half_open', to: 'closed', reason: '1 successful trial', ts: s(10) },
    ]);
    expect(b.snapshot().state).toBe('closed');
  });

  it('a grown open period does not hide the recovery', () => {
    const b = halfOpen();
    b.observe(fail(s(34), 'timeout')); // trial failed: 60 s, until 94 s
    b.tick(s(94));
    b.observe(fail(s(94), 'timeout')); // trial failed: 120 s, until 214 s
    expect(b.snapshot()).toMatchObject({ state: 'open', openUntil: s(214), openDurationMs: s(120) });
    expect(arrows(b.observe(ok(s(100), 'a')))).toEqual(['open→half_open']);
    expect(arrows(b.observe(ok(s(101), 'b')))).toEqual(['half_open→closed']);
    expect(b.snapshot()).toMatchObject({ state: 'closed', since: s(101), openDurationMs: s(30) });
  });

  it('a trial failing after the answer reopens with the open duration grown, as any failed trial', () => {
    const b = tripped();
    b.observe(ok(s(10), 'a'));
    expect(b.observe(fail(s(11), 'timeout', 'b')).map((t) => [t.from, t.to, t.reason])).toEqual([
      ['half_open', 'open', 'trial failed: timeout'],
    ]);
    expect(b.snapshot()).toMatchObject({ openDurationMs: s(60), openUntil: s(71), trialSuccesses: 0 });
  });

  it('a success while throttled ends it even with a Retry-After still in force: the provider answered', () => {
    const b = new Breaker('dep');
    b.observe(limited(0, s(120)));
    b.tick(s(60)); // the cooldown is over, the Retry-After is not
    expect(b.snapshot()).toMatchObject({ state: 'throttled', retryAfterUntil: s(120), openUntil: s(120) });
    expect(b.observe(ok(s(61), 'a'))).toMatchObject([
      { dep: 'dep', from: 'throttled', to: 'half_open', reason: 'answered while throttled', ts: s(61) },
    ]);
    // The Retry-After holds nobody back any more.
    expect(b.snapshot()).toMatchObject({
      state: 'half_open',
      openUntil: null,
      retryAfterUntil: null,
      trialSuccesses: 1,
      rejections: 1,
    });
    // A new ask to wait is honoured as a failed trial.
    expect(b.observe(limited(s(62), s(120))).map((t) => [t.from, t.to, t.reason])).toEqual([
      ['half_open', 'throttled', 'trial failed: rate_limited, Retry-After 120 s'],
    ]);
    expect(b.snapshot()).toMatchObject({ retryAfterUntil: s(182), openUntil: s(182), openDurationMs: s(60) });
  });

  it('the odd success of a storm still going on does not end it: only once the window would not trip', () => {
    const b = new Breaker('dep', noConsecutive);
    // 5 successes at 0–4 s, 15 failures at 5–19 s: the 20th call makes 15 of 20 (75 %) and opens at 19 s.
    feed(b, [
      ...Array.from({ length: 5 }, (_, i) => ok(s(i))),
      ...Array.from({ length: 15 }, (_, i) => fail(s(5 + i), 'server_error', i % 2 === 0 ? 'a' : 'b')),
    ]);
    expect(b.snapshot()).toMatchObject({ state: 'open', since: s(19) });
    // 15 of 21 … 15 of 24 failed (71 % … 62.5 %): still the storm.
    for (const t of [20, 21, 22, 23]) expect(b.observe(ok(s(t), t % 2 === 0 ? 'a' : 'b'))).toEqual([]);
    expect(b.snapshot()).toMatchObject({ state: 'open', rejections: 4 });
    // 15 of 25 (60 %): a closed breaker would not trip on that, so this success is an answer.
    expect(b.observe(ok(s(24), 'a'))).toMatchObject([
      { dep: 'dep', from: 'open', to: 'half_open', reason: 'answered while open', ts: s(24) },
    ]);
    expect(arrows(b.observe(ok(s(25), 'b')))).toEqual(['half_open→closed']);
  });

  it('a breaker an operator forced open stays open whatever answers', () => {
    const b = tripped();
    b.control('force_open', 'maintenance', s(5));
    expect(feed(b, [ok(s(10), 'a'), ok(s(11), 'b')])).toEqual([]);
    expect(b.tick(s(1000))).toEqual([]);
    expect(b.snapshot()).toMatchObject({
      state: 'open',
      forced: 'open',
      reason: 'operator: maintenance',
      rejections: 2,
    });
  });

  it('a success read late, from before the trip (or at its very time), does not end it', () => {
    const b = tripped(); // open since 4 s
    expect(b.observe(ok(s(3.5), 'b'))).toEqual([]); // history: drives nothing, not even a rejection
    // At the trip's own time: which came first is unknown, so it is not evidence of an answer after it.
    expect(b.observe(ok(s(4), 'b'))).toEqual([]);
    expect(b.snapshot()).toMatchObject({ state: 'open', openUntil: s(34), trialSuccesses: 0, rejections: 1 });
    expect(arrows(b.observe(ok(s(4.001), 'b')))).toEqual(['open→half_open']);
  });

  it('a success read late, from before a newer failure seen while open, does not end it either', () => {
    const b = tripped();
    b.observe(fail(s(10), 'timeout', 'b'));
    expect(b.observe(ok(s(8), 'a'))).toEqual([]); // after the trip, but the failure at 10 s is newer evidence
    expect(b.snapshot()).toMatchObject({ state: 'open', openUntil: s(34), rejections: 2 });
    expect(arrows(b.observe(ok(s(12), 'a')))).toEqual(['open→half_open']);
  });

  it('a late success newer than every failure ends it, at the latest event time seen', () => {
    const b = tripped();
    b.observe(call(s(12), 'auth', { sessionId: 'b' })); // neutral: says nothing of the provider
    expect(b.observe(ok(s(10), 'a'))).toMatchObject([
      { dep: 'zai/glm-4.6', from: 'open', to: 'half_open', reason: 'answered while open', ts: s(12) },
    ]);
    expect(b.snapshot()).toMatchObject({ state: 'half_open', since: s(12), trialSuccesses: 1 });
  });

  it('a failure while open moves nothing: the open period runs on, and its end half-opens as before', () => {
    const b = tripped();
    expect(feed(b, [fail(s(10), 'timeout'), fail(s(20), 'overloaded', 'b'), limited(s(25), null)])).toEqual([]);
    expect(b.snapshot()).toMatchObject({ state: 'open', openUntil: s(34), openDurationMs: s(30), rejections: 3 });
    expect(b.tick(s(34)).map((t) => [t.from, t.to, t.reason, t.ts])).toEqual([
      ['open', 'half_open', 'cooldown over', s(34)],
    ]);
  });
});

describe('half-open', () => {
  it('closes after two successful trials from different sessions', () => {
    const b = halfOpen();
    expect(b.observe(ok(s(35), 'a'))).toEqual([]);
    expect(b.observe(ok(s(36), 'b'))).toMatchObject([
      { dep: 'zai/glm-4.6', from: 'half_open', to: 'closed', reason: '2 successful trials', ts: s(36) },
    ]);
    expect(b.snapshot()).toMatchObject({
      state: 'closed',
      consecutiveFailures: 0,
      trialSuccesses: 0,
      openUntil: null,
      window: { calls: 0, failures: 0, successes: 0, failureRate: 0 },
    });
  });

  it('a second success from the same session waits while another session has been seen', () => {
    const b = tripped();
    b.observe(call(s(20), 'auth', { sessionId: 'b' })); // b is seen in the window (any outcome counts as seen)
    b.tick(s(34));
    b.observe(ok(s(35), 'a'));
    expect(b.observe(ok(s(36), 'a'))).toEqual([]);
    expect(b.snapshot().trialSuccesses).toBe(1);
    expect(arrows(b.observe(ok(s(37), 'b')))).toEqual(['half_open→closed']);
  });

  it('…and counts once no other session is left in the window', () => {
    const b = halfOpen();
    b.observe(ok(s(35), 'a'));
    // b was last seen at 3 s, out of the window (6 s, 36 s]: a is the only session the data offer.
    expect(arrows(b.observe(ok(s(36), 'a')))).toEqual(['half_open→closed']);
  });

  it('a sole session may close it alone', () => {
    const b = new Breaker('dep');
    feed(
      b,
      Array.from({ length: 5 }, (_, i) => fail(s(i), 'timeout', 'only')),
    );
    b.tick(s(34));
    b.observe(ok(s(35), 'only'));
    expect(arrows(b.observe(ok(s(36), 'only')))).toEqual(['half_open→closed']);
  });

  it('neutral outcomes neither count as trials nor fail them', () => {
    const b = halfOpen();
    b.observe(ok(s(35), 'a'));
    expect(b.observe(call(s(36), 'server_error', { phase: 'mid_stream' }))).toEqual([]);
    expect(b.observe(call(s(37), 'auth'))).toEqual([]);
    expect(arrows(b.observe(ok(s(38), 'b')))).toEqual(['half_open→closed']);
  });

  it('a failed trial reopens with the duration doubled, up to the cap', () => {
    const b = halfOpen();
    const expected = [60, 120, 240, 480, 600, 600];
    let now = s(34);
    for (const seconds of expected) {
      const t = b.observe(fail(now, 'timeout'));
      expect(t.map((x) => [x.from, x.to, x.reason])).toEqual([['half_open', 'open', 'trial failed: timeout']]);
      expect(b.snapshot()).toMatchObject({ openDurationMs: s(seconds), openUntil: now + s(seconds) });
      now += s(seconds);
      expect(arrows(b.tick(now))).toEqual(['open→half_open']);
    }
  });

  it('a failed rate-limited trial throttles', () => {
    const b = halfOpen();
    expect(arrows(b.observe(fail(s(35), 'rate_limited')))).toEqual(['half_open→throttled']);
  });

  it('closing resets the open duration to the cooldown', () => {
    const b = halfOpen();
    b.observe(fail(s(34), 'timeout')); // 60 s, open until 94 s
    b.tick(s(94));
    b.observe(fail(s(94), 'timeout')); // 120 s, open until 214 s
    b.tick(s(214));
    b.observe(ok(s(215), 'a'));
    b.observe(ok(s(216), 'b'));
    expect(b.snapshot()).toMatchObject({ state: 'closed', openDurationMs: s(30) });
    feed(b, failures(300, 5));
    expect(b.snapshot()).toMatchObject({ state: 'open', openUntil: s(334) });
  });

  it('a failure breaks the run of trials (it reopens)', () => {
    const b = halfOpen();
    b.observe(ok(s(35), 'a'));
    expect(arrows(b.observe(fail(s(36), 'timeout', 'b')))).toEqual(['half_open→open']);
    expect(b.snapshot().trialSuccesses).toBe(0);
  });
});

describe('event time: late and out-of-order records', () => {
  it('a replayed failure older than the window does not count in the current window', () => {
    const b = new Breaker('dep', noConsecutive);
    feed(
      b,
      Array.from({ length: 10 }, (_, i) => ok(s(100 + i))),
    );
    expect(b.observe(fail(s(50)))).toEqual([]);
    expect(b.snapshot().window).toEqual({ calls: 10, failures: 0, successes: 10, failureRate: 0 });
  });

  it('a late failure inside the window lands in its own bucket and ages out with it', () => {
    const b = new Breaker('dep', noConsecutive);
    b.observe(ok(s(100)));
    b.observe(fail(s(80))); // 20 s late
    expect(b.snapshot().window).toMatchObject({ calls: 2, failures: 1 });
    b.observe(ok(s(109))); // window (79 s, 109 s]: still there
    expect(b.snapshot().window).toMatchObject({ calls: 3, failures: 1 });
    b.observe(ok(s(110))); // window (80 s, 110 s]: the 80 s bucket is out
    expect(b.snapshot().window).toMatchObject({ calls: 3, failures: 0 });
  });

  it('late records complete a rate trip in event time, which happens at the latest event time', () => {
    const b = new Breaker('dep', { ...noConsecutive, minCalls: 4 });
    b.observe(ok(s(10)));
    b.observe(fail(s(20)));
    b.observe(fail(s(5)));
    const t = b.observe(fail(s(7)));
    expect(t.map((x) => [x.reason, x.ts])).toEqual([['3 of 4 calls failed (75%) in 30 s', s(20)]]);
  });

  it('late records neither extend nor break the consecutive run', () => {
    const b = new Breaker('dep');
    feed(b, failures(100, 4));
    b.observe(ok(s(90))); // late success: the newest calls are still 4 failures
    expect(b.snapshot().consecutiveFailures).toBe(4);
    b.observe(fail(s(91))); // late failure: not news either
    expect(b.snapshot().consecutiveFailures).toBe(4);
    expect(arrows(b.observe(fail(s(104))))).toEqual(['closed→open']);
  });

  it('a record from before the current state began drives nothing in it', () => {
    const b = tripped(); // open since 4 s
    b.observe(fail(s(3)));
    expect(b.snapshot()).toMatchObject({ rejections: 0, lastEventAt: s(4) });
    b.tick(s(34));
    b.observe(ok(s(20), 'a')); // happened while open: not a trial
    expect(b.snapshot()).toMatchObject({ state: 'half_open', trialSuccesses: 0 });
  });

  it('the window in a snapshot is taken at the latest time seen, ticks included', () => {
    const b = new Breaker('dep');
    feed(b, failures(0, 3));
    b.tick(s(31));
    expect(b.snapshot().window).toMatchObject({ calls: 1, failures: 1 });
    expect(b.snapshot().lastEventAt).toBe(s(2));
  });
});

describe('operator controls', () => {
  it('force_open holds the breaker open until reset: rejections, no half-open, no probes', () => {
    const b = new Breaker('dep');
    b.observe(ok(s(1)));
    expect(b.control('force_open', 'provider maintenance', s(10))).toMatchObject([
      { dep: 'dep', from: 'closed', to: 'open', reason: 'operator: provider maintenance', ts: s(10) },
    ]);
    expect(feed(b, [ok(s(11)), fail(s(12))])).toEqual([]);
    expect(b.tick(s(100_000))).toEqual([]);
    expect(b.wantsProbe(s(100_000))).toBe(false);
    expect(b.snapshot()).toMatchObject({ state: 'open', forced: 'open', openUntil: null, rejections: 2 });
  });

  it('force_closed holds the breaker closed: it never trips', () => {
    const b = new Breaker('dep');
    b.control('force_closed', 'known flaky, keep traffic flowing', 0);
    expect(feed(b, [...failures(1, 50), limited(s(60), s(120))])).toEqual([]);
    expect(b.snapshot()).toMatchObject({ state: 'closed', forced: 'closed', consecutiveFailures: 51 });
  });

  it('reset goes back to closed and clears what decides, keeping the metric counters', () => {
    const b = halfOpen();
    b.observe(fail(s(40), 'timeout')); // open, 60 s
    b.observe(fail(s(41))); // a rejection
    expect(b.control('reset', 'fixed upstream', s(50))).toMatchObject([
      { dep: 'zai/glm-4.6', from: 'open', to: 'closed', reason: 'operator: fixed upstream', ts: s(50) },
    ]);
    expect(b.snapshot()).toMatchObject({
      state: 'closed',
      forced: null,
      reason: 'operator: fixed upstream',
      since: s(50),
      openUntil: null,
      retryAfterUntil: null,
      openDurationMs: s(30),
      consecutiveFailures: 0,
      window: { calls: 0, failures: 0 },
      rejections: 1,
    });
  });

  it('every action is recorded as a transition, even when the state stays', () => {
    const b = tripped();
    expect(arrows(b.control('force_open', 'hold', s(5)))).toEqual(['open→open']);
    const c = new Breaker('dep');
    expect(arrows(c.control('reset', 'clean slate', 0))).toEqual(['closed→closed']);
  });

  it('time passes before the action applies', () => {
    const b = tripped();
    expect(b.control('force_open', 'maintenance', s(40)).map((t) => `${t.from}→${t.to}: ${t.reason}`)).toEqual([
      'open→half_open: cooldown over',
      'half_open→open: operator: maintenance',
    ]);
  });
});

describe('active probes', () => {
  it('are wanted only when a trial is allowed', () => {
    const b = new Breaker('dep');
    expect(b.wantsProbe(0)).toBe(false);
    feed(b, failures(0, 5));
    expect(b.wantsProbe(s(33.999))).toBe(false);
    // open, cooldown over but no tick yet: a trial is allowed
    expect(b.wantsProbe(s(34))).toBe(true);
    b.tick(s(34));
    expect(b.wantsProbe(s(34))).toBe(true);
  });

  it('at most one in flight; a probe result is a trial', () => {
    const b = tripped();
    expect(b.probeStarted(s(34))).toBe(true);
    expect(b.wantsProbe(s(40))).toBe(false);
    expect(b.probeStarted(s(40))).toBe(false);
    expect(arrows(b.probeFinished(ok(s(34.2), 'probe')))).toEqual(['open→half_open']);
    // Not gateway traffic: no rejection, no window entry (the failures at 0–4 s have aged out).
    expect(b.snapshot()).toMatchObject({ trialSuccesses: 1, rejections: 0, window: { calls: 0 } });
    expect(b.wantsProbe(s(40))).toBe(true);
  });

  it('are spaced 250 ms apart from the last start, plus injected jitter', () => {
    const jitters = [0.5, 0.2];
    const b = new Breaker('dep', DEFAULT_POLICY, { jitter: () => jitters.shift() ?? 0 });
    feed(b, failures(0, 5));
    b.tick(s(34));
    const t0 = s(34);
    expect(b.probeStarted(t0)).toBe(true);
    b.probeFinished(call(t0 + 10, 'auth', { sessionId: 'probe' })); // neutral: still half-open
    const spacing = PROBE_SPACING_MS + 0.5 * PROBE_JITTER_MS;
    expect(spacing).toBe(275);
    expect(b.wantsProbe(t0 + spacing - 1)).toBe(false);
    expect(b.probeStarted(t0 + spacing - 1)).toBe(false);
    expect(b.wantsProbe(t0 + spacing)).toBe(true);
    expect(b.probeStarted(t0 + spacing)).toBe(true);
    b.probeFinished(call(t0 + spacing + 5, 'auth', { sessionId: 'probe' }));
    expect(b.wantsProbe(t0 + spacing + 259)).toBe(false);
    expect(b.wantsProbe(t0 + spacing + 260)).toBe(true);
  });

  it('default jitter is a deterministic 0: exactly 250 ms', () => {
    const b = halfOpen();
    b.probeStarted(s(34));
    b.probeFinished(call(s(34.1), 'auth', { sessionId: 'probe' }));
    expect(b.wantsProbe(s(34.249))).toBe(false);
    expect(b.wantsProbe(s(34.25))).toBe(true);
  });

  it('are never gateway traffic: a failed probe reopens, but counts in no window or rejection', () => {
    const b = halfOpen();
    b.probeStarted(s(35));
    expect(arrows(b.probeFinished(fail(s(35.3), 'timeout', 'probe')))).toEqual(['half_open→open']);
    expect(b.snapshot()).toMatchObject({ rejections: 0, window: { calls: 0 }, openDurationMs: s(60) });
  });
});

describe('snapshot', () => {
  it('a new breaker', () => {
    expect(new Breaker('openai/gpt-5').snapshot()).toMatchObject({
      dep: 'openai/gpt-5',
      state: 'closed',
      forced: null,
      reason: 'initial state',
      since: 0,
      outSince: null,
      openUntil: null,
      retryAfterUntil: null,
      openDurationMs: 30_000,
      window: { calls: 0, failures: 0, successes: 0, failureRate: 0 },
      consecutiveFailures: 0,
      trialSuccesses: 0,
      rejections: 0,
      retryAfterSkips: 0,
      lastEventAt: null,
    });
  });

  it('keeps when it left closed through every round of trials, and forgets it once closed', () => {
    const b = new Breaker('zai/glm-4.6', { ...DEFAULT_POLICY, cooldownMs: 10_000 });
    const moves: Transition[] = [];
    moves.push(...b.observe(limited(s(1), 5_000)));
    moves.push(...b.tick(s(11))); // a trial may start
    moves.push(...b.observe(limited(s(12), 5_000))); // the trial fails: out again
    expect(arrows(moves)).toEqual(['closed→throttled', 'throttled→half_open', 'half_open→throttled']);
    expect(b.snapshot()).toMatchObject({ state: 'throttled', since: s(12), outSince: s(1) });
    for (let t = 30; t < 200 && b.snapshot().state !== 'closed'; t++) {
      b.tick(s(t));
      b.observe(ok(s(t + 0.5), `session-${t}`));
    }
    expect(b.snapshot()).toMatchObject({ state: 'closed', outSince: null });
  });

  it('a throttled breaker, every field', () => {
    const b = new Breaker('zai/glm-4.6');
    b.observe(ok(s(1)));
    b.observe(limited(s(2), s(120)));
    b.observe(limited(s(3), null));
    // Read late, from before the newest failure: old news, so a rejection that does not end the wait.
    b.observe(ok(s(2.5), 'b'));
    b.tick(s(32)); // cooldown over, Retry-After not: one skip
    expect(b.snapshot()).toMatchObject({
      dep: 'zai/glm-4.6',
      state: 'throttled',
      forced: null,
      reason: 'rate limited, Retry-After 120 s',
      since: s(2),
      outSince: s(2),
      openUntil: s(122),
      retryAfterUntil: s(122),
      openDurationMs: 30_000,
      // (2 s, 32 s]: the rejected calls at 2.5 s and 3 s
      window: { calls: 2, failures: 1, successes: 1, failureRate: 0.5 },
      // The late success is not among the newest calls, so it does not break the run of 2.
      consecutiveFailures: 2,
      trialSuccesses: 0,
      rejections: 2,
      retryAfterSkips: 1,
      lastEventAt: s(3),
    });
  });
});

const PEER = { code: 'peer', state: 'open', host: 'mini-2', said: 'peer' } as const;

describe('peer evidence (a fleet sharing breakers over Redis)', () => {
  it('a closed breaker trips on a peer host trip, with its own cooldown, and trials decide as usual', () => {
    const b = new Breaker('zai/glm-4.6', DEFAULT_POLICY);
    const peer = { code: 'peer', state: 'open', host: 'mini-2', said: '5 consecutive failures' } as const;
    const [t] = b.peerTripped('open', peer, s(10), null);
    expect(t).toMatchObject({
      from: 'closed',
      to: 'open',
      reason: 'open on mini-2: 5 consecutive failures',
      why: peer,
    });
    expect(b.snapshot().openUntil).toBe(s(10) + DEFAULT_POLICY.cooldownMs);
    expect(arrows(b.tick(s(10) + DEFAULT_POLICY.cooldownMs))).toEqual(['open→half_open']);
  });

  it('a peer throttle with a Retry-After binds here too', () => {
    const b = new Breaker('zai/glm-4.6', DEFAULT_POLICY);
    b.peerTripped('throttled', { code: 'peer', state: 'throttled', host: 'mini-2', said: '' }, s(1), s(300));
    expect(b.snapshot()).toMatchObject({ state: 'throttled', retryAfterUntil: s(300) });
  });

  it('leaves a breaker alone that is already tripped or held by an operator', () => {
    const open = tripped();
    const before = open.snapshot();
    expect(open.peerTripped('open', PEER, before.since + 1000, null)).toEqual([]);
    expect(open.snapshot().openUntil).toBe(before.openUntil);
    const held = new Breaker('x/y');
    held.control('force_closed', 'maintenance done', s(1));
    expect(held.peerTripped('open', PEER, s(2), null)).toEqual([]);
    expect(held.snapshot().state).toBe('closed');
  });
});
