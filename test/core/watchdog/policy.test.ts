import { describe, expect, it } from 'vitest';
import { defaultsOf } from '../../../main/core/config/schema.js';
import { type WatchdogSettings, watchdogConfig, watchdogSettings } from '../../../main/core/watchdog/config.js';
import { WatchdogPolicy } from '../../../main/core/watchdog/policy.js';
import type { Decision } from '../../../main/core/watchdog/policy-decisions.js';
import type { CheckInput, ProbeInput, StrategyCheck } from '../../../main/core/watchdog/policy-inputs.js';

const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;

/** The watchdog's defaults, as a config file without a `watchdog` group gives them, with what these tests need. */
const DEFAULTS: WatchdogSettings = watchdogSettings({
  ...defaultsOf(watchdogConfig),
  // Storm restarts on (as a user may set them): the rules that hold or allow them are tested here.
  stormRestart: 'safe',
  deadAfterSec: 15,
});

const RUNNABLE: StrategyCheck = { runnable: true, problem: null, service: 'running' };

/** A policy as it stands once BreakerBar has seen the gateway healthy and checked how to restart it. */
const policy = (overrides: Partial<WatchdogSettings> = {}) => {
  const p = new WatchdogPolicy({ ...DEFAULTS, ...overrides });
  p.strategyChecked(RUNNABLE);
  p.probe(-HOUR, { class: 'ok', dead: false, startup: 'started', detail: 'ok' });
  return p;
};

/** A policy just started, before it has seen anything. */
const fresh = (overrides: Partial<WatchdogSettings> = {}) => new WatchdogPolicy({ ...DEFAULTS, ...overrides });

const storm = (count = 5, extra: Partial<CheckInput['deps'][number]> = {}): CheckInput => ({
  deps: [{ dep: 'zhipu/glm-5.1', count, retryAfterUntil: null, workingFallbacks: [], ...extra }],
});
const calm: CheckInput = { deps: [] };

const probe = (cls: string, startup: ProbeInput['startup'] = 'started', uptimeMs?: number): ProbeInput => ({
  class: cls,
  dead: !['ok', 'starting', 'draining', 'unknown', 'not_openclaw'].includes(cls),
  startup,
  detail: cls,
  uptimeMs: uptimeMs ?? null,
});

const restarts = (decisions: Decision[]) => decisions.filter((d) => d.restart !== null);

describe('storm restarts off (the default): a storm is judged and waited out', () => {
  const waiting = () => policy({ restartOnStorm: false });

  it('judges a 3-check storm and restarts nothing, however long it lasts; the count stays', () => {
    const p = waiting();
    const ds = Array.from({ length: 8 }, (_, i) => p.check(i * MIN, storm()));
    expect(ds.map((d) => d.kind)).toEqual(['counting', 'counting', ...Array(6).fill('storm_waited')]);
    expect(restarts(ds)).toEqual([]);
    expect(ds.flatMap((d) => d.alerts)).toEqual([]);
    expect(ds[2]?.reason).toBe(
      "429 storm on zhipu/glm-5.1 for 2 min, no fallback answering: waited out, not restarted (watchdog.stormRestart is off: OpenClaw retries its runs through a storm, and a restart cannot lift a provider's limit)",
    );
    expect(p.state()).toMatchObject({ consecutiveChecks: 8, deferral: null, restarts: [] });
  });

  it('holds no restart for a Retry-After (there is none to hold) and alerts no deferral', () => {
    const p = waiting();
    const asked = storm(5, { retryAfterUntil: 10 * MIN });
    // The last check sees no new 429 while the ask holds: the storm stays judged, still waited out.
    const quiet = storm(0, { retryAfterUntil: 10 * MIN });
    const ds = [p.check(0, asked), p.check(MIN, asked), p.check(2 * MIN, asked), p.check(3 * MIN, quiet)];
    expect(ds.map((d) => d.kind)).toEqual(['counting', 'counting', 'storm_waited', 'storm_waited']);
    expect(ds.flatMap((d) => d.alerts)).toEqual([]);
  });

  it('still says so when a fallback answers for the storm', () => {
    const p = waiting();
    const covered = storm(5, { workingFallbacks: ['deepseek/deepseek-v4-pro'] });
    const ds = [p.check(0, covered), p.check(MIN, covered), p.check(2 * MIN, covered)];
    expect(ds[2]).toMatchObject({ kind: 'fallback_answering', restart: null });
    expect(ds[2]?.alerts.map((a) => a.kind)).toEqual(['fallback_answering']);
  });

  it('a storm that leaves the gateway stalled is restarted as hung', () => {
    const p = waiting();
    for (let i = 0; i < 4; i++) p.check(i * MIN, storm());
    const stalled = { deps: [], stalled: { sessions: 2, deps: ['zhipu/glm-5.1'], since: 4 * MIN } };
    expect(p.check(5 * MIN, stalled).kind).toBe('counting');
    const hung = p.check(9 * MIN + 1, stalled);
    expect(hung).toMatchObject({ kind: 'restart', restart: { trigger: 'health', evidence: 'hung' } });
  });
});

