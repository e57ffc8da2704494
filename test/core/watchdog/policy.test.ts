import { describe, expect, it } from 'vitest';
import {
  type CheckInput,
  type Decision,
  type ProbeInput,
  WatchdogPolicy,
  type WatchdogSettings,
} from '../../../main/core/watchdog/policy.js';

const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;

const DEFAULTS: WatchdogSettings = {
  enabled: true,
  windowMs: 2 * MIN,
  threshold: 3,
  healthFailuresBeforeRestart: 2,
  startupGraceMs: 5 * MIN,
  maxRestartsPerHour: 4,
  restartSpacingMs: MIN,
  maxDeferralMs: 10 * MIN,
  divergenceMs: 3 * MIN,
  dryRun: false,
};

const policy = (overrides: Partial<WatchdogSettings> = {}) => new WatchdogPolicy({ ...DEFAULTS, ...overrides });

const storm = (count = 5, extra: Partial<CheckInput['deps'][number]> = {}): CheckInput => ({
  deps: [{ dep: 'zhipu/glm-5.1', count, retryAfterUntil: null, workingFallbacks: [], ...extra }],
});
const calm: CheckInput = { deps: [] };

const probe = (cls: string, startup: ProbeInput['startup'] = 'started'): ProbeInput => ({
  class: cls,
  dead: !['ok', 'starting', 'draining'].includes(cls),
  startup,
  detail: cls,
});

const restarts = (decisions: Decision[]) => decisions.filter((d) => d.restart !== null);

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

  it('defers at most maxDeferral, however long the provider asks', () => {
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
    const p = policy({ healthFailuresBeforeRestart: 1, startupGraceMs: 5 * MIN });
    p.rememberRecovery(-MIN, 'storm');
    expect(p.probe(0, probe('refused')).kind).toBe('recovering');
    expect(p.tick(4 * MIN, [], null).map((d) => d.kind)).toEqual(['not_recovered']);
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
        p.tick(t + 30 * SEC, [], null);
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
    const ticks = p.tick(HOUR + SEC, [], null);
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
    const p = policy({ enabled: false, threshold: 1, healthFailuresBeforeRestart: 1 });
    expect(p.check(0, storm()).kind).toBe('disabled');
    expect(p.probe(0, probe('refused')).kind).toBe('disabled');
  });
});

describe('recovery', () => {
  it('counts a restart recovered once started and a call succeeds', () => {
    const p = policy({ threshold: 1 });
    p.check(0, storm());
    p.restartFinished(10 * SEC, 'done');
    expect(p.tick(20 * SEC, [], null)).toEqual([]);
    p.probe(40 * SEC, probe('starting', 'starting'));
    expect(p.tick(40 * SEC, [], 30 * SEC)).toEqual([]); // a success before started proves nothing
    p.probe(55 * SEC, probe('ok'));
    const [done] = p.tick(70 * SEC, [], 62 * SEC);
    expect(done?.kind).toBe('recovered');
    expect(done?.reason).toContain('62 s');
    expect(p.state().recovering).toBeNull();
  });

  it('a gateway that never reports started is not recovered when the grace ends', () => {
    const p = policy({ threshold: 1, startupGraceMs: 5 * MIN });
    p.check(0, storm());
    p.restartFinished(10 * SEC, 'still_starting');
    p.probe(MIN, probe('starting', 'starting'));
    expect(p.tick(4 * MIN, [], null)).toEqual([]);
    expect(p.tick(5 * MIN, [], null).map((d) => d.kind)).toEqual(['not_recovered']);
  });

  it('started but no calls by the end of the grace is reported as unconfirmed', () => {
    const p = policy({ threshold: 1 });
    p.check(0, storm());
    p.restartFinished(SEC, 'done');
    p.probe(20 * SEC, probe('ok', 'unknown')); // an older gateway without /startupz
    expect(p.tick(5 * MIN, [], null).map((d) => d.kind)).toEqual(['started_unconfirmed']);
  });

  it('a failed restart command ends the recovery wait at once', () => {
    const p = policy({ healthFailuresBeforeRestart: 1, restartSpacingMs: SEC });
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
    expect(p.tick(2 * MIN, open(0), null)).toEqual([]);
    const [alarm] = p.tick(3 * MIN, open(0), null);
    expect(alarm?.alerts[0]).toMatchObject({ kind: 'divergence', dep: 'zhipu/glm-5.1' });
    expect(alarm?.reason).toContain('health checks alone are lying');
    expect(p.tick(4 * MIN, open(0), null)).toEqual([]);
    // cleared, then a new episode alarms again
    p.tick(5 * MIN, [], null);
    expect(p.tick(9 * MIN, open(5 * MIN), null).map((d) => d.kind)).toEqual(['divergence']);
  });

  it('stays quiet when the probes are red too (nothing is hidden then)', () => {
    const p = policy();
    p.probe(0, probe('refused'));
    expect(p.tick(10 * MIN, [{ dep: 'a/b', state: 'throttled', since: 0 }], null)).toEqual([]);
  });

  it('ignores half-open and closed breakers', () => {
    const p = policy();
    p.probe(0, probe('ok'));
    expect(p.tick(10 * MIN, [{ dep: 'a/b', state: 'half_open', since: 0 }], null)).toEqual([]);
  });
});
