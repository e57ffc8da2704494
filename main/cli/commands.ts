/**
 * The subcommands, each loaded only when it runs: `breakerbar scan` must not
 * pay for loading the daemon, the HTTP server and the doctor (measured: the
 * whole command line took 0.4 s to load, the scan command alone 0.1 s).
 */
import type { Command } from './command.js';

const LOADERS: Record<string, () => Promise<Command>> = {
  daemon: async () => (await import('./daemon.js')).daemonCommand,
  status: async () => (await import('./status.js')).statusCommand,
  restart: async () => (await import('./watchdog-control.js')).restartCommand,
  pause: async () => (await import('./watchdog-control.js')).pauseCommand,
  resume: async () => (await import('./watchdog-control.js')).resumeCommand,
  maintenance: async () => (await import('./maintenance.js')).maintenanceCommand,
  breaker: async () => (await import('./breaker-control.js')).breakerCommand,
  doctor: async () => (await import('./doctor.js')).doctorCommand,
  dashboard: async () => (await import('./dashboard.js')).dashboardCommand,
  rehearse: async () => (await import('./rehearse.js')).rehearseCommand,
  scan: async () => (await import('./scan.js')).scanCommand,
  history: async () => (await import('./history.js')).historyCommand,
  incidents: async () => (await import('./incidents.js')).incidentsCommand,
  spend: async () => (await import('./spend.js')).spendCommand,
  service: async () => (await import('./service.js')).serviceCommand,
};

/** Every subcommand's name, in the order `breakerbar --help` lists them. */
export const COMMAND_NAMES: readonly string[] = Object.keys(LOADERS);

/** The command called `name`, or null when there is none. */
export async function loadCommand(name: string): Promise<Command | null> {
  const load = Object.hasOwn(LOADERS, name) ? LOADERS[name] : undefined;
  if (load === undefined) return null;
  const command = await load();
  if (command.name !== name) throw new Error(`command table: "${name}" loads "${command.name}"`);
  return command;
}

/** All of them (for the overall help, and for tests that look at every command). */
export async function loadCommands(): Promise<Command[]> {
  return Promise.all(COMMAND_NAMES.map(async (name) => (await loadCommand(name)) as Command));
}
