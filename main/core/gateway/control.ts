/**
 * How to restart the gateway here, whether that can work, and what an attempt
 * did. The strategies themselves live in ./strategies/ (one module each);
 * this is their one entry point.
 *
 * Preference order: the user's own `watchdog.restartCommand`; the `openclaw`
 * CLI (it knows who owns the gateway, drains it, and reports "still starting"
 * with exit 2); then the service manager directly (launchd on macOS,
 * systemd --user on Linux).
 *
 * Choosing is pure: the platform, user, profile, PATH and file checks come in
 * as a StrategyEnvironment. Verifying and executing also take the command
 * runner, so every branch is testable on any machine.
 */
import { performance } from 'node:perf_hooks';
import type { CommandResult } from './run-command.js';
import { commandPlan, interpretCommand, verifyCommand } from './strategies/command.js';
import { findExecutable, serviceProfile } from './strategies/environment.js';
import { launchdIdentity, launchdPlan, restartLaunchd, verifyLaunchd } from './strategies/launchd.js';
import { interpretOpenclaw, openclawPlan } from './strategies/openclaw-cli.js';
import { combineSteps, StepRunner } from './strategies/steps.js';
import { restartSystemd, systemdIdentity, systemdPlan, verifySystemd } from './strategies/systemd.js';
import type {
  CommandRunner,
  ExecutionContext,
  PendingRestart,
  RestartAttempt,
  RestartFlavour,
  RestartOutcome,
  RestartPlan,
  ServiceState,
  StrategyEnvironment,
  StrategyVerification,
} from './strategies/types.js';

export { EXTRA_BIN_DIRS, findExecutable } from './strategies/environment.js';
export { OPENCLAW_STILL_STARTING, reasonFromJson } from './strategies/openclaw-cli.js';
export type {
  CommandRunner,
  ExecutionContext,
  PendingRestart,
  RestartAttempt,
  RestartFlavour,
  RestartOutcome,
  RestartPlan,
  RestartStrategyName,
  ServiceHealth,
  ServiceState,
  StepRecord,
  StrategyEnvironment,
  StrategyVerification,
} from './strategies/types.js';

/** What set a restart off: the user, the gateway's health (dead, unloaded, hung) or a 429 storm. */
export type RestartTrigger = 'manual' | 'health' | 'storm';

export interface StrategyChoice {
  plan: RestartPlan | null;
  /** Why there is no plan, with a fix hint; null when there is one. */
  problem: string | null;
}

export interface RestartOptions {
  restartCommand: string[] | null;
  flavour: RestartFlavour;
  waitSec: number;
}

export interface RestartInterpretation {
  outcome: RestartOutcome;
  message: string;
  /** For 'pending': when and why the gateway restarts later; null otherwise. */
  pending: PendingRestart | null;
}

const FIX_HINT = 'set watchdog.restartCommand';

/** Picks how to restart the gateway; the flavour only applies to the openclaw CLI. */
export function chooseRestart(options: RestartOptions, env: StrategyEnvironment): StrategyChoice {
  if (options.restartCommand !== null) return commandPlan(options.restartCommand);

  const openclaw = findExecutable('openclaw', env);
  if (openclaw !== null) {
    return { plan: openclawPlan(openclaw, serviceProfile(env), options.flavour, options.waitSec), problem: null };
  }

  if (env.platform === 'darwin') {
    const { identity, problem } = launchdIdentity(env);
    if (!identity) return { plan: null, problem: `no openclaw CLI found and ${problem}: ${FIX_HINT}` };
    return { plan: launchdPlan(identity), problem: null };
  }

  if (env.platform === 'linux') {
    const { identity } = systemdIdentity(env);
    if (!identity) return { plan: null, problem: `no openclaw CLI and no systemctl on PATH: ${FIX_HINT}` };
    return { plan: systemdPlan(identity), problem: null };
  }

  return { plan: null, problem: `no openclaw CLI on PATH, not macOS/Linux: ${FIX_HINT}` };
}

