/**
 * Restarting the gateway's systemd user unit with systemctl when the openclaw
 * CLI is not installed (Linux).
 *
 * The unit is `openclaw-gateway.service` (`openclaw-gateway-<profile>.service`
 * for a named profile), written by `openclaw gateway install` to
 * ~/.config/systemd/user. A plain `systemctl --user restart` fails when:
 * - the unit file is there but systemd never read it (`LoadState=not-found`
 *   until `daemon-reload`);
 * - the unit crash-looped into its start limit (`failed`, `start-limit-hit`):
 *   systemd refuses to start it until `reset-failed`.
 * So the unit is read first (`systemctl --user show`), the steps follow from
 * what it says, and it is read again afterwards: a restart counts only when
 * systemd shows it active.
 */
import {
  parseSystemctlShow,
  SYSTEMD_SHOW_PROPERTIES,
  type SystemdUnitShow,
} from '../../service-managers/systemctl-show.js';
import { findExecutable, serviceNameOverride, serviceProfile } from './environment.js';
import { attemptFinisher, settleService } from './service-restart.js';
import { failureOf, fileExists, pathFor, StepRunner, succeeded, tildeFor } from './steps.js';
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

export interface SystemdIdentity {
  systemctl: string;
  unit: string;
  /** Where the unit file may be, in systemd's user search order; OpenClaw writes the first home one. */
  candidates: string[];
}

export function systemdUnitName(env: StrategyEnvironment): string {
  const override = serviceNameOverride(env, 'OPENCLAW_SYSTEMD_UNIT');
  if (override) return override.endsWith('.service') ? override : `${override}.service`;
  const profile = serviceProfile(env);
  return profile ? `openclaw-gateway-${profile}.service` : 'openclaw-gateway.service';
}

/** The gateway's unit here, or why systemctl cannot be used. */
export function systemdIdentity(env: StrategyEnvironment): {
  identity: SystemdIdentity | null;
  problem: string | null;
} {
  const systemctl = findExecutable('systemctl', env);
  if (systemctl === null) return { identity: null, problem: 'no systemctl on PATH' };
  const unit = systemdUnitName(env);
  const path = pathFor(env.platform);
  const xdg = env.env.XDG_CONFIG_HOME?.trim();
  const dirs = [
    ...(xdg ? [path.join(xdg, 'systemd', 'user')] : []),
    path.join(env.home, '.config', 'systemd', 'user'),
    '/etc/systemd/user',
    '/usr/local/lib/systemd/user',
    '/usr/lib/systemd/user',
  ];
  return {
    identity: { systemctl, unit, candidates: [...new Set(dirs)].map((dir) => path.join(dir, unit)) },
    problem: null,
  };
}

export function systemdPlan(identity: SystemdIdentity): RestartPlan {
  return {
    strategy: 'systemd',
    argv: [identity.systemctl, '--user', 'restart', identity.unit],
    description: `systemctl --user restart ${identity.unit}`,
  };
}

function healthOf(show: SystemdUnitShow): ServiceHealth {
  switch (show.loadState) {
    case 'loaded':
      break;
    case 'masked':
      return 'disabled';
    case null:
      return 'unknown';
    default:
      return 'unloaded';
  }
  switch (show.activeState) {
    case 'active':
    case 'reloading':
      return 'running';
    case 'activating':
      return show.subState === 'auto-restart' ? 'respawn_pending' : 'starting';
    case 'deactivating':
      return 'stopping';
    case 'inactive':
      return 'stopped';
    case 'failed':
      return 'failed';
    default:
      // A state this code does not know (newer systemd): not running as far as we can tell.
      return 'stopped';
  }
}

function unitWords(show: SystemdUnitShow): string {
  const words = [`${show.activeState ?? '?'} (${show.subState ?? '?'})`];
  if (show.result && show.result !== 'success') words.push(`result ${show.result}`);
  if (show.execMainStatus) words.push(`last exit status ${show.execMainStatus}`);
  if (show.restarts) words.push(`${show.restarts} automatic restarts`);
  return words.join(', ');
}

