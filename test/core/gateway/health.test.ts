/**
 * The health monitor around the probe: what a probe BreakerBar could not run on
 * time (`unknown`) changes, and which latencies teach the read timeout.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HealthProber, resumableStreak } from '../../../main/core/gateway/health.js';
import type { ProbeResult } from '../../../main/core/gateway/probe.js';
import { silentLogger } from '../../../main/core/runtime/log.js';

const FLOOR = 1000;
const CEILING = 30_000;

function ok(ts: number, latencyMs: number, loopStallMs = 0): ProbeResult {
  return {
    ts,
    class: 'ok',
    dead: false,
    ok: true,
    latencyMs,
    startup: 'started',
    ready: null,
    detail: 'live',
    loopStallMs,
  };
}

function unknown(ts: number): ProbeResult {
  return {
    ts,
    class: 'unknown',
    dead: false,
    ok: false,
    latencyMs: null,
    startup: 'unknown',
    ready: null,
    detail: "probe delayed by BreakerBar's own event loop (1.2 s): gateway state unknown",
    loopStallMs: 1200,
  };
}

function dead(ts: number): ProbeResult {
  return { ...unknown(ts), class: 'read_timeout', dead: true, detail: 'no answer', loopStallMs: 0 };
}

let monitors: HealthProber[] = [];
afterEach(async () => {
  for (const monitor of monitors) await monitor.stop();
  monitors = [];
});

/** A monitor whose probes return `results` in turn; `timeouts` records the read timeout each was given. */
function monitorOf(results: ProbeResult[], resume: { ok: boolean; since: number } | null = null) {
  const timeouts: number[] = [];
  const recorded: ProbeResult[] = [];
  let next = 0;
  const monitor = new HealthProber({
    baseUrl: 'http://127.0.0.1:1',
    intervalMs: 3_600_000,
    connectTimeoutMs: 1000,
    readTimeoutMinMs: FLOOR,
    readTimeoutMaxMs: CEILING,
    clock: () => results[next]?.ts ?? 0,
    log: silentLogger,
    record: (result) => recorded.push(result),
    resume,
    probe: async (options) => {
      timeouts.push(options.readTimeoutMs);
      return results[next++] as ProbeResult;
    },
  });
  monitors.push(monitor);
  return { monitor, timeouts, recorded };
}

describe('HealthProber', () => {
  it('an unknown probe changes neither up-since nor down-since, and is recorded', async () => {
    const { monitor, recorded } = monitorOf([ok(1000, 5), unknown(2000), ok(3000, 5), dead(4000), unknown(5000)]);
    await monitor.probeNow();
    await monitor.probeNow();
    expect(monitor.health()).toMatchObject({ upSince: 1000, downSince: null, last: { class: 'unknown' } });
    await monitor.probeNow();
    expect(monitor.health()).toMatchObject({ upSince: 1000, downSince: null });
    await monitor.probeNow();
    await monitor.probeNow();
    expect(monitor.health()).toMatchObject({ upSince: null, downSince: 4000, last: { class: 'unknown' } });
    expect(recorded.map((r) => r.class)).toEqual(['ok', 'unknown', 'ok', 'read_timeout', 'unknown']);
  });

  it('latencies measured across a blocked loop do not teach the read timeout', async () => {
    const stalled = [1, 2, 3, 4, 5, 6].map((i) => ok(i * 1000, 5, 200));
    const { monitor } = monitorOf(stalled);
    for (const _ of stalled) await monitor.probeNow();
    // Nothing learned: the ceiling still applies.
    expect(monitor.health().readTimeoutMs).toBe(CEILING);
  });

  it('latencies measured on a free loop do', async () => {
    const clean = [1, 2, 3, 4, 5, 6].map((i) => ok(i * 1000, 5, 3));
    const { monitor, timeouts } = monitorOf(clean);
    for (const _ of clean) await monitor.probeNow();
    expect(monitor.health().readTimeoutMs).toBe(FLOOR);
    expect(timeouts.at(-1)).toBe(FLOOR);
  });

  it('goes on from the streak it resumes: "down since" survives a reload while the gateway stays down', async () => {
    const { monitor } = monitorOf([dead(60_000), ok(75_000, 5)], { ok: false, since: 20_000 });
    expect(monitor.health()).toMatchObject({ upSince: null, downSince: 20_000 });
    await monitor.probeNow();
    expect(monitor.health()).toMatchObject({ upSince: null, downSince: 20_000 });
    await monitor.probeNow();
    expect(monitor.health()).toMatchObject({ upSince: 75_000, downSince: null });
    const up = monitorOf([ok(60_000, 5)], { ok: true, since: 1000 }).monitor;
    await up.probeNow();
    expect(up.health()).toMatchObject({ upSince: 1000, downSince: null });
  });
});

describe('resumableStreak', () => {
  const settings = { intervalMs: 15_000, readTimeoutMaxMs: 10_000 };
  const streak = { ok: false, since: 20_000, lastTs: 50_000 };

  it('carries over a streak last probed within two intervals and a probe’s longest wait', () => {
    expect(resumableStreak(streak, 50_500, settings)).toEqual({ ok: false, since: 20_000 });
    expect(resumableStreak(streak, 90_000, settings)).toEqual({ ok: false, since: 20_000 });
  });

  it('not one BreakerBar was not watching, nor none at all', () => {
    expect(resumableStreak(streak, 90_001, settings)).toBeNull();
    expect(resumableStreak(null, 50_000, settings)).toBeNull();
  });
});