describe('storm rule (the cron watchdog, made safe)', () => {
  it('restarts exactly once for a 3-check storm', () => {
    const p = policy();
    const ds = [p.check(0, storm()), p.check(MIN, storm()), p.check(2 * MIN, storm())];
    expect(ds.map((d) => d.kind)).toEqual(['counting', 'counting', 'restart']);
    expect(restarts(ds)).toHaveLength(1);
    expect(ds[2]?.restart).toMatchObject({ trigger: 'storm', deps: ['zhipu/glm-5.1'] });
    expect(p.state().consecutiveChecks).toBe(0);
  });

  it('does not restart for 2 checks, and a quiet check resets the count', () => {
    const p = policy();
    const ds = [p.check(0, storm()), p.check(MIN, storm()), p.check(2 * MIN, calm), p.check(3 * MIN, storm())];
    expect(restarts(ds)).toHaveLength(0);
    expect(ds[2]?.reason).toContain('count reset');
    expect(p.state().consecutiveChecks).toBe(1);
  });

  it('holds the count through quiet checks while the storm waits out its Retry-After, and restarts once the provider stops asking', () => {
    // A provider asking for 150 s against 60 s checks: OpenClaw waits as asked, so most checks see no new 429.
    // Each new ask holds the restart again (one ask at most maxDeferral): the storm restart comes only once the
    // 429s stop asking for a wait and the storm goes on.
    const p = policy({ maxDeferralMs: 5 * MIN });
    const heldTill = (t: number) => storm(0, { retryAfterUntil: t });
    const ds = [
      p.check(0, storm(2, { retryAfterUntil: 150 * SEC })),
      p.check(MIN, heldTill(150 * SEC)),
      p.check(2 * MIN, heldTill(150 * SEC)),
      p.check(3 * MIN, storm(2, { retryAfterUntil: 330 * SEC })),
      p.check(4 * MIN, heldTill(330 * SEC)),
      p.check(5 * MIN, storm(2, { retryAfterUntil: 480 * SEC })),
      p.check(6 * MIN, heldTill(480 * SEC)),
      p.check(7 * MIN, heldTill(480 * SEC)),
      p.check(8 * MIN, heldTill(660 * SEC)),
      p.check(9 * MIN, heldTill(660 * SEC)),
      p.check(10 * MIN, heldTill(660 * SEC)),
      p.check(11 * MIN, storm(2, { retryAfterUntil: 660 * SEC })),
      p.check(12 * MIN, storm(2, { retryAfterUntil: 660 * SEC })),
    ];
    expect(ds.map((d) => d.kind)).toEqual([
      'counting',
      'counting',
      'counting',
      'counting',
      'counting',
      'deferred',
      'deferred',
      'deferred',
      'deferred',
      'deferred',
      'deferred',
      'restart',
      'counting',
    ]);
    expect(ds[1]?.reason).toBe(
      'no new rate-limited calls while zhipu/glm-5.1 waits out its Retry-After (1 min 30 s left): count held at 1 of 3',
    );
    expect(ds[3]?.reason).toContain('check 2 of 3');
    expect(ds[5]?.alerts.map((a) => a.kind)).toEqual(['restart_deferred']);
    expect(ds.slice(6).flatMap((d) => d.alerts)).toEqual([]);
    expect(ds[11]?.restart).toMatchObject({ trigger: 'storm', facts: { upstream: 'over' } });
  });

  it('holds the count on a quiet check just after the Retry-After ended (the retry not read yet), never judging on it', () => {
    const p = policy({ threshold: 2 });
    const quiet = storm(0, { retryAfterUntil: null });
    const ds = [
      p.check(0, storm(2, { retryAfterUntil: 30 * SEC })),
      p.check(33 * SEC, quiet), // the retry is due: OpenClaw's 429 has not reached the store yet
      p.check(38 * SEC, storm(2, { retryAfterUntil: 68 * SEC })),
      p.check(70 * SEC, quiet), // judged storm, retry due: held, not restarted on a quiet check
      p.check(90 * SEC, quiet), // 22 s after the deadline: the storm is over
    ];
    expect(ds.map((d) => d.kind)).toEqual(['counting', 'counting', 'deferred', 'counting', 'quiet']);
    expect(ds[1]?.reason).toBe(
      'no new rate-limited calls yet, but the retry of zhipu/glm-5.1 is due (its Retry-After ended 3 s ago): count held at 1 of 2',
    );
    expect(ds[3]?.reason).toBe(
      'no new rate-limited calls yet, but the retry of zhipu/glm-5.1 is due (its Retry-After ended 2 s ago): the storm stays judged',
    );
    expect(ds[4]?.reason).toBe('no new rate-limited calls: count reset');
    expect(restarts(ds)).toEqual([]);
  });

  it('resets the count on a quiet check once no Retry-After or cooldown of the storm holds', () => {
    const p = policy();
    const ds = [
      p.check(0, storm(2, { retryAfterUntil: 30 * SEC })),
      p.check(MIN, storm(0, { retryAfterUntil: null })),
      p.check(2 * MIN, { deps: [{ dep: 'openai/gpt-5', count: 0, retryAfterUntil: 3 * MIN, workingFallbacks: [] }] }),
    ];
    expect(ds.map((d) => d.kind)).toEqual(['counting', 'quiet', 'quiet']);
    expect(ds[1]?.reason).toContain('count reset');
  });

  it("holds the count while OpenClaw's own cooldown keeps the storm's dependency waiting", () => {
    const p = policy();
    p.check(0, storm(2));
    const d = p.check(MIN, storm(0, { cooldownUntil: 2 * MIN }));
    expect(d.kind).toBe('counting');
    expect(d.reason).toContain("waits out OpenClaw's cooldown (1 min left): count held at 1 of 3");
  });

  it('names every affected dependency and its count in the decision', () => {
    const p = policy({ threshold: 1 });
    const d = p.check(0, {
      deps: [
        { dep: 'zhipu/glm-5.1', count: 7, retryAfterUntil: null, workingFallbacks: [] },
        { dep: 'openai/gpt-5', count: 2, retryAfterUntil: null, workingFallbacks: [] },
      ],
    });
    expect(d.restart?.deps).toEqual(['zhipu/glm-5.1', 'openai/gpt-5']);
  });

  it('does not restart while the gateway reports starting or draining', () => {
    for (const busy of ['starting', 'draining']) {
      const p = policy();
      p.probe(0, probe(busy, busy as ProbeInput['startup']));
      const ds = [p.check(0, storm()), p.check(MIN, storm()), p.check(2 * MIN, storm()), p.check(3 * MIN, storm())];
      expect(restarts(ds)).toHaveLength(0);
      expect(ds[3]?.kind).toBe('starting');
      // …and once it is up again, the storm still pending restarts it.
      p.probe(4 * MIN, probe('ok'));
      expect(p.check(4 * MIN, storm()).kind).toBe('restart');
    }
  });

  it('says so instead of restarting when a fallback is answering', () => {
    const p = policy();
    const withFallback = storm(5, { workingFallbacks: ['deepseek/deepseek-v4-pro'] });
    const ds = [p.check(0, withFallback), p.check(MIN, withFallback), p.check(2 * MIN, withFallback)];
    expect(restarts(ds)).toHaveLength(0);
    expect(ds[2]?.kind).toBe('fallback_answering');
    expect(ds[2]?.alerts[0]).toMatchObject({ kind: 'fallback_answering', dep: 'zhipu/glm-5.1' });
    expect(ds[2]?.reason).toContain('deepseek/deepseek-v4-pro');
  });

  it('restarts when only some affected dependencies have a working fallback', () => {
    const p = policy({ threshold: 1 });
    const d = p.check(0, {
      deps: [
        { dep: 'zhipu/glm-5.1', count: 3, retryAfterUntil: null, workingFallbacks: ['deepseek/deepseek-v4-pro'] },
        { dep: 'openai/gpt-5', count: 3, retryAfterUntil: null, workingFallbacks: [] },
      ],
    });
    expect(d.kind).toBe('restart');
  });
});

