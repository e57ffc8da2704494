/**
 * Runs one rehearsal: a simulated gateway on loopback, a simulated agent
 * workload writing real OpenClaw records into a temporary state directory, and
 * BreakerBar's real core (an in-process Monitor, as the daemon runs it) with
 * the simulated gateway's restart as its restart command. Records what the
 * core did as a timeline and checks the scenario's expectations against it.
 *
 * Time compression: scenario seconds are divided by `timeScale` for wall time,
 * and every duration of the config is divided by the same factor (see time-scale.ts), so
 * the core takes the same decisions in seconds that it takes in minutes.
 *
 * Two clocks, as on a real machine: a monotonic one that only moves forward
 * (scenario time is measured on it, and the core judges its durations on it),
 * and the wall clock, which is the monotonic one plus the steps the scenario
 * takes (`clockStepSec`). Records, log lines, stored times and the simulated
 * gateway's uptime follow the wall clock.
 */
import { randomUUID } from 'node:crypto';
import { accessSync, appendFileSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Outcome } from '../core/classify.js';
import { configSchema, type Environment, resolveDirectories } from '../core/config/index.js';
import { parseWith } from '../core/config/schema.js';
import { silentLogger } from '../core/log.js';
import { Monitor } from '../core/monitor.js';
import { evaluate } from './expectations.js';
import { type FakeTools, readFakeCalls, setLaunchdJob, writeFakeLaunchctl, writeFakeOpenclaw } from './fake-tools.js';
import { fallbackDecisionLine, gatewayLogPath, gatewayRestartLine, stalledSessionLine } from './gateway-log-lines.js';
import { writeOpenClawCooldowns } from './openclaw-cooldown-writer.js';
import { agentDatabasePath, OpenClawAgentDb } from './openclaw-db.js';
import { assistantMessage, seededRandom, sessionHeader, userMessage } from './records.js';
import { type ReplayPlan, ReplayWriter } from './replay.js';
import { stepWords } from './report-words.js';
import type { DepFault, InjectedOutcome, Scenario } from './scenario.js';
import { INJECTED_OUTCOMES } from './scenario.js';
import { type SimulatedGateway, type SimulatedGatewayOptions, startSimulatedGateway } from './simulated-gateway.js';
import { scaleConfig } from './time-scale.js';
import type { Format, Latency, Progress, RehearsalReport, TimelineEvent } from './types.js';

type Writer = 'jsonl' | 'sqlite' | 'gatewaylog';

export interface RehearsalOptions {
  /** Scenario seconds per wall second (default 1: real time). */
  timeScale?: number;
  format?: Format;
  /** Seed of the workload's random choices (default 1). */
  seed?: number;
  /**
   * Wall-clock allowance added to time-bounded expectations ("within 10 s"): file
   * watching and ingest take real milliseconds that compression cannot shrink.
   * Default 200 ms.
   */
  slackMs?: number;
  /**
   * Test hook: BreakerBar config merged over the scenario's (unscaled units), e.g.
   * a deliberately broken policy `{ watchdog: { maxRestartsPerHour: 1000, restartSpacingSec: 1 } }`.
   */
  configOverride?: Record<string, unknown>;
  /**
   * Test hook: the watchdog judges its durations on the wall clock instead of the monotonic one (as
   * before it had one), so a clock-step scenario can be shown to fail without it.
   */
  durationsOnWallClock?: boolean;
  /** Called about every 250 ms wall with the progress so far. */
  onProgress?: (progress: Progress) => void;
  /** Keep the temporary state directory (its path is in the report). */
  keepStateDir?: boolean;
  /** Replay a recorded directory instead of generating traffic (see replay.ts); time scale = speed. */
  replay?: ReplayPlan;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown> | undefined) {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over ?? {})) {
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? deepMerge(out[key], value) : value;
  }
  return out;
}

