/**
 * A restart strategy's verification as the watchdog policy weighs it: can it
 * run, why not, and how the gateway's service looks to its manager.
 */
import type { ServiceHealth } from '../gateway/control.js';
import type { StrategyCheck } from './policy-inputs.js';
import type { RestartReadiness } from './restarter.js';

/** The service manager's view of the gateway, as the watchdog policy weighs it. */
const SERVICE_HEALTH: Record<ServiceHealth, StrategyCheck['service']> = {
  running: 'running',
  starting: 'running',
  respawn_pending: 'parked',
  parked: 'parked',
  unloaded: 'unloaded',
  stopped: 'stopped',
  stopping: 'stopped',
  failed: 'stopped',
  disabled: 'stopped',
  unknown: 'unknown',
};

export function strategyCheck(verification: RestartReadiness): StrategyCheck {
  return {
    runnable: verification.runnable,
    problem: verification.problem,
    service: verification.service === null ? 'none' : SERVICE_HEALTH[verification.service.health],
    owner: verification.owner,
    ownerBlock: verification.ownerBlock,
  };
}
