/**
 * Restarting the gateway's LaunchAgent with launchctl when the openclaw CLI is
 * not installed (macOS).
 *
 * The gateway's job is `ai.openclaw.gateway` (`ai.openclaw.<profile>` for a
 * named profile) in the user's GUI domain, loaded from
 * ~/Library/LaunchAgents/<label>.plist, with KeepAlive: whether the CLI or
 * OpenClaw.app installed it. A plain `kickstart -k` is not always enough:
 * - after a burst of crashes launchd can stop honouring KeepAlive: the job
 *   stays loaded, `state = not running` (parked) or `spawn scheduled`
 *   (throttled), and only an external kickstart re-arms it;
 * - a stop or a failed restart can leave the job unloaded while its plist is
 *   still there: kickstart then answers "Could not find service" and the
 *   plist must be bootstrapped again.
 * So the job is read first (`launchctl print`), the steps follow from what it
 * says, and it is read again afterwards: a restart counts only when launchd
 * shows the gateway running.
 */
import {
  type LaunchctlJob,
  outputLine,
  parseLaunchctlDisabled,
  readLaunchctlPrint,
} from '../../service-managers/launchctl-print.js';
import { findExecutable, serviceNameOverride, serviceProfile } from './environment.js';
import { attemptFinisher, settleService } from './service-restart.js';
import { failureOf, fileExists, pathFor, StepRunner, shorten, succeeded, tildeFor } from './steps.js';
import { STOPPED_ITSELF_REASON, stoppedItself } from './stopped-itself.js';
import type {
  ExecutionContext,
  RestartAttempt,
  RestartPlan,
  ServiceHealth,
  ServiceState,
  StrategyEnvironment,
  StrategyVerification,
} from './types.js';

export const LAUNCHD_DEFAULT_LABEL = 'ai.openclaw.gateway';

/** Between reads of a job that is coming up after a restart. */

export interface LaunchdIdentity {
  launchctl: string;
  /** `gui/<uid>` */
  domain: string;
  label: string;
  /** `gui/<uid>/<label>` */
  target: string;
  /** Where OpenClaw installs the job's plist. */
  plist: string;
}

/** The gateway's launchd job here, or why it cannot be addressed. */
export function launchdIdentity(env: StrategyEnvironment): {
  identity: LaunchdIdentity | null;
  problem: string | null;
} {
  if (env.uid === null) {
    return { identity: null, problem: 'the user id for launchctl (gui/<uid>) is unknown' };
  }
  const profile = serviceProfile(env);
  const label =
    serviceNameOverride(env, 'OPENCLAW_LAUNCHD_LABEL') ?? (profile ? `ai.openclaw.${profile}` : LAUNCHD_DEFAULT_LABEL);
  if (!/^[A-Za-z0-9._-]+$/.test(label)) {
    return { identity: null, problem: `"${label}" is not a launchd label (OPENCLAW_LAUNCHD_LABEL or profile)` };
  }
  // launchctl always lives in /bin on macOS; PATH may not say so under launchd.
  const launchctl = findExecutable('launchctl', env) ?? '/bin/launchctl';
  const domain = `gui/${env.uid}`;
  return {
    identity: {
      launchctl,
      domain,
      label,
      target: `${domain}/${label}`,
      plist: pathFor(env.platform).join(env.home, 'Library', 'LaunchAgents', `${label}.plist`),
    },
    problem: null,
  };
}

export function launchdPlan(identity: LaunchdIdentity): RestartPlan {
  return {
    strategy: 'launchd',
    argv: [identity.launchctl, 'kickstart', '-k', identity.target],
    description: `launchctl kickstart -k ${identity.label}`,
  };
}

function healthOf(job: LaunchctlJob): ServiceHealth {
  if (job.pid !== null) return 'running';
  if (job.state !== null && /spawn/i.test(job.state)) return 'respawn_pending';
  return 'parked';
}

function jobWords(job: LaunchctlJob): string {
  const words = [`state = ${job.state ?? '?'}`];
  if (job.lastExit !== null && job.lastExitCode !== null) words.push(`last exit code = ${job.lastExit}`);
  if (job.lastExitReason !== null) words.push(job.lastExitReason);
  if (job.runs !== null) words.push(`${job.runs} runs`);
  return words.join(', ');
}

/** Where the `launchctl print` failure came from, with what to do about it. */
function printProblem(identity: LaunchdIdentity, detail: string): string {
  const hint = /domain/i.test(detail)
    ? ': there is no GUI session for this user here; BreakerBar must run in the logged-in user session that owns the LaunchAgent'
    : '';
  return `launchctl print ${identity.target} failed: ${detail}${hint}`;
}

