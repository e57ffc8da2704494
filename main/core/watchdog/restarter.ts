/**
 * Performs one gateway restart: picks the strategy and the openclaw CLI
 * flavour that fit the trigger, runs its commands without a shell under a
 * timeout, and reads what they say. Never throws: a strategy that cannot run
 * is a failed restart with a message, not a crash.
 */
import { delimiter, dirname, isAbsolute } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Config, Environment } from '../config/index.js';
import {
  chooseRestart,
  executeRestart,
  type PendingRestart,
  type RestartOutcome,
  type RestartPlan,
  type ServiceState,
  type StepRecord,
  type StrategyEnvironment,
  type StrategyVerification,
  verifyRestartStrategy,
} from '../gateway/control.js';
import { decideOwner } from '../gateway/owner/decide-owner.js';
import { gatewayPort, gatherOwnerFacts } from '../gateway/owner/gather.js';
import { ownerRestartBlock } from '../gateway/owner/restart-rule.js';
import type { GatewayOwnership, OwnerBlock } from '../gateway/owner/types.js';
import { type CommandResult, runCommand } from '../gateway/run-command.js';
import { strategyEnvironment } from '../gateway/strategy-environment.js';
import { type RESTART_FLAVOURS, type RestartSettings, restarterSettings } from './config.js';
import type { RestartOrder } from './policy-decisions.js';

type Flavour = (typeof RESTART_FLAVOURS)[number];

/**
 * The watchdog's restart keys (config.ts; `stormRestart` off: a storm never restarts the gateway, the policy
 * orders none and a plan for one is refused), and where the gateway listens.
 */
export interface RestarterSettings extends RestartSettings {
  /** The gateway's port, to find the process listening on it (who owns the gateway); null or absent: not looked for. */
  gatewayPort?: number | null;
}

/**
 * The strategy's verification weighed against who owns the gateway: `runnable` is false, and `problem` says
 * why, when the owner forbids BreakerBar's restart (see gateway/owner/restart-rule.ts).
 */
export interface RestartReadiness extends StrategyVerification {
  /** Who owns the gateway, with the evidence; null when it could not be read. */
  owner: GatewayOwnership | null;
  /** Why the owner forbids BreakerBar's restart, or null. */
  ownerBlock: OwnerBlock | null;
}

export interface RestartExecution {
  plan: RestartPlan | null;
  /** 'pending': the gateway accepted the restart and performs it later (see `pending`). */
  outcome: RestartOutcome;
  message: string;
  /** All commands as one result: the deciding exit, every step's output. */
  result: CommandResult | null;
  durationMs: number;
  /** When and why a pending restart happens later; null otherwise. */
  pending: PendingRestart | null;
  /** Every command run, inspection included. */
  steps: StepRecord[];
  /** The gateway's service as launchd/systemd showed it last (service strategies). */
  service: ServiceState | null;
}