/** OpenClaw's fallback-decision reason for each injected outcome. */
const REASONS: Record<Exclude<Outcome, 'ok'>, string> = {
  rate_limited: 'rate_limit',
  overloaded: 'overloaded',
  server_error: 'server_error',
  timeout: 'timeout',
  connection_reset: 'connection',
  aborted: 'aborted',
  auth: 'auth',
  billing: 'billing',
  context_overflow: 'context_overflow',
  other_error: 'unknown',
};
const HTTP: Partial<Record<Outcome, number>> = {
  rate_limited: 429,
  overloaded: 529,
  server_error: 503,
  auth: 401,
  billing: 402,
};

interface AgentWriter {
  id: string;
  deps: string[];
  weight: number;
  writer: Writer;
  sessionId: string;
  entry: number;
  last: string | null;
  started: boolean;
  /** Scenario second of the agent's last request (its session's last progress). */
  lastCallSec: number | null;
}

/**
 * A control endpoint the restart command (or a faked program) calls: restarts the simulation in every state,
 * even while it refuses; `?afterMs=N`: N wall milliseconds later (a restart the gateway performs once its
 * work has drained), on a timer kept in `later` so that the run's end clears it.
 */
async function startRestartHook(
  gateway: SimulatedGateway,
  later: NodeJS.Timeout[],
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const afterMs = Number(url.searchParams.get('afterMs') ?? '0');
    if (
      req.method !== 'POST' ||
      url.pathname !== '/restart' ||
      req.headers.origin !== undefined ||
      !(afterMs >= 0 && Number.isFinite(afterMs))
    ) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(202, { 'content-type': 'application/json', connection: 'close' }).end('{"ok":true}');
    res.once('finish', () => {
      if (afterMs > 0) later.push(setTimeout(() => void gateway.restart(), afterMs));
      else setImmediate(() => void gateway.restart());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/restart` };
}

/** Where an executable is on PATH, or null. */
function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * The restart command: curl when there is one (it starts in milliseconds, which matters when
 * time is compressed 100-fold), else Node's fetch (a few hundred ms to start).
 */
export function restartCommandFor(url: string): string[] {
  const curl = process.platform === 'win32' ? null : onPath('curl');
  if (curl) return [curl, '-fsS', '-X', 'POST', '--max-time', '10', url];
  return [
    process.execPath,
    '-e',
    `fetch(${JSON.stringify(url)},{method:'POST'}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))`,
  ];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** OpenClaw's diagnostics report a processing session stalled once it has made no progress for this long… */
const STALL_REPORT_AFTER_SEC = 120;
/** …on their heartbeat, which runs this often. */
const STALL_HEARTBEAT_SEC = 30;

/** PATH and HOME for a `bare` scenario: empty directories, so no CLI, service manager or unit is found. */
function bareEnvironment(root: string): Environment {
  const path = join(root, 'bare', 'bin');
  const home = join(root, 'bare', 'home');
  mkdirSync(path, { recursive: true });
  mkdirSync(home, { recursive: true });
  return { env: { PATH: path, HOME: home }, home, platform: process.platform };
}

/** The gateway's LaunchAgent label for the default profile (the fake launchctl knows only this job). */
const LAUNCHD_LABEL = 'ai.openclaw.gateway';

/**
 * The environment of a scenario that fakes the programs the restart strategies run (see fake-tools.ts):
 * PATH is the fakes' directory only, HOME an empty one (with the LaunchAgent's plist for `launchd`, whose
 * platform is darwin).
 */
function fakedEnvironment(
  root: string,
  kind: 'openclaw-cli' | 'launchd',
  restartUrl: string,
  deferredRestartMs: number,
): { environment: Environment; tools: FakeTools } {
  const { env, home } = bareEnvironment(root);
  if (kind === 'openclaw-cli') {
    const tools = writeFakeOpenclaw(root, restartUrl, deferredRestartMs);
    return { environment: { env: { ...env, PATH: tools.bin }, home, platform: process.platform }, tools };
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  if (uid === null) throw new Error("environment 'launchd' needs a user id (gui/<uid>), which this platform has not");
  const agents = join(home, 'Library', 'LaunchAgents');
  mkdirSync(agents, { recursive: true });
  const plist = join(agents, `${LAUNCHD_LABEL}.plist`);
  writeFileSync(plist, launchAgentPlist(LAUNCHD_LABEL));
  const tools = writeFakeLaunchctl(root, restartUrl, `gui/${uid}/${LAUNCHD_LABEL}`, plist);
  return { environment: { env: { ...env, PATH: tools.bin }, home, platform: 'darwin' }, tools };
}

/** A LaunchAgent plist like the one `openclaw gateway install` writes (only its presence matters here). */
function launchAgentPlist(label: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>${label}</string>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><true/>
</dict>
</plist>
`;
}

export async function runRehearsal(scenario: Scenario, options: RehearsalOptions = {}): Promise<RehearsalReport> {
  const scale = options.timeScale ?? 1;
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError('timeScale must be a positive number');
  const format = options.format ?? 'jsonl';
  const slackMs = options.slackMs ?? 200;
  const random = seededRandom(options.seed ?? 1);
  const wall = (sec: number) => (sec * 1000) / scale;
  const root = mkdtempSync(join(tmpdir(), 'breakerbar-rehearse-'));
  const openclawDir = join(root, 'openclaw');
  const logDir = join(root, 'gateway-logs');
  mkdirSync(join(openclawDir, 'agents'), { recursive: true });
  mkdirSync(logDir, { recursive: true });

  // The monotonic clock (epoch-like ms, only forward) and the wall clock: the monotonic one plus the steps taken.
  const wallOrigin = Date.now();
  const perfOrigin = performance.now();
  const mono = () => wallOrigin + (performance.now() - perfOrigin);
  let stepMs = 0;
  const wallNow = () => Math.floor(mono()) + stepMs;

  // A phase at second 0 sets the gateway's state before BreakerBar starts: its first probe already meets it.
  const initialState = scenario.phases.find((p) => p.atSec === 0 && p.gateway)?.gateway ?? 'up';
  const simOptions: SimulatedGatewayOptions = {
    restartMs: wall(scenario.restartSec ?? 5),
    refuseMs: 50,
    state: initialState,
    clock: wallNow,
  };
  const gateway = await startSimulatedGateway(simOptions);
  const timers: NodeJS.Timeout[] = [];
  const hook = await startRestartHook(gateway, timers);
  const restartCommand = restartCommandFor(hook.url);
  const raw = deepMerge(
    deepMerge(
      {
        openclawDir,
        dataDir: join(root, 'breakerbar'),
        gatewayLogDir: logDir,
        gatewayUrl: gateway.baseUrl,
        gatewayMetrics: { enabled: false },
        ingest: { reconcileIntervalMs: 200, backfillDays: 0 },
        notifications: { desktop: false, webhooks: [] },
        server: { port: 0 },
        fleet: { redisUrl: null },
        watchdog: { restartCommand },
        // The fake openclaw CLI answers only what a scenario rehearses (and logs every call it gets).
        quota: { enabled: false },
      },
      scenario.config,
    ),
    options.configOverride,
  );
  const unscaled = parseWith(configSchema, raw);
  const loaded = resolveDirectories(scaleConfig(unscaled, scale), null, {
    env: {},
    home: root,
    platform: process.platform,
  });

  let environment: Environment | undefined;
  let tools: FakeTools | null = null;
  if (scenario.environment === 'bare') environment = bareEnvironment(root);
  if (scenario.environment === 'openclaw-cli' || scenario.environment === 'launchd') {
    const faked = fakedEnvironment(root, scenario.environment, hook.url, wall(scenario.deferredRestartSec ?? 30));
    environment = faked.environment;
    tools = faked.tools;
  }
  if (scenario.cooldowns && scenario.cooldowns.length > 0) {
    // Written before BreakerBar starts, on the wall clock OpenClaw stores: its first check already knows them.
    const start = wallNow();
    writeOpenClawCooldowns(
      openclawDir,
      scenario.cooldowns.map((c) => ({ dep: c.dep, reason: c.reason, until: start + Math.round(wall(c.untilSec)) })),
      start,
    );
  }

  const timeline: TimelineEvent[] = [];
  const wallTimes = new WeakMap<TimelineEvent, number>();
  let t0 = mono();
  const push = (event: TimelineEvent) => {
    wallTimes.set(event, mono() - t0);
    timeline.push(event);
  };
  /** Scenario seconds since the start, on the monotonic clock. */
  const now = () => ((mono() - t0) * scale) / 1000;
  const written: Array<{ t: number; dep: string; retryAfterMs: number }> = [];
  const calls = { total: 0, failed: 0, byDep: {} as Record<string, { calls: number; failed: number }> };
  const dbs = new Map<string, OpenClawAgentDb>();
  let monitor: Monitor | null = null;
  const startedAt = new Date().toISOString();

  const writers: Writer[] = format === 'all' ? ['jsonl', 'sqlite', 'gatewaylog'] : [format];
  const totalWeight = scenario.agents.reduce((sum, a) => sum + (a.weight ?? 1), 0);
  const agents: AgentWriter[] = scenario.agents.map((a, i) => ({
    id: a.id,
    deps: a.deps,
    weight: (a.weight ?? 1) / totalWeight,
    writer: writers[i % writers.length] as Writer,
    sessionId: randomUUID(),
    entry: 0,
    last: null,
    started: false,
    lastCallSec: null,
  }));
  const activeFaults = (sec: number): Record<string, DepFault> => {
    const out: Record<string, DepFault> = {};
    for (const phase of scenario.phases) {
      if (sec >= phase.atSec && sec < phase.atSec + phase.durationSec) Object.assign(out, phase.deps ?? {});
    }
    return out;
  };
  const pick = (fault: DepFault | undefined): InjectedOutcome | 'ok' => {
    if (!fault) return 'ok';
    let r = random();
    for (const outcome of INJECTED_OUTCOMES) {
      const share = fault[outcome] ?? 0;
      if (r < share) return outcome;
      r -= share;
    }
    return 'ok';
  };

  /** One agent request: the primary, then each fallback after a failure, as OpenClaw tries them. */
  const request = (agent: AgentWriter, faults: Record<string, DepFault>) => {
    const ts = wallNow();
    agent.lastCallSec = now();
    const lines: string[] = [];
    const logLines: string[] = [];
    const link = () => {
      const parentId = agent.last;
      agent.entry++;
      agent.last = `${agent.sessionId.slice(0, 8)}-${agent.entry.toString(16).padStart(6, '0')}`;
      return { id: agent.last, parentId };
    };
    if (!agent.started) {
      agent.started = true;
      if (agent.writer !== 'gatewaylog') lines.push(sessionHeader(agent.sessionId, ts));
    }
    if (agent.writer !== 'gatewaylog') {
      const question = link();
      lines.push(userMessage(question.id, question.parentId, ts, 'Summarise the open issues.'));
    }
    for (let i = 0; i < agent.deps.length; i++) {
      const dep = agent.deps[i] as string;
      const fault = faults[dep];
      const injected = pick(fault);
      const midStream = injected === 'aborted_mid_stream';
      const outcome: Outcome = midStream ? 'connection_reset' : injected;
      const stat = calls.byDep[dep] ?? { calls: 0, failed: 0 };
      calls.byDep[dep] = stat;
      stat.calls++;
      calls.total++;
      if (outcome !== 'ok') {
        stat.failed++;
        calls.failed++;
      }
      const retryAfterMs = outcome === 'rate_limited' && fault?.retryAfterSec ? wall(fault.retryAfterSec) : 0;
      if (retryAfterMs > 0) written.push({ t: now(), dep, retryAfterMs });
      const last = i === agent.deps.length - 1;
      if (agent.writer === 'gatewaylog') {
        logLines.push(
          fallbackDecisionLine({
            ts,
            decision: outcome === 'ok' ? 'candidate_succeeded' : 'candidate_failed',
            requested: agent.deps[0] as string,
            candidate: dep,
            reason: outcome === 'ok' ? null : REASONS[outcome],
            httpCode: HTTP[outcome],
            attempt: i + 1,
            total: agent.deps.length,
            final: outcome === 'ok' ? 'succeeded' : last ? 'chain_exhausted' : 'next_fallback',
            next: outcome !== 'ok' && !last ? agent.deps[i + 1] : undefined,
            sessionKey: `agent:${agent.id}:main`,
            sessionId: agent.sessionId,
          }),
        );
      } else {
        const [provider = dep, model = dep] = [dep.slice(0, dep.indexOf('/')), dep.slice(dep.indexOf('/') + 1)];
        let line = assistantMessage({
          ...link(),
          ts,
          provider,
          model,
          outcome,
          // Sample 0 of rate_limited has no Retry-After; sample 1 has one, rewritten to the scaled value.
          sample: outcome === 'rate_limited' ? (retryAfterMs > 0 ? 1 : 0) : outcome === 'server_error' ? 0 : 1,
          totalTokens: outcome === 'ok' ? 800 + Math.floor(random() * 3000) : midStream ? 300 : 0,
          text: outcome === 'ok' ? 'Here is the summary you asked for.' : midStream ? 'Here is the summ' : undefined,
        });
        if (retryAfterMs > 0) {
          const record = JSON.parse(line) as { message: Record<string, unknown> };
          record.message.errorRetryAfterMs = Math.max(1, Math.round(retryAfterMs));
          line = JSON.stringify(record);
        }
        lines.push(line);
      }
      if (outcome === 'ok') break;
    }
    if (agent.writer === 'jsonl') {
      const dir = join(openclawDir, 'agents', agent.id, 'sessions');
      mkdirSync(dir, { recursive: true });
      appendFileSync(join(dir, `${agent.sessionId}.jsonl`), `${lines.join('\n')}\n`);
    } else if (agent.writer === 'sqlite') {
      let db = dbs.get(agent.id);
      if (!db) {
        db = new OpenClawAgentDb(agentDatabasePath(openclawDir, agent.id));
        dbs.set(agent.id, db);
      }
      db.append(agent.sessionId, agent.id, lines, ts);
    } else {
      writeLog(ts, logLines);
    }
  };

  const writeLog = (ts: number, lines: string[]) => appendFileSync(gatewayLogPath(logDir, ts), `${lines.join('\n')}\n`);

  /** A stalled phase in force: the gateway's restart count when it began (a restart ends it), the next heartbeat. */
  let stall: { index: number; restartsAtStart: number; nextReportSec: number } | null = null;
  const stallActive = (sec: number): boolean => {
    if (stall === null) return false;
    const phase = scenario.phases[stall.index];
    const over = phase === undefined || sec >= phase.atSec + phase.durationSec;
    if (over || gateway.restarts !== stall.restartsAtStart) {
      stall = null;
      return false;
    }
    return true;
  };
  /** The diagnostics heartbeat while stalled: every session in progress with no progress for long enough. */
  const reportStalls = (sec: number) => {
    if (stall === null || sec < stall.nextReportSec) return;
    stall.nextReportSec += STALL_HEARTBEAT_SEC;
    const ts = wallNow();
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
          ageMs: Math.round((ageSec * 1000) / scale),
        }),
      ];
    });
    if (lines.length > 0) writeLog(ts, lines);
  };

  const restartIds = new Set<number>();
  const restartResults = new Map<number, string>();
  let notices = 0;
  let transitions = 0;
  let report: RehearsalReport;
  try {
    monitor = new Monitor(loaded, {
      log: silentLogger,
      desktop: null,
      serve: true,
      gateway: true,
      clock: wallNow,
      monotonic: options.durationsOnWallClock ? wallNow : mono,
      // OpenClaw's cooldown state is polled every 5 s: compressed like every other period, when a scenario has one.
      ...(scenario.cooldowns ? { cooldownPollMs: Math.max(50, Math.round(5000 / scale)) } : {}),
      incidentsEvaluateMs: Math.max(50, Math.round(5000 / scale)),
      ...(environment ? { environment } : {}),
    });
    await monitor.start();
    const side = monitor.gateway;
    const breakers = monitor.breakers;
    if (!side || !breakers) throw new Error('the monitor started without its gateway side or breakers');
    t0 = mono();
    breakers.on('transition', (tr) => {
      transitions++;
      push({ t: now(), type: 'transition', dep: tr.dep, from: tr.from, to: tr.to, reason: tr.reason });
    });
    side.watchdog.on('decision', (d) => {
      if ((d.kind === 'quiet' || d.kind === 'healthy') && d.alerts.length === 0) return;
      push({
        t: now(),
        type: 'decision',
        decision: d.kind,
        source: d.source,
        dep: d.dep,
        reason: d.reason,
        alerts: d.alerts.map((a) => a.kind),
      });
    });
    side.watchdog.on('restart', (row) => {
      const seen = restartIds.has(row.id);
      restartIds.add(row.id);
      const fields = { id: row.id, trigger: row.trigger, evidence: row.evidence, reason: row.reason };
      if (row.result === 'dry_run') {
        if (!seen) push({ t: now(), type: 'dry_run', ...fields });
        return;
      }
      if (!seen) push({ t: now(), type: 'restart', ...fields });
      if (restartResults.get(row.id) !== row.result && row.result !== 'running') {
        restartResults.set(row.id, row.result);
        push({ t: now(), type: 'restart_result', id: row.id, result: row.result, detail: row.detail });
      }
    });
    /**
     * A wall time the core stored, in scenario seconds (the clock steps in force now taken out). Rounded down, never
     * to the nearest: an incident opened by a breaker transition must not start after that transition's own event.
     */
    const scenarioSec = (wall: number) => Math.max(0, Math.floor((wall - stepMs - t0) * scale) / 1000);
    const incidents = monitor.incidents;
    /** What the timeline last said of each incident: an update shows only when it changes what it is about. */
    const said = new Map<number, string>();
    for (const change of ['opened', 'updated', 'closed'] as const) {
      incidents?.on(change, (incident) => {
        const about = `${incident.severity}|${incident.causes.join(',')}|${incident.deps.join(',')}`;
        if (change === 'updated' && said.get(incident.id) === about) return;
        said.set(incident.id, about);
        push({
          t: now(),
          type: 'incident',
          id: incident.id,
          change,
          severity: incident.severity,
          causes: [...incident.causes],
          deps: [...incident.deps],
          summary: incident.summary,
          openedAtSec: scenarioSec(incident.openedAt),
          closedAtSec: incident.closedAt === null ? null : scenarioSec(incident.closedAt),
        });
      });
    }
    side.notifier.on('notice', (n) => {
      notices++;
      push({
        t: now(),
        type: 'notice',
        notice: n.kind,
        dep: n.dep,
        title: n.title,
        severity: n.severity,
        count: n.count,
      });
    });
    push({ t: 0, type: 'gateway', state: gateway.state });
    const replay = options.replay ? new ReplayWriter(options.replay, { openclawDir, logDir }, scale) : null;

    // Phases: fault injections at their start, the gateway back up at their end (unless restarted meanwhile).
    let currentPhase: string | null = null;
    scenario.phases.forEach((phase, index) => {
      const label = phase.label ?? describePhase(phase);
      let restartsAtStart = 0;
      timers.push(
        setTimeout(() => {
          currentPhase = label;
          restartsAtStart = gateway.restarts;
          if (phase.restartSec !== undefined) simOptions.restartMs = wall(phase.restartSec);
          push({
            t: now(),
            type: 'phase',
            index,
            label,
            deps: Object.keys(phase.deps ?? {}),
            gateway: phase.gateway ?? null,
          });
          if (phase.clockStepSec) {
            stepMs += Math.round(phase.clockStepSec * 1000);
            push({ t: now(), type: 'clock_step', stepSec: phase.clockStepSec, offsetSec: stepMs / 1000 });
          }
          if (phase.launchdUnloads && tools) setLaunchdJob(tools, 'unloaded');
          if (phase.gateway) gateway.state = phase.gateway;
          if (phase.selfRestart) {
            const { refuseSec, startingSec, announce } = phase.selfRestart;
            // OpenClaw logs the signal first, then its port goes away.
            if (announce) writeLog(wallNow(), [gatewayRestartLine(wallNow())]);
            void gateway.restart({ refuseMs: wall(refuseSec), startingMs: wall(startingSec) });
          }
          if (phase.stalled) {
            const sec = now();
            stall = { index, restartsAtStart: gateway.restarts, nextReportSec: sec + STALL_HEARTBEAT_SEC };
          }
        }, wall(phase.atSec)),
        setTimeout(
          () => {
            push({ t: now(), type: 'phase_end', index, label });
            if (currentPhase === label) currentPhase = null;
            const nextSetsGateway = scenario.phases.some(
              (p) => p !== phase && p.gateway && Math.abs(p.atSec - (phase.atSec + phase.durationSec)) < 1e-9,
            );
            // A fault lasting to the scenario's end stays in force while the run is judged.
            const toTheEnd = phase.atSec + phase.durationSec >= scenario.durationSec;
            if (
              phase.gateway &&
              !toTheEnd &&
              !nextSetsGateway &&
              gateway.state === phase.gateway &&
              gateway.restarts === restartsAtStart
            ) {
              gateway.state = 'up';
            }
          },
          wall(Math.min(phase.atSec + phase.durationSec, scenario.durationSec)),
        ),
      );
    });

    // The workload: due requests every tick, at the compressed rate; the gateway's state watched.
    const endWall = wall(scenario.durationSec);
    let done = 0;
    let lastState = gateway.state;
    let lastProgress = 0;
    while (mono() - t0 < endWall) {
      const sec = now();
      const due = replay ? 0 : Math.floor(scenario.rate * sec) - done;
      const faults = activeFaults(sec);
      if (replay) {
        // The replay's start on the wall clock as it reads now (a step moves it too).
        replay.writeUntil(sec, wallNow() - (mono() - t0));
        calls.total = replay.calls;
      }
      if (stallActive(sec)) {
        // A stuck gateway makes no upstream call; the requests it would have made are not made later either.
        reportStalls(sec);
      } else {
        for (let i = 0; i < Math.min(due, 500); i++) {
          request(pickAgent(agents, random()), faults);
        }
      }
      done += Math.max(0, due);
      if (gateway.state !== lastState) {
        lastState = gateway.state;
        push({ t: now(), type: 'gateway', state: lastState });
      }
      if (options.onProgress && Date.now() - lastProgress >= 250) {
        lastProgress = Date.now();
        options.onProgress({
          scenario: scenario.name,
          sec: Math.min(sec, scenario.durationSec),
          durationSec: scenario.durationSec,
          calls: calls.total,
          transitions,
          restarts: timeline.filter((e) => e.type === 'restart').length,
          notices,
          phase: currentPhase,
        });
      }
      await sleep(10);
    }
    // Let the pipeline catch up with the last writes before judging.
    await sleep(slackMs);
    const wallMs = Math.round(mono() - t0);
    const policy = {
      maxRestartsPerHour: unscaled.watchdog.maxRestartsPerHour,
      restartSpacingSec: unscaled.watchdog.restartSpacingSec,
      startupGraceSec: unscaled.watchdog.startupGraceSec,
      maxDeferralSec: unscaled.watchdog.maxDeferralSec,
      deadAfterSec: unscaled.watchdog.deadAfterSec,
      hungAfterSec: unscaled.watchdog.hungAfterSec,
      healthIntervalSec: unscaled.health.intervalSec,
      breakerCooldownMs: unscaled.breakers.cooldownMs,
    };
    // The restarts table is the record: by insertion, whatever the wall clock did to their times.
    const restarts = side.history
      .restarts(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 100_000)
      .sort((a, b) => a.id - b.id)
      .map(({ id, trigger, evidence, result, reason, detail }) => ({ id, trigger, evidence, result, reason, detail }));
    const latencies = measureLatencies(scenario, timeline, wallTimes);
    const commands = tools ? readFakeCalls(tools) : [];
    const expectations = evaluate(scenario, timeline, {
      scale,
      slackSec: (slackMs * scale) / 1000,
      written: written.map((w) => ({ t: w.t, dep: w.dep, retryAfterSec: (w.retryAfterMs * scale) / 1000 })),
      maxDeferralSec: unscaled.watchdog.maxDeferralSec,
      restarts,
      commands,
    });
    report = {
      scenario: {
        name: scenario.name,
        description: scenario.description,
        durationSec: scenario.durationSec,
        rate: scenario.rate,
      },
      timeScale: scale,
      format,
      slackMs,
      startedAt,
      wallMs,
      stateDir: options.keepStateDir ? root : null,
      calls,
      policy,
      timeline: timeline.map((e) => ({ ...e, t: round(e.t) })),
      restarts,
      commands,
      latencies,
      expectations,
      passed: expectations.every((e) => e.passed),
    };
  } finally {
    for (const timer of timers) clearTimeout(timer);
    await monitor?.stop().catch(() => {});
    await gateway.close();
    hook.server.closeAllConnections();
    await new Promise((resolve) => hook.server.close(resolve));
    for (const db of dbs.values()) db.close();
    if (!options.keepStateDir) rmSync(root, { recursive: true, force: true });
  }
  return report;
}

