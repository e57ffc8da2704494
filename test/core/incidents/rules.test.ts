import { describe, expect, it } from 'vitest';
import { defaultsOf } from '../../../main/core/config/schema.js';
import { incidentSettings, incidentsConfig } from '../../../main/core/incidents/config.js';
import {
  type Condition,
  conditionsOf,
  EMPTY_TRACKER,
  type IncidentChange,
  type IncidentWorld,
  lastWeeks,
  step,
  type TrackerState,
  weekStartOf,
} from '../../../main/core/incidents/rules.js';

const T0 = 1_780_000_000_000;
/** The defaults (a minute's grace, half a minute to settle), as a config file without an `incidents` group gives them. */
const SETTINGS = incidentSettings(defaultsOf(incidentsConfig));

function world(over: Partial<IncidentWorld> = {}): IncidentWorld {
  return {
    breakers: [],
    gateway: { dead: false, detail: 'ok' },
    watchdog: { enabled: true, budgetRemaining: 4, maxRestartsPerHour: 4 },
    sources: [],
    cooldownLoops: [],
    quota: [],
    ...over,
  };
}

const openBreaker = (dep: string, over: Partial<IncidentWorld['breakers'][number]> = {}) => ({
  dep,
  state: 'open' as const,
  reason: '5 consecutive failures',
  live: true,
  stalled: null,
  ...over,
});

/** Runs the rules over a sequence of (time, world) looks; returns the final state and every change. */
function run(looks: Array<[number, IncidentWorld]>, start: TrackerState = EMPTY_TRACKER) {
  let state = start;
  const changes: IncidentChange[] = [];
  for (const [t, w] of looks) {
    const result = step(state, conditionsOf(w), T0 + t, SETTINGS, w.watchdog?.restarting ?? false);
    state = result.state;
    changes.push(...result.changes);
  }
  return { state, changes };
}

/** Looks every 5 s from `from` to `to` (inclusive) at the same world. */
function every5s(from: number, to: number, w: IncidentWorld): Array<[number, IncidentWorld]> {
  const looks: Array<[number, IncidentWorld]> = [];
  for (let t = from; t <= to; t += 5_000) looks.push([t, w]);
  return looks;
}

