import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Environment, loadConfig, processEnvironment } from '../core/config/index.js';
import {
  type ActionReport,
  installService,
  type Runner,
  type ServiceContext,
  ServiceError,
  type ServiceStatus,
  servicePaths,
  serviceStatus,
  shellCommand,
  uninstallService,
} from '../core/service-managers/manager.js';
import { programArguments, UnitFileError } from '../core/service-managers/unit-files.js';
import { type Command, type Io, type Parsed, stringOption, UsageError } from './command.js';

const ACTIONS = ['install', 'uninstall', 'status'] as const;
type Action = (typeof ACTIONS)[number];
/** Other words people type for an action. */
const SYNONYMS: Record<string, Action> = { remove: 'uninstall' };

/** What the command touches, injectable so tests use a temp home and a fake launchctl/systemctl. */
export interface ServiceDeps {
  environment: () => Environment;
  cwd: () => string;
  run?: Runner;
  uid?: number;
  user?: string;
  lingerDir?: string;
  sleep?: (ms: number) => Promise<void>;
  /** The daemon's command line for a config file (default: this Node, the built CLI, `daemon`). */
  programArguments: (configFile?: string) => string[];
}

const defaultDeps: ServiceDeps = {
  environment: processEnvironment,
  cwd: () => process.cwd(),
  programArguments: (configFile) => programArguments(configFile),
};

const HELP = `Usage: breakerbar service install [--config FILE] [--dry-run]
       breakerbar service uninstall [--dry-run]     (or: service remove)
       breakerbar service status [--json]

Runs \`breakerbar daemon\` as a per-user service that starts at login and is
restarted after a crash (not after a clean stop):
  macOS  launchd agent ai.breakerbar.daemon, ~/Library/LaunchAgents/ai.breakerbar.daemon.plist,
         logs in ~/Library/Logs/BreakerBar/daemon.log and daemon.err.log
  Linux  systemd user unit ~/.config/systemd/user/breakerbar.service, logs in
         \`journalctl --user -u breakerbar.service\`; \`loginctl enable-linger\` keeps it
         running without a login session
Windows has no service support: run \`breakerbar daemon\` from Task Scheduler.

The service runs this Node binary and this installation's CLI by absolute path:
install again after moving BreakerBar or upgrading Node to a new directory.
BREAKERBAR_HOME, BREAKERBAR_CONFIG, XDG_CONFIG_HOME, OPENCLAW_STATE_DIR,
OPENCLAW_HOME and OPENCLAW_GATEWAY_PORT are copied into the service when set;
secrets are not (service files are readable by all users): put gateway.token in
the config file.

Actions:
  install     Write the service file, (re)load and start it; the config the
              daemon will read is checked first
  uninstall   Stop the service and remove its file
  status      Whether it is installed, enabled and running (exit 0 running,
              3 not running, 1 when the service manager cannot be asked)

Options:
  --config FILE   Config file the daemon reads (made absolute); default: the
                  daemon's own default (see \`breakerbar daemon --help\`)
  --dry-run       Print the file and the commands instead of writing/running them
  --json          status: print one JSON object
  -h, --help      Show this help
`;