function pickAgent(agents: AgentWriter[], r: number): AgentWriter {
  let left = r;
  for (const agent of agents) {
    left -= agent.weight;
    if (left < 0) return agent;
  }
  return agents[agents.length - 1] as AgentWriter;
}

const round = (n: number) => Math.round(n * 100) / 100;

export function describePhase(phase: Scenario['phases'][number]): string {
  const parts = Object.entries(phase.deps ?? {}).map(([dep, fault]) => {
    const mix = INJECTED_OUTCOMES.filter((o) => (fault[o] ?? 0) > 0)
      .map((o) => `${o} ${Math.round((fault[o] ?? 0) * 100)}%`)
      .join(', ');
    return `${dep}: ${mix || 'healthy'}${fault.retryAfterSec ? ` (Retry-After ${fault.retryAfterSec} s)` : ''}`;
  });
  if (phase.gateway) parts.push(`gateway ${phase.gateway}`);
  if (phase.selfRestart) {
    const { refuseSec, startingSec, announce } = phase.selfRestart;
    parts.push(
      `gateway restarts itself (refuses ${refuseSec} s, starting ${startingSec} s${announce ? ', logged' : ', not logged'})`,
    );
  }
  if (phase.stalled) parts.push('gateway stalled: no upstream calls, sessions reported stalled');
  if (phase.clockStepSec)
    parts.push(`wall clock stepped ${phase.clockStepSec < 0 ? 'back' : 'forward'} ${stepWords(phase.clockStepSec)}`);
  return parts.join('; ') || 'no faults';
}