/** Reads the job (and, when it is not loaded, whether it is disabled). */
export async function inspectLaunchd(
  identity: LaunchdIdentity,
  env: StrategyEnvironment,
  steps: StepRunner,
): Promise<ServiceState> {
  const printed = await steps.inspect([identity.launchctl, 'print', identity.target]);
  const plistPresent = fileExists(env, identity.plist);
  const plistWords = tildeFor(env, identity.plist);
  const base = {
    manager: 'launchd' as const,
    name: identity.label,
    target: identity.target,
    file: identity.plist,
    fileExists: plistPresent,
    searched: [identity.plist],
    pid: null,
    state: null,
    lastExit: null,
    restarts: null,
    problem: null,
  };
  const name = `LaunchAgent ${identity.label}`;
  if (printed.spawnError !== null || printed.timedOut || printed.signal !== null) {
    const problem = `launchctl print ${identity.target} ${failureOf(printed)}`;
    return { ...base, health: 'unknown', loaded: null, summary: `${name}: ${problem}`, problem };
  }
  const read = readLaunchctlPrint(printed.exitCode, printed.stdout, printed.stderr);
  if (read.kind === 'error') {
    const problem = printProblem(identity, read.detail);
    return { ...base, health: 'unknown', loaded: null, summary: `${name}: ${problem}`, problem };
  }
  if (read.kind === 'loaded') {
    const { job } = read;
    const file = job.path ?? identity.plist;
    const health = healthOf(job);
    const summary =
      health === 'running'
        ? `${name}: running (pid ${job.pid})`
        : health === 'respawn_pending'
          ? `${name}: crashed, launchd throttles its respawn (${jobWords(job)})`
          : `${name}: loaded but not running and launchd is not respawning it (${jobWords(job)})`;
    return {
      ...base,
      file,
      fileExists: file === identity.plist ? plistPresent : fileExists(env, file),
      health,
      loaded: true,
      pid: job.pid,
      state: job.state,
      lastExit: job.lastExitCode === null ? null : job.lastExit,
      restarts: job.runs,
      summary,
    };
  }
  if (!plistPresent) {
    return {
      ...base,
      health: 'unloaded',
      loaded: false,
      summary: `${name}: not installed (not loaded, no ${plistWords})`,
    };
  }
  // Loading a job someone disabled (`launchctl disable`, `openclaw gateway stop --disable`) would override them.
  const disabled = await steps.inspect([identity.launchctl, 'print-disabled', identity.domain]);
  if (succeeded(disabled) && parseLaunchctlDisabled(disabled.stdout, identity.label) === true) {
    return {
      ...base,
      health: 'disabled',
      loaded: false,
      summary: `${name}: not loaded and disabled (launchctl print-disabled ${identity.domain})`,
    };
  }
  return {
    ...base,
    health: 'unloaded',
    loaded: false,
    summary: `${name}: not loaded (${plistWords} is there)`,
  };
}

/** OpenClaw.app's attach-only mode: the app leaves the gateway to whoever runs it. */
function attachOnlyNote(env: StrategyEnvironment): string {
  const marker = pathFor(env.platform).join(env.home, '.openclaw', 'disable-launchagent');
  return fileExists(env, marker)
    ? ` (${tildeFor(env, marker)} exists: OpenClaw.app attaches to a gateway it does not manage)`
    : '';
}

/** Why nothing can be restarted for this job state, or null when something can. */
export function launchdProblem(
  state: ServiceState,
  identity: LaunchdIdentity,
  env: StrategyEnvironment,
): string | null {
  if (stoppedItself(state)) {
    return `${STOPPED_ITSELF_REASON} (LaunchAgent ${identity.label}: ${state.state ?? 'not running'}, last exit code = ${state.lastExit}); BreakerBar never kickstarts a gateway OpenClaw parked on purpose`;
  }
  switch (state.health) {
    case 'unknown':
      return state.problem ?? state.summary;
    case 'disabled':
      return `LaunchAgent ${identity.label} is disabled: someone stopped it on purpose; \`openclaw gateway start\` or \`launchctl enable ${identity.target}\` turns it back on`;
    case 'unloaded':
      return state.fileExists
        ? null
        : `the gateway is not installed as a LaunchAgent here: ${identity.label} is not loaded and ${tildeFor(env, identity.plist)} does not exist${attachOnlyNote(env)}; install it with \`openclaw gateway install\`, or set watchdog.restartCommand to how you run the gateway`;
    default:
      return null;
  }
}