describe('Retry-After is binding', () => {
  it('defers a storm restart while Retry-After is in force, then restarts once after it', () => {
    const p = policy();
    const until = 2 * MIN + 150 * SEC; // the provider asked for 150 s at the third check
    const s = storm(5, { retryAfterUntil: until });
    const ds = [p.check(0, s), p.check(MIN, s), p.check(2 * MIN, s), p.check(3 * MIN, s), p.check(4 * MIN, s)];
    expect(ds.map((d) => d.kind)).toEqual(['counting', 'counting', 'deferred', 'deferred', 'deferred']);
    expect(ds[2]?.alerts.map((a) => a.kind)).toEqual(['restart_deferred']);
    expect(ds[3]?.alerts).toEqual([]); // told once, not every minute
    expect(p.state().deferral).toMatchObject({ dep: 'zhipu/glm-5.1', until });
    const after = p.check(5 * MIN, s);
    expect(after.kind).toBe('restart');
    expect(restarts([...ds, after])).toHaveLength(1);
  });

  it('a provider that keeps asking holds the restart for as long as it asks, each ask at most maxDeferral', () => {
    const p = policy({ threshold: 1, maxDeferralMs: 10 * MIN });
    const kinds: string[] = [];
    // Every 429 asks for 30 s again: an hour of asks, then 429s that ask for nothing.
    for (let t = 0; t <= HOUR; t += MIN) kinds.push(p.check(t, storm(5, { retryAfterUntil: t + 30 * SEC })).kind);
    expect(new Set(kinds)).toEqual(new Set(['deferred']));
    expect(p.check(HOUR + MIN, storm(5, { retryAfterUntil: HOUR + 30 * SEC })).kind).toBe('restart');
  });

  it('defers at most maxDeferral, however long one ask is', () => {
    const p = policy({ threshold: 1, maxDeferralMs: 10 * MIN });
    const s = storm(5, { retryAfterUntil: 10 * HOUR });
    const kinds: string[] = [];
    for (let t = 0; t <= 12 * MIN; t += MIN) kinds.push(p.check(t, s).kind);
    expect(kinds.slice(0, 10).every((k) => k === 'deferred')).toBe(true);
    expect(kinds[10]).toBe('restart');
  });

  it('a Retry-After already expired does not defer', () => {
    const p = policy({ threshold: 1 });
    expect(p.check(5 * MIN, storm(5, { retryAfterUntil: 4 * MIN })).kind).toBe('restart');
  });
});

describe('health rule', () => {
  it('restarts after two dead probes in a row, forced for a hang', () => {
    const p = policy();
    const first = p.probe(0, probe('read_timeout'));
    expect(first.kind).toBe('dead');
    expect(first.restart).toBeNull();
    const second = p.probe(15 * SEC, probe('read_timeout'));
    expect(second.restart).toMatchObject({ trigger: 'health', probeClass: 'read_timeout' });
    expect(second.alerts.map((a) => a.kind)).toEqual(['gateway_down']);
  });

  it.each(['refused', 'connect_timeout', 'reset', 'http_500', 'http_502'])('%s counts as dead', (cls) => {
    const p = policy();
    p.probe(0, probe(cls));
    expect(p.probe(15 * SEC, probe(cls)).kind).toBe('restart');
  });

  it('starting and draining never restart, and interrupt a dead streak', () => {
    const p = policy();
    const ds = [
      p.probe(0, probe('refused')),
      p.probe(15 * SEC, probe('starting', 'starting')),
      p.probe(30 * SEC, probe('refused')),
      p.probe(45 * SEC, probe('draining', 'draining')),
    ];
    for (let t = 60; t < 600; t += 15) ds.push(p.probe(t * SEC, probe('starting', 'starting')));
    expect(restarts(ds)).toHaveLength(0);
  });

  it('after a restart nothing triggers another until started, or until the grace has passed', () => {
    const p = policy({ startupGraceMs: 5 * MIN });
    p.probe(0, probe('refused'));
    expect(p.probe(15 * SEC, probe('refused')).kind).toBe('restart');
    p.restartFinished(20 * SEC, 'done');
    const during: Decision[] = [];
    for (let t = 30; t < 15 + 300; t += 15) during.push(p.probe(t * SEC, probe('refused')));
    expect(restarts(during)).toHaveLength(0);
    expect(during.at(-1)?.kind).toBe('recovering');
    // Grace over (5 min after the restart began) and still dead: the next dead probes may restart it.
    const after = [p.probe(330 * SEC, probe('refused')), p.probe(345 * SEC, probe('refused'))];
    expect(restarts(after)).toHaveLength(1);
  });

  it('a restart remembered from before BreakerBar restarted still holds its grace', () => {
    const p = policy({ healthFailuresBeforeRestart: 1, deadAfterMs: 0, startupGraceMs: 5 * MIN });
    p.rememberRecovery(-MIN, 'storm');
    expect(p.probe(0, probe('refused')).kind).toBe('recovering');
    expect(p.tick(4 * MIN, []).map((d) => d.kind)).toEqual(['not_recovered']);
  });

  it('a gateway that reports started ends the grace early', () => {
    const p = policy({ threshold: 1, restartSpacingMs: 3 * MIN });
    expect(p.check(0, storm()).kind).toBe('restart');
    p.restartFinished(5 * SEC, 'done');
    expect(p.check(MIN, storm()).kind).toBe('recovering');
    p.probe(70 * SEC, probe('ok'));
    // Started: the grace is over; the next restart waits only for the spacing (3 min after the first).
    expect(p.check(2 * MIN, storm()).kind).toBe('spacing');
    expect(p.check(3 * MIN, storm()).kind).toBe('restart');
  });

  it('does not report the gateway down while its own restart is running or starting up', () => {
    const p = policy({ threshold: 1, healthFailuresBeforeRestart: 1 });
    p.check(0, storm());
    const during = [p.probe(SEC, probe('refused'))];
    p.restartFinished(2 * SEC, 'done');
    during.push(p.probe(3 * SEC, probe('refused')), p.probe(4 * SEC, probe('starting', 'starting')));
    expect(during.flatMap((d) => d.alerts)).toEqual([]);
    expect(p.probe(5 * SEC, probe('ok')).alerts).toEqual([]); // never reported down, so not "up again" either
  });

  it('reports the gateway up again once, after it was reported down', () => {
    const p = policy({ enabled: false });
    p.probe(0, probe('refused'));
    expect(p.probe(15 * SEC, probe('refused')).alerts.map((a) => a.kind)).toEqual(['gateway_down']);
    expect(p.probe(30 * SEC, probe('refused')).alerts).toEqual([]);
    expect(p.probe(45 * SEC, probe('ok')).alerts.map((a) => a.kind)).toEqual(['gateway_up']);
    expect(p.probe(60 * SEC, probe('ok')).alerts).toEqual([]);
  });
});

