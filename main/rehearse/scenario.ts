/**
 * Rehearsal scenarios as data: phases of injected faults (per dependency an
 * outcome mix, gateway states), and expectations checked against what
 * BreakerBar did. Built-ins live in scenarios.ts; users pass JSON files
 * (JSON5 accepted: comments, trailing commas), validated here with errors that
 * name the offending key.
 */
import { readFileSync } from 'node:fs';
import JSON5 from 'json5';
import { NOTICE_KINDS, type NoticeKind } from '../core/notify/notice.js';
import type { DecisionKind, Evidence } from '../core/watchdog/policy-decisions.js';
import type { SimulatedGatewayState } from '../simulator/simulated-gateway.js';

/** Failure kinds a phase can inject per dependency; `aborted_mid_stream` is a call cut after tokens were delivered. */
export const INJECTED_OUTCOMES = [
  'rate_limited',
  'overloaded',
  'server_error',
  'timeout',
  'connection_reset',
  'aborted_mid_stream',
  'auth',
  'billing',
] as const;
export type InjectedOutcome = (typeof INJECTED_OUTCOMES)[number];

export const GATEWAY_FAULTS = ['up', 'starting', 'draining', 'hang', 'refuse', 'reset', 'error500'] as const;

/** Per dependency: the share of calls failing with each outcome (the rest succeed), and a Retry-After for 429s. */
export type DepFault = Partial<Record<InjectedOutcome, number>> & { retryAfterSec?: number };

export interface Phase {
  /** Scenario second the phase starts. */
  atSec: number;
  durationSec: number;
  /** A label for the report (default: derived from the faults). */
  label?: string;
  deps?: Record<string, DepFault>;
  /** Gateway state set at the phase's start (and 'up' again at its end unless the next phase sets one). */
  gateway?: SimulatedGatewayState;
  /** The simulated gateway's time spent starting after a restart, from this phase on. */
  restartSec?: number;
  /**
   * At the phase's start the gateway restarts itself, as OpenClaw's in-process restart (SIGUSR2) does: its
   * port refuses connections for `refuseSec`, /startupz says starting for `startingSec`, then it answers
   * with its uptime reset. `announce` (default true): its log first writes `received SIGUSR2; restarting`.
   */
  selfRestart?: SelfRestart;
  /**
   * The gateway is alive but stuck: its probes stay green, no agent makes an upstream call, and its log
   * reports every agent's session stalled as OpenClaw's diagnostics do (first when the session has made no
   * progress for 120 s, then every 30 s). Ends at the phase's end or when the gateway is restarted.
   */
  stalled?: boolean;
  /**
   * Steps the machine's wall clock by this many seconds at the phase's start (negative: back). Applied as is,
   * not divided by the time scale: a step is a jump of the clock, not a duration, and what the core fixes in
   * code (the restart budget's hour) must see it at its real size. Records and log lines follow the wall
   * clock, as on a real machine; the monotonic clock the watchdog judges durations on does not move.
   */
  clockStepSec?: number;
  /**
   * launchd unloads the gateway's LaunchAgent at the phase's start (environment `launchd` only): from then on
   * `launchctl print` answers "Could not find service" until the job is bootstrapped again. Combine with
   * `gateway: 'refuse'`: an unloaded job has no process.
   */
  launchdUnloads?: boolean;
}

export interface SelfRestart {
  refuseSec: number;
  startingSec: number;
  announce: boolean;
}

export interface Agent {
  id: string;
  /** Model chain: the primary first, then the fallbacks OpenClaw tries in turn. */
  deps: string[];
  /** Share of the request rate this agent makes (default: equal shares). */
  weight?: number;
}

export type BreakerStateExpected = 'open' | 'throttled' | 'half_open' | 'closed' | 'tripped';

/** Where a restart's stored record ended (the `result` column of the restarts table). */
export const RESTART_RESULTS = ['recovered', 'not_recovered', 'failed', 'pending'] as const;
export type RestartResult = (typeof RESTART_RESULTS)[number];

