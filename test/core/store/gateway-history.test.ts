import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Outcome } from '../../../main/core/calls/classify.js';
import { Store } from '../../../main/core/store/db.js';
import { GatewayHistory, type ProbeRow } from '../../../main/core/store/gateway-history.js';
import { seededRandom } from '../../../main/simulator/records.js';
import { wordDecisionReason } from '../../../main/words/decision-reasons.js';
import { translator } from '../../../main/words/messages/index.js';
import { callEvent } from '../../helpers/calls.js';

let dir: string;
let store: Store;
let history: GatewayHistory;
let n = 0;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bb-gateway-history-'));
  store = Store.open(join(dir, 'bb.sqlite'));
  history = new GatewayHistory(store.db);
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function stored(ts: number, outcome: Outcome, dep = 'zhipu/glm-5.1', agentId = 'main'): void {
  n += 1;
  store.commit({ events: [callEvent({ key: `k${n}`, ts, outcome, dep, agentId })] });
}

describe('stormEvidence', () => {
  it('counts rate_limited calls stored after the last check, within the window, by dependency and agent', () => {
    stored(1000, 'rate_limited');
    const first = history.stormEvidence(0, 0);
    expect(first).toMatchObject({ count: 1, byDep: [{ dep: 'zhipu/glm-5.1', count: 1, agents: ['main'] }] });
    stored(2000, 'rate_limited');
    stored(2100, 'rate_limited', 'zhipu/glm-5.1', 'ops');
    stored(2200, 'ok');
    stored(2300, 'rate_limited', 'openai/gpt-5');
    const second = history.stormEvidence(first.lastId, 1500);
    expect(second.count).toBe(3);
    expect(second.byDep).toEqual([
      { dep: 'zhipu/glm-5.1', count: 2, agents: ['main', 'ops'] },
      { dep: 'openai/gpt-5', count: 1, agents: ['main'] },
    ]);
    // Nothing new since: the same calls never count twice.
    expect(history.stormEvidence(second.lastId, 0).count).toBe(0);
  });

  it('ignores calls read late whose own time is outside the window', () => {
    stored(100, 'rate_limited'); // history being backfilled
    expect(history.stormEvidence(0, 50_000).count).toBe(0);
  });
});

describe('recovery and fallbacks', () => {
  it('knows the newest attempt, and fallbacks answering for the same agents', () => {
    expect(history.lastCallTs()).toBeNull();
    stored(1000, 'rate_limited');
    stored(1600, 'ok', 'anthropic/claude', 'someone-else');
    stored(1500, 'ok', 'deepseek/deepseek-v4-pro');
    expect(history.lastCallTs()).toBe(1600);
    expect(history.workingFallbacks('zhipu/glm-5.1', ['main'], 0)).toEqual(['deepseek/deepseek-v4-pro']);
    expect(history.workingFallbacks('zhipu/glm-5.1', ['main'], 1550)).toEqual([]);
    expect(history.workingFallbacks('zhipu/glm-5.1', [], 0)).toEqual([]);
  });
});

describe('working fallbacks, against the plain definition', () => {
  it('are the other dependencies with a success since the time from one of the agents, in order', () => {
    const random = seededRandom(3);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const deps = ['a/1', 'b/2', 'c/3', 'd/4', 'e/5'];
    const agents = ['main', 'ops', 'coder', 'other'];
    const outcomes: Outcome[] = ['ok', 'ok', 'rate_limited', 'timeout'];
    for (let i = 0; i < 400; i++) stored(Math.floor(random() * 10_000), pick(outcomes), pick(deps), pick(agents));
    const plain = (dep: string, who: readonly string[], since: number) =>
      (
        store.db
          .prepare(
            `SELECT DISTINCT dep FROM calls WHERE ts >= ? AND outcome = 'ok' AND dep != ?
             AND agent_id IN (${who.map(() => '?').join(', ')}) ORDER BY dep`,
          )
          .all(since, dep, ...who) as Array<{ dep: string }>
      ).map((row) => row.dep);
    for (let q = 0; q < 200; q++) {
      const dep = pick(deps);
      const who = agents.filter(() => random() < 0.5);
      const since = Math.floor(random() * 11_000);
      expect(history.workingFallbacks(dep, who, since)).toEqual(who.length === 0 ? [] : plain(dep, who, since));
    }
  });
});