function busHint(detail: string): string {
  return /bus|XDG_RUNTIME_DIR/i.test(detail)
    ? ': systemctl --user cannot reach the user manager; BreakerBar must run in the user session that owns the unit (log in, or `loginctl enable-linger` and XDG_RUNTIME_DIR=/run/user/<uid>)'
    : '';
}

export async function inspectSystemd(
  identity: SystemdIdentity,
  env: StrategyEnvironment,
  steps: StepRunner,
): Promise<ServiceState> {
  const shown = await steps.inspect([
    identity.systemctl,
    '--user',
    'show',
    identity.unit,
    `--property=${SYSTEMD_SHOW_PROPERTIES.join(',')}`,
  ]);
  const found = identity.candidates.find((candidate) => fileExists(env, candidate)) ?? null;
  const name = `systemd unit ${identity.unit}`;
  const base = {
    manager: 'systemd' as const,
    name: identity.unit,
    target: identity.unit,
    file: found ?? identity.candidates[0] ?? null,
    fileExists: found !== null,
    searched: identity.candidates,
    pid: null,
    state: null,
    lastExit: null,
    restarts: null,
    problem: null,
  };
  const show = succeeded(shown) ? parseSystemctlShow(shown.stdout) : null;
  if (show === null || show.loadState === null) {
    const detail = show === null ? failureOf(shown) : 'printed no LoadState';
    const problem = `systemctl --user show ${identity.unit} ${detail}${busHint(`${shown.stderr} ${shown.stdout}`)}`;
    return { ...base, health: 'unknown', loaded: null, summary: `${name}: ${problem}`, problem };
  }
  const health = healthOf(show);
  const fragment = show.fragmentPath;
  const file = fragment ?? base.file;
  const common = {
    ...base,
    file,
    fileExists: fragment !== null ? fileExists(env, fragment) : base.fileExists,
    health,
    loaded: show.loadState === 'loaded',
    pid: show.mainPid,
    state: `${show.activeState ?? '?'}/${show.subState ?? '?'}`,
    lastExit: show.execMainStatus !== null && show.execMainStatus !== 0 ? String(show.execMainStatus) : null,
    restarts: show.restarts,
  };
  switch (health) {
    case 'running':
      return { ...common, summary: `${name}: active${show.mainPid !== null ? ` (pid ${show.mainPid})` : ''}` };
    case 'disabled':
      return { ...common, summary: `${name}: masked` };
    case 'unloaded': {
      if (show.loadState === 'not-found') {
        return {
          ...common,
          summary: found
            ? `${name}: not loaded (${tildeFor(env, found)} is there; systemd has not read it)`
            : `${name}: not installed (no unit file in ${identity.candidates.map((c) => tildeFor(env, c)).join(', ')})`,
        };
      }
      const problem = `systemd cannot load ${identity.unit} (${show.loadState})${show.loadError ? `: ${show.loadError}` : ''}`;
      return { ...common, summary: `${name}: ${problem}`, problem };
    }
    default:
      return { ...common, summary: `${name}: ${unitWords(show)}` };
  }
}

/** Why nothing can be restarted for this unit state, or null when something can. */
export function systemdProblem(state: ServiceState, identity: SystemdIdentity): string | null {
  if (stoppedItself(state)) {
    return `${STOPPED_ITSELF_REASON} (${identity.unit}: ${state.state}, ExecMainStatus=${state.lastExit}); BreakerBar never resets or restarts a gateway OpenClaw stopped on purpose`;
  }
  switch (state.health) {
    case 'unknown':
      return state.problem ?? state.summary;
    case 'disabled':
      return `${identity.unit} is masked: someone turned it off on purpose; \`systemctl --user unmask ${identity.unit}\` if it should run`;
    case 'unloaded':
      return state.fileExists
        ? null
        : `the gateway is not installed as a systemd user unit here: no ${identity.unit} in ${state.searched.join(', ')}; install it with \`openclaw gateway install\`, or set watchdog.restartCommand to how you run the gateway`;
    default:
      return null;
  }
}