export const EVIDENCE_KINDS = ['dead', 'unloaded', 'hung', 'storm', 'manual'] as const satisfies readonly Evidence[];

/** Every watchdog decision (a compile error here when the policy gains or loses one). */
const DECISIONS: Record<DecisionKind, true> = {
  restart: true,
  dry_run: true,
  counting: true,
  quiet: true,
  healthy: true,
  dead: true,
  unknown: true,
  not_openclaw: true,
  unverified: true,
  starting: true,
  deferred: true,
  storm_waited: true,
  fallback_answering: true,
  budget_exhausted: true,
  spacing: true,
  paused: true,
  maintenance: true,
  recovering: true,
  in_flight: true,
  pending: true,
  gateway_restarted: true,
  disabled: true,
  recovered: true,
  started_unconfirmed: true,
  not_recovered: true,
  divergence: true,
};
export const DECISION_KINDS = Object.keys(DECISIONS) as DecisionKind[];

/**
 * `phase`: judge only what happened from that phase's start to its end (plus the pipeline allowance).
 * Notifications are counted as raised: a watchdog alert each time the watchdog raises it, any notice
 * each time the notifier is handed it (a coalesced summary counts every notice it folds).
 */
export type Expectation =
  | { kind: 'breaker_state'; dep: string; state: BreakerStateExpected; withinSec: number; afterPhase?: number }
  | { kind: 'restarts'; count?: number; min?: number; max?: number; phase?: number }
  | { kind: 'restart_spacing'; minSec: number }
  | { kind: 'no_restart_while_retry_after' }
  | { kind: 'no_restart_while_starting' }
  | { kind: 'notification'; notice: NoticeKind; dep?: string }
  | { kind: 'notification_count'; notice: NoticeKind; count: number; dep?: string }
  | { kind: 'no_notification'; notice: NoticeKind; dep?: string }
  /** `reasonIncludes`: only decisions whose reason contains this text count. */
  | { kind: 'decision'; decision: DecisionKind; phase?: number; reasonIncludes?: string }
  | { kind: 'no_decision'; decision: DecisionKind; phase?: number }
  | { kind: 'restart_evidence'; evidence: Evidence; count?: number }
  | { kind: 'restart_result'; result: RestartResult }
  | { kind: 'stays_closed'; dep: string }
  | { kind: 'no_notifications' }
  | { kind: 'no_restart' }
  /**
   * The calls of one faked program (environments `openclaw-cli`, `launchd`) whose arguments (joined by
   * spaces) contain one of `sequence`'s texts were exactly those, in that order: `['bootstrap', 'kickstart']`
   * means one bootstrap, then one kickstart, and no other call naming either.
   */
  | { kind: 'commands'; program: FakeProgram; sequence: string[] };

export const EXPECTATION_KINDS = [
  'breaker_state',
  'restarts',
  'restart_spacing',
  'no_restart_while_retry_after',
  'no_restart_while_starting',
  'notification',
  'notification_count',
  'no_notification',
  'decision',
  'no_decision',
  'restart_evidence',
  'restart_result',
  'stays_closed',
  'no_notifications',
  'no_restart',
  'commands',
] as const;

/** The programs a rehearsal fakes (see fake-tools.ts). */
export const FAKE_PROGRAMS = ['openclaw', 'launchctl'] as const;
export type FakeProgram = (typeof FAKE_PROGRAMS)[number];

/**
 * Where BreakerBar runs: `inherit` this process's PATH and HOME; `bare` an empty PATH directory and an empty
 * HOME; `openclaw-cli` the same with a fake `openclaw` CLI on PATH (restarts go through the real openclaw
 * strategy when no restart command is set); `launchd` macOS as the strategies see it: a fake `launchctl` on
 * PATH, no openclaw CLI, and the gateway's LaunchAgent plist in HOME (see fake-tools.ts).
 */
export const ENVIRONMENTS = ['inherit', 'bare', 'openclaw-cli', 'launchd'] as const;
export type ScenarioEnvironment = (typeof ENVIRONMENTS)[number];