describe('restarts, probes, decisions, notifications', () => {
  it('opens a restart record and completes it field by field', () => {
    const id = history.startRestart({ ts: 5000, trigger: 'storm', reason: '429 storm' });
    expect(history.restart(id)).toMatchObject({ result: 'running', command: null });
    history.updateRestart(id, { result: 'recovering', command: ['openclaw', 'gateway', 'restart'], exitCode: 0 });
    history.updateRestart(id, { result: 'recovered', recoveryMs: 42_000 });
    expect(history.lastRestart()).toMatchObject({
      id,
      trigger: 'storm',
      result: 'recovered',
      command: ['openclaw', 'gateway', 'restart'],
      exitCode: 0,
      recoveryMs: 42_000,
    });
    expect(history.restarts(0, 5000)).toEqual([]);
    expect(history.restarts(5000, 5001)).toHaveLength(1);
  });

  it('keeps probes, decisions and notifications in time order, newest N when limited', () => {
    for (let t = 1; t <= 5; t++) {
      history.recordProbe({
        ts: t,
        ok: t % 2 === 0,
        status: t % 2 ? 'refused' : 'ok',
        startup: null,
        latencyMs: t,
        detail: null,
      });
    }
    expect(history.probes(0, 10, 2).map((p) => p.ts)).toEqual([4, 5]);
    expect(history.probes(0, 10)[1]).toMatchObject({ ok: true, status: 'ok' });
    history.recordDecision({ ts: 1, source: 'check', decision: 'counting', reason: 'r', dep: 'a/b' });
    expect(history.decisions(0, 2)).toEqual([
      { ts: 1, source: 'check', decision: 'counting', reason: 'r', why: { code: 'text', text: 'r' }, dep: 'a/b' },
    ]);
    history.recordNotification({
      ts: 3,
      kind: 'gateway_down',
      channel: 'desktop',
      title: 't',
      ok: false,
      error: 'e',
      dep: null,
    });
    expect(history.notifications(0, 4)).toEqual([
      { ts: 3, kind: 'gateway_down', channel: 'desktop', title: 't', ok: false, error: 'e', dep: null },
    ]);
  });
});

describe('lastStreak', () => {
  const probe = (ts: number, ok: boolean, status = ok ? 'ok' : 'refused'): ProbeRow => ({
    ts,
    ok,
    status,
    startup: null,
    latencyMs: null,
    detail: null,
  });

  it('is null before any probe, and says since when the history has said the same, unknown probes aside', () => {
    expect(history.lastStreak()).toBeNull();
    for (const row of [probe(1000, true), probe(2000, false), probe(2500, false, 'unknown'), probe(3000, false)]) {
      history.recordProbe(row);
    }
    expect(history.lastStreak()).toEqual({ ok: false, since: 2000, lastTs: 3000 });
    history.recordProbe(probe(4000, false, 'unknown'));
    expect(history.lastStreak()).toEqual({ ok: false, since: 2000, lastTs: 3000 });
    history.recordProbe(probe(5000, true));
    history.recordProbe(probe(6000, true));
    expect(history.lastStreak()).toEqual({ ok: true, since: 5000, lastTs: 6000 });
  });

  it('a history that never changed starts at its first probe', () => {
    history.recordProbe(probe(1000, false));
    history.recordProbe(probe(2000, false));
    expect(history.lastStreak()).toEqual({ ok: false, since: 1000, lastTs: 2000 });
  });
});

