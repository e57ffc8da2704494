/**
 * Whether the daemon runs as a service (launchd, systemd) or from a terminal, which decides what a
 * SIGHUP means. From a terminal, SIGHUP is the terminal going away (an SSH session closed): the
 * daemon stops cleanly instead of living on, orphaned. Under a service manager there is no terminal,
 * and SIGHUP keeps its conventional meaning: re-read the configuration (`systemctl reload`, `kill -HUP`).
 *
 * The units `breakerbar service install` writes set BREAKERBAR_SERVICE=1: an explicit mark rather than
 * a guess from the manager's own variables (INVOCATION_ID, XPC_SERVICE_NAME), which other programs
 * started by the same manager (a terminal emulator, an IDE) also inherit.
 */

export const SERVICE_ENV = 'BREAKERBAR_SERVICE';

export type HangupAction = 'reload' | 'stop';

export function runsAsService(env: NodeJS.ProcessEnv): boolean {
  return env[SERVICE_ENV] === '1';
}

export function hangupAction(env: NodeJS.ProcessEnv): HangupAction {
  return runsAsService(env) ? 'reload' : 'stop';
}
