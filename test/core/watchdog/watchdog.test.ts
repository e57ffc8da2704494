/**
 * The watchdog with a real SQLite store, a recording restarter and two
 * injected clocks: the wall clock (what is stored and shown) is stepped back
 * and forth while the monotonic clock only moves forward, as on a machine
 * whose time is corrected under a running BreakerBar.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultsOf } from '../../../main/core/config/schema.js';
import { interpretRestart } from '../../../main/core/gateway/control.js';
import type { ProbeResult } from '../../../main/core/gateway/probe.js';
import { openclawPlan } from '../../../main/core/gateway/strategies/openclaw-cli.js';
import { BreakerbarMetrics } from '../../../main/core/metrics/breakerbar-metrics.js';
import type { NoticeInput } from '../../../main/core/notify/notice.js';
import { type Logger, silentLogger } from '../../../main/core/runtime/log.js';
import { Store } from '../../../main/core/store/db.js';
import { GatewayHistory } from '../../../main/core/store/gateway-history.js';
import { META_LAST_CALL } from '../../../main/core/watchdog/check-evidence.js';
import { type WatchdogSettings, watchdogConfig, watchdogSettings } from '../../../main/core/watchdog/config.js';
import type { RestartOrder, RestartOutcome } from '../../../main/core/watchdog/policy-decisions.js';
import type { StrategyCheck } from '../../../main/core/watchdog/policy-inputs.js';
import type { RestartExecution, Restarter } from '../../../main/core/watchdog/restarter.js';
import { Watchdog } from '../../../main/core/watchdog/watchdog.js';
import { callEvent } from '../../helpers/calls.js';
import { recordingLogger } from '../../helpers/fake-backend.js';
import { fixture } from '../gateway/service-fixtures.js';

const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;
const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

/** The watchdog's defaults, as a config file without a `watchdog` group gives them, with what these tests need. */
const SETTINGS: WatchdogSettings = watchdogSettings({
  ...defaultsOf(watchdogConfig),
  // Storm restarts on (as a user may set them): the rules that hold or allow them are tested here.
  stormRestart: 'safe',
  deadAfterSec: 20,
});

let dir: string;
let store: Store;
let history: GatewayHistory;
let watchdog: Watchdog | null;
/** Monotonic time since the test began. */
let elapsed: number;
/** What the wall clock has been stepped by. */
let step: number;
let orders: RestartOrder[];
let outcome: RestartOutcome;
let notices: NoticeInput[];
let strategy: StrategyCheck;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bb-watchdog-'));
  store = Store.open(join(dir, 'breakerbar.db'));
  history = new GatewayHistory(store.db);
  watchdog = null;
  elapsed = 0;
  step = 0;
  orders = [];
  stalledNow = [];
  outcome = 'done';
  commandRuns = Promise.resolve();
  notices = [];
  strategy = { runnable: true, problem: null, service: 'running' };
  maintenance = null;
});