/** The systemctl commands that bring this unit state back to an active gateway (before the unit is loaded). */
export function systemdSteps(state: ServiceState, identity: SystemdIdentity): string[][] {
  const { systemctl, unit } = identity;
  if (state.health === 'unloaded') return [[systemctl, '--user', 'daemon-reload']];
  // A crash loop counts against the unit's start limit: clear it, or systemd may refuse the restart.
  const reset = state.health === 'failed' || state.health === 'respawn_pending';
  return [...(reset ? [[systemctl, '--user', 'reset-failed', unit]] : []), [systemctl, '--user', 'restart', unit]];
}

function why(state: ServiceState): string {
  switch (state.health) {
    case 'unloaded':
      return 'it was not loaded: reloaded systemd and started it';
    case 'failed':
      return `it had failed (${state.state}${state.lastExit ? `, exit status ${state.lastExit}` : ''}): reset and restarted it`;
    case 'respawn_pending':
      return `it was crash-looping (${state.restarts ?? '?'} automatic restarts): reset and restarted it`;
    default:
      return 'restarted it';
  }
}

export async function restartSystemd(plan: RestartPlan, ctx: ExecutionContext): Promise<RestartAttempt> {
  const env = ctx.environment;
  const steps = new StepRunner(ctx);
  const finish = attemptFinisher(steps);

  const { identity, problem } = systemdIdentity(env);
  if (!identity) return finish('failed', `${plan.description}: ${problem}`, null);

  const before = await inspectSystemd(identity, env, steps);
  const blocked = systemdProblem(before, identity);
  if (blocked) return finish('failed', `${plan.description}: ${blocked}`, before);

  let todo = systemdSteps(before, identity);
  for (let i = 0; i < todo.length; i++) {
    const argv = todo[i] ?? [];
    const result = await steps.run(argv);
    const record = steps.records[steps.records.length - 1];
    // reset-failed on a unit that is not failed is harmless whatever it answers; the restart decides.
    if (!succeeded(result) && argv[2] !== 'reset-failed') {
      return finish('failed', `\`systemctl ${argv.slice(1).join(' ')}\` ${failureOf(result)}`, before, record);
    }
    if (argv[2] === 'daemon-reload') {
      const reloaded = await inspectSystemd(identity, env, steps);
      if (reloaded.loaded !== true) {
        return finish(
          'failed',
          `${identity.unit} is still not loaded after \`systemctl --user daemon-reload\`: ${reloaded.problem ?? reloaded.summary}`,
          reloaded,
          record,
        );
      }
      todo = [...todo.slice(0, i + 1), [identity.systemctl, '--user', 'start', identity.unit]];
    }
  }

  // Read while systemd shows the unit on its way (starting, a respawn pending, stopping); any other state is its answer.
  const after = await settleService(
    () => inspectSystemd(identity, env, steps),
    (state) => state.health === 'starting' || state.health === 'respawn_pending' || state.health === 'stopping',
    steps,
    ctx,
  );
  const done = `systemd unit ${identity.unit}: ${why(before)}`;
  if (after.health === 'running') {
    return finish('done', `${done}; active${after.pid !== null ? ` (pid ${after.pid})` : ''}`, after);
  }
  if (after.health === 'starting') {
    return finish('still_starting', `${done}; still starting (${after.state})`, after);
  }
  return finish('failed', `${done}, but systemd does not show it active: ${after.summary}`, after);
}

export async function verifySystemd(
  identity: SystemdIdentity,
  env: StrategyEnvironment,
  steps: StepRunner,
): Promise<StrategyVerification> {
  const state = await inspectSystemd(identity, env, steps);
  const checked = [
    `systemctl: ${identity.systemctl}`,
    state.fileExists && state.file
      ? `unit file: ${tildeFor(env, state.file)}`
      : `unit file: none in ${identity.candidates.map((c) => tildeFor(env, c)).join(', ')}`,
    `systemctl --user show ${identity.unit}: ${state.summary}`,
  ];
  // A unit file systemd cannot parse: a restart would only try daemon-reload and fail the same way.
  const broken =
    state.health === 'unloaded' && state.problem
      ? `${state.problem}; fix ${state.file ? tildeFor(env, state.file) : 'the unit file'} and run \`systemctl --user daemon-reload\``
      : null;
  const problem = systemdProblem(state, identity) ?? broken;
  return {
    runnable: problem === null,
    strategy: 'systemd',
    problem,
    program: identity.systemctl,
    checked,
    service: state,
  };
}