describe('conditionsOf', () => {
  it('finds nothing in a healthy world', () => {
    expect(conditionsOf(world())).toEqual([]);
  });

  it('never opens an incident for a gateway down while a restart is running or being verified: that is the remedy', () => {
    const dead = { dead: true, detail: 'connection refused' };
    const restarting = { enabled: true, budgetRemaining: 3, maxRestartsPerHour: 4, restarting: true };
    expect(conditionsOf(world({ gateway: dead, watchdog: restarting })).map((c) => [c.cause, c.holdsOnly])).toEqual([
      ['gateway_dead', true],
    ]);
    expect(run(every5s(0, 300_000, world({ gateway: dead, watchdog: restarting }))).changes).toEqual([]);
    expect(
      conditionsOf(world({ gateway: dead, watchdog: { ...restarting, restarting: false } })).map((c) => c.cause),
    ).toEqual(['gateway_dead']);
  });

  it('keeps the incident of a dead gateway open while BreakerBar restarts it, and closes it once the gateway is back', () => {
    const dead = { dead: true, detail: 'connection refused' };
    const watchdog = { enabled: true, budgetRemaining: 3, maxRestartsPerHour: 4, restarting: false };
    const { changes } = run([
      ...every5s(0, 60_000, world({ gateway: dead, watchdog })),
      // The restart runs and is verified for 45 s, the gateway still down.
      ...every5s(65_000, 110_000, world({ gateway: dead, watchdog: { ...watchdog, restarting: true } })),
      ...every5s(115_000, 160_000, world({ gateway: { dead: false, detail: 'ok' }, watchdog })),
    ]);
    expect(changes.map((c) => [c.kind, c.at - T0])).toEqual([
      ['open', 0],
      ['close', 115_000],
    ]);
  });

  it('does not add a gateway down for its restart to an incident it was not part of (a storm restarted with --safe)', () => {
    const restarting = { enabled: true, budgetRemaining: 3, maxRestartsPerHour: 4, restarting: true };
    const storm = world({ breakers: [openBreaker('zhipu/glm-5.1')] });
    const { state, changes } = run([
      ...every5s(0, 60_000, storm),
      ...every5s(65_000, 80_000, {
        ...storm,
        gateway: { dead: true, detail: 'connection refused' },
        watchdog: restarting,
      }),
    ]);
    expect(changes.map((c) => c.kind)).toEqual(['open']);
    expect(state.open?.causes).toEqual(['breaker']);
  });

  it('does not settle while a restart runs or is verified, even once its own causes are over (a storm closed by a --safe restart)', () => {
    const watchdog = { enabled: true, budgetRemaining: 3, maxRestartsPerHour: 4, restarting: false };
    const restarting = { ...watchdog, restarting: true };
    const storm = world({ breakers: [openBreaker('zhipu/glm-5.1')], watchdog });
    const { state, changes } = run([
      ...every5s(0, 60_000, storm),
      ...every5s(65_000, 75_000, { ...storm, watchdog: restarting }),
      // The provider answers again before the restart takes effect: the breaker closes, the restart goes on.
      ...every5s(80_000, 180_000, world({ watchdog: restarting })),
      // The restart is verified at 185 s: the incident settles (30 s) from then on.
      ...every5s(185_000, 230_000, world({ watchdog })),
    ]);
    expect(changes.map((c) => [c.kind, c.at - T0])).toEqual([
      ['open', 0],
      ['close', 185_000],
    ]);
    expect(state.open).toBeNull();
  });

  it('names each cause with its key, dependency, severity and whether the grace applies', () => {
    const found = conditionsOf(
      world({
        breakers: [
          openBreaker('zhipu/glm-5.1'),
          { dep: 'openai/gpt-5', state: 'closed', reason: '', live: true, stalled: { sessions: 2 } },
        ],
        gateway: { dead: true, detail: 'connection refused' },
        watchdog: { enabled: true, budgetRemaining: 0, maxRestartsPerHour: 4 },
        sources: [
          { kind: 'jsonl', lastError: 'EACCES: permission denied' },
          { kind: 'sqlite', lastError: null },
        ],
        cooldownLoops: ['anthropic/claude'],
        quota: [
          { provider: 'zhipu', window: '5h', usedShare: 1, resetsAt: null, exhausted: true, readAt: T0 },
          { provider: 'openai', window: 'week', usedShare: 0.2, resetsAt: null, exhausted: false, readAt: T0 },
        ],
      }),
    );
    expect(found.map((c) => [c.key, c.cause, c.dep, c.severity, c.graced])).toEqual([
      ['breaker:zhipu/glm-5.1', 'breaker', 'zhipu/glm-5.1', 'warning', true],
      ['gateway_hung:openai/gpt-5', 'gateway_hung', 'openai/gpt-5', 'warning', false],
      ['gateway_dead', 'gateway_dead', null, 'critical', true],
      ['restart_budget', 'restart_budget', null, 'critical', false],
      ['source_error:jsonl', 'source_error', null, 'warning', true],
      ['cooldown_loop:anthropic/claude', 'cooldown_loop', 'anthropic/claude', 'warning', false],
      ['quota:zhipu/5h', 'quota', 'zhipu', 'warning', false],
    ]);
  });

  it('ignores a breaker moved by history read during a backfill, and a spent budget of a disabled watchdog', () => {
    expect(
      conditionsOf(
        world({
          breakers: [openBreaker('zhipu/glm-5.1', { live: false })],
          watchdog: { enabled: false, budgetRemaining: 0, maxRestartsPerHour: 4 },
        }),
      ),
    ).toEqual([]);
  });

  it('counts half-open and throttled breakers as out of closed', () => {
    const keys = conditionsOf(
      world({ breakers: [openBreaker('a/x', { state: 'half_open' }), openBreaker('b/y', { state: 'throttled' })] }),
    ).map((c: Condition) => c.key);
    expect(keys).toEqual(['breaker:a/x', 'breaker:b/y']);
  });
});

