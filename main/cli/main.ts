/**
 * The `breakerbar` command line: one file per subcommand, dispatched here.
 */
import { ConfigError } from '../core/config/index.js';
import { LockError } from '../core/lock.js';
import { ServeError } from '../core/monitor.js';
import { StoreError } from '../core/store/db.js';
import { version } from '../core/version.js';
import { ApiClientError } from './api-client.js';
import { breakerCommand } from './breaker-control.js';
import { type Command, type Io, parseCommandArgs, processIo, UsageError } from './command.js';
import { daemonCommand } from './daemon.js';
import { dashboardCommand } from './dashboard.js';
import { doctorCommand } from './doctor.js';
import { historyCommand } from './history.js';
import { incidentsCommand } from './incidents.js';
import { maintenanceCommand } from './maintenance.js';
import { rehearseCommand } from './rehearse.js';
import { scanCommand } from './scan.js';
import { serviceCommand } from './service.js';
import { spendCommand } from './spend.js';
import { statusCommand } from './status.js';
import { pauseCommand, restartCommand, resumeCommand } from './watchdog-control.js';

export const COMMANDS: readonly Command[] = [
  daemonCommand,
  statusCommand,
  restartCommand,
  pauseCommand,
  resumeCommand,
  maintenanceCommand,
  breakerCommand,
  doctorCommand,
  dashboardCommand,
  rehearseCommand,
  scanCommand,
  historyCommand,
  incidentsCommand,
  spendCommand,
  serviceCommand,
];

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `Usage: breakerbar <command> [options]

BreakerBar watches an OpenClaw gateway: every model call classified into SQLite,
per-provider circuit breakers, and a watchdog.

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run \`breakerbar <command> --help\` for a command's options.
Options: -h, --help (this help), -v, --version
`;
}

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    io.out(mainHelp());
    return name === undefined ? 2 : 0;
  }
  if (name === '-v' || name === '--version') {
    io.out(`${version()}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err(
      `breakerbar: unknown command "${name}". Commands: ${COMMANDS.map((c) => c.name).join(', ')}. See \`breakerbar --help\`.\n`,
    );
    return 2;
  }
  try {
    const args = parseCommandArgs(command, rest);
    if (args.values.help) {
      io.out(command.help);
      return 0;
    }
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`breakerbar ${command.name}: ${error.message}\nSee \`breakerbar ${command.name} --help\`.\n`);
      return 2;
    }
    if (
      error instanceof ConfigError ||
      error instanceof StoreError ||
      error instanceof LockError ||
      error instanceof ServeError ||
      error instanceof ApiClientError
    ) {
      io.err(`breakerbar ${command.name}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
