/**
 * The health monitor around the probe: what a probe BreakerBar could not run on
 * time (`unknown`) changes, and which latencies teach the read timeout.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HealthMonitor } from '../../../main/core/gateway/health.js';
import type { ProbeResult } from '../../../main/core/gateway/probe.js';
import { silentLogger } from '../../../main/core/log.js';

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

let monitors: HealthMonitor[] = [];
afterEach(async () => {
  for (const monitor of monitors) await monitor.stop();
  monitors = [];
});

/** A monitor whose probes return `results` in turn; `timeouts` records the read timeout each was given. */
function monitorOf(results: ProbeResult[]) {
  const timeouts: number[] = [];
  const recorded: ProbeResult[] = [];
  let next = 0;
  const monitor = new HealthMonitor({
    baseUrl: 'http://127.0.0.1:1',
    intervalMs: 3_600_000,
    connectTimeoutMs: 1000,
    readTimeoutMinMs: FLOOR,
    readTimeoutMaxMs: CEILING,
    clock: () => results[next]?.ts ?? 0,
    log: silentLogger,
    record: (result) => recorded.push(result),
    probe: async (options) => {
      timeouts.push(options.readTimeoutMs);
      return results[next++] as ProbeResult;
    },
  });
  monitors.push(monitor);
  return { monitor, timeouts, recorded };
}

describe('HealthMonitor', () => {
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
});