describe('probe details in the store', () => {
  it('stores what a probe found as its code and facts, and reads an older English row back into its code', () => {
    const found = { code: 'connect-timeout', where: '127.0.0.1:18789', ms: 2500 } as const;
    const row = (ts: number, detail: string | null): ProbeRow => ({
      ts,
      ok: false,
      status: 'connect_timeout',
      startup: 'unknown',
      latencyMs: null,
      detail,
    });
    history.recordProbe({ ...row(1000, 'ignored: the code and facts are stored'), found });
    // A row an older BreakerBar wrote: the prober's English line.
    history.recordProbe(row(2000, 'connection refused on 127.0.0.1:18789'));
    history.recordProbe(row(3000, null));

    const raw = store.db.prepare('SELECT detail FROM health_probes ORDER BY ts').all() as Array<{ detail: string }>;
    expect(JSON.parse(raw[0]?.detail ?? '')).toEqual(found);

    const [coded, old, none] = history.probes(0, 10_000);
    expect(coded).toMatchObject({
      found,
      detail: 'no connection to 127.0.0.1:18789 within 2.5 s (connect timeout)',
    });
    expect(old).toMatchObject({
      found: { code: 'text', text: 'connection refused on 127.0.0.1:18789' },
      detail: 'connection refused on 127.0.0.1:18789',
    });
    expect(none?.detail).toBeNull();
  });
});

describe('decision reasons in the store', () => {
  it('stores why the watchdog decided as its code and facts, and reads an older English row back as it was', () => {
    const why = { code: 'budget', restarts: 2, max: 2, nextInMs: 50 * 60_000 } as const;
    history.recordDecision({ ts: 1, source: 'check', decision: 'budget_exhausted', reason: 'ignored', why, dep: null });
    // Rows an older BreakerBar wrote: the policy's English lines (one of them a probe's detail alone).
    history.recordDecision({ ts: 2, source: 'check', decision: 'quiet', reason: 'restart budget refilled', dep: null });
    history.recordDecision({
      ts: 3,
      source: 'probe',
      decision: 'healthy',
      reason: 'live (/healthz 200 in 3 ms), started',
      dep: null,
    });

    const raw = store.db.prepare('SELECT reason FROM watchdog_decisions ORDER BY ts').all() as Array<{
      reason: string;
    }>;
    expect(JSON.parse(raw[0]?.reason ?? '')).toEqual(why);

    const [coded, old, probe] = history.decisions(0, 10);
    expect(coded).toMatchObject({
      why,
      reason: 'restart budget spent: 2 restarts in the last hour (max 2); next in 50 min or when you act',
    });
    expect(old).toMatchObject({ why: { code: 'text', text: 'restart budget refilled' } });
    const zh = translator('zh-CN');
    expect(wordDecisionReason(coded!.why!, zh)).toBe(
      '重启额度已用完：过去一小时已重启 2 次（上限 2 次）；下一次在 50 分钟后，或由你手动处理',
    );
    expect(wordDecisionReason(probe!.why!, zh)).toBe('存活（/healthz 200，用时 3 毫秒），已启动');
  });
});

describe('restart reasons in the store', () => {
  it('stores a restart reason and the decision that settled it as code and facts; an older row keeps its lines', () => {
    const why = { code: 'manual', note: 'before the upgrade' } as const;
    const settled = { code: 'recovered', self: false, afterMs: 30_000 } as const;
    const id = history.startRestart({ ts: 1, trigger: 'manual', reason: 'ignored', why });
    history.updateRestart(id, { result: 'recovered', recoveryMs: 30_000, detail: 'ignored' }, settled);
    const old = history.startRestart({ ts: 2, trigger: 'health', reason: 'gateway dead for 20 s: connection refused' });
    history.updateRestart(old, { result: 'failed', detail: 'systemctl: unit not found' });

    expect(history.restart(id)).toMatchObject({
      why,
      reason: 'before the upgrade',
      detailWhy: settled,
      detail: 'gateway started and answers its probes 30 s after the restart',
    });
    const older = history.restart(old);
    expect(older).toMatchObject({
      why: { code: 'text', text: 'gateway dead for 20 s: connection refused' },
      reason: 'gateway dead for 20 s: connection refused',
      detail: 'systemctl: unit not found',
    });
    expect(older?.detailWhy).toBeUndefined();
  });
});