describe('step: opening', () => {
  it('a breaker that recovers within the grace opens nothing', () => {
    const out = run([...every5s(0, 55_000, world({ breakers: [openBreaker('zhipu/glm-5.1')] })), [60_000, world()]]);
    expect(out.changes).toEqual([]);
    expect(out.state.open).toBeNull();
    expect(out.state.seen).toEqual({});
  });

  it('a breaker out of closed past the grace opens an incident dated from its first sighting', () => {
    const out = run(every5s(0, 60_000, world({ breakers: [openBreaker('zhipu/glm-5.1')] })));
    expect(out.changes).toHaveLength(1);
    expect(out.changes[0]).toMatchObject({ kind: 'open', at: T0 });
    expect(out.state.open).toMatchObject({
      openedAt: T0,
      severity: 'warning',
      causes: ['breaker'],
      deps: ['zhipu/glm-5.1'],
    });
  });

  it('the grace runs from the trip when the breaker says when it left closed', () => {
    const tripped = world({ breakers: [openBreaker('zhipu/glm-5.1', { outSince: T0 - 50_000 })] });
    expect(run([[5_000, tripped]]).changes).toEqual([]);
    const out = run([
      [5_000, tripped],
      [10_000, tripped],
    ]);
    expect(out.changes).toMatchObject([{ kind: 'open', at: T0 - 50_000 }]);
    expect(out.state.open?.openedAt).toBe(T0 - 50_000);
  });

  it('a breaker that flaps shorter than the grace (a new sighting each time) opens nothing', () => {
    const looks: Array<[number, IncidentWorld]> = [];
    for (let cycle = 0; cycle < 5; cycle++) {
      const base = cycle * 80_000;
      looks.push(...every5s(base, base + 50_000, world({ breakers: [openBreaker('zhipu/glm-5.1')] })));
      looks.push([base + 55_000, world()]);
    }
    expect(run(looks).changes).toEqual([]);
  });

  it('a dead gateway and a source that cannot read need the grace too', () => {
    const dead = world({ gateway: { dead: true, detail: 'refused' } });
    expect(run(every5s(0, 55_000, dead)).changes).toEqual([]);
    const opened = run(every5s(0, 60_000, dead));
    expect(opened.state.open).toMatchObject({ severity: 'critical', causes: ['gateway_dead'] });

    const unreadable = world({ sources: [{ kind: 'gatewaylog', lastError: 'EACCES' }] });
    expect(run(every5s(0, 55_000, unreadable)).changes).toEqual([]);
    expect(run(every5s(0, 60_000, unreadable)).state.open?.causes).toEqual(['source_error']);
  });

  it('hung sessions open an incident at once, naming the dependency: OpenClaw reports a stall after minutes', () => {
    const hung = world({
      breakers: [{ dep: 'zhipu/glm-5.1', state: 'closed', reason: '', live: false, stalled: { sessions: 3 } }],
    });
    const out = run([[0, hung]]);
    expect(out.changes).toMatchObject([{ kind: 'open', at: T0 }]);
    expect(out.state.open).toMatchObject({ causes: ['gateway_hung'], deps: ['zhipu/glm-5.1'] });
  });

  it('sessions stalled on no known dependency (stuck in their first call) open a hung incident too', () => {
    const hung = world({ stalledWithoutDependency: { sessions: 1 } });
    expect(conditionsOf(hung).map((c) => [c.key, c.cause, c.dep, c.text])).toEqual([
      ['gateway_hung', 'gateway_hung', null, '1 session stalled (no dependency known)'],
    ]);
    const out = run([[0, hung]]);
    expect(out.state.open).toMatchObject({ causes: ['gateway_hung'], deps: [] });
  });

  it("dates a hung incident from the gateway's stall report, before the restart the watchdog decided on it", () => {
    const reported = world({ stalledWithoutDependency: { sessions: 1, since: T0 - 800 } });
    expect(run([[0, reported]]).changes).toMatchObject([{ kind: 'open', at: T0 - 800 }]);
    const onBreaker = world({
      breakers: [
        { dep: 'zhipu/glm-5.1', state: 'closed', reason: '', live: true, stalled: { sessions: 1, since: T0 - 500 } },
      ],
    });
    expect(run([[0, onBreaker]]).changes).toMatchObject([{ kind: 'open', at: T0 - 500 }]);
  });

  it('a spent restart budget, a cooldown loop and an exhausted quota open at once, without grace', () => {
    const budget = run([[0, world({ watchdog: { enabled: true, budgetRemaining: 0, maxRestartsPerHour: 4 } })]]);
    expect(budget.changes).toMatchObject([{ kind: 'open', at: T0 }]);
    expect(budget.state.open?.severity).toBe('critical');

    const loop = run([[0, world({ cooldownLoops: ['zhipu/glm-5.1'] })]]);
    expect(loop.state.open).toMatchObject({ causes: ['cooldown_loop'], deps: ['zhipu/glm-5.1'], severity: 'warning' });

    const quota = run([
      [
        0,
        world({
          quota: [{ provider: 'zhipu', window: '5h', usedShare: 1, resetsAt: null, exhausted: true, readAt: T0 }],
        }),
      ],
    ]);
    expect(quota.state.open?.causes).toEqual(['quota']);
  });
});

