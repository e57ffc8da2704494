/**
 * What the two service-manager strategies (launchd, systemd) share: a restart is
 * "inspect the job, run the manager's steps, then read the job until it runs or
 * the settle time is up", and every answer carries the steps taken. The steps
 * themselves, and what "waiting" means, are each manager's own.
 */
import { combineSteps, type StepRunner } from './steps.js';
import type { ExecutionContext, RestartAttempt, ServiceState, StepRecord } from './types.js';

/** How often a service manager is read while a job settles. */
export const SETTLE_POLL_MS = 500;
/** How long a job is given to settle when the context sets no time. */
const DEFAULT_SETTLE_MS = 10_000;

/** Makes the strategy's answer: its outcome and words, the job as last read, and every step it ran. */
export function attemptFinisher(
  steps: StepRunner,
): (
  outcome: RestartAttempt['outcome'],
  message: string,
  service: ServiceState | null,
  deciding?: StepRecord,
) => RestartAttempt {
  return (outcome, message, service, deciding) => ({
    outcome,
    message,
    pending: null,
    steps: steps.records,
    result: combineSteps(steps.records, deciding),
    service,
    durationMs: steps.elapsedMs(),
  });
}

/**
 * Reads the job until it is no longer `waiting`, or the settle time (the context's, within what is left of the
 * restart's own budget) is up; at least once.
 */
export async function settleService(
  inspect: () => Promise<ServiceState>,
  waiting: (state: ServiceState) => boolean,
  steps: StepRunner,
  ctx: ExecutionContext,
): Promise<ServiceState> {
  const budget = Math.min(ctx.settleMs ?? DEFAULT_SETTLE_MS, Math.max(0, steps.remainingMs()));
  const polls = Math.max(1, Math.ceil(budget / SETTLE_POLL_MS));
  let state = await inspect();
  for (let i = 1; i < polls && waiting(state); i++) {
    await ctx.sleep(SETTLE_POLL_MS);
    state = await inspect();
  }
  return state;
}
