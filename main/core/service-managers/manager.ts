/**
 * Installs, removes and inspects `breakerbar daemon` as a per-user service:
 * a launchd LaunchAgent on macOS, a systemd user unit on Linux. Commands run
 * through an injectable `run` and files live under an injectable home, so tests
 * never touch the real launchctl/systemctl or home directory.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseLaunchctlPrint as parseLaunchctlJob } from './launchctl-print.js';
import { SERVICE_ENV } from './run-mode.js';
import { LAUNCHD_LABEL, launchAgentPlist, SYSTEMD_UNIT, systemdUserUnit } from './unit-files.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs argv (no shell) to completion; a missing program is code 127, never a throw. */
export type Runner = (argv: string[]) => Promise<RunResult>;

export const UNSUPPORTED_PLATFORM =
  'service install supports macOS (launchd) and Linux (systemd); on Windows run `breakerbar daemon` from Task Scheduler';

/** The platform has no supported service manager, or a value cannot go into a service file. */
export class ServiceError extends Error {
  override name = 'ServiceError';
}

/**
 * Environment variables copied from the installing shell into the service, so
 * the daemon resolves the same config, home and OpenClaw directories as
 * `breakerbar daemon` run by hand. Secrets (OPENCLAW_GATEWAY_TOKEN) are not
 * copied: service files are world-readable; put the token in the config file.
 */
export const PASSED_ENV = [
  'BREAKERBAR_HOME',
  'BREAKERBAR_CONFIG',
  'XDG_CONFIG_HOME',
  'OPENCLAW_STATE_DIR',
  'OPENCLAW_HOME',
  'OPENCLAW_GATEWAY_PORT',
] as const;

export interface ServiceContext {
  platform: NodeJS.Platform;
  /** Home directory the service files go under (tests: a temp dir). */
  home: string;
  /** The installing environment: XDG_CONFIG_HOME and PASSED_ENV are read from it. */
  env: NodeJS.ProcessEnv;
  /** launchd's gui/<uid> domain (default: this process's uid). */
  uid?: number;
  /** Login name, for systemd's linger check and hint (default: this process's user). */
  user?: string;
  run?: Runner;
  /** Print nothing, change nothing: report the file and the commands instead. */
  dryRun?: boolean;
  /** Where logind records lingering users (default /var/lib/systemd/linger). */
  lingerDir?: string;
  /** Pause between launchctl retries (tests: none). */
  sleep?: (ms: number) => Promise<void>;
}

export type ServiceManagerKind = 'launchd' | 'systemd';

export interface Step extends RunResult {
  argv: string[];
}

export interface ActionReport {
  /** Whether everything needed succeeded (a dry run always does). */
  ok: boolean;
  manager: ServiceManagerKind;
  dryRun: boolean;
  /** The plist or unit file. */
  file: string;
  /** Its content, for install. */
  content?: string;
  /** Directories created (or, dry run, that would be). */
  dirs: string[];
  wrote: boolean;
  /** Uninstall: the file was there to remove (also in a dry run). */
  fileExisted: boolean;
  removed: boolean;
  /** Every command run, or (dry run) that would be, in order. */
  commands: string[][];
  /** Results of the commands that ran. */
  steps: Step[];
  /** What went wrong and how to do it by hand. */
  problems: string[];
  /** Things worth knowing (where logs go, linger ...). */
  notes: string[];
}

export interface ServiceStatus {
  manager: ServiceManagerKind;
  /** launchd label or systemd unit name. */
  name: string;
  file: string;
  /** The plist/unit file exists. */
  installed: boolean;
  /** launchd: loaded in the gui domain; systemd: is-enabled says enabled (null: unknown). */
  enabled: boolean | null;
  /** launchd `state`, systemd `is-active` (null: unknown). */
  state: string | null;
  running: boolean;
  pid: number | null;
  /** launchd only: last exit status, when it has exited. */
  lastExitCode: number | null;
  /** systemd only: whether the user lingers (runs services without a login session); null: unknown. */
  linger: boolean | null;
  logs: string;
  /** Queries that failed (e.g. no user bus). */
  problems: string[];
  notes: string[];
}

/** Runs argv with execFile, 30 s limit; never throws. */
export const defaultRun: Runner = (argv) =>
  new Promise((resolve) => {
    const [file, ...args] = argv;
    if (file === undefined) {
      resolve({ code: 127, stdout: '', stderr: 'empty command' });
      return;
    }
    execFile(file, args, { timeout: 30_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (!error) {
        resolve({ code: 0, stdout, stderr });
        return;
      }
      const err = error as NodeJS.ErrnoException & { code?: unknown };
      if (err.code === 'ENOENT') {
        resolve({ code: 127, stdout, stderr: `${file}: command not found` });
        return;
      }
      resolve({ code: typeof err.code === 'number' ? err.code : 1, stdout, stderr: stderr || err.message });
    });
  });

