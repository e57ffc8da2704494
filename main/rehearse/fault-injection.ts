/**
 * The faults a scenario's phases inject into the workload: which dependencies fail, and how, at a given
 * scenario second; the outcome drawn for one call; and a stalled gateway, which makes no upstream call and
 * whose diagnostics report the sessions it holds as stalled. Kept apart from the workload so that what is
 * injected can be read without how records are written.
 */

import { stalledSessionLine } from '../simulator/gateway-log-lines.js';
import type { RehearsalClock } from './rehearsal-clock.js';
import type { Sandbox } from './sandbox.js';
import { type DepFault, INJECTED_OUTCOMES, type InjectedOutcome, type Scenario } from './scenario.js';

/** OpenClaw's diagnostics report a processing session stalled once it has made no progress for this long… */
const STALL_REPORT_AFTER_SEC = 120;
/** …on their heartbeat, which runs this often. */
const STALL_HEARTBEAT_SEC = 30;

/** The faults in force at scenario second `sec`: per dependency, of every phase running then (later phases win). */
export function activeFaults(phases: Scenario['phases'], sec: number): Record<string, DepFault> {
  const out: Record<string, DepFault> = {};
  for (const phase of phases) {
    if (sec >= phase.atSec && sec < phase.atSec + phase.durationSec) Object.assign(out, phase.deps ?? {});
  }
  return out;
}

/** The outcome of one call to a dependency with `fault` in force, drawn from its mix (no fault: ok). */
export function pickOutcome(fault: DepFault | undefined, random: () => number): InjectedOutcome | 'ok' {
  if (!fault) return 'ok';
  let r = random();
  for (const outcome of INJECTED_OUTCOMES) {
    const share = fault[outcome] ?? 0;
    if (r < share) return outcome;
    r -= share;
  }
  return 'ok';
}

/** A stalled phase: the gateway holds its sessions and makes no upstream call until the phase ends or it restarts. */
export class GatewayStall {
  /** A stalled phase in force: the gateway's restart count when it began (a restart ends it), the next heartbeat. */
  private stall: { index: number; restartsAtStart: number; nextReportSec: number } | null = null;

  constructor(
    private readonly phases: Scenario['phases'],
    private readonly sandbox: Pick<Sandbox, 'gateway' | 'appendGatewayLog'>,
    private readonly clock: RehearsalClock,
  ) {}

  /** Phase `index`, a stalled one, starts at scenario second `sec`. */
  begin(index: number, sec: number): void {
    this.stall = { index, restartsAtStart: this.sandbox.gateway.restarts, nextReportSec: sec + STALL_HEARTBEAT_SEC };
  }

  /** Whether the gateway is stalled at `sec` (the stall is forgotten once its phase is over or the gateway restarted). */
  active(sec: number): boolean {
    if (this.stall === null) return false;
    const phase = this.phases[this.stall.index];
    const over = phase === undefined || sec >= phase.atSec + phase.durationSec;
    if (over || this.sandbox.gateway.restarts !== this.stall.restartsAtStart) {
      this.stall = null;
      return false;
    }
    return true;
  }

  /** The diagnostics heartbeat while stalled: every session in progress with no progress for long enough. */
  report(sec: number, agents: ReadonlyArray<{ id: string; sessionId: string; lastCallSec: number | null }>): void {
    const stall = this.stall;
    if (stall === null || sec < stall.nextReportSec) return;
    stall.nextReportSec += STALL_HEARTBEAT_SEC;
    const ts = this.clock.wallNow();
    const lines = agents.flatMap((agent) => {
      if (agent.lastCallSec === null) return [];
      const ageSec = sec - agent.lastCallSec;
      if (ageSec <= STALL_REPORT_AFTER_SEC) return [];
      return [
        stalledSessionLine({
          ts,
          sessionId: agent.sessionId,
          sessionKey: `agent:${agent.id}:main`,
          // On the same clock as the line's time: the wall milliseconds the session has been silent.
          ageMs: Math.round((ageSec * 1000) / this.clock.scale),
        }),
      ];
    });
    if (lines.length > 0) this.sandbox.appendGatewayLog(ts, lines);
  }
}
