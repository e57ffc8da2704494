/**
 * Incidents kept in a real SQLite file: the service opens, joins and closes them over a world the test
 * sets, counts what the store holds (calls, turns, restarts, notifications), writes a bounded timeline,
 * and an incident left open by a stopped daemon is resumed by the next one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BreakerState } from '../../../main/core/breaker/types.js';
import { defaultsOf } from '../../../main/core/config/schema.js';
import type { ProbeResult } from '../../../main/core/gateway/probe.js';
import { incidentSettings, incidentsConfig } from '../../../main/core/incidents/config.js';
import { IncidentService } from '../../../main/core/incidents/service.js';
import { IncidentStore } from '../../../main/core/incidents/store.js';
import type { IncidentSummary } from '../../../main/core/incidents/types.js';
import type { SourceStatus } from '../../../main/core/sources/source.js';
import { Store } from '../../../main/core/store/db.js';
import { GatewayHistory } from '../../../main/core/store/gateway-history.js';
import type { WatchdogStatus } from '../../../main/core/watchdog/watchdog-status.js';
import { callEvent } from '../../helpers/calls.js';
import { recordingLogger } from '../../helpers/fake-backend.js';

const T0 = 1_780_000_020_000;
const DEP = 'zhipu/glm-5.1';

let tmp: string;
let dbPath: string;
const stores: Store[] = [];

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-incidents-'));
  dbPath = join(tmp, 'breakerbar.sqlite');
});

afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  rmSync(tmp, { recursive: true, force: true });
});

interface World {
  breakers: Array<{ dep: string; state: BreakerState; reason: string; since: number; stalled: null }>;
  probe: ProbeResult | null;
  watchdog: Pick<WatchdogStatus, 'enabled' | 'budgetRemaining' | 'maxRestartsPerHour'> | null;
}

function harness(path = dbPath, incidentStore = (db: Store['db']) => new IncidentStore(db)) {
  const store = Store.open(path);
  stores.push(store);
  let now = T0;
  const world: World = { breakers: [], probe: null, watchdog: null };
  const events: Array<[string, IncidentSummary]> = [];
  const closedDurations: number[] = [];
  const service = new IncidentService({
    store: incidentStore(store.db),
    settings: incidentSettings(defaultsOf(incidentsConfig)),
    clock: () => now,
    log: recordingLogger(),
    onClosed: (incident) => closedDurations.push((incident.closedAt ?? 0) - incident.openedAt),
    evaluateMs: 3_600_000,
    inputs: {
      breakers: () => world.breakers,
      lastProbe: () => world.probe,
      watchdog: () => world.watchdog as WatchdogStatus | null,
      sources: () => [] as SourceStatus[],
      inCooldown: () => false,
      quota: () => [],
    },
  });
  for (const name of ['opened', 'updated', 'closed'] as const) service.on(name, (s) => events.push([name, s]));
  const history = new GatewayHistory(store.db);
  return {
    store,
    service,
    world,
    events,
    closedDurations,
    history,
    at: (ms: number) => {
      now = T0 + ms;
    },
    /** Evaluates every 5 s from `from` to `to`. */
    tick(from: number, to: number) {
      for (let t = from; t <= to; t += 5_000) {
        now = T0 + t;
        service.evaluate();
      }
    },
  };
}

const openBreaker = (since: number) => ({
  dep: DEP,
  state: 'open' as const,
  reason: '5 consecutive failures',
  since,
  stalled: null,
});

function failedCalls(from: number, count: number, over: Partial<Parameters<typeof callEvent>[0]> = {}) {
  return Array.from({ length: count }, (_, i) =>
    callEvent({
      key: `main/s1/e${from}-${i}`,
      ts: T0 + from + i * 10,
      outcome: 'rate_limited',
      role: 'record',
      ...over,
    }),
  );
}