/** The launchctl commands that bring this job state back to a running gateway. */
export function launchdSteps(state: ServiceState, identity: LaunchdIdentity): string[][] {
  const { launchctl, domain, target, plist } = identity;
  if (state.health === 'unloaded') {
    // Loading with RunAtLoad starts it; kickstart (without -k) starts it if that did not, and never kills a fresh start.
    return [
      [launchctl, 'bootstrap', domain, state.file ?? plist],
      [launchctl, 'kickstart', target],
    ];
  }
  return [[launchctl, 'kickstart', '-k', target]];
}

function why(state: ServiceState): string {
  switch (state.health) {
    case 'unloaded':
      return 'it was not loaded: bootstrapped it again';
    case 'parked':
      return `launchd had stopped respawning it (${state.state ?? '?'}${state.lastExit ? `, last exit code = ${state.lastExit}` : ''}): kickstarted it`;
    case 'respawn_pending':
      return `launchd was throttling its respawn (${state.state ?? '?'}${state.lastExit ? `, last exit code = ${state.lastExit}` : ''}): kickstarted it`;
    default:
      return 'kickstarted it';
  }
}

export async function restartLaunchd(plan: RestartPlan, ctx: ExecutionContext): Promise<RestartAttempt> {
  const env = ctx.environment;
  const steps = new StepRunner(ctx);
  const finish = attemptFinisher(steps);

  const { identity, problem } = launchdIdentity(env);
  if (!identity) return finish('failed', `${plan.description}: ${problem}`, null);

  const before = await inspectLaunchd(identity, env, steps);
  const blocked = launchdProblem(before, identity, env);
  if (blocked) return finish('failed', `${plan.description}: ${blocked}`, before);

  // The job can be unloaded under us (a stop, a failed restart by someone else): then kickstart
  // answers "Could not find service", and the plist is loaded again once.
  let todo = launchdSteps(before, identity);
  let cause = before;
  for (let i = 0; i < todo.length; i++) {
    const argv = todo[i] ?? [];
    const result = await steps.run(argv);
    if (succeeded(result)) continue;
    const record = steps.records[steps.records.length - 1];
    const detail = outputLine(result.stdout, result.stderr);
    if (argv[1] === 'bootstrap') {
      // Loaded meanwhile (a race with launchd or the app): the kickstart that follows still applies.
      const now = await inspectLaunchd(identity, env, steps);
      if (now.loaded === true) continue;
      const hint = /\b5\b|input\/output/i.test(detail)
        ? ' (launchd refuses a plist it cannot load: check it with `plutil -lint`, and that the job is not disabled)'
        : /\b125\b|domain/i.test(detail)
          ? ' (no GUI session for this user: BreakerBar must run in the logged-in user session)'
          : '';
      return finish(
        'failed',
        `LaunchAgent ${identity.label} was not loaded and \`launchctl bootstrap ${identity.domain} ${tildeFor(env, argv[3] ?? identity.plist)}\` ${failureOf(result, shorten(detail))}${hint}`,
        now,
        record,
      );
    }
    if (cause.health !== 'unloaded' && /could not find service/i.test(detail)) {
      const now = await inspectLaunchd(identity, env, steps);
      if (now.health === 'unloaded' && launchdProblem(now, identity, env) === null) {
        cause = now;
        todo = [...todo.slice(0, i + 1), ...launchdSteps(now, identity)];
        continue;
      }
    }
    return finish('failed', `\`${argv.slice(1).join(' ')}\` ${failureOf(result)}`, before, record);
  }

  // Read until launchd shows it running (anything else may still change: launchd respawns on its own pace).
  const after = await settleService(
    () => inspectLaunchd(identity, env, steps),
    (state) => state.health !== 'running' && state.health !== 'unknown',
    steps,
    ctx,
  );
  if (after.health === 'running') {
    const pids =
      before.pid !== null && before.pid !== after.pid ? `pid ${before.pid} → ${after.pid}` : `pid ${after.pid}`;
    return finish('done', `LaunchAgent ${identity.label}: ${why(cause)}; running (${pids})`, after);
  }
  return finish(
    'failed',
    `LaunchAgent ${identity.label}: ${why(cause)}, but launchd does not show it running: ${after.summary}`,
    after,
  );
}

/** Whether the launchd strategy has a job to act on here. */
export async function verifyLaunchd(
  identity: LaunchdIdentity,
  env: StrategyEnvironment,
  steps: StepRunner,
): Promise<StrategyVerification> {
  const state = await inspectLaunchd(identity, env, steps);
  const checked = [
    `launchctl: ${identity.launchctl}`,
    `${tildeFor(env, identity.plist)}: ${state.fileExists ? 'present' : 'missing'}`,
    `launchctl print ${identity.target}: ${state.summary}`,
  ];
  const problem = launchdProblem(state, identity, env);
  return {
    runnable: problem === null,
    strategy: 'launchd',
    problem,
    program: identity.launchctl,
    checked,
    service: state,
  };
}