describe('never a restart loop', () => {
  it('never exceeds the hourly budget under a permanent storm, alerting once per exhaustion', () => {
    const p = policy({ threshold: 1, maxRestartsPerHour: 4 });
    const times: number[] = [];
    const alerts: string[] = [];
    for (let t = 0; t < 5 * HOUR; t += MIN) {
      const d = p.check(t, storm());
      alerts.push(...d.alerts.map((a) => a.kind));
      if (d.restart) {
        times.push(t);
        p.restartFinished(t + 5 * SEC, 'done');
        p.probe(t + 30 * SEC, probe('ok'));
        p.tick(t + 30 * SEC, []);
      }
    }
    for (const t of times) expect(times.filter((u) => u > t - HOUR && u <= t).length).toBeLessThanOrEqual(4);
    expect(times.length).toBeGreaterThanOrEqual(16); // the budget refills: 4 an hour for 5 hours
    expect(times.length).toBeLessThanOrEqual(20);
    expect(alerts.filter((k) => k === 'restart_budget_exhausted').length).toBeGreaterThanOrEqual(1);
    expect(alerts.filter((k) => k === 'restart_budget_exhausted').length).toBeLessThanOrEqual(5);
  });

  it('spaces restarts further apart each time', () => {
    const p = policy({ threshold: 1, restartSpacingMs: MIN, maxRestartsPerHour: 10 });
    const times: number[] = [];
    for (let t = 0; t < HOUR; t += 10 * SEC) {
      const d = p.check(t, storm());
      if (d.restart) {
        times.push(t);
        p.restartFinished(t, 'done');
        p.probe(t, probe('ok'));
      }
    }
    const gaps = times.slice(1).map((t, i) => t - (times[i] ?? 0));
    expect(gaps.slice(0, 4)).toEqual([MIN, 2 * MIN, 4 * MIN, 8 * MIN]);
  });

  it('a failing restart command still spends the budget', () => {
    const p = policy({ healthFailuresBeforeRestart: 1, maxRestartsPerHour: 2, restartSpacingMs: SEC });
    let count = 0;
    for (let t = 0; t < HOUR - MIN; t += 15 * SEC) {
      const d = p.probe(t, probe('refused'));
      if (d.restart) {
        count++;
        p.restartFinished(t + SEC, 'failed');
      }
    }
    expect(count).toBe(2);
  });

  it('resume after an exhausted budget starts afresh', () => {
    const p = policy({ threshold: 1, maxRestartsPerHour: 1 });
    expect(p.check(0, storm()).kind).toBe('restart');
    p.restartFinished(SEC, 'done');
    p.probe(2 * SEC, probe('ok'));
    const spent = p.check(MIN, storm());
    expect(spent.kind).toBe('budget_exhausted');
    expect(spent.alerts.map((a) => a.kind)).toEqual(['restart_budget_exhausted']);
    expect(p.budgetRemaining(MIN)).toBe(0);
    p.resume(2 * MIN);
    expect(p.budgetRemaining(2 * MIN)).toBe(1);
    expect(p.check(3 * MIN, storm()).kind).toBe('restart');
  });

  it('restarts remembered from history count against the budget', () => {
    const p = policy({ threshold: 1, maxRestartsPerHour: 2 });
    p.rememberRestart(-10 * MIN, 'storm');
    p.rememberRestart(-5 * MIN, 'health');
    p.rememberRestart(-4 * MIN, 'manual'); // the user's own restarts never spend it
    expect(p.check(0, storm()).kind).toBe('budget_exhausted');
    expect(p.budgetRemaining(51 * MIN)).toBe(1);
  });
});

