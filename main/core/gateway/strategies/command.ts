/**
 * The user's own `watchdog.restartCommand`: run as given (argv, no shell),
 * exit 0 is a restart, anything else a failure with the command's last words.
 */
import type { CommandResult } from '../run-command.js';
import { findExecutable } from './environment.js';
import { failureOf, succeeded } from './steps.js';
import type { RestartOutcome, RestartPlan, StrategyEnvironment, StrategyVerification } from './types.js';

export function commandPlan(argv: string[]): { plan: RestartPlan | null; problem: string | null } {
  if (argv.length === 0 || argv[0] === '') {
    return { plan: null, problem: 'watchdog.restartCommand is empty: give the program and its arguments, or null' };
  }
  return {
    plan: { strategy: 'command', argv: [...argv], description: `restart command: ${argv.join(' ')}` },
    problem: null,
  };
}

/**
 * Runnable when its program exists: an absolute or relative path as given, a
 * bare name on PATH (the restarter puts Node's directory first, so a bare
 * `node` is found too).
 */
export function verifyCommand(plan: RestartPlan, env: StrategyEnvironment, extraDirs: string[]): StrategyVerification {
  const program = plan.argv[0] ?? '';
  const found =
    findExecutable(program, env) ??
    (program.includes('/') ? null : (extraDirs.map((dir) => `${dir}/${program}`).find((p) => env.exists(p)) ?? null));
  if (found === null) {
    return {
      runnable: false,
      strategy: 'command',
      problem: `${program} not found (watchdog.restartCommand): install it or give its absolute path`,
      program: null,
      checked: [`${program}: not found`],
      service: null,
    };
  }
  return {
    runnable: true,
    strategy: 'command',
    problem: null,
    program: found,
    checked: [found === program ? `${program}: found` : `${program}: ${found}`],
    service: null,
  };
}

export function interpretCommand(
  plan: RestartPlan,
  result: CommandResult,
): { outcome: RestartOutcome; message: string } {
  if (succeeded(result)) return { outcome: 'done', message: `${plan.description}: done` };
  return { outcome: 'failed', message: `${plan.description} ${failureOf(result)}` };
}
