/**
 * Performs one gateway restart: picks the strategy and the openclaw CLI
 * flavour that fit the trigger, runs the command without a shell under a
 * timeout, and reads what it says. Never throws: a strategy that cannot run is
 * a failed restart with a message, not a crash.
 */
import { delimiter, dirname, isAbsolute } from 'node:path';
import type { RESTART_FLAVOURS } from '../config/index.js';
import { chooseRestart, interpretRestart, type RestartPlan, type StrategyEnvironment } from '../gateway/control.js';
import { type CommandResult, runCommand } from '../gateway/run-command.js';
import type { RestartOrder, RestartOutcome } from './policy.js';

type Flavour = (typeof RESTART_FLAVOURS)[number];

export interface RestarterSettings {
  restartCommand: string[] | null;
  restartTimeoutMs: number;
  manualRestart: Flavour;
  healthRestart: Flavour;
  stormRestart: Flavour;
  stormWaitSec: number;
}

export interface RestartExecution {
  plan: RestartPlan | null;
  outcome: RestartOutcome;
  message: string;
  result: CommandResult | null;
  durationMs: number;
}

/** The flavour for a trigger; `force` (the menu's second choice) overrides a manual restart's. */
export function flavourFor(order: Pick<RestartOrder, 'trigger'>, settings: RestarterSettings, force = false): Flavour {
  if (order.trigger === 'manual') return force ? 'force' : settings.manualRestart;
  return order.trigger === 'health' ? settings.healthRestart : settings.stormRestart;
}

export class Restarter {
  constructor(
    private readonly settings: RestarterSettings,
    private readonly environment: StrategyEnvironment,
    private readonly run: typeof runCommand = runCommand,
  ) {}

  /** What would run for a trigger (doctor and status show it), or why nothing can. */
  plan(order: Pick<RestartOrder, 'trigger'>, force = false): { plan: RestartPlan | null; problem: string | null } {
    return chooseRestart(
      {
        restartCommand: this.settings.restartCommand,
        flavour: flavourFor(order, this.settings, force),
        waitSec: this.settings.stormWaitSec,
      },
      this.environment,
    );
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

  async restart(order: RestartOrder, force = false): Promise<RestartExecution> {
    const { plan, problem } = this.plan(order, force);
    if (!plan) {
      return { plan: null, outcome: 'failed', message: problem ?? 'no restart strategy', result: null, durationMs: 0 };
    }
    const result = await this.run(plan.argv, { timeoutMs: this.settings.restartTimeoutMs, env: this.commandEnv(plan) });
    const { outcome, message } = interpretRestart(plan, result);
    return { plan, outcome, message, result, durationMs: result.durationMs };
  }
}