describe('pause, dry run, manual', () => {
  it('restarts nothing in dry run, but decides and alerts', () => {
    const p = policy({ dryRun: true });
    const ds = [p.check(0, storm()), p.check(MIN, storm()), p.check(2 * MIN, storm())];
    p.probe(3 * MIN, probe('refused'));
    ds.push(p.probe(3 * MIN + 15 * SEC, probe('refused')));
    expect(restarts(ds)).toHaveLength(0);
    expect(ds.filter((d) => d.kind === 'dry_run')).toHaveLength(2);
    expect(ds[2]?.alerts[0]?.kind).toBe('restart_would_run');
  });

  it('holds automatic restarts while paused for a duration, and resumes by itself', () => {
    const p = policy({ threshold: 1 });
    p.pause(0, HOUR);
    expect(p.check(MIN, storm()).kind).toBe('paused');
    expect(p.paused(30 * MIN)).toBe(true);
    const ticks = p.tick(HOUR + SEC, []);
    expect(ticks.map((d) => d.reason)).toContain('pause ended; watchdog active again');
    expect(p.check(HOUR + MIN, storm()).kind).toBe('restart');
  });

  it('paused until resumed stays paused', () => {
    const p = policy({ threshold: 1 });
    p.pause(0, null);
    expect(p.check(100 * HOUR, storm()).kind).toBe('paused');
    p.resume(100 * HOUR);
    expect(p.check(100 * HOUR + MIN, storm()).kind).toBe('restart');
  });

  it('holds storm and dead-gateway restarts during maintenance, and restarts again once it ends', () => {
    const p = policy({ threshold: 1 });
    p.setMaintenance('upgrading the gateway');
    const storming = p.check(0, storm());
    expect(storming.kind).toBe('maintenance');
    expect(storming.restart).toBeNull();
    expect(storming.reason).toContain('upgrading the gateway');
    p.probe(MIN, probe('refused'));
    const dead = p.probe(MIN + 15 * SEC, probe('refused'));
    expect(dead.kind).toBe('maintenance');
    expect(dead.restart).toBeNull();
    // The outage is still reported (the notifier decides whether to say it).
    expect(dead.alerts.map((a) => a.kind)).toContain('gateway_down');
    p.setMaintenance(null);
    expect(p.probe(MIN + 30 * SEC, probe('refused')).kind).toBe('restart');
  });

  it('a manual restart goes through during maintenance', () => {
    const p = policy();
    p.setMaintenance('upgrading the gateway');
    expect(p.manual(0).restart).toMatchObject({ trigger: 'manual' });
  });

  it('a manual restart goes through while paused or in dry run, but never alongside another', () => {
    const p = policy({ dryRun: true });
    p.pause(0, null);
    const first = p.manual(0);
    expect(first.restart).toMatchObject({ trigger: 'manual' });
    expect(p.manual(SEC).kind).toBe('in_flight');
    p.restartFinished(2 * SEC, 'done');
    expect(p.manual(3 * SEC).kind).toBe('restart');
  });

  it('an automatic restart waits for a manual one in flight', () => {
    const p = policy({ threshold: 1 });
    p.manual(0);
    expect(p.check(MIN, storm()).kind).toBe('in_flight');
  });

  it('does nothing automatically when disabled', () => {
    const p = policy({ enabled: false, threshold: 1, healthFailuresBeforeRestart: 1, deadAfterMs: 0 });
    expect(p.check(0, storm()).kind).toBe('disabled');
    expect(p.probe(0, probe('refused')).kind).toBe('disabled');
  });
});

describe('recovery', () => {
  it('counts a restart recovered once the restarted gateway reports started and answers', () => {
    const p = policy({ threshold: 1 });
    p.check(0, storm());
    p.restartFinished(10 * SEC, 'done');
    expect(p.tick(20 * SEC, [])).toEqual([]);
    p.probe(40 * SEC, probe('starting', 'starting'));
    expect(p.tick(40 * SEC, [])).toEqual([]); // starting is not started
    p.probe(55 * SEC, probe('ok'));
    const [done] = p.tick(55 * SEC, []);
    expect(done?.kind).toBe('recovered');
    expect(done?.reason).toContain('55 s');
    expect(p.state().recovering).toBeNull();
  });

  it('a gateway that never reports started is not recovered when the grace ends', () => {
    const p = policy({ threshold: 1, startupGraceMs: 5 * MIN });
    p.check(0, storm());
    p.restartFinished(10 * SEC, 'still_starting');
    p.probe(MIN, probe('starting', 'starting'));
    expect(p.tick(4 * MIN, [])).toEqual([]);
    expect(p.tick(5 * MIN, []).map((d) => d.kind)).toEqual(['not_recovered']);
  });

  it('a green answer from the old process (its uptime older than the restart) is not a recovery', () => {
    const p = policy({ threshold: 1 });
    p.probe(-MIN, probe('ok', 'started', 10 * HOUR));
    p.check(0, storm());
    p.restartFinished(SEC, 'done'); // the CLI signalled the gateway and returned at once
    p.probe(2 * SEC, probe('ok', 'started', 10 * HOUR + MIN + 2 * SEC));
    expect(p.tick(2 * SEC, [])).toEqual([]);
    p.probe(4 * SEC, probe('refused'));
    p.probe(12 * SEC, probe('ok', 'started', 3 * SEC));
    expect(p.tick(12 * SEC, []).map((d) => d.kind)).toEqual(['recovered']);
  });

  it('a failed restart command ends the recovery wait at once', () => {
    const p = policy({ healthFailuresBeforeRestart: 1, deadAfterMs: 0, restartSpacingMs: SEC });
    p.probe(0, probe('refused'));
    p.restartFinished(SEC, 'failed');
    expect(p.state().recovering).toBeNull();
    expect(p.probe(15 * SEC, probe('refused')).kind).toBe('restart');
  });
});

describe('divergence alarm', () => {
  const open = (since: number) => [{ dep: 'zhipu/glm-5.1', state: 'open' as const, since }];

  it('fires once when probes are green while a breaker is open past the limit', () => {
    const p = policy();
    p.probe(0, probe('ok'));
    expect(p.tick(2 * MIN, open(0))).toEqual([]);
    const [alarm] = p.tick(3 * MIN, open(0));
    expect(alarm?.alerts[0]).toMatchObject({ kind: 'divergence', dep: 'zhipu/glm-5.1' });
    expect(alarm?.reason).toContain('health checks alone are lying');
    expect(p.tick(4 * MIN, open(0))).toEqual([]);
    // cleared, then a new episode alarms again
    p.tick(5 * MIN, []);
    expect(p.tick(9 * MIN, open(5 * MIN)).map((d) => d.kind)).toEqual(['divergence']);
  });

  it('stays quiet when the probes are red too (nothing is hidden then)', () => {
    const p = policy();
    p.probe(0, probe('refused'));
    expect(p.tick(10 * MIN, [{ dep: 'a/b', state: 'throttled', since: 0 }])).toEqual([]);
  });

  it('ignores half-open and closed breakers', () => {
    const p = policy();
    p.probe(0, probe('ok'));
    expect(p.tick(10 * MIN, [{ dep: 'a/b', state: 'half_open', since: 0 }])).toEqual([]);
  });
});