/** Per injected fault: its start → the first transition of the affected dependency, → the first notice about it. */
function measureLatencies(
  scenario: Scenario,
  timeline: TimelineEvent[],
  wallTimes: WeakMap<TimelineEvent, number>,
): Latency[] {
  const out: Latency[] = [];
  scenario.phases.forEach((phase, index) => {
    const start = timeline.find((e) => e.type === 'phase' && e.index === index);
    if (!start) return;
    const startWall = wallTimes.get(start) ?? 0;
    const end = phase.atSec + phase.durationSec;
    const targets: string[] = Object.entries(phase.deps ?? {})
      .filter(([, fault]) => INJECTED_OUTCOMES.some((o) => (fault[o] ?? 0) >= 0.5))
      .map(([dep]) => dep);
    if (phase.gateway && phase.gateway !== 'up') targets.push('gateway');
    for (const target of targets) {
      const within = (e: TimelineEvent) => e.t >= start.t && e.t <= end + 60;
      const transition =
        target === 'gateway'
          ? timeline.find((e) => within(e) && e.type === 'decision' && ['dead', 'restart'].includes(e.decision))
          : timeline.find((e) => within(e) && e.type === 'transition' && e.dep === target && e.from === 'closed');
      const notice = timeline.find(
        (e) => within(e) && e.type === 'notice' && (target === 'gateway' ? e.dep === null : e.dep === target),
      );
      const wallOf = (e: TimelineEvent | undefined) =>
        e === undefined ? null : Math.max(0, Math.round((wallTimes.get(e) ?? 0) - startWall));
      out.push({
        phase: index,
        label: phase.label ?? describePhase(phase),
        target,
        faultAtSec: round(start.t),
        transitionSec: transition ? round(transition.t - start.t) : null,
        noticeSec: notice ? round(notice.t - start.t) : null,
        transitionWallMs: wallOf(transition),
        noticeWallMs: wallOf(notice),
      });
    }
  });
  return out;
}
