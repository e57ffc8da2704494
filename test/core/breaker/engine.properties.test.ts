/**
 * Properties of the breaker over random histories: observations with random
 * outcomes, phases, Retry-After values and sessions at mostly increasing event
 * times (some arrive late), ticks, operator controls and active probes, under
 * random policies. Each property states an invariant the engine promises.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Breaker } from '../../../main/core/breaker/engine.js';
import {
  BREAKER_STATES,
  type BreakerPolicy,
  type BreakerSnapshot,
  DEFAULT_POLICY,
  type Observation,
  type OperatorAction,
  type Transition,
} from '../../../main/core/breaker/types.js';
import { verdictOf } from '../../../main/core/breaker/verdict.js';
import { OUTCOMES, type Outcome, type Phase } from '../../../main/core/calls/classify.js';

interface Call {
  outcome: Outcome;
  phase: Phase;
  retryAfterMs: number | null;
  sessionId: string;
}

/** `dt`: how far the wall clock moves before the step; `lag`: how late an observation's event time is. */
type Step =
  | ({ kind: 'observe'; dt: number; lag: number } & Call)
  | { kind: 'tick'; dt: number }
  | { kind: 'control'; dt: number; action: OperatorAction }
  | { kind: 'probeStart'; dt: number }
  | ({ kind: 'probeFinish'; dt: number } & Call);

/** What one step did, as seen from outside. */
interface StepRecord {
  step: Step;
  /** The latest time the breaker has been shown (event or wall), after the step. */
  clock: number;
  obs: Observation | null;
  before: BreakerSnapshot;
  after: BreakerSnapshot;
  transitions: Transition[];
  inFlightBefore: boolean;
  /** probeStart: what wantsProbe said and whether the start was accepted. */
  wanted: boolean | null;
  accepted: boolean | null;
  /** wantsProbe at the step's time while the test's model has a probe in flight. */
  wantedWhileInFlight: boolean | null;
}

const dtArb = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 400 }), weight: 6 },
  { arbitrary: fc.integer({ min: 0, max: 20_000 }), weight: 3 },
  { arbitrary: fc.integer({ min: 0, max: 200_000 }), weight: 1 },
);

const lagArb = fc.oneof(
  { arbitrary: fc.constant(0), weight: 8 },
  { arbitrary: fc.integer({ min: 1, max: 90_000 }), weight: 2 },
);

const FAILURES: Outcome[] = ['timeout', 'connection_reset', 'server_error', 'overloaded', 'rate_limited'];

const callArb: fc.Arbitrary<Call> = fc.record({
  outcome: fc.oneof(
    { arbitrary: fc.constant<Outcome>('ok'), weight: 4 },
    { arbitrary: fc.constantFrom(...FAILURES), weight: 4 },
    { arbitrary: fc.constantFrom(...OUTCOMES), weight: 2 },
  ),
  phase: fc.oneof(
    { arbitrary: fc.constant<Phase>('before_output'), weight: 4 },
    { arbitrary: fc.constantFrom<Phase>('complete', 'mid_stream'), weight: 1 },
  ),
  retryAfterMs: fc.oneof(
    { arbitrary: fc.constant(null), weight: 4 },
    { arbitrary: fc.integer({ min: 0, max: 300_000 }), weight: 1 },
  ),
  sessionId: fc.constantFrom('s1', 's2', 's3', 'probe'),
});

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc
      .record({ kind: fc.constant('observe' as const), dt: dtArb, lag: lagArb })
      .chain((head) => callArb.map((c) => ({ ...head, ...c }))),
    weight: 24,
  },
  { arbitrary: fc.record({ kind: fc.constant('tick' as const), dt: dtArb }), weight: 4 },
  {
    arbitrary: fc.record({
      kind: fc.constant('control' as const),
      dt: dtArb,
      action: fc.constantFrom<OperatorAction>('force_open', 'force_closed', 'reset'),
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant('probeStart' as const), dt: dtArb }), weight: 3 },
  {
    arbitrary: fc
      .record({ kind: fc.constant('probeFinish' as const), dt: dtArb })
      .chain((head) => callArb.map((c) => ({ ...head, ...c }))),
    weight: 3,
  },
);

/** Small windows, thresholds and cooldowns, so that random histories trip, recover and flap often. */
const policyArb: fc.Arbitrary<BreakerPolicy> = fc.oneof(
  fc.constant(DEFAULT_POLICY),
  fc.record({
    windowMs: fc.integer({ min: 1_000, max: 60_000 }),
    minCalls: fc.integer({ min: 1, max: 25 }),
    failureRate: fc.double({ min: 0, max: 0.95, noNaN: true }),
    consecutiveFailures: fc.integer({ min: 1, max: 8 }),
    cooldownMs: fc.integer({ min: 100, max: 60_000 }),
    backoffFactor: fc.double({ min: 0.5, max: 3, noNaN: true }),
    maxOpenMs: fc.integer({ min: 100, max: 600_000 }),
    trialsToClose: fc.integer({ min: 1, max: 3 }),
    maxRetryAfterMs: fc.integer({ min: 0, max: 300_000 }),
  }),
);