export interface Scenario {
  name: string;
  description: string;
  durationSec: number;
  /** Agent requests per scenario second (each may call fallbacks after a failure). Default 10. */
  rate: number;
  agents: Agent[];
  /** Every dependency the agents call (derived from the agents when left out). */
  deps: string[];
  /** BreakerBar config overrides (watchdog, breakers, health, notifications), in unscaled scenario units. */
  config?: Record<string, unknown>;
  /** The simulated gateway's time spent starting after a restart (default 5 s). */
  restartSec?: number;
  /**
   * `bare`: BreakerBar runs with PATH an empty directory and HOME an empty one: no openclaw CLI, no
   * systemctl, no service unit, as on a machine where the gateway was never installed (default `inherit`).
   */
  environment?: ScenarioEnvironment;
  /**
   * `openclaw-cli`: scenario seconds after a `gateway restart` answered `deferred` until the gateway restarts
   * (its active work drained). Default 30.
   */
  deferredRestartSec?: number;
  /**
   * OpenClaw's own cooldowns, written into its state database before BreakerBar starts, as OpenClaw 2026.9
   * stores them: per dependency, the reason (`rate_limit`…) and the scenario second it ends.
   */
  cooldowns?: ScenarioCooldown[];
  phases: Phase[];
  expectations: Expectation[];
}

export interface ScenarioCooldown {
  /** `provider/model`: a cooldown of that model on the provider's profile. */
  dep: string;
  reason: string;
  untilSec: number;
}

export class ScenarioError extends Error {
  override name = 'ScenarioError';
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const CONFIG_SECTIONS = ['watchdog', 'breakers', 'health', 'notifications', 'ingest', 'incidents'];

class Checker {
  constructor(private readonly source: string) {}
  fail(path: string, message: string): never {
    throw new ScenarioError(`${this.source}: ${path}: ${message}`);
  }
  keys(value: Obj, path: string, allowed: readonly string[]): void {
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key))
        this.fail(`${path}${path ? '.' : ''}${key}`, `unknown key (allowed: ${allowed.join(', ')})`);
    }
  }
  obj(value: unknown, path: string): Obj {
    if (!isObj(value)) this.fail(path, 'must be an object');
    return value;
  }
  str(value: unknown, path: string, pattern?: RegExp): string {
    if (typeof value !== 'string' || value.length === 0) this.fail(path, 'must be a non-empty string');
    if (pattern && !pattern.test(value)) this.fail(path, `"${value}" does not match ${pattern}`);
    return value;
  }
  num(value: unknown, path: string, min: number, max: number): number {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
      this.fail(path, `must be a number from ${min} to ${max}`);
    }
    return value;
  }
  oneOf<T extends string>(value: unknown, path: string, options: readonly T[]): T {
    if (typeof value !== 'string' || !(options as readonly string[]).includes(value)) {
      this.fail(path, `must be one of ${options.join(', ')}`);
    }
    return value as T;
  }
  int(value: unknown, path: string, min: number, max: number): number {
    const n = this.num(value, path, min, max);
    if (!Number.isInteger(n)) this.fail(path, `must be a whole number from ${min} to ${max}`);
    return n;
  }
  bool(value: unknown, path: string): boolean {
    if (typeof value !== 'boolean') this.fail(path, 'must be true or false');
    return value;
  }
  array(value: unknown, path: string, min = 0): unknown[] {
    if (!Array.isArray(value) || value.length < min)
      this.fail(path, `must be a list${min ? ` of at least ${min}` : ''}`);
    return value;
  }
}

const DEP = /^[^\s/]+\/\S+$/;
/** The largest clock step a scenario may take (either way). */
const YEAR_SEC = 366 * 86_400;