describe('evidence before action', () => {
  it('names the evidence of every automatic restart', () => {
    const stormy = policy({ threshold: 1 });
    expect(stormy.check(0, storm()).restart).toMatchObject({ evidence: 'storm', trigger: 'storm' });
    const dead = policy();
    dead.probe(0, probe('refused'));
    expect(dead.probe(15 * SEC, probe('refused')).restart).toMatchObject({ evidence: 'dead', trigger: 'health' });
    expect(policy().manual(0).restart).toMatchObject({ evidence: 'manual' });
  });

  it('says how long the storm lasted and that nothing upstream holds it', () => {
    const p = policy();
    const ds = [p.check(0, storm()), p.check(MIN, storm()), p.check(6 * MIN, storm())];
    expect(ds[2]?.reason).toBe(
      '429 storm on zhipu/glm-5.1 for 6 min, no Retry-After or cooldown in force, no fallback answering: restarting',
    );
  });

  it('a probe BreakerBar could not run on time is unknown: not dead, and it does not break a dead streak', () => {
    const p = policy();
    p.probe(0, probe('refused'));
    const late = p.probe(15 * SEC, probe('unknown'));
    expect(late.kind).toBe('unknown');
    expect(late.restart).toBeNull();
    expect(p.state().healthFailures).toBe(1);
    expect(p.probe(30 * SEC, probe('refused')).kind).toBe('restart');
    // …and any number of unknown probes restart nothing.
    const q = policy();
    const ds = Array.from({ length: 40 }, (_, i) => q.probe(i * 15 * SEC, probe('unknown')));
    expect(restarts(ds)).toHaveLength(0);
    expect(ds.flatMap((d) => d.alerts)).toEqual([]);
  });

  it('dead probes must span deadAfter: an in-process restart refusing for 10 s is not a death', () => {
    const p = policy({ deadAfterMs: 20 * SEC });
    const ds = [
      p.probe(0, probe('refused')),
      p.probe(5 * SEC, probe('refused')),
      p.probe(10 * SEC, probe('refused')),
      p.probe(15 * SEC, probe('ok')),
    ];
    expect(restarts(ds)).toHaveLength(0);
    expect(ds.flatMap((d) => d.alerts)).toEqual([]);
    const dead = [p.probe(20 * SEC, probe('refused')), p.probe(30 * SEC, probe('refused'))];
    expect(dead.map((d) => d.kind)).toEqual(['dead', 'dead']);
    // Past the count, only the time is still to come.
    expect(ds[2]?.reason).toBe('refused (dead probe 3 (2 needed), for 10 s of 20 s)');
    expect(dead[1]?.reason).toBe('refused (dead probe 2 of 2, for 10 s of 20 s)');
    expect(p.probe(40 * SEC, probe('refused')).restart).toMatchObject({ evidence: 'dead' });
  });

  it('dead probes while the service is not loaded (or its respawn parked) are "unloaded" evidence', () => {
    for (const service of ['unloaded', 'parked'] as const) {
      const p = policy();
      p.strategyChecked({ runnable: true, problem: null, service });
      p.probe(0, probe('refused'));
      const d = p.probe(15 * SEC, probe('refused'));
      expect(d.restart).toMatchObject({ evidence: 'unloaded', trigger: 'health' });
      expect(d.reason).toContain(service === 'parked' ? 'parked' : 'not loaded');
    }
  });

  it('a live gateway with stalled sessions and no attempt for hungAfter is hung: restarted once', () => {
    const p = policy({ hungAfterMs: 5 * MIN });
    p.probe(0, probe('ok'));
    const stalled = (since: number): CheckInput => ({
      deps: [],
      stalled: { sessions: 3, deps: ['zhipu/glm-5.1'], since },
    });
    expect(p.check(MIN, stalled(0)).kind).toBe('counting');
    const hung = p.check(5 * MIN, stalled(0));
    expect(hung.restart).toMatchObject({ evidence: 'hung', trigger: 'health', deps: ['zhipu/glm-5.1'] });
    expect(hung.reason).toContain('3 sessions stalled');
    p.restartFinished(5 * MIN + SEC, 'done');
    expect(p.check(6 * MIN, stalled(0)).kind).toBe('recovering');
  });

  it('stalled sessions while the probes are red are left to the health rule', () => {
    const p = policy();
    p.probe(0, probe('refused'));
    expect(p.check(10 * MIN, { deps: [], stalled: { sessions: 1, deps: [], since: 0 } }).kind).toBe('quiet');
  });
});