afterEach(async () => {
  await watchdog?.stop();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const wall = () => T0 + elapsed + step;

function fakeRestarter(): Restarter {
  const plan = { strategy: 'command' as const, argv: ['restart-gateway'], description: 'restart command' };
  return {
    plan: () => ({ plan, problem: null }),
    execute: async (order: RestartOrder): Promise<RestartExecution> => {
      orders.push(order);
      await commandRuns;
      return {
        plan,
        outcome,
        message: `restart command: ${outcome}`,
        result: null,
        durationMs: 10,
        pending: null,
        steps: [],
        service: null,
      };
    },
  } as unknown as Restarter;
}

/** The restart command returns once this settles (a command that takes its time). */
let commandRuns: Promise<void> = Promise.resolve();

/** What the watchdog's maintenance callback answers (a reason while a window is in force). */
let maintenance: string | null = null;
/** What the watchdog's stalled-sessions callback answers. */
let stalledNow: Array<{ dep: string | null; sessions: number; since: number; reportedAt: number }> = [];

async function started(
  settings: Partial<WatchdogSettings> = {},
  checkIntervalMs = HOUR,
  log: Logger = silentLogger,
): Promise<Watchdog> {
  watchdog = new Watchdog({
    maintenance: () => maintenance,
    settings: { ...SETTINGS, ...settings },
    checkIntervalMs, // an hour by default: the test calls check() itself
    store,
    history,
    restarter: fakeRestarter(),
    breakers: () => [],
    breakerKey: (dep) => dep,
    stalled: () => stalledNow,
    verifyStrategy: async () => strategy,
    notify: (notice) => notices.push(notice),
    fastProbes: () => undefined,
    metrics: new BreakerbarMetrics({
      turns: () => [],
      snapshots: () => [],
      sources: () => [],
      stalledSessions: () => [],
      watchdog: () => null,
    }),
    log,
    clock: wall,
    monotonic: () => T0 + elapsed,
  });
  watchdog.start();
  await watchdog.verify();
  return watchdog;
}

function probe(cls: 'ok' | 'refused', uptimeMs: number | null = null): ProbeResult {
  return {
    ts: wall(),
    class: cls,
    dead: cls !== 'ok',
    ok: cls === 'ok',
    latencyMs: cls === 'ok' ? 5 : null,
    startup: cls === 'ok' ? 'started' : 'unknown',
    ready: uptimeMs === null ? null : { ready: true, failing: [], uptimeMs },
    detail: cls,
  };
}

/** Probes every 5 s for `ms`, letting any restart it orders finish; returns the kinds decided. */
async function probing(r: Watchdog, cls: 'ok' | 'refused', ms: number): Promise<string[]> {
  const kinds: string[] = [];
  for (let t = 0; t < ms; t += 5 * SEC) {
    kinds.push(r.probe(probe(cls)).kind);
    await r.settled();
    elapsed += 5 * SEC;
  }
  return kinds;
}

describe('pause', () => {
  it('answers the decision as stored, with what the user said', async () => {
    const w = await started();
    const answer = w.pause(30 * MIN, 'upgrading OpenClaw');
    expect(answer.reason).toContain('upgrading OpenClaw');
    expect(answer.why).toMatchObject({ code: 'paused', note: 'upgrading OpenClaw' });
    const stored = history.decisions(0, Number.MAX_SAFE_INTEGER).filter((d) => d.source === 'manual');
    expect(stored.map((d) => d.reason)).toEqual([answer.reason]);
  });
});

describe('maintenance', () => {
  it('a dead gateway during maintenance is recorded, not restarted; a manual restart still runs', async () => {
    const r = await started();
    await probing(r, 'ok', 10 * SEC);
    maintenance = 'upgrading OpenClaw';
    const kinds = await probing(r, 'refused', 60 * SEC);
    expect(kinds).toContain('maintenance');
    expect(orders).toHaveLength(0);
    const stored = history.decisions(0, Number.MAX_SAFE_INTEGER).filter((d) => d.decision === 'maintenance');
    expect(stored.length).toBeGreaterThan(0);
    expect(stored[0]?.reason).toContain('upgrading OpenClaw');
    expect(r.restartNow('by hand during maintenance').kind).toBe('restart');
    await r.settled();
    expect(orders.map((o) => o.trigger)).toEqual(['manual']);
  });

  it('restarts again once the window is over', async () => {
    const r = await started();
    await probing(r, 'ok', 10 * SEC);
    maintenance = 'upgrading OpenClaw';
    await probing(r, 'refused', 30 * SEC);
    expect(orders).toHaveLength(0);
    maintenance = null;
    await probing(r, 'refused', 10 * SEC);
    expect(orders.map((o) => o.trigger)).toEqual(['health']);
  });
});

describe('time that cannot fool it', () => {
  it('a wall clock stepped back 2 h after a restart does not hold the next restart of a dead gateway', async () => {
    const r = await started({ restartSpacingMs: MIN });
    await probing(r, 'ok', 10 * SEC);
    await probing(r, 'refused', 30 * SEC);
    expect(orders).toHaveLength(1);
    await probing(r, 'ok', 10 * SEC); // recovered
    step = -2 * HOUR;
    // Dead again: the second restart waits only its spacing (2 min after the first, on the monotonic clock).
    await probing(r, 'refused', 3 * MIN);
    expect(orders).toHaveLength(2);
    expect(r.status().lastRestart?.ts).toBeLessThan(T0); // stored in wall time, as the machine shows it
  });

  it('a wall clock stepped forward 2 h neither refills the budget nor ends a grace early', async () => {
    const r = await started({ maxRestartsPerHour: 1, restartSpacingMs: SEC });
    await probing(r, 'ok', 10 * SEC);
    await probing(r, 'refused', 30 * SEC);
    expect(orders).toHaveLength(1);
    await probing(r, 'ok', 10 * SEC);
    step = 2 * HOUR;
    const kinds = await probing(r, 'refused', 5 * MIN);
    expect(orders).toHaveLength(1);
    expect(kinds).toContain('budget_exhausted');
    expect(r.status().budgetRemaining).toBe(0);
  });

  it('a restart stored "in the future" (clock stepped back across BreakerBar restarting) only spaces the next', async () => {
    history.startRestart({ ts: T0 + 2 * HOUR, trigger: 'health', reason: 'before the step', result: 'recovered' });
    const r = await started({ restartSpacingMs: MIN, maxRestartsPerHour: 4 });
    expect(r.status().budgetRemaining).toBe(3);
    await probing(r, 'ok', 10 * SEC);
    await probing(r, 'refused', 2 * MIN);
    expect(orders).toHaveLength(1);
  });

  it('status shows policy times as wall times', async () => {
    const r = await started({ healthFailuresBeforeRestart: 1, deadAfterMs: 0 });
    await probing(r, 'ok', 5 * SEC);
    step = -2 * HOUR;
    outcome = 'pending';
    r.probe(probe('refused'));
    await r.settled();
    const status = r.status();
    expect(status.recovering).toMatchObject({ pending: true, trigger: 'health', since: wall() });
    expect(history.lastRestart()).toMatchObject({ result: 'pending', evidence: 'dead' });
  });
});

describe('the watchdog acts only on what it has seen', () => {
  it('no healthy probe yet: dead probes restart nothing and alert once', async () => {
    strategy = { runnable: false, problem: 'no openclaw CLI on PATH and no systemd unit', service: 'none' };
    const r = await started();
    const kinds = await probing(r, 'refused', 10 * MIN);
    expect(orders).toHaveLength(0);
    expect(kinds).toContain('unverified');
    expect(notices.map((n) => n.kind)).toEqual(['watchdog_blocked']);
    expect(r.status()).toMatchObject({ seenHealthy: false, verified: { runnable: false } });
  });

  it('a decision repeated word for word is logged at info once, then at debug until it changes', async () => {
    // Found trying it as a new user would: a 400-character "not restarting" reason every 15 s in the log.
    strategy = { runnable: false, problem: 'no openclaw CLI on PATH and no systemd unit', service: 'none' };
    const log = recordingLogger();
    const r = await started({}, HOUR, log);
    await probing(r, 'refused', 2 * MIN);
    const decisions = log.lines.filter((line) => line.msg === 'watchdog decision');
    expect(decisions.length).toBeGreaterThan(10);
    const said = decisions.filter((line) => line.level === 'info').map((line) => line.fields.decision);
    // The dead probes counted up (each says something new), then the blocked watchdog said once.
    expect(said.filter((kind) => kind === 'unverified')).toHaveLength(1);
    expect(decisions.filter((line) => line.fields.decision === 'unverified').length).toBeGreaterThan(10);
  });

  it('a strategy check that throws is a problem reported, not a crash', async () => {
    const r = await started();
    (r as unknown as { options: { verifyStrategy: () => Promise<StrategyCheck> } }).options.verifyStrategy =
      async () => {
        throw new Error('launchctl hung');
      };
    await r.verify();
    expect(r.status().verified).toMatchObject({ runnable: false, problem: expect.stringContaining('launchctl hung') });
  });
});

describe('a restart that takes its time', () => {
  it('dead probes met while the command ran start no second restart once it says the gateway is still starting', async () => {
    // Seen on the real gateway under load: `openclaw gateway restart --wait 30s` gave up after 90 s
    // (restart-health-failed, read as still starting); the gateway came up half a minute later.
    const r = await started();
    await probing(r, 'ok', 10 * SEC);
    let finish = () => {};
    commandRuns = new Promise((resolve) => {
      finish = resolve;
    });
    // What OpenClaw 2026.9's CLI answers when it restarted the gateway and gave up waiting for its health checks.
    outcome = interpretRestart(openclawPlan('/usr/local/bin/openclaw', null, 'wait', 30), {
      ...fixture('openclaw health failed'),
      signal: null,
      timedOut: false,
      spawnError: null,
      durationMs: 90 * SEC,
    }).outcome;
    // Probes every 5 s for 90 s while the command runs (not waiting for it: it is still running).
    const before: string[] = [];
    for (let t = 0; t < 90 * SEC; t += 5 * SEC) {
      before.push(r.probe(probe('refused')).kind);
      await Promise.resolve();
      elapsed += 5 * SEC;
    }
    expect(before.filter((kind) => kind === 'restart')).toHaveLength(1);
    finish();
    await r.settled();
    // Refused for another 30 s while it starts: waited for, not restarted again.
    const after = await probing(r, 'refused', 30 * SEC);
    expect(after.every((kind) => kind === 'recovering')).toBe(true);
    await probing(r, 'ok', 10 * SEC);
    expect(orders).toHaveLength(1);
    const [restart] = history.restarts(0, Number.MAX_SAFE_INTEGER);
    expect(history.restarts(0, Number.MAX_SAFE_INTEGER)).toHaveLength(1);
    expect(restart).toMatchObject({ result: 'recovered', trigger: 'health' });
    expect(notices.map((n) => n.kind)).not.toContain('restart_failed');
  });
});

describe('a hung gateway', () => {
  it('a session stuck in its first call (no dependency known) is as hung as any: restarted, forced', async () => {
    const r = await started();
    await probing(r, 'ok', 10 * SEC);
    stalledNow = [{ dep: null, sessions: 1, since: wall() - 6 * MIN, reportedAt: wall() }];
    const decision = r.check();
    await r.settled();
    expect(decision.kind).toBe('restart');
    expect(decision.reason).toMatch(
      /^gateway hung: .*1 session stalled \(no dependency named\) and no upstream attempt for 6 min/,
    );
    expect(orders).toMatchObject([{ trigger: 'health', evidence: 'hung' }]);
  });

  it('stalls reported by a gateway process since replaced are no evidence', async () => {
    const r = await started();
    r.probe(probe('ok', HOUR)); // the process that reported the stall
    elapsed += 5 * SEC;
    const reportedAt = wall();
    elapsed += 5 * SEC;
    r.probe(probe('ok', 2 * SEC)); // a new process, started after the report
    stalledNow = [{ dep: 'zhipu/glm-5.1', sessions: 1, since: reportedAt - 7 * MIN, reportedAt }];
    expect(r.check().kind).toBe('quiet');
    expect(orders).toEqual([]);
  });
});

describe('the last decision', () => {
  it('keeps what a check decided about a storm when healthy probes follow, and lets the next check replace it', async () => {
    const r = await started();
    await probing(r, 'ok', 10 * SEC);
    store.commit({
      events: [1, 2, 3].map((i) =>
        callEvent({ key: `rl${i}`, ts: wall() - i * SEC, outcome: 'rate_limited', dep: 'zhipu/glm-5.1' }),
      ),
    });
    expect(r.check().kind).toBe('counting');
    await probing(r, 'ok', 30 * SEC);
    expect(r.status().lastDecision).toMatchObject({ source: 'check', decision: 'counting' });
    expect(r.status().rateLimited).toMatchObject({ deps: [{ dep: 'zhipu/glm-5.1', fallbacks: [] }] });
    elapsed += 2 * MIN;
    expect(r.check().kind).toBe('quiet');
    expect(r.status().lastDecision).toMatchObject({ source: 'check', decision: 'quiet' });
    expect(r.status().rateLimited).toBeNull();
  });
});

describe('a store that cannot be written (a full disk)', () => {
  /** The store's writes fail as SQLite's do on a full disk (SQLITE_FULL), until `room()`. */
  function diskFull() {
    const setMeta = vi.spyOn(store, 'setMeta').mockImplementation(() => {
      throw new Error('database or disk is full');
    });
    return { room: () => setMeta.mockRestore() };
  }

  it('checks go on judging a storm, the failure said once, and the position is kept again once there is room', async () => {
    const r = await started();
    await probing(r, 'ok', 10 * SEC);
    const warn = vi.spyOn(silentLogger, 'warn');
    const disk = diskFull();
    try {
      store.commit({
        events: [1, 2, 3].map((i) =>
          callEvent({ key: `rl${i}`, ts: wall() - i * SEC, outcome: 'rate_limited', dep: 'zhipu/glm-5.1' }),
        ),
      });
      // Found in hardening: the check's bookkeeping write threw out of the timer and ended the daemon.
      expect(r.check().kind).toBe('counting');
      elapsed += MIN;
      expect(() => r.check()).not.toThrow();
      const said = warn.mock.calls.filter(([message]) => /could not store where the storm count stopped/.test(message));
      expect(said).toHaveLength(1);
      disk.room();
      elapsed += MIN;
      r.check();
      expect(Number(store.getMeta(META_LAST_CALL))).toBe(history.lastCallId());
    } finally {
      disk.room();
      warn.mockRestore();
    }
  });

  it('a check that fails outright is said once and tried again at the next interval, never thrown out of the timer', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const error = vi.spyOn(silentLogger, 'error');
    const failing = vi.spyOn(history, 'stormEvidence').mockImplementation(() => {
      throw new Error('database or disk is full');
    });
    try {
      await started({}, MIN);
      vi.advanceTimersByTime(3 * MIN);
      expect(error.mock.calls.filter(([message]) => /watchdog check failed/.test(message))).toHaveLength(1);
      failing.mockRestore();
      const info = vi.spyOn(silentLogger, 'info');
      vi.advanceTimersByTime(MIN);
      expect(info.mock.calls.some(([message]) => message === 'watchdog checks work again')).toBe(true);
      info.mockRestore();
    } finally {
      failing.mockRestore();
      error.mockRestore();
      vi.useRealTimers();
    }
  });
});