export function createServiceCommand(deps: ServiceDeps = defaultDeps): Command {
  return {
    name: 'service',
    summary: 'Install, remove or inspect the daemon as a per-user service (launchd, systemd)',
    help: HELP,
    options: {
      config: { type: 'string' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    positionals: true,
    async run(args, io) {
      const action = actionOf(args);
      const environment = deps.environment();
      const ctx: ServiceContext = {
        platform: environment.platform,
        home: environment.home,
        env: environment.env,
        uid: deps.uid,
        user: deps.user,
        run: deps.run,
        lingerDir: deps.lingerDir,
        sleep: deps.sleep,
        dryRun: args.values['dry-run'] === true,
      };
      try {
        servicePaths(ctx); // unsupported platforms fail here, before anything else
        if (action === 'status') {
          const status = await serviceStatus(ctx);
          if (args.values.json) io.out(`${JSON.stringify(status, null, 2)}\n`);
          else io.out(renderStatus(status));
          if (status.running) return 0;
          return status.state === null && status.problems.length > 0 ? 1 : 3;
        }
        if (action === 'uninstall') return finish(await uninstallService(ctx), 'uninstall', io);
        const given = stringOption(args, 'config');
        const configFile = given === undefined ? undefined : resolve(deps.cwd(), given);
        // The daemon would fail on this config in a restart loop: fail now instead (ConfigError, exit 1).
        loadConfig(configFile, environment);
        const argv = deps.programArguments(configFile);
        const entry = argv[1];
        if (entry !== undefined && !existsSync(entry)) {
          io.err(`breakerbar service: note: ${entry} does not exist (not built yet? \`npm run build\`)\n`);
        }
        return finish(await installService({ ...ctx, programArguments: argv }), 'install', io);
      } catch (error) {
        if (error instanceof ServiceError || error instanceof UnitFileError) {
          io.err(`breakerbar service: ${error.message}\n`);
          return 1;
        }
        throw error;
      }
    },
  };
}

export const serviceCommand: Command = createServiceCommand();

function actionOf(args: Parsed): Action {
  const [given, ...extra] = args.positionals;
  const action = given === undefined ? undefined : (SYNONYMS[given] ?? given);
  if (action === undefined) throw new UsageError(`missing action: one of ${ACTIONS.join(', ')}`);
  if (!(ACTIONS as readonly string[]).includes(action)) {
    throw new UsageError(`unknown action "${action}": use one of ${ACTIONS.join(', ')}`);
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}" after ${action}`);
  if (args.values.json && action !== 'status') throw new UsageError('--json only applies to status');
  if (args.values['dry-run'] && action === 'status') throw new UsageError('--dry-run applies to install and uninstall');
  if (args.values.config !== undefined && action !== 'install')
    throw new UsageError('--config only applies to install');
  return action as Action;
}

function describeManager(report: { manager: 'launchd' | 'systemd' }): string {
  return report.manager === 'launchd' ? 'launchd agent ai.breakerbar.daemon' : 'systemd user unit breakerbar.service';
}

function finish(report: ActionReport, action: 'install' | 'uninstall', io: Io): number {
  if (report.dryRun) {
    io.out('Dry run: nothing is written or run.\n');
    for (const dir of report.dirs) io.out(`Would create directory ${dir}\n`);
    if (report.content !== undefined) io.out(`Would write ${report.file}:\n\n${report.content}\n`);
    else if (report.fileExisted) io.out(`Would remove ${report.file}\n`);
    io.out('Would run:\n');
    for (const argv of report.commands) io.out(`  ${shellCommand(argv)}\n`);
    return 0;
  }
  if (report.wrote) io.out(`Wrote ${report.file}\n`);
  if (report.removed) io.out(`Removed ${report.file}\n`);
  for (const step of report.steps) {
    io.out(`  $ ${shellCommand(step.argv)}${step.code === 0 ? '' : `  (exit ${step.code})`}\n`);
  }
  for (const problem of report.problems) io.err(`breakerbar service: ${problem}\n`);
  if (report.ok) {
    io.out(
      action === 'install'
        ? `BreakerBar daemon installed as ${describeManager(report)} and started. Check it: breakerbar service status\n`
        : report.fileExisted
          ? `BreakerBar service (${describeManager(report)}) removed.\n`
          : '',
    );
  }
  for (const note of report.notes) io.out(`${note}\n`);
  return report.ok ? 0 : 1;
}

function renderStatus(status: ServiceStatus): string {
  const yesNo = (v: boolean | null) => (v === null ? 'unknown' : v ? 'yes' : 'no');
  const rows: Array<[string, string]> = [
    ['file', `${status.file} (${status.installed ? 'installed' : 'not installed'})`],
    [status.manager === 'launchd' ? 'loaded' : 'enabled', yesNo(status.enabled)],
    ['state', `${status.state ?? 'unknown'}${status.pid !== null ? ` (pid ${status.pid})` : ''}`],
  ];
  if (status.lastExitCode !== null) rows.push(['last exit', String(status.lastExitCode)]);
  if (status.manager === 'systemd') rows.push(['linger', yesNo(status.linger)]);
  rows.push(['logs', status.logs]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return [
    `BreakerBar service (${describeManager(status)}): ${status.running ? 'running' : 'not running'}`,
    ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`),
    ...status.problems.map((p) => `  problem: ${p}`),
    ...status.notes,
    '',
  ].join('\n');
}