describe('never act on what it has not seen', () => {
  it('no gateway, no CLI, no unit: no restart in 10 minutes of dead probes, one clear alert', () => {
    const p = fresh();
    p.strategyChecked({
      runnable: false,
      problem: 'no openclaw CLI on PATH and no openclaw-gateway.service unit',
      service: 'none',
    });
    const ds: Decision[] = [];
    for (let t = 0; t <= 10 * MIN; t += 5 * SEC) {
      ds.push(p.probe(t, probe('refused')));
      if (t % MIN === 0) ds.push(p.check(t, storm()), ...p.tick(t, []));
    }
    expect(restarts(ds)).toHaveLength(0);
    expect(ds.filter((d) => d.kind === 'dry_run')).toHaveLength(0);
    const alerts = ds.flatMap((d) => d.alerts);
    expect(alerts.map((a) => a.kind)).toEqual(['watchdog_blocked']);
    expect(alerts[0]?.message).toContain('has not seen this gateway healthy');
    expect(alerts[0]?.message).toContain('no openclaw CLI on PATH');
  });

  it('once the gateway has been seen healthy, its death is acted on', () => {
    const p = fresh();
    p.strategyChecked(RUNNABLE);
    p.probe(0, probe('refused'));
    expect(p.probe(15 * SEC, probe('refused')).kind).toBe('unverified');
    p.probe(30 * SEC, probe('ok'));
    p.probe(45 * SEC, probe('refused'));
    expect(p.probe(60 * SEC, probe('refused')).kind).toBe('restart');
  });

  it('a strategy that cannot run blocks automatic restarts, with its reason, until it can', () => {
    const p = policy({ threshold: 1 });
    p.strategyChecked({ runnable: false, problem: 'the LaunchAgent plist is missing', service: 'none' });
    const blocked = p.check(0, storm());
    expect(blocked.kind).toBe('unverified');
    expect(blocked.alerts[0]?.message).toContain('the LaunchAgent plist is missing');
    expect(p.check(MIN, storm()).alerts).toEqual([]);
    p.strategyChecked(RUNNABLE);
    expect(p.check(2 * MIN, storm()).kind).toBe('restart');
  });

  it('a strategy not checked yet holds, and a manual restart still runs', () => {
    const p = fresh({ threshold: 1 });
    p.probe(0, probe('ok'));
    expect(p.check(0, storm()).kind).toBe('unverified');
    expect(p.manual(SEC).kind).toBe('restart');
  });

  it('an address that answers as something else is a configuration error, never a dead gateway', () => {
    const p = policy({ healthFailuresBeforeRestart: 1, deadAfterMs: 0 });
    const ds = Array.from({ length: 20 }, (_, i) => p.probe(i * 15 * SEC, probe('not_openclaw')));
    expect(restarts(ds)).toHaveLength(0);
    expect(ds.every((d) => d.kind === 'not_openclaw')).toBe(true);
    const alerts = ds.flatMap((d) => d.alerts);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ kind: 'watchdog_blocked' });
    expect(alerts[0]?.message).toContain('not as an OpenClaw gateway');
  });
});

describe("the gateway's own restarts", () => {
  it('a restart the gateway announces is a restart in flight: its refused probes restart nothing', () => {
    const p = policy({ deadAfterMs: 0 });
    expect(p.gatewayRestarting(0, 'gateway log: restarting (SIGUSR2)').kind).toBe('gateway_restarted');
    const ds = [p.probe(5 * SEC, probe('refused')), p.probe(10 * SEC, probe('refused'))];
    expect(restarts(ds)).toHaveLength(0);
    expect(ds[1]?.kind).toBe('recovering');
    expect(ds.flatMap((d) => d.alerts)).toEqual([]);
    p.probe(15 * SEC, probe('ok', 'started', 2 * SEC));
    expect(p.tick(15 * SEC, []).map((d) => d.kind)).toEqual(['quiet']);
    expect(p.state().recovering).toBeNull();
  });

  it('sees an unannounced restart by the uptime going back, and does not count it as an outage', () => {
    const p = policy();
    p.probe(0, probe('ok', 'started', HOUR));
    p.probe(5 * SEC, probe('refused'));
    const back = p.probe(15 * SEC, probe('ok', 'started', 3 * SEC));
    expect(back.kind).toBe('gateway_restarted');
    expect(back.reason).toContain('restarted by itself');
    expect(p.probe(20 * SEC, probe('ok', 'started', 8 * SEC)).kind).toBe('healthy');
  });

  it('counts an announced restart during its own restart toward that restart', () => {
    const p = policy({ threshold: 1 });
    p.check(0, storm());
    expect(p.gatewayRestarting(SEC, 'gateway log: restarting').reason).toContain('still running');
    p.restartFinished(2 * SEC, 'done');
    expect(p.gatewayRestarting(3 * SEC, 'gateway log: restarting').reason).toContain('restart in progress');
  });

  it('a pending (scheduled or deferred) restart is waited for, shown, and never doubled', () => {
    const p = policy({ threshold: 1, startupGraceMs: 5 * MIN });
    p.probe(-SEC, probe('ok', 'started', HOUR));
    expect(p.check(0, storm()).kind).toBe('restart');
    p.restartFinished(SEC, 'pending');
    expect(p.state().recovering).toMatchObject({ pending: true, seen: false });
    expect(p.check(MIN, storm()).kind).toBe('pending');
    expect(p.manual(MIN).kind).toBe('pending');
    // The old process still answering is not the restart having happened.
    p.probe(90 * SEC, probe('ok', 'started', HOUR + 91 * SEC));
    expect(p.tick(90 * SEC, [])).toEqual([]);
    p.probe(2 * MIN, probe('draining', 'draining', HOUR + 2 * MIN));
    p.probe(130 * SEC, probe('refused'));
    p.probe(140 * SEC, probe('ok', 'started', 4 * SEC));
    expect(p.tick(140 * SEC, []).map((d) => d.kind)).toEqual(['recovered']);
  });

  it('a pending restart that never happens ends the wait after the grace', () => {
    const p = policy({ threshold: 1, startupGraceMs: 5 * MIN });
    p.check(0, storm());
    p.restartFinished(SEC, 'pending');
    const [late] = p.tick(5 * MIN, []);
    expect(late?.kind).toBe('not_recovered');
    expect(late?.reason).toContain('accepted the restart');
  });

  it('a deferred restart is waited for as long as OpenClaw may hold it back, plus the grace', () => {
    const p = policy({ threshold: 1, startupGraceMs: 5 * MIN });
    p.check(0, storm());
    p.restartFinished(SEC, 'pending', 5 * MIN); // OpenClaw drains for up to 5 min, then forces it
    expect(p.tick(9 * MIN, [])).toEqual([]);
    expect(p.check(9 * MIN, storm()).kind).toBe('pending');
    expect(p.tick(10 * MIN, []).map((d) => d.kind)).toEqual(['not_recovered']);
  });
});