describe('incidents in the store', () => {
  it('a breaker out past the grace opens an incident, counts what failed, and closes after the settle time', () => {
    const h = harness();
    h.service.start();
    h.world.breakers = [openBreaker(T0)];
    const tripped = {
      dep: DEP,
      from: 'closed' as const,
      to: 'open' as const,
      reason: '5 consecutive failures',
      ts: T0,
    };
    h.store.insertTransition(tripped, T0);
    h.service.transition(tripped);
    // Failures before the incident exists are still its own: it dates from the first sight of trouble.
    h.store.commit({ events: failedCalls(1_000, 5) });
    h.tick(0, 55_000);
    expect(h.service.status().open).toEqual([]);
    h.tick(60_000, 60_000);
    const [opened] = h.service.status().open;
    expect(opened).toMatchObject({ openedAt: T0, closedAt: null, causes: ['breaker'], deps: [DEP], failedCalls: 5 });
    expect(h.events.map(([name]) => name)).toEqual(['opened']);

    // A 10,000-call storm in two batches: counted in full, a timeline row per dependency and minute.
    const storm = [
      ...failedCalls(61_000, 4000),
      ...failedCalls(121_000, 6000, { outcome: 'server_error', agentId: 'ops', dep: 'deepseek/v4' }),
      // Read from the gateway's log, which names no agent: counted, never listed as an agent.
      ...failedCalls(190_000, 5, { agentId: 'unknown' }),
    ];
    h.at(200_000);
    h.store.commit({ events: storm });
    h.service.calls(storm.slice(0, 4000));
    h.service.calls(storm.slice(4000));
    h.history.recordNotification({
      ts: T0 + 62_000,
      kind: 'breaker_opened',
      channel: 'desktop',
      title: 'x',
      ok: true,
      error: null,
      dep: DEP,
    });
    h.service.delivered({
      ts: T0 + 62_000,
      kind: 'breaker_opened',
      channel: 'desktop',
      title: 'zhipu is rate limited',
      ok: true,
      error: null,
      dep: DEP,
    });
    h.tick(200_000, 240_000);
    const detail = h.service.detail(opened!.id)!;
    expect(detail).toMatchObject({
      failedCalls: 10_010,
      rateLimitedCalls: 4010,
      turnsLost: 10_010,
      notifications: 1,
      deps: ['deepseek/v4', DEP],
      agents: ['main', 'ops'],
    });
    const callRows = detail.timeline.filter((e) => e.kind === 'call');
    expect(callRows.reduce((sum, e) => sum + (e.count ?? 0), 0)).toBe(10_010);
    expect(callRows.length).toBeLessThanOrEqual(6);
    expect(new Set(callRows.map((e) => `${e.dep}@${e.ts}`)).size).toBe(callRows.length);
    expect(detail.timeline.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['opened', 'cause', 'call', 'notification']),
    );
    expect(h.events.filter(([name]) => name === 'updated').length).toBeGreaterThan(0);

    h.world.breakers = [];
    h.service.transition({ dep: DEP, from: 'open', to: 'closed', reason: 'trials succeeded', ts: T0 + 245_000 });
    h.tick(245_000, 270_000);
    expect(h.service.status().open).toHaveLength(1);
    h.tick(275_000, 275_000);
    const status = h.service.status();
    expect(status.open).toEqual([]);
    expect(status.lastClosed).toMatchObject({
      id: opened!.id,
      openedAt: T0,
      closedAt: T0 + 245_000,
      failedCalls: 10_010,
    });
    expect(h.events.at(-1)?.[0]).toBe('closed');
    expect(h.closedDurations).toEqual([245_000]);
    const closedDetail = h.service.detail(opened!.id)!;
    expect(closedDetail.timeline.at(-1)).toMatchObject({ kind: 'closed', ts: T0 + 245_000 });
    expect(closedDetail.timeline.filter((e) => e.kind === 'transition')).toHaveLength(2);
  });

  it('an incident that cannot be stored (a full disk) is opened and announced at the next look, whole, once', () => {
    // The disk fills between the incident's row and its timeline: the row must not stay behind alone.
    let full = false;
    class FillingStore extends IncidentStore {
      override addEvent(...args: Parameters<IncidentStore['addEvent']>): void {
        if (full) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
        super.addEvent(...args);
      }
    }
    const h = harness(dbPath, (db) => new FillingStore(db));
    h.service.start();
    h.world.breakers = [openBreaker(T0)];
    h.service.transition({ dep: DEP, from: 'closed', to: 'open', reason: '5 consecutive failures', ts: T0 });
    h.tick(0, 55_000);
    full = true;
    h.tick(60_000, 70_000);
    expect(h.service.status().open).toEqual([]);
    expect(h.events).toEqual([]);
    expect(h.store.db.prepare('SELECT COUNT(*) FROM incidents').pluck().get()).toBe(0);

    full = false;
    h.tick(75_000, 80_000);
    expect(h.service.status().open).toEqual([expect.objectContaining({ openedAt: T0, causes: ['breaker'] })]);
    expect(h.events.map(([name]) => name)).toEqual(['opened']);
    expect(h.store.db.prepare('SELECT COUNT(*) FROM incidents').pluck().get()).toBe(1);
  });

  it('a breaker moved by history read during a backfill opens nothing', () => {
    const h = harness();
    h.service.start();
    const old = T0 - 3_600_000;
    h.world.breakers = [openBreaker(old)];
    h.service.transition({ dep: DEP, from: 'closed', to: 'open', reason: 'old storm', ts: old });
    h.tick(0, 300_000);
    expect(h.service.status().open).toEqual([]);
    expect(h.events).toEqual([]);
  });

  it('probes write only changes of class; quiet watchdog decisions are left out, a repeated one noted once', () => {
    const h = harness();
    h.service.start();
    h.world.watchdog = { enabled: true, budgetRemaining: 0, maxRestartsPerHour: 4 };
    h.tick(0, 0);
    const [incident] = h.service.status().open;
    expect(incident).toMatchObject({ severity: 'critical', causes: ['restart_budget'] });
    const probe = (t: number, cls: ProbeResult['class'], dead: boolean): ProbeResult => ({
      ts: T0 + t,
      class: cls,
      dead,
      ok: cls === 'ok',
      latencyMs: null,
      startup: 'unknown',
      ready: null,
      detail: cls,
    });
    for (let t = 1000; t <= 10_000; t += 1000) h.service.probe(probe(t, t < 5000 ? 'ok' : 'refused', t >= 5000));
    const decision = { source: 'tick' as const, reason: 'r', dep: null, restart: null, alerts: [] };
    h.service.decision({ ...decision, kind: 'quiet', ts: T0 + 11_000 });
    h.service.decision({ ...decision, kind: 'healthy', ts: T0 + 11_000 });
    // The same decision at every check (a blocked watchdog says why each time) is one entry; a new one is another.
    for (let t = 12_000; t < 24_000; t += 1000) {
      h.service.decision({ ...decision, kind: 'unverified', reason: 'not restarting: why', ts: T0 + t });
    }
    h.service.decision({ ...decision, kind: 'budget_exhausted', ts: T0 + 24_000 });
    const timeline = h.service.detail(incident!.id)!.timeline;
    expect(timeline.filter((e) => e.kind === 'probe').map((e) => e.ts)).toEqual([T0 + 5000]);
    expect(timeline.filter((e) => e.kind === 'decision').map((e) => e.text)).toEqual([
      'watchdog unverified: not restarting: why',
      'watchdog budget_exhausted: r',
    ]);
  });

  it('an incident open when the daemon stops stays open and is resumed (and closed) by the next start', () => {
    const first = harness();
    first.service.start();
    first.world.watchdog = { enabled: true, budgetRemaining: 0, maxRestartsPerHour: 4 };
    first.tick(0, 10_000);
    const [open] = first.service.status().open;
    first.service.stop();
    first.store.close();
    stores.splice(stores.indexOf(first.store), 1);

    const second = harness();
    second.at(3_600_000);
    second.service.start();
    expect(second.service.status().open.map((i) => i.id)).toEqual([open!.id]);
    second.tick(3_600_000, 3_625_000);
    expect(second.service.status().open).toHaveLength(1);
    second.tick(3_630_000, 3_630_000);
    expect(second.service.status().open).toEqual([]);
    const closed = second.service.detail(open!.id)!;
    expect(closed).toMatchObject({ openedAt: T0, closedAt: T0 + 3_600_000, severity: 'critical' });
    expect(second.events.map(([name]) => name)).toEqual(['closed']);
  });

  it('lists newest first with limit and since, and reports recovery per week', () => {
    const h = harness();
    const incidents = new IncidentStore(h.store.db);
    const counts = {
      deps: [DEP],
      agents: [],
      turnsLost: 0,
      failedCalls: 0,
      rateLimitedCalls: 0,
      restarts: 0,
      notifications: 0,
    };
    const monday = new Date(2026, 10, 23, 9, 0).getTime();
    const week = 7 * 86_400_000;
    const add = (openedAt: number, minutes: number | null) => {
      const id = incidents.open(openedAt, 'warning', ['breaker'], [DEP]);
      if (minutes !== null)
        incidents.update(id, {
          severity: 'warning',
          causes: ['breaker'],
          counts,
          closedAt: openedAt + minutes * 60_000,
        });
      return id;
    };
    const a = add(monday - week, 12);
    const b = add(monday, 5);
    const c = add(monday + 3_600_000, 9);
    const d = add(monday + 7_200_000, null);
    expect(incidents.list(10, null).incidents.map((i) => i.id)).toEqual([d, c, b, a]);
    expect(incidents.list(2, null).incidents.map((i) => i.id)).toEqual([d, c]);
    expect(incidents.list(10, monday).incidents.map((i) => i.id)).toEqual([d, c, b]);
    expect(incidents.get(b)?.summary).toBe(`breaker on ${DEP}: 0 failed calls, 0 turns lost, 0 restarts`);
    const weeks = incidents.mttrByWeek(monday + 86_400_000, 4);
    expect(weeks).toHaveLength(4);
    expect(weeks[0]).toEqual({ weekStart: new Date(2026, 10, 23).getTime(), incidents: 3, mttrMs: 7 * 60_000 });
    expect(weeks[1]).toEqual({ weekStart: new Date(2026, 10, 16).getTime(), incidents: 1, mttrMs: 12 * 60_000 });
    expect(weeks[2]).toMatchObject({ incidents: 0, mttrMs: null });
    // Retention drops closed incidents (and their timelines) only.
    incidents.addEvent(a, { ts: monday - week, kind: 'opened', dep: null, text: 'x' });
    expect(incidents.prune(monday + week)).toBe(4);
    expect(incidents.list(10, null).incidents.map((i) => i.id)).toEqual([d]);
  });
});