/** argv as a POSIX shell would need it typed, for messages and dry runs. */
export function shellCommand(argv: string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function managerFor(platform: NodeJS.Platform): ServiceManagerKind {
  if (platform === 'darwin') return 'launchd';
  if (platform === 'linux') return 'systemd';
  throw new ServiceError(UNSUPPORTED_PLATFORM);
}

export interface ServicePaths {
  manager: ServiceManagerKind;
  name: string;
  file: string;
  /** launchd only: where daemon.log / daemon.err.log go. */
  logDir: string | null;
}

/** Where the service file goes: ~/Library/LaunchAgents/<label>.plist or $XDG_CONFIG_HOME/systemd/user/breakerbar.service. */
export function servicePaths(ctx: Pick<ServiceContext, 'platform' | 'home' | 'env'>): ServicePaths {
  const manager = managerFor(ctx.platform);
  if (manager === 'launchd') {
    return {
      manager,
      name: LAUNCHD_LABEL,
      file: join(ctx.home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`),
      logDir: join(ctx.home, 'Library', 'Logs', 'BreakerBar'),
    };
  }
  const xdg = ctx.env.XDG_CONFIG_HOME?.trim();
  const configHome = xdg?.startsWith('/') ? xdg : join(ctx.home, '.config');
  return { manager, name: SYSTEMD_UNIT, file: join(configHome, 'systemd', 'user', SYSTEMD_UNIT), logDir: null };
}

const PATH_VALUED = new Set<string>([
  'BREAKERBAR_HOME',
  'BREAKERBAR_CONFIG',
  'XDG_CONFIG_HOME',
  'OPENCLAW_STATE_DIR',
  'OPENCLAW_HOME',
]);

/**
 * PASSED_ENV entries set (non-empty) in `env`. Relative paths are made absolute
 * against the installing directory: the service runs elsewhere (launchd: /, systemd: ~).
 */
export function passedEnvironment(env: NodeJS.ProcessEnv, cwd = process.cwd()): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of PASSED_ENV) {
    const value = env[name];
    if (value === undefined || value.trim() === '') continue;
    out[name] = PATH_VALUED.has(name) && !isAbsolute(value) && !value.startsWith('~') ? resolve(cwd, value) : value;
  }
  return out;
}

function uidOf(ctx: ServiceContext): number {
  if (ctx.uid !== undefined) return ctx.uid;
  const uid = process.getuid?.();
  if (uid === undefined) throw new ServiceError('cannot tell the user id for launchctl');
  return uid;
}

function userOf(ctx: ServiceContext): string | null {
  if (ctx.user !== undefined) return ctx.user;
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

/** A failed command's output, on one line (its first few lines; the cause is often not the first). */
function why(result: RunResult): string {
  const lines = (result.stderr.trim() || result.stdout.trim())
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 3);
  return lines.length > 0 ? `${lines.join(' / ')} (exit ${result.code})` : `exit ${result.code}`;
}

class Actions {
  readonly report: ActionReport;
  private readonly run: Runner;

  constructor(
    readonly ctx: ServiceContext,
    paths: ServicePaths,
  ) {
    this.run = ctx.run ?? defaultRun;
    this.report = {
      ok: true,
      manager: paths.manager,
      dryRun: ctx.dryRun === true,
      file: paths.file,
      dirs: [],
      wrote: false,
      fileExisted: existsSync(paths.file),
      removed: false,
      commands: [],
      steps: [],
      problems: [],
      notes: [],
    };
  }

  /** Runs argv, or in a dry run records it and pretends it succeeded. */
  async exec(argv: string[]): Promise<RunResult> {
    this.report.commands.push(argv);
    if (this.report.dryRun) return { code: 0, stdout: '', stderr: '' };
    const result = await this.run(argv);
    this.report.steps.push({ argv, ...result });
    return result;
  }

  mkdir(dir: string): void {
    this.report.dirs.push(dir);
    if (!this.report.dryRun) mkdirSync(dir, { recursive: true });
  }

  write(file: string, content: string): void {
    this.report.content = content;
    if (this.report.dryRun) return;
    writeFileSync(file, content, { mode: 0o644 });
    this.report.wrote = true;
  }

  remove(file: string): void {
    if (this.report.dryRun) return;
    rmSync(file, { force: true });
    this.report.removed = true;
  }

  fail(problem: string): void {
    this.report.ok = false;
    this.report.problems.push(problem);
  }
}

// ---------------------------------------------------------------------------
// install

export interface InstallOptions extends ServiceContext {
  /** The daemon's command line (see unit-files.ts programArguments()). */
  programArguments: string[];
}

export async function installService(options: InstallOptions): Promise<ActionReport> {
  const paths = servicePaths(options);
  // The mark that makes SIGHUP reload the config instead of stopping the daemon (see run-mode.ts).
  const env = { ...passedEnvironment(options.env), [SERVICE_ENV]: '1' };
  return paths.manager === 'launchd' ? installLaunchd(options, paths, env) : installSystemd(options, paths, env);
}

async function installLaunchd(
  options: InstallOptions,
  paths: ServicePaths,
  env: Record<string, string>,
): Promise<ActionReport> {
  const logDir = paths.logDir as string;
  const content = launchAgentPlist({ label: paths.name, programArguments: options.programArguments, logDir, env });
  const a = new Actions(options, paths);
  const domain = `gui/${uidOf(options)}`;
  const target = `${domain}/${paths.name}`;
  a.mkdir(dirname(paths.file));
  a.mkdir(logDir);
  a.write(paths.file, content);
  // Unload a previous version first; failing here only means none was loaded.
  await a.exec(['launchctl', 'bootout', target]);
  // A service disabled earlier (launchctl disable) refuses to bootstrap; clear that.
  await a.exec(['launchctl', 'enable', target]);
  const bootstrap = ['launchctl', 'bootstrap', domain, paths.file];
  let result = await a.exec(bootstrap);
  // bootout returns before the old instance is fully gone; bootstrap then fails
  // with "5: Input/output error" for a moment. Retry a couple of times.
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 0; result.code !== 0 && attempt < 2; attempt++) {
    await sleep(1000);
    result = await a.exec(bootstrap);
  }
  if (result.code !== 0) {
    a.fail(
      `launchctl bootstrap failed: ${why(result)}. The plist is written to ${paths.file}; ` +
        `load it by hand with \`${shellCommand(bootstrap)}\` from a logged-in GUI session ` +
        '(over SSH without one, the gui domain is not available).',
    );
  }
  a.report.notes.push(`logs: ${join(logDir, 'daemon.log')} and ${join(logDir, 'daemon.err.log')}`);
  return a.report;
}

function systemctlUnusable(result: RunResult): boolean {
  return (
    result.code === 127 ||
    /Failed to connect to bus|No medium found|DBUS_SESSION_BUS_ADDRESS|XDG_RUNTIME_DIR/i.test(result.stderr)
  );
}

function manualSystemd(paths: ServicePaths, argv: string[]): string {
  return (
    `The unit is written to ${paths.file}. Start it by hand from a login session with a user bus ` +
    `(\`systemctl --user daemon-reload && systemctl --user enable --now ${SYSTEMD_UNIT}\`), ` +
    `or run \`${shellCommand(argv)}\` directly (e.g. under a supervisor in a container).`
  );
}

async function installSystemd(
  options: InstallOptions,
  paths: ServicePaths,
  env: Record<string, string>,
): Promise<ActionReport> {
  const content = systemdUserUnit({ execStart: options.programArguments, env });
  const a = new Actions(options, paths);
  a.mkdir(dirname(paths.file));
  a.write(paths.file, content);
  const reload = await a.exec(['systemctl', '--user', 'daemon-reload']);
  if (reload.code !== 0) {
    const what = systemctlUnusable(reload) ? 'systemctl --user is not usable here (no user service manager/bus)' : '';
    a.fail(
      `${what ? `${what}: ` : 'systemctl --user daemon-reload failed: '}${why(reload)}. ${manualSystemd(paths, options.programArguments)}`,
    );
    return a.report;
  }
  const enable = await a.exec(['systemctl', '--user', 'enable', '--now', SYSTEMD_UNIT]);
  if (enable.code !== 0) {
    a.fail(
      `systemctl --user enable --now ${SYSTEMD_UNIT} failed: ${why(enable)}. ${manualSystemd(paths, options.programArguments)}`,
    );
    return a.report;
  }
  a.report.notes.push(`logs: journalctl --user -u ${SYSTEMD_UNIT} -f`);
  const hint = lingerHint(options);
  if (hint) a.report.notes.push(hint);
  return a.report;
}

// ---------------------------------------------------------------------------
// uninstall

export async function uninstallService(ctx: ServiceContext): Promise<ActionReport> {
  const paths = servicePaths(ctx);
  const a = new Actions(ctx, paths);
  const present = a.report.fileExisted;
  if (paths.manager === 'launchd') {
    const target = `gui/${uidOf(ctx)}/${paths.name}`;
    const bootout = await a.exec(['launchctl', 'bootout', target]);
    if (bootout.code !== 0 && !ctx.dryRun) a.report.notes.push(`launchctl bootout: ${why(bootout)} (was not loaded)`);
    if (present) a.remove(paths.file);
  } else {
    const disable = await a.exec(['systemctl', '--user', 'disable', '--now', SYSTEMD_UNIT]);
    // "not loaded"/"does not exist" just means it was never enabled; a missing bus is a real problem
    // only while the unit file is there (the service may be running under a manager we cannot reach).
    if (disable.code !== 0 && present && systemctlUnusable(disable)) {
      a.fail(
        `systemctl --user is not usable here: ${why(disable)}. If the service is running, stop it from a login ` +
          `session with \`systemctl --user disable --now ${SYSTEMD_UNIT}\`.`,
      );
    }
    if (present) a.remove(paths.file);
    if (present || ctx.dryRun) {
      const reload = await a.exec(['systemctl', '--user', 'daemon-reload']);
      if (reload.code !== 0 && a.report.ok) a.fail(`systemctl --user daemon-reload failed: ${why(reload)}`);
    }
  }
  if (!present && !ctx.dryRun) a.report.notes.push(`not installed: ${paths.file} does not exist`);
  return a.report;
}

// ---------------------------------------------------------------------------
// status

export async function serviceStatus(ctx: ServiceContext): Promise<ServiceStatus> {
  const paths = servicePaths(ctx);
  const run = ctx.run ?? defaultRun;
  const installed = existsSync(paths.file);
  const base = {
    name: paths.name,
    file: paths.file,
    installed,
    enabled: null,
    state: null,
    running: false,
    pid: null,
    lastExitCode: null,
    linger: null,
    problems: [] as string[],
    notes: [] as string[],
  };
  if (paths.manager === 'launchd') {
    const logDir = paths.logDir as string;
    const status: ServiceStatus = {
      ...base,
      manager: 'launchd',
      logs: `${join(logDir, 'daemon.log')}, ${join(logDir, 'daemon.err.log')}`,
    };
    const printed = await run(['launchctl', 'print', `gui/${uidOf(ctx)}/${paths.name}`]);
    if (printed.code === 0) {
      const info = parseLaunchctlPrint(printed.stdout);
      status.enabled = true;
      status.state = info.state;
      status.pid = info.pid;
      status.running = info.state === 'running' && info.pid !== null;
      status.lastExitCode = info.lastExitCode;
    } else if (printed.code === 127) {
      status.problems.push(`launchctl print failed: ${why(printed)}`);
    } else {
      // "Could not find service ... in domain": installed or not, it is not loaded.
      status.enabled = false;
      status.state = 'not loaded';
    }
    return status;
  }
  const status: ServiceStatus = { ...base, manager: 'systemd', logs: `journalctl --user -u ${SYSTEMD_UNIT}` };
  const active = await run(['systemctl', '--user', 'is-active', SYSTEMD_UNIT]);
  const activeWord = active.stdout.trim().split('\n')[0]?.trim() ?? '';
  if (activeWord) status.state = activeWord;
  else status.problems.push(`systemctl --user is-active failed: ${why(active)}`);
  const enabled = await run(['systemctl', '--user', 'is-enabled', SYSTEMD_UNIT]);
  const enabledWord = enabled.stdout.trim().split('\n')[0]?.trim() ?? '';
  if (enabledWord) status.enabled = enabledWord === 'enabled';
  else if (installed) status.problems.push(`systemctl --user is-enabled failed: ${why(enabled)}`);
  else status.enabled = false;
  if (status.state === 'active') {
    status.running = true;
    const shown = await run(['systemctl', '--user', 'show', '--property=MainPID', '--value', SYSTEMD_UNIT]);
    const pid = Number(shown.stdout.trim());
    if (shown.code === 0 && Number.isInteger(pid) && pid > 0) status.pid = pid;
  }
  status.linger = lingers(ctx);
  const hint = lingerHint(ctx);
  if (hint && installed) status.notes.push(hint);
  return status;
}

export interface LaunchctlInfo {
  state: string | null;
  pid: number | null;
  lastExitCode: number | null;
}

/** The top-level `state`, `pid` and `last exit code` of `launchctl print gui/<uid>/<label>`. */
export function parseLaunchctlPrint(text: string): LaunchctlInfo {
  const { state, pid, lastExitCode } = parseLaunchctlJob(text);
  return { state, pid, lastExitCode };
}

function lingers(ctx: ServiceContext): boolean | null {
  const user = userOf(ctx);
  if (!user) return null;
  return existsSync(join(ctx.lingerDir ?? '/var/lib/systemd/linger', user));
}

function lingerHint(ctx: ServiceContext): string | null {
  if (lingers(ctx) === true) return null;
  const user = userOf(ctx) ?? '$USER';
  return (
    `hint: systemd stops user services when your last session ends; to keep BreakerBar running ` +
    `without a login session (e.g. on a server), run \`loginctl enable-linger ${user}\` once.`
  );
}