/** Checks a parsed scenario document; throws ScenarioError naming the first bad key. */
export function validateScenario(doc: unknown, source = 'scenario'): Scenario {
  const c = new Checker(source);
  const o = c.obj(doc, '(top level)');
  c.keys(o, '', [
    '$schema',
    'name',
    'description',
    'durationSec',
    'rate',
    'agents',
    'deps',
    'config',
    'restartSec',
    'environment',
    'deferredRestartSec',
    'cooldowns',
    'phases',
    'expectations',
  ]);
  const name = c.str(o.name, 'name', /^[a-z0-9][a-z0-9._-]*$/i);
  const description = o.description === undefined ? '' : c.str(o.description, 'description');
  const durationSec = c.num(o.durationSec, 'durationSec', 1, 86_400);
  const rate = o.rate === undefined ? 10 : c.num(o.rate, 'rate', 0, 1000);
  const agents = c.array(o.agents, 'agents', 1).map((raw, i): Agent => {
    const path = `agents[${i}]`;
    const a = c.obj(raw, path);
    c.keys(a, path, ['id', 'deps', 'weight']);
    return {
      id: c.str(a.id, `${path}.id`, /^[A-Za-z0-9_-]+$/),
      deps: c.array(a.deps, `${path}.deps`, 1).map((d, j) => c.str(d, `${path}.deps[${j}]`, DEP)),
      ...(a.weight === undefined ? {} : { weight: c.num(a.weight, `${path}.weight`, 0, 1000) }),
    };
  });
  const called = [...new Set(agents.flatMap((a) => a.deps))];
  const deps = o.deps === undefined ? called : c.array(o.deps, 'deps', 1).map((d, i) => c.str(d, `deps[${i}]`, DEP));
  for (const dep of called) if (!deps.includes(dep)) c.fail('deps', `does not list ${dep}, which an agent calls`);
  let config: Obj | undefined;
  if (o.config !== undefined) {
    config = c.obj(o.config, 'config');
    c.keys(config, 'config', CONFIG_SECTIONS);
    for (const key of Object.keys(config)) c.obj(config[key], `config.${key}`);
  }
  const restartSec = o.restartSec === undefined ? undefined : c.num(o.restartSec, 'restartSec', 0, 3600);
  const environment = o.environment === undefined ? undefined : c.oneOf(o.environment, 'environment', ENVIRONMENTS);
  let deferredRestartSec: number | undefined;
  if (o.deferredRestartSec !== undefined) {
    if (environment !== 'openclaw-cli') c.fail('deferredRestartSec', "applies to environment 'openclaw-cli' only");
    deferredRestartSec = c.num(o.deferredRestartSec, 'deferredRestartSec', 0, 3600);
  }
  const cooldowns =
    o.cooldowns === undefined
      ? undefined
      : c.array(o.cooldowns, 'cooldowns').map((raw, i): ScenarioCooldown => {
          const path = `cooldowns[${i}]`;
          const r = c.obj(raw, path);
          c.keys(r, path, ['dep', 'reason', 'untilSec']);
          const dep = c.str(r.dep, `${path}.dep`, DEP);
          if (!deps.includes(dep)) c.fail(`${path}.dep`, `unknown dependency (deps: ${deps.join(', ')})`);
          return {
            dep,
            reason: c.str(r.reason, `${path}.reason`, /^[a-z_]+$/),
            untilSec: c.num(r.untilSec, `${path}.untilSec`, 0, durationSec),
          };
        });
  const phases = c.array(o.phases, 'phases').map((raw, i): Phase => {
    const path = `phases[${i}]`;
    const p = c.obj(raw, path);
    c.keys(p, path, [
      'atSec',
      'durationSec',
      'label',
      'deps',
      'gateway',
      'restartSec',
      'selfRestart',
      'stalled',
      'clockStepSec',
      'launchdUnloads',
    ]);
    const phase: Phase = {
      atSec: c.num(p.atSec, `${path}.atSec`, 0, durationSec),
      durationSec: c.num(p.durationSec, `${path}.durationSec`, 0, 86_400),
    };
    if (p.label !== undefined) phase.label = c.str(p.label, `${path}.label`);
    if (p.gateway !== undefined) phase.gateway = c.oneOf(p.gateway, `${path}.gateway`, GATEWAY_FAULTS);
    if (p.restartSec !== undefined) phase.restartSec = c.num(p.restartSec, `${path}.restartSec`, 0, 3600);
    if (p.selfRestart !== undefined) {
      const spath = `${path}.selfRestart`;
      const r = c.obj(p.selfRestart, spath);
      c.keys(r, spath, ['refuseSec', 'startingSec', 'announce']);
      phase.selfRestart = {
        refuseSec: c.num(r.refuseSec, `${spath}.refuseSec`, 0, 3600),
        startingSec: c.num(r.startingSec, `${spath}.startingSec`, 0, 3600),
        announce: r.announce === undefined ? true : c.bool(r.announce, `${spath}.announce`),
      };
      if (phase.gateway !== undefined) c.fail(spath, 'cannot be combined with gateway (the restart sets the state)');
    }
    if (p.stalled !== undefined) phase.stalled = c.bool(p.stalled, `${path}.stalled`);
    if (p.clockStepSec !== undefined) {
      phase.clockStepSec = c.num(p.clockStepSec, `${path}.clockStepSec`, -YEAR_SEC, YEAR_SEC);
    }
    if (p.launchdUnloads !== undefined) {
      if (environment !== 'launchd') c.fail(`${path}.launchdUnloads`, "applies to environment 'launchd' only");
      phase.launchdUnloads = c.bool(p.launchdUnloads, `${path}.launchdUnloads`);
    }
    if (p.deps !== undefined) {
      const faults = c.obj(p.deps, `${path}.deps`);
      phase.deps = {};
      for (const [dep, rawFault] of Object.entries(faults)) {
        const fpath = `${path}.deps.${dep}`;
        if (!deps.includes(dep)) c.fail(fpath, `unknown dependency (deps: ${deps.join(', ')})`);
        const f = c.obj(rawFault, fpath);
        c.keys(f, fpath, [...INJECTED_OUTCOMES, 'retryAfterSec']);
        const fault: DepFault = {};
        let total = 0;
        for (const outcome of INJECTED_OUTCOMES) {
          if (f[outcome] === undefined) continue;
          const share = c.num(f[outcome], `${fpath}.${outcome}`, 0, 1);
          fault[outcome] = share;
          total += share;
        }
        if (total > 1 + 1e-9) c.fail(fpath, `outcome shares add up to ${total}, more than 1`);
        if (f.retryAfterSec !== undefined)
          fault.retryAfterSec = c.num(f.retryAfterSec, `${fpath}.retryAfterSec`, 0, 86_400);
        phase.deps[dep] = fault;
      }
    }
    return phase;
  });
  const expectations = c
    .array(o.expectations ?? [], 'expectations')
    .map((raw, i) => validateExpectation(c, raw, `expectations[${i}]`, deps, phases.length));
  return {
    name,
    description,
    durationSec,
    rate,
    agents,
    deps,
    ...(config ? { config } : {}),
    ...(restartSec === undefined ? {} : { restartSec }),
    ...(environment === undefined ? {} : { environment }),
    ...(deferredRestartSec === undefined ? {} : { deferredRestartSec }),
    ...(cooldowns === undefined ? {} : { cooldowns }),
    phases,
    expectations,
  };
}