/** Time and waiting, injectable so tests wait on nothing real. */
export interface RestarterClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: RestarterClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * The flavour for a trigger, or null when the trigger restarts nothing (storm restarts off); `force` (the
 * menu's second choice) overrides a manual restart's.
 */
export function flavourFor(
  order: Pick<RestartOrder, 'trigger'>,
  settings: RestarterSettings,
  force = false,
): Flavour | null {
  if (order.trigger === 'manual') return force ? 'force' : settings.manualRestart;
  if (order.trigger === 'health') return settings.healthRestart;
  return settings.stormRestart === 'off' ? null : settings.stormRestart;
}

/** Why a storm plans no restart. */
const STORM_RESTART_OFF = 'watchdog.stormRestart is off: a 429 storm is alerted and waited out, not restarted';

export class Restarter {
  /** The owner the last verification found: a restart in between is held to it, and a gateway gone quiet keeps it. */
  private lastOwner: GatewayOwnership | null = null;

  constructor(
    private readonly settings: RestarterSettings,
    private readonly environment: StrategyEnvironment,
    private readonly run: typeof runCommand = runCommand,
    private readonly clock: RestarterClock = realClock,
  ) {}

  /** What would run for a trigger (doctor and status show it), or why nothing can. */
  plan(order: Pick<RestartOrder, 'trigger'>, force = false): { plan: RestartPlan | null; problem: string | null } {
    const flavour = flavourFor(order, this.settings, force);
    if (flavour === null) return { plan: null, problem: STORM_RESTART_OFF };
    return chooseRestart(
      {
        restartCommand: this.settings.restartCommand,
        flavour,
        waitSec: this.settings.stormWaitSec,
      },
      this.environment,
    );
  }

  /**
   * Whether the strategy has something real to act on here (the program, the
   * CLI, the loaded service or its file), and how the gateway's service looks.
   * Runs only inspection commands. The strategy is the same for every
   * trigger; only the CLI's flavour differs.
   */
  async verify(answering: boolean | null = null): Promise<RestartReadiness> {
    const plan = this.plan({ trigger: 'manual' }).plan;
    const verification = await verifyRestartStrategy(
      { restartCommand: this.settings.restartCommand, flavour: this.settings.manualRestart, waitSec: 0 },
      this.environment,
      {
        run: this.run,
        commandEnv: plan ? this.commandEnv(plan) : this.environment.env,
        now: this.clock.now,
        extraDirs: [dirname(process.execPath)],
      },
    );
    const facts = await gatherOwnerFacts(
      // The service as the strategy read it, else read now: a parked gateway matters whatever the strategy.
      { port: this.settings.gatewayPort ?? null, service: verification.service ?? undefined, answering },
      { environment: this.environment, run: this.run, now: this.clock.now },
    );
    const owner = decideOwner(facts, this.lastOwner);
    this.lastOwner = owner;
    const ownerBlock = ownerRestartBlock(owner, this.settings.restartCommand !== null);
    return {
      ...verification,
      runnable: verification.runnable && ownerBlock === null,
      problem: ownerBlock?.reason ?? verification.problem,
      owner,
      ownerBlock,
    };
  }

  /** Why the owner seen last forbids a restart now, or null. */
  ownerBlock(): OwnerBlock | null {
    return this.lastOwner === null ? null : ownerRestartBlock(this.lastOwner, this.settings.restartCommand !== null);
  }

  /**
   * launchd and systemd start BreakerBar with a tiny PATH: the openclaw CLI is a
   * `#!/usr/bin/env node` script, so its own directory and Node's go first.
   */
  private commandEnv(plan: RestartPlan): NodeJS.ProcessEnv {
    const env = this.environment.env;
    const program = plan.argv[0] ?? '';
    const dirs = [isAbsolute(program) ? dirname(program) : null, dirname(process.execPath), env.PATH ?? null];
    return { ...env, PATH: [...new Set(dirs.filter((d): d is string => !!d))].join(delimiter) };
  }

  /** Restarts the gateway; the outcome may be 'pending' (a restart the gateway performs later). */
  async execute(order: RestartOrder, force = false): Promise<RestartExecution> {
    const { plan, problem } = this.plan(order, force);
    // A manual restart too: the owner's rule holds for every trigger (it is read at each verification).
    const blocked = this.ownerBlock();
    if (!plan || blocked) {
      return {
        plan,
        outcome: 'failed',
        message: blocked ? `not restarting: ${blocked.reason}` : (problem ?? 'no restart strategy'),
        result: null,
        durationMs: 0,
        pending: null,
        steps: [],
        service: null,
      };
    }
    const attempt = await executeRestart(plan, {
      environment: this.environment,
      run: this.run,
      commandEnv: this.commandEnv(plan),
      timeoutMs: this.settings.restartTimeoutMs,
      now: this.clock.now,
      sleep: this.clock.sleep,
    });
    return {
      plan,
      outcome: attempt.outcome,
      message: attempt.message,
      result: attempt.result,
      durationMs: attempt.durationMs,
      pending: attempt.pending,
      steps: attempt.steps,
      service: attempt.service,
    };
  }
}

/**
 * The restarter a config makes, for the daemon's watchdog and the doctor's check alike: the restart settings, the
 * gateway's port (it finds the process listening on it: who owns the gateway) and the strategies' view of the
 * machine.
 */
export function restarterFor(
  config: Config,
  environment: Environment,
  gatewayBaseUrl: string,
  run: typeof runCommand = runCommand,
): Restarter {
  return new Restarter(
    { ...restarterSettings(config.watchdog), gatewayPort: gatewayPort(gatewayBaseUrl) },
    strategyEnvironment(environment, config.profile),
    run,
  );
}