describe('step: joining', () => {
  it('concurrent troubles join the one open incident: deps accumulate, no second incident', () => {
    const one = world({ breakers: [openBreaker('zhipu/glm-5.1')] });
    const two = world({ breakers: [openBreaker('zhipu/glm-5.1'), openBreaker('deepseek/v4')] });
    const out = run([...every5s(0, 60_000, one), [65_000, two], [70_000, two]]);
    expect(out.changes.map((c) => c.kind)).toEqual(['open', 'join']);
    expect(out.changes[1]).toMatchObject({ kind: 'join', at: T0 + 65_000, condition: { key: 'breaker:deepseek/v4' } });
    expect(out.state.open?.deps).toEqual(['deepseek/v4', 'zhipu/glm-5.1']);
  });

  it('two providers tripping together open one incident with both', () => {
    const storm = world({ breakers: [openBreaker('zhipu/glm-5.1'), openBreaker('deepseek/v4')] });
    const out = run(every5s(0, 60_000, storm));
    expect(out.changes).toHaveLength(1);
    expect(out.changes[0]).toMatchObject({ kind: 'open' });
    expect((out.changes[0] as { conditions: Condition[] }).conditions.map((c) => c.dep)).toEqual([
      'zhipu/glm-5.1',
      'deepseek/v4',
    ]);
  });

  it('a trouble joins an open incident at once, without waiting for the grace', () => {
    const breaker = world({ breakers: [openBreaker('zhipu/glm-5.1')] });
    const withSource = world({
      breakers: [openBreaker('zhipu/glm-5.1')],
      sources: [{ kind: 'jsonl', lastError: 'EIO' }],
    });
    const out = run([...every5s(0, 60_000, breaker), [65_000, withSource]]);
    expect(out.changes.at(-1)).toMatchObject({ kind: 'join', condition: { cause: 'source_error' } });
    expect(out.state.open?.causes).toEqual(['breaker', 'source_error']);
  });

  it('severity is the loudest reached and does not fall when the loud cause ends', () => {
    const breaker = world({ breakers: [openBreaker('zhipu/glm-5.1')] });
    const dead = world({ breakers: [openBreaker('zhipu/glm-5.1')], gateway: { dead: true, detail: 'refused' } });
    const out = run([...every5s(0, 60_000, breaker), [65_000, dead], [70_000, breaker]]);
    expect(out.state.open?.severity).toBe('critical');
    expect(out.state.open?.causes).toEqual(['breaker', 'gateway_dead']);
  });
});