function validateExpectation(c: Checker, raw: unknown, path: string, deps: string[], phases: number): Expectation {
  const e = c.obj(raw, path);
  const kind = c.oneOf(e.kind, `${path}.kind`, EXPECTATION_KINDS);
  const dep = (key = 'dep') => {
    const value = c.str(e[key], `${path}.${key}`, DEP);
    if (!deps.includes(value)) c.fail(`${path}.${key}`, `unknown dependency (deps: ${deps.join(', ')})`);
    return value;
  };
  const phaseIndex = (key: string): number => {
    if (phases === 0) c.fail(`${path}.${key}`, 'the scenario has no phases');
    return c.int(e[key], `${path}.${key}`, 0, phases - 1);
  };
  switch (kind) {
    case 'breaker_state': {
      c.keys(e, path, ['kind', 'dep', 'state', 'withinSec', 'afterPhase']);
      const out: Expectation = {
        kind,
        dep: dep(),
        state: c.oneOf(e.state, `${path}.state`, ['open', 'throttled', 'half_open', 'closed', 'tripped'] as const),
        withinSec: c.num(e.withinSec, `${path}.withinSec`, 0, 86_400),
      };
      if (e.afterPhase !== undefined) out.afterPhase = phaseIndex('afterPhase');
      return out;
    }
    case 'restarts': {
      c.keys(e, path, ['kind', 'count', 'min', 'max', 'phase']);
      const out: Expectation = { kind };
      for (const key of ['count', 'min', 'max'] as const) {
        if (e[key] !== undefined) out[key] = c.num(e[key], `${path}.${key}`, 0, 1000);
      }
      if (out.count === undefined && out.min === undefined && out.max === undefined) {
        c.fail(path, 'restarts needs count, min or max');
      }
      if (e.phase !== undefined) out.phase = phaseIndex('phase');
      return out;
    }
    case 'restart_spacing':
      c.keys(e, path, ['kind', 'minSec']);
      return { kind, minSec: c.num(e.minSec, `${path}.minSec`, 0, 86_400) };
    case 'notification':
    case 'no_notification': {
      c.keys(e, path, ['kind', 'notice', 'dep']);
      const notice = c.oneOf(e.notice, `${path}.notice`, NOTICE_KINDS);
      return e.dep === undefined ? { kind, notice } : { kind, notice, dep: dep() };
    }
    case 'notification_count': {
      c.keys(e, path, ['kind', 'notice', 'count', 'dep']);
      const out: Expectation = {
        kind,
        notice: c.oneOf(e.notice, `${path}.notice`, NOTICE_KINDS),
        count: c.int(e.count, `${path}.count`, 0, 100_000),
      };
      if (e.dep !== undefined) out.dep = dep();
      return out;
    }
    case 'decision':
    case 'no_decision': {
      c.keys(e, path, ['kind', 'decision', 'phase', ...(kind === 'decision' ? ['reasonIncludes'] : [])]);
      const decision = c.oneOf(e.decision, `${path}.decision`, DECISION_KINDS);
      const out: Expectation =
        e.phase === undefined ? { kind, decision } : { kind, decision, phase: phaseIndex('phase') };
      if (out.kind === 'decision' && e.reasonIncludes !== undefined) {
        out.reasonIncludes = c.str(e.reasonIncludes, `${path}.reasonIncludes`);
      }
      return out;
    }
    case 'restart_evidence': {
      c.keys(e, path, ['kind', 'evidence', 'count']);
      const out: Expectation = { kind, evidence: c.oneOf(e.evidence, `${path}.evidence`, EVIDENCE_KINDS) };
      if (e.count !== undefined) out.count = c.int(e.count, `${path}.count`, 1, 1000);
      return out;
    }
    case 'restart_result':
      c.keys(e, path, ['kind', 'result']);
      return { kind, result: c.oneOf(e.result, `${path}.result`, RESTART_RESULTS) };
    case 'stays_closed':
      c.keys(e, path, ['kind', 'dep']);
      return { kind, dep: dep() };
    case 'commands':
      c.keys(e, path, ['kind', 'program', 'sequence']);
      return {
        kind,
        program: c.oneOf(e.program, `${path}.program`, FAKE_PROGRAMS),
        sequence: c.array(e.sequence, `${path}.sequence`, 1).map((s, i) => c.str(s, `${path}.sequence[${i}]`)),
      };
    default:
      c.keys(e, path, ['kind']);
      return { kind } as Expectation;
  }
}

/** Reads and validates a scenario file (JSON, comments allowed). */
export function loadScenarioFile(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ScenarioError(`${path}: cannot read: ${(error as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON5.parse(text);
  } catch (error) {
    throw new ScenarioError(`${path}: not valid JSON: ${(error as Error).message}`);
  }
  return validateScenario(doc, path);
}