const jitterArb = fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
  minLength: 1,
  maxLength: 8,
});

const historyArb = fc.record({
  policy: policyArb,
  jitters: jitterArb,
  // `size: 'max'`: long histories, so that breakers trip, recover and flap within one run.
  steps: fc.array(stepArb, { minLength: 1, maxLength: 300, size: 'max' }),
});

type History = { policy: BreakerPolicy; jitters: number[]; steps: Step[] };

/** A jitter source that replays the same values in a cycle (so a replay sees the same ones). */
function cycle(values: readonly number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length] ?? 0;
}

function toObservation(call: Call, ts: number): Observation {
  return { ts, outcome: call.outcome, phase: call.phase, retryAfterMs: call.retryAfterMs, sessionId: call.sessionId };
}

/** Runs a history on a fresh breaker; the test keeps its own model of the probe in flight. */
function execute({ policy, jitters, steps }: History): StepRecord[] {
  const b = new Breaker('dep', policy, { jitter: cycle(jitters) });
  const records: StepRecord[] = [];
  let now = 1_000_000;
  let clock = Number.NEGATIVE_INFINITY;
  let inFlight = false;
  for (const step of steps) {
    now += step.dt;
    const before = b.snapshot();
    const record: StepRecord = {
      step,
      clock,
      obs: null,
      before,
      after: before,
      transitions: [],
      inFlightBefore: inFlight,
      wanted: null,
      accepted: null,
      wantedWhileInFlight: inFlight ? b.wantsProbe(now) : null,
    };
    if (step.kind === 'observe') {
      record.obs = toObservation(step, now - step.lag);
      record.transitions = b.observe(record.obs);
      clock = Math.max(clock, record.obs.ts);
    } else if (step.kind === 'tick') {
      record.transitions = b.tick(now);
      clock = Math.max(clock, now);
    } else if (step.kind === 'control') {
      record.transitions = b.control(step.action, `test ${step.action}`, now);
      clock = Math.max(clock, now);
    } else if (step.kind === 'probeStart') {
      record.wanted = b.wantsProbe(now);
      record.accepted = b.probeStarted(now);
      if (record.accepted) inFlight = true;
    } else if (inFlight) {
      record.obs = { ...toObservation(step, now), probe: true };
      record.transitions = b.probeFinished(record.obs);
      clock = Math.max(clock, now);
      inFlight = false;
    }
    record.clock = clock;
    record.after = b.snapshot();
    records.push(record);
  }
  return records;
}

const RUNS = { numRuns: 300 };

const FORCED_BY: Record<OperatorAction, BreakerSnapshot['forced']> = {
  force_open: 'open',
  force_closed: 'closed',
  reset: null,
};

/**
 * A plain check that throws with the step it failed on. Each property makes
 * ~100k checks; vitest's `expect` would spend most of the run on bookkeeping.
 * fast-check shrinks the history and reports the message.
 */
function must(condition: boolean, what: string, r: StepRecord): void {
  if (!condition) {
    throw new Error(`${what}\nstep: ${JSON.stringify(r.step)}\ntransitions: ${JSON.stringify(r.transitions)}`);
  }
}

function holds(check: (records: StepRecord[], history: History) => void): void {
  fc.assert(
    fc.property(historyArb, (history) => {
      check(execute(history), history);
    }),
    RUNS,
  );
}

const atLeast = (value: number, bound: number | null) => bound === null || value >= bound;

