/**
 * What a rehearsal produces and reports: the timeline, latencies, expectations and the report itself. Its
 * own module so that the runner (which builds a report) and the modules that judge and print one
 * (expectations.ts, report-text.ts, report-html.ts) all depend on it instead of on each other.
 */
import type { RestartRow } from '../core/store/gateway-history.js';
import type { SimulatedGatewayState } from '../simulator/simulated-gateway.js';
import type { FakeCall } from './fake-tools.js';

export const FORMATS = ['jsonl', 'sqlite', 'gatewaylog', 'all'] as const;
export type Format = (typeof FORMATS)[number];

export interface Progress {
  scenario: string;
  /** Scenario seconds elapsed. */
  sec: number;
  durationSec: number;
  calls: number;
  transitions: number;
  restarts: number;
  notices: number;
  phase: string | null;
}

export type TimelineEvent =
  | { t: number; type: 'phase'; index: number; label: string; deps: string[]; gateway: string | null }
  | { t: number; type: 'phase_end'; index: number; label: string }
  | { t: number; type: 'gateway'; state: SimulatedGatewayState }
  | { t: number; type: 'transition'; dep: string; from: string; to: string; reason: string }
  | {
      t: number;
      type: 'decision';
      decision: string;
      source: string;
      dep: string | null;
      reason: string;
      /** The alerts the watchdog raised with it (notice kinds), before any coalescing. */
      alerts: string[];
    }
  | { t: number; type: 'restart'; id: number; trigger: string; evidence: string | null; reason: string }
  /** A dry run's restart: decided and stored, never run. */
  | { t: number; type: 'dry_run'; id: number; trigger: string; evidence: string | null; reason: string }
  | { t: number; type: 'restart_result'; id: number; result: string; detail: string | null }
  /** The wall clock was stepped (`stepSec`); `offsetSec`: how far it is from the monotonic clock now. */
  | { t: number; type: 'clock_step'; stepSec: number; offsetSec: number }
  | { t: number; type: 'notice'; notice: string; dep: string | null; title: string; severity: string; count: number }
  /** An incident opened, grew louder, or closed (its summary as of then). */
  | {
      t: number;
      type: 'incident';
      id: number;
      change: 'opened' | 'updated' | 'closed';
      severity: string;
      causes: string[];
      deps: string[];
      summary: string;
      /** When the incident itself says it began and ended (scenario seconds): it is dated from its first cause. */
      openedAtSec: number;
      closedAtSec: number | null;
    };

export interface Latency {
  phase: number;
  label: string;
  /** The dependency the fault hit, or `gateway`. */
  target: string;
  faultAtSec: number;
  /** Fault start → first breaker transition of the dependency (scenario s; null: none). */
  transitionSec: number | null;
  /** Fault start → first notification about it (scenario s; null: none). */
  noticeSec: number | null;
  /** The same in wall milliseconds. */
  transitionWallMs: number | null;
  noticeWallMs: number | null;
}

export interface ExpectationResult {
  expectation: string;
  passed: boolean;
  detail: string;
}

export interface RehearsalReport {
  scenario: { name: string; description: string; durationSec: number; rate: number };
  timeScale: number;
  format: Format;
  slackMs: number;
  startedAt: string;
  wallMs: number;
  stateDir: string | null;
  calls: { total: number; failed: number; byDep: Record<string, { calls: number; failed: number }> };
  /** Policy in force, in scenario units (before scaling). */
  policy: {
    maxRestartsPerHour: number;
    restartSpacingSec: number;
    startupGraceSec: number;
    maxDeferralSec: number;
    deadAfterSec: number;
    hungAfterSec: number;
    healthIntervalSec: number;
    breakerCooldownMs: number;
  };
  timeline: TimelineEvent[];
  /** Every row of the restarts table at the end (dry runs included), in insertion order. */
  restarts: Array<Pick<RestartRow, 'id' | 'trigger' | 'evidence' | 'result' | 'reason' | 'detail'>>;
  /** Every call of the programs the scenario's environment fakes (openclaw, launchctl), in order. */
  commands: FakeCall[];
  latencies: Latency[];
  expectations: ExpectationResult[];
  passed: boolean;
}
