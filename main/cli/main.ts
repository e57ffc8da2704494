/**
 * The `breakerbar` command line: one file per subcommand, dispatched here.
 */
import { version } from '../core/runtime/version.js';
import { type Io, parseCommandArgs, processIo, UsageError } from './command.js';
import { COMMAND_NAMES, loadCommand, loadCommands } from './commands.js';

async function mainHelp(): Promise<string> {
  const commands = await loadCommands();
  const width = Math.max(...commands.map((c) => c.name.length));
  return `Usage: breakerbar <command> [options]

BreakerBar watches an OpenClaw gateway: every model call classified into SQLite,
per-provider circuit breakers, and a watchdog.

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run \`breakerbar <command> --help\` for a command's options.
Options: -h, --help (this help), -v, --version
`;
}

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    io.out(await mainHelp());
    return name === undefined ? 2 : 0;
  }
  if (name === '-v' || name === '--version') {
    io.out(`${version()}\n`);
    return 0;
  }
  const command = await loadCommand(name);
  if (!command) {
    io.err(
      `breakerbar: unknown command "${name}". Commands: ${COMMAND_NAMES.join(', ')}. See \`breakerbar --help\`.\n`,
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
    // An unusable SQLite addon shows up wrapped in whatever opened a database first: say what it is.
    const sqlite = await import('../core/store/native-module.js');
    const problem = sqlite.nativeModuleProblem(error);
    if (problem !== null) {
      io.err(`breakerbar ${command.name}: ${sqlite.describeNativeModuleProblem(problem)}\n`);
      return 1;
    }
    if (await isExpectedError(error)) {
      io.err(`breakerbar ${command.name}: ${(error as Error).message}\n`);
      return 1;
    }
    throw error;
  }
}

/**
 * Errors that explain themselves (a bad config, a locked data directory, an
 * unreachable daemon…): one line, no stack. Their modules are loaded only here,
 * on the way out, so that a command never loads code it does not use.
 */
async function isExpectedError(error: unknown): Promise<boolean> {
  const [config, lock, localApi, store, api] = await Promise.all([
    import('../core/config/index.js'),
    import('../core/runtime/lock.js'),
    import('../api/server/local-api.js'),
    import('../core/store/store-error.js'),
    import('./api-client.js'),
  ]);
  return (
    error instanceof config.ConfigError ||
    error instanceof lock.LockError ||
    error instanceof localApi.ServeError ||
    error instanceof store.StoreError ||
    error instanceof api.ApiClientError
  );
}