describe('breaker properties', () => {
  it('never more than one probe in flight; a start is accepted exactly when a probe is wanted', () => {
    holds((records) => {
      for (const r of records) {
        if (r.inFlightBefore) must(r.wantedWhileInFlight === false, 'a probe is wanted while one is in flight', r);
        if (r.step.kind !== 'probeStart') continue;
        must(r.accepted === r.wanted, 'probeStarted disagrees with wantsProbe', r);
        if (r.inFlightBefore) must(r.accepted === false, 'a second probe was accepted', r);
      }
    });
  });

  it('never closes without trialsToClose consecutive successful trials since the last failure (operators aside)', () => {
    holds((records, { policy }) => {
      let halfOpenSince = Number.NEGATIVE_INFINITY;
      let run = 0;
      for (const r of records) {
        let applied = false;
        // A success that half-opened an open breaker (an answer) is its first trial, even one read late.
        let answer = false;
        // The observation counts after any half-open its time caused, and before a close it caused.
        const apply = () => {
          if (applied || r.obs === null) return;
          applied = true;
          if (r.obs.ts < halfOpenSince && !answer) return;
          const verdict = verdictOf(r.obs);
          if (verdict === 'success') run++;
          else if (verdict === 'failure') run = 0;
        };
        for (const t of r.transitions) {
          if (t.to === 'half_open') {
            halfOpenSince = t.ts;
            run = 0;
            answer = t.reason.startsWith('answered while');
          } else if (t.to === 'closed' && !t.reason.startsWith('operator:')) {
            apply();
            must(t.from === 'half_open', 'closed from a state other than half-open', r);
            must(run >= policy.trialsToClose, `closed after ${run} consecutive successes`, r);
          }
        }
        apply();
      }
    });
  });

  it('half-opens only once Retry-After (or the open period) is over, or on an answer after the trip; never ahead of the clock', () => {
    holds((records) => {
      // The newest failure observed so far (gateway traffic only): an answer must be newer than it.
      let newestFailure = Number.NEGATIVE_INFINITY;
      for (const r of records) {
        for (const t of r.transitions) {
          if (t.to !== 'half_open') continue;
          must(t.from === 'open' || t.from === 'throttled', 'half-open from a state other than open', r);
          must(r.before.forced === null, 'a forced breaker half-opened', r);
          must(t.ts <= r.clock, 'half-open ahead of the clock', r);
          if (t.reason.startsWith('answered while')) {
            const obs = r.obs;
            must(
              r.step.kind === 'observe' && obs !== null && verdictOf(obs) === 'success',
              'answered without a success',
              r,
            );
            must(t.reason === `answered while ${t.from}`, 'answered: the wrong state named', r);
            must(obs !== null && obs.ts > r.before.since, 'answered by a success from before the trip', r);
            must(obs !== null && obs.ts > newestFailure, 'answered by a success older than a failure seen', r);
            must(obs !== null && t.ts >= obs.ts, 'answered before the answer', r);
            continue;
          }
          must(atLeast(t.ts, r.before.retryAfterUntil), 'half-open before Retry-After', r);
          must(atLeast(t.ts, r.before.openUntil), 'half-open before openUntil', r);
        }
        if (r.step.kind === 'observe' && r.obs !== null && verdictOf(r.obs) === 'failure') {
          newestFailure = Math.max(newestFailure, r.obs.ts);
        }
        const { state, openUntil, retryAfterUntil } = r.after;
        if ((state === 'open' || state === 'throttled') && openUntil !== null) {
          must(atLeast(openUntil, retryAfterUntil), 'openUntil before retryAfterUntil', r);
        }
      }
    });
  });

  it('the open duration never shrinks while failures continue: only closing resets it', () => {
    holds((records) => {
      for (const r of records) {
        const { before, after, transitions } = r;
        if (!transitions.some((t) => t.to === 'closed')) {
          must(after.openDurationMs >= before.openDurationMs, 'the open duration shrank', r);
        }
        if (after.openDurationMs > before.openDurationMs) {
          must(
            transitions.some((t) => t.reason.startsWith('trial failed')),
            'the open duration grew without a failed trial',
            r,
          );
        }
      }
    });
  });

  it('replaying the same steps on a fresh breaker yields identical transitions and snapshots', () => {
    holds((records, history) => {
      expect(execute(history)).toEqual(records);
    });
  });

  it('the state is always one of the four, and forced states hold until the next operator action', () => {
    holds((records, { policy }) => {
      let forced: BreakerSnapshot['forced'] = null;
      for (const r of records) {
        const { before, after } = r;
        if (r.step.kind === 'control') forced = FORCED_BY[r.step.action];
        else if (forced !== null) must(r.transitions.length === 0, 'a forced breaker moved', r);
        must(BREAKER_STATES.includes(after.state), `unknown state ${after.state}`, r);
        must(after.forced === forced, 'forced does not follow the operator', r);
        if (forced !== null) must(after.state === forced, 'a forced breaker left its state', r);
        if (after.state === 'half_open') must(after.trialSuccesses < policy.trialsToClose, 'too many trials', r);
        else must(after.trialSuccesses === 0, 'trials outside half-open', r);
        must(after.rejections >= before.rejections, 'rejections went down', r);
        must(after.retryAfterSkips >= before.retryAfterSkips, 'retry-after skips went down', r);
      }
    });
  });

  it('transitions form a chain from closed to the final state', () => {
    holds((records) => {
      let state = 'closed';
      for (const r of records) {
        for (const t of r.transitions) {
          must(t.from === state, `transition from ${t.from}, but the breaker was ${state}`, r);
          must(t.dep === 'dep', 'wrong dep', r);
          state = t.to;
        }
        must(r.after.state === state, "snapshot state is not the last transition's target", r);
      }
    });
  });
});
