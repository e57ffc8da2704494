/**
 * The vocabulary every restart strategy shares: what a plan is, what running
 * it produced, and what a service manager says about the gateway's service.
 * Strategies get the machine as a StrategyEnvironment and commands as an
 * injected runner, so each one is testable on any machine.
 */
import type { CommandResult, RunCommandOptions } from '../run-command.js';

export type RestartStrategyName = 'command' | 'openclaw' | 'launchd' | 'systemd';
export type RestartFlavour = 'safe' | 'force' | 'wait' | 'plain';

export interface StrategyEnvironment {
  platform: NodeJS.Platform;
  uid: number | null;
  /** OpenClaw profile (`--profile`), null for the default gateway. */
  profile: string | null;
  env: NodeJS.ProcessEnv;
  home: string;
  /** Whether an executable file exists at this path. */
  exists(path: string): boolean;
  /**
   * Whether a file (executable or not) exists at this path: plists and unit
   * files. Defaults to `exists` when not given.
   */
  fileExists?(path: string): boolean;
}

export interface RestartPlan {
  strategy: RestartStrategyName;
  /**
   * The command that restarts the gateway. launchd and systemd plans inspect
   * the service first and may add steps around it (load, reset), and read the
   * service again afterwards.
   */
  argv: string[];
  description: string;
}

/**
 * Where a restart stands after its command ran:
 * - done: restarted (the CLI saw it healthy, or the service manager runs it);
 * - still_starting: the new gateway is up but not ready yet;
 * - pending: accepted, but the gateway restarts later (a safe restart waiting
 *   for active work to drain, or a handoff): nothing has restarted yet;
 * - failed: did not restart.
 */
export type RestartOutcome = 'done' | 'still_starting' | 'pending' | 'failed';

export interface PendingRestart {
  /** scheduled: restarts momentarily; deferred: after active work drains; coalesced: joined one already pending. */
  kind: 'scheduled' | 'deferred' | 'coalesced';
  /** Why it waits (the gateway's summary of active work), or null. */
  reason: string | null;
  /** What is still running, one item per kind of work. */
  blockers: string[];
  /** When the gateway plans to signal the restart, from now. */
  delayMs: number | null;
  /**
   * The longest the restart should take to begin: the delay plus, for a
   * deferred restart, the CLI's drain bound (after which it forces the restart).
   */
  maxWaitMs: number | null;
  /** The gateway process that will restart. */
  pid: number | null;
}

/** Runs argv without a shell under a timeout; runCommand in production. */
export type CommandRunner = (argv: readonly string[], options: RunCommandOptions) => Promise<CommandResult>;

export interface StepRecord {
  argv: string[];
  result: CommandResult;
}

export interface ExecutionContext {
  environment: StrategyEnvironment;
  run: CommandRunner;
  /** The environment every command runs with. */
  commandEnv: NodeJS.ProcessEnv;
  /** The whole restart's budget: every step gets what is left of it. */
  timeoutMs: number;
  /** Monotonic milliseconds. */
  now(): number;
  /** Waits between reads of a service that is coming up. */
  sleep(ms: number): Promise<void>;
  /** How long a service manager may take to show the gateway running after a restart (default 10 s). */
  settleMs?: number;
}

export interface RestartAttempt {
  outcome: RestartOutcome;
  message: string;
  pending: PendingRestart | null;
  /** Every command run, in order, inspection included. */
  steps: StepRecord[];
  /** The steps as one result: the deciding step's exit, a transcript of all output. */
  result: CommandResult | null;
  /** The gateway's service as last read (launchd and systemd plans). */
  service: ServiceState | null;
  durationMs: number;
}

/**
 * How the service manager sees the gateway's service:
 * - running: loaded, with a process;
 * - starting: systemd is starting it;
 * - respawn_pending: it exited and the manager restarts it after a throttle
 *   (launchd `spawn scheduled`, systemd `auto-restart`);
 * - parked: launchd has it loaded but neither runs nor schedules it: KeepAlive
 *   is not being honoured (launchd does this after a burst of crashes);
 * - stopped / stopping: systemd inactive / deactivating;
 * - failed: systemd gave up on it (exit codes, start limit);
 * - unloaded: the manager does not have it loaded (the file may still exist);
 * - disabled: launchd disabled, systemd masked: someone turned it off;
 * - unknown: the manager could not be asked.
 */
export type ServiceHealth =
  | 'running'
  | 'starting'
  | 'respawn_pending'
  | 'parked'
  | 'stopped'
  | 'stopping'
  | 'failed'
  | 'unloaded'
  | 'disabled'
  | 'unknown';

export interface ServiceState {
  manager: 'launchd' | 'systemd';
  /** The launchd label or systemd unit. */
  name: string;
  /** What the manager's commands address: `gui/<uid>/<label>`, or the unit. */
  target: string;
  /** The plist or unit file: where the manager loaded it from, else where it is expected. */
  file: string | null;
  fileExists: boolean;
  /** Other places looked at for the file when it is missing. */
  searched: string[];
  health: ServiceHealth;
  /** null when the manager could not be asked. */
  loaded: boolean | null;
  pid: number | null;
  /** The manager's own words for the state (`spawn scheduled`, `failed/failed`). */
  state: string | null;
  /** The last exit as the manager prints it (`78: EX_CONFIG`, `1`). */
  lastExit: string | null;
  /** launchd's runs, systemd's NRestarts. */
  restarts: number | null;
  /** One line for status and notifications. */
  summary: string;
  /** Why the manager could not be asked, or what it said was wrong. */
  problem: string | null;
}

export interface StrategyVerification {
  /** Whether a restart has something real to act on here. */
  runnable: boolean;
  strategy: RestartStrategyName | null;
  /** Why it is not runnable, with the fix; null when it is. */
  problem: string | null;
  /** The program the restart runs, as found (absolute unless given relative); null when missing. */
  program: string | null;
  /** What was checked, one line each: programs found, files looked for. */
  checked: string[];
  /** The gateway's service as the manager sees it, when one was asked. */
  service: ServiceState | null;
}