describe('step: closing', () => {
  const breaker = world({ breakers: [openBreaker('zhipu/glm-5.1')] });

  it('closes once no cause has held for the settle time, dated when the last cause ended', () => {
    const out = run([...every5s(0, 120_000, breaker), ...every5s(125_000, 155_000, world())]);
    expect(out.changes.map((c) => c.kind)).toEqual(['open', 'close']);
    expect(out.changes[1]).toEqual({ kind: 'close', at: T0 + 125_000 });
    expect(out.state.open).toBeNull();
  });

  it('stays open while the settle time has not passed', () => {
    const out = run([...every5s(0, 120_000, breaker), ...every5s(125_000, 150_000, world())]);
    expect(out.changes.map((c) => c.kind)).toEqual(['open']);
    expect(out.state.open?.clearSince).toBe(T0 + 125_000);
  });

  it('a trouble that comes back within the settle time rejoins the same incident (flapping is one incident)', () => {
    const looks: Array<[number, IncidentWorld]> = [...every5s(0, 60_000, breaker)];
    for (let cycle = 0; cycle < 6; cycle++) {
      const base = 65_000 + cycle * 40_000;
      looks.push(...every5s(base, base + 20_000, world()));
      looks.push(...every5s(base + 25_000, base + 35_000, breaker));
    }
    const out = run(looks);
    expect(out.changes.filter((c) => c.kind === 'open')).toHaveLength(1);
    expect(out.changes.filter((c) => c.kind === 'close')).toHaveLength(0);
    expect(out.changes.filter((c) => c.kind === 'join')).toHaveLength(6);
    expect(out.state.open?.clearSince).toBeNull();
  });

  it('after closing, a new trouble needs the grace again and opens a new incident', () => {
    const first = run([...every5s(0, 60_000, breaker), ...every5s(65_000, 95_000, world())]);
    expect(first.state.open).toBeNull();
    const again = run(every5s(100_000, 155_000, breaker), first.state);
    expect(again.changes).toEqual([]);
    const opened = run(every5s(100_000, 160_000, breaker), first.state);
    expect(opened.changes).toMatchObject([{ kind: 'open', at: T0 + 100_000 }]);
  });

  it('an incident resumed after a restart closes when its causes are gone', () => {
    const resumed: TrackerState = {
      seen: {},
      open: {
        openedAt: T0 - 3_600_000,
        severity: 'critical',
        causes: ['gateway_dead'],
        deps: [],
        holding: [],
        clearSince: null,
      },
    };
    const out = run(every5s(0, 30_000, world()), resumed);
    expect(out.changes).toEqual([{ kind: 'close', at: T0 }]);
  });

  it('an incident resumed while its cause still holds rejoins it and stays open', () => {
    const resumed: TrackerState = {
      seen: {},
      open: {
        openedAt: T0 - 600_000,
        severity: 'warning',
        causes: ['breaker'],
        deps: ['zhipu/glm-5.1'],
        holding: [],
        clearSince: null,
      },
    };
    const out = run(every5s(0, 60_000, breaker), resumed);
    expect(out.changes).toMatchObject([{ kind: 'join', at: T0 }]);
    expect(out.state.open?.openedAt).toBe(T0 - 600_000);
  });
});

describe('weeks', () => {
  it('a week starts on Monday at 00:00 local time', () => {
    const wednesday = new Date(2026, 10, 25, 15, 30).getTime();
    expect(weekStartOf(wednesday)).toBe(new Date(2026, 10, 23, 0, 0).getTime());
    const monday = new Date(2026, 10, 23, 0, 0).getTime();
    expect(weekStartOf(monday)).toBe(monday);
    const sunday = new Date(2026, 10, 29, 23, 59).getTime();
    expect(weekStartOf(sunday)).toBe(monday);
  });

  it('lists the last weeks newest first, each a Monday', () => {
    const now = new Date(2026, 10, 25, 15, 30).getTime();
    expect(lastWeeks(now, 4)).toEqual([
      new Date(2026, 10, 23).getTime(),
      new Date(2026, 10, 16).getTime(),
      new Date(2026, 10, 9).getTime(),
      new Date(2026, 10, 2).getTime(),
    ]);
  });
});
