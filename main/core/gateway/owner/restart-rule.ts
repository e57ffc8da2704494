/**
 * Whether BreakerBar may restart a gateway with this owner (pure). BreakerBar
 * works with OpenClaw's own supervision, never against it:
 * - a gateway OpenClaw stopped itself (exit 78, a newer database schema) is
 *   never restarted, whatever the strategy: every start would refuse the same
 *   way, and only upgrading OpenClaw helps;
 * - an external supervisor restarts its gateway itself: BreakerBar alerts, and
 *   restarts only through the user's watchdog.restartCommand (which is how the
 *   user tells BreakerBar to go through that supervisor);
 * - the OpenClaw app's bundled gateway has no CLI or LaunchAgent to restart it
 *   through (it lives and dies with the app): the same.
 */
import type { GatewayOwnership, OwnerBlock } from './types.js';

export function ownerRestartBlock(ownership: GatewayOwnership, restartCommand: boolean): OwnerBlock | null {
  if (ownership.stoppedItself) {
    return {
      rule: 'stopped_itself',
      owner: ownership.owner,
      who: ownership.name,
      reason:
        'OpenClaw stopped itself: its database schema is newer than this gateway (exit 78); upgrade OpenClaw. BreakerBar does not restart a gateway OpenClaw parked on purpose',
    };
  }
  if (restartCommand) return null;
  if (ownership.owner === 'external-supervisor') {
    const who = ownership.supervisor ?? ownership.name;
    return {
      rule: 'external_supervisor',
      owner: ownership.owner,
      who,
      reason: `the gateway runs under an external supervisor (${who}; OPENCLAW_SUPERVISOR_MODE=external), which restarts it: BreakerBar alerts instead. Set watchdog.restartCommand to have BreakerBar restart it through that supervisor`,
    };
  }
  if (ownership.owner === 'app-bundled') {
    return {
      rule: 'app_bundled',
      owner: ownership.owner,
      who: ownership.name,
      reason:
        "the gateway is the OpenClaw app's bundled gateway: it runs while the app runs, with no CLI or LaunchAgent to restart it through; BreakerBar alerts instead. Reopen the OpenClaw app, install the gateway service (`openclaw gateway install`), or set watchdog.restartCommand",
    };
  }
  return null;
}