describe("OpenClaw's cooldowns hold a storm restart", () => {
  it('no restart while a cooldown holds, one alert, then one restart once it has passed and the storm goes on', () => {
    const p = policy();
    const cooling = storm(5, { cooldownUntil: 5 * MIN });
    const ds = [p.check(0, cooling), p.check(MIN, cooling), p.check(2 * MIN, cooling), p.check(3 * MIN, cooling)];
    expect(ds.map((d) => d.kind)).toEqual(['counting', 'counting', 'deferred', 'deferred']);
    expect(p.state().deferral).toMatchObject({ cause: 'cooldown', until: 5 * MIN });
    const alerts = ds.flatMap((d) => d.alerts);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.message).toContain('OpenClaw holds zhipu/glm-5.1 in cooldown');
    const after = [p.check(4 * MIN, cooling), p.check(5 * MIN, cooling), p.check(6 * MIN, cooling)];
    expect(after.map((d) => d.kind)).toEqual(['deferred', 'restart', 'counting']); // a new storm count after it
    expect(after[1]?.reason).toContain('Retry-After and cooldowns over');
  });

  it("OpenClaw's cooldown holds for as long as it lasts; only a Retry-After is capped", () => {
    const p = policy({ threshold: 1, maxDeferralMs: 10 * MIN });
    const cooling = storm(5, { cooldownUntil: HOUR, retryAfterUntil: 10 * HOUR });
    for (let t = 0; t < HOUR; t += 5 * MIN) expect(p.check(t, cooling).kind).toBe('deferred');
    expect(p.state().deferral).toMatchObject({ cause: 'cooldown', until: HOUR });
    expect(p.check(HOUR, cooling).kind).toBe('restart'); // the Retry-After's cap passed long ago
  });

  it('the later of a Retry-After and a cooldown binds', () => {
    const p = policy({ threshold: 1 });
    const d = p.check(0, storm(5, { retryAfterUntil: MIN, cooldownUntil: 3 * MIN }));
    expect(d.kind).toBe('deferred');
    expect(p.state().deferral).toMatchObject({ until: 3 * MIN, cause: 'cooldown' });
  });
});

describe('uptime and wall-clock steps', () => {
  it('a wall clock stepped forward during a restart does not hide the restarted process', () => {
    const p = policy({ threshold: 1 });
    p.probe(-MIN, probe('ok', 'started', HOUR));
    p.check(0, storm());
    p.restartFinished(SEC, 'done');
    p.probe(5 * SEC, probe('refused'));
    // OpenClaw's uptime follows the wall clock: stepped 2 h forward, the new process looks 2 h old.
    p.probe(20 * SEC, probe('ok', 'started', 2 * HOUR + 5 * SEC));
    expect(p.tick(20 * SEC, []).map((d) => d.kind)).toEqual(['recovered']);
  });

  it('a wall clock stepped back is not a restart, and a negative uptime is ignored', () => {
    const p = policy();
    p.probe(0, probe('ok', 'started', 5 * HOUR));
    expect(p.probe(15 * SEC, probe('ok', 'started', 3 * HOUR + 15 * SEC)).kind).toBe('healthy');
    const young = policy();
    young.probe(0, probe('ok', 'started', 10 * MIN));
    expect(young.probe(15 * SEC, probe('ok', 'started', 10 * MIN - 2 * HOUR)).kind).toBe('healthy');
    expect(young.probe(30 * SEC, probe('ok', 'started', 10 * MIN - 2 * HOUR + 15 * SEC)).kind).toBe('healthy');
  });
});

describe("the gateway's owner", () => {
  const owned = (rule: 'stopped_itself' | 'external_supervisor' | 'app_bundled', who: string): StrategyCheck => ({
    runnable: false,
    problem: `reason for ${rule}`,
    service: 'parked',
    ownerBlock: {
      rule,
      owner:
        rule === 'external_supervisor' ? 'external-supervisor' : rule === 'app_bundled' ? 'app-bundled' : 'launchd',
      who,
      reason: `reason for ${rule}`,
    },
  });

  it('a gateway OpenClaw stopped itself (exit 78) is never restarted, even before it was seen healthy; alerted once', () => {
    const p = fresh();
    p.strategyChecked(owned('stopped_itself', 'LaunchAgent ai.openclaw.gateway'));
    const ds: Decision[] = [];
    for (let t = 0; t <= 10 * MIN; t += 5 * SEC) {
      ds.push(p.probe(t, probe('refused')));
      if (t % MIN === 0) ds.push(p.check(t, storm()));
    }
    expect(restarts(ds)).toHaveLength(0);
    const alerts = ds.flatMap((d) => d.alerts);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      kind: 'watchdog_blocked',
      blocked: { cause: 'owner', rule: 'stopped_itself', who: 'LaunchAgent ai.openclaw.gateway' },
    });
    expect(ds.at(-1)?.reason).toBe('not restarting: reason for stopped_itself');
  });

  it('an external supervisor: a dead gateway is alerted and named, not restarted', () => {
    const p = policy({ healthFailuresBeforeRestart: 1, deadAfterMs: 0 });
    p.strategyChecked(owned('external_supervisor', 'supervisord (pid 812)'));
    const d = p.probe(0, probe('refused'));
    expect(d.restart).toBeNull();
    expect(d.kind).toBe('unverified');
    expect(d.alerts.map((a) => a.kind)).toEqual(['gateway_down', 'watchdog_blocked']);
    expect(d.alerts[1]).toMatchObject({ blocked: { cause: 'owner', who: 'supervisord (pid 812)' } });
  });

  it("the app's bundled gateway: a storm is not restarted; once the owner allows it, it is", () => {
    const p = policy({ threshold: 1 });
    p.strategyChecked(owned('app_bundled', "the OpenClaw app's bundled gateway"));
    expect(p.check(0, storm()).kind).toBe('unverified');
    p.strategyChecked(RUNNABLE);
    expect(p.check(2 * MIN, storm()).kind).toBe('restart');
  });
});

describe('/readyz is never a reason to restart', () => {
  it('a failing channel (/readyz 503) with /healthz and /startupz fine is a healthy probe, however long', () => {
    const p = policy({ healthFailuresBeforeRestart: 1, deadAfterMs: 0 });
    // What probe.ts makes of /healthz 200 live, /startupz 200 started, /readyz 503 {ready:false, failing:[telegram]}.
    const channelDown: ProbeInput = {
      class: 'ok',
      dead: false,
      startup: 'started',
      detail: 'live (/healthz 200 in 3 ms), started; not ready: telegram',
    };
    const ds = Array.from({ length: 40 }, (_, i) => p.probe(i * 15 * SEC, channelDown));
    expect(restarts(ds)).toHaveLength(0);
    expect(ds.every((d) => d.kind === 'healthy')).toBe(true);
  });
});
