/**
 * A gateway OpenClaw stopped on purpose. Since 2026.10, a gateway that finds
 * its database written by a newer OpenClaw (a newer schema) exits with status
 * 78 (EX_CONFIG) and stays down: launchd shows the job loaded but not running
 * with `last exit code = 78`, systemd the unit failed or inactive with
 * `ExecMainStatus=78`. Starting it again only repeats the refusal, and a
 * kickstart loop would hide the one thing the user must do (upgrade
 * OpenClaw), so no strategy restarts it: BreakerBar says why instead.
 */
import type { ServiceState } from './types.js';

/** The exit status OpenClaw stops itself with when its database schema is newer than the gateway. */
export const SCHEMA_NEWER_EXIT = 78;

export const STOPPED_ITSELF_REASON =
  'OpenClaw stopped itself: its database schema is newer than this gateway (exit 78); upgrade OpenClaw';

/** The number a manager printed as the last exit (`78: EX_CONFIG` from launchctl, `78` from systemctl). */
function exitNumber(lastExit: string | null): number | null {
  const match = lastExit === null ? null : /^\s*(-?\d+)/.exec(lastExit);
  return match ? Number(match[1]) : null;
}

/**
 * Whether the service manager shows the gateway parked by OpenClaw itself: its
 * last exit was 78 and the manager is neither running it nor about to (a job
 * launchd still respawns, `spawn scheduled`, was not parked: launchd is
 * throttling a crash loop, which a kickstart may clear).
 */
export function stoppedItself(service: ServiceState | null): boolean {
  if (service === null || exitNumber(service.lastExit) !== SCHEMA_NEWER_EXIT || service.pid !== null) return false;
  if (service.manager === 'launchd') return service.health === 'parked';
  return service.health === 'failed' || service.health === 'stopped';
}