/** What one restart command's exit means (the CLI's JSON for the openclaw strategy). */
export function interpretRestart(plan: RestartPlan, result: CommandResult): RestartInterpretation {
  if (plan.strategy === 'openclaw') return interpretOpenclaw(plan, result);
  return { ...interpretCommand(plan, result), pending: null };
}

/** Runs a single-command plan: the user's command or the openclaw CLI. */
async function restartWithOneCommand(plan: RestartPlan, ctx: ExecutionContext): Promise<RestartAttempt> {
  const steps = new StepRunner(ctx);
  const result = await steps.run(plan.argv);
  const { outcome, message, pending } = interpretRestart(plan, result);
  return {
    outcome,
    message,
    pending,
    steps: steps.records,
    result: combineSteps(steps.records) ?? result,
    service: null,
    durationMs: result.durationMs,
  };
}

/**
 * Performs a plan. Never throws for a command that fails: that is a failed
 * attempt with a message. launchd and systemd plans inspect, act and verify
 * (see their modules).
 */
export function executeRestart(plan: RestartPlan, ctx: ExecutionContext): Promise<RestartAttempt> {
  switch (plan.strategy) {
    case 'launchd':
      return restartLaunchd(plan, ctx);
    case 'systemd':
      return restartSystemd(plan, ctx);
    default:
      return restartWithOneCommand(plan, ctx);
  }
}

export interface VerifyOptions {
  run: CommandRunner;
  /** The environment inspection commands run with (default: the strategy environment's). */
  commandEnv?: NodeJS.ProcessEnv;
  /** Budget for all inspection commands together (default 15 s). */
  timeoutMs?: number;
  now?: () => number;
  /** Directories the restarter puts before PATH for a bare program name (Node's). */
  extraDirs?: string[];
}

const VERIFY_TIMEOUT_MS = 15_000;

/** The platform's service manager view of the gateway, for the openclaw strategy's report; null where there is none. */
export async function inspectService(env: StrategyEnvironment, steps: StepRunner): Promise<ServiceState | null> {
  if (env.platform === 'darwin') {
    const { identity } = launchdIdentity(env);
    return identity ? (await verifyLaunchd(identity, env, steps)).service : null;
  }
  if (env.platform === 'linux') {
    const { identity } = systemdIdentity(env);
    return identity ? (await verifySystemd(identity, env, steps)).service : null;
  }
  return null;
}

/**
 * Whether the restart strategy has something real to act on here, and why
 * not: the user's command exists; the openclaw CLI is installed (it handles
 * services, the app's gateway and foreground gateways itself); the LaunchAgent
 * or systemd unit is loaded, or its file is there to load. Runs inspection
 * commands only (`launchctl print`, `systemctl show`), never a restart.
 */
export async function verifyRestartStrategy(
  options: RestartOptions,
  env: StrategyEnvironment,
  verify: VerifyOptions,
): Promise<StrategyVerification> {
  const { plan, problem } = chooseRestart(options, env);
  if (!plan) return { runnable: false, strategy: null, problem, program: null, checked: [], service: null };
  const steps = new StepRunner({
    environment: env,
    run: verify.run,
    commandEnv: verify.commandEnv ?? env.env,
    timeoutMs: verify.timeoutMs ?? VERIFY_TIMEOUT_MS,
    now: verify.now ?? (() => performance.now()),
    sleep: () => Promise.resolve(),
  });
  switch (plan.strategy) {
    case 'command':
      return verifyCommand(plan, env, verify.extraDirs ?? []);
    case 'openclaw':
      return {
        runnable: true,
        strategy: 'openclaw',
        problem: null,
        program: plan.argv[0] ?? null,
        checked: [`openclaw CLI: ${plan.argv[0]}`],
        service: await inspectService(env, steps),
      };
    case 'launchd': {
      const { identity, problem: why } = launchdIdentity(env);
      if (!identity)
        return { runnable: false, strategy: 'launchd', problem: why, program: null, checked: [], service: null };
      return verifyLaunchd(identity, env, steps);
    }
    case 'systemd': {
      const { identity, problem: why } = systemdIdentity(env);
      if (!identity)
        return { runnable: false, strategy: 'systemd', problem: why, program: null, checked: [], service: null };
      return verifySystemd(identity, env, steps);
    }
  }
}
