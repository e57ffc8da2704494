/**
 * Reading what launchctl says about one job, for BreakerBar's own LaunchAgent
 * and for the gateway's. Pure text parsing: the commands are run elsewhere.
 *
 * `launchctl print gui/<uid>/<label>` prints one `key = value` block per job,
 * with nested blocks (arguments, environment, endpoints ...) whose keys can
 * repeat the top-level names (`state`, `pid`): only depth 1 describes the job.
 * A job launchd does not have loaded is exit 113 with "Could not find service".
 */

export interface LaunchctlJob {
  /** `running`, `not running`, `spawn scheduled`, `waiting` ... as launchctl words it. */
  state: string | null;
  pid: number | null;
  /** The number in `last exit code` (`78: EX_CONFIG` → 78); null when it never exited. */
  lastExitCode: number | null;
  /** `last exit code` as printed (`78: EX_CONFIG`, `(never exited)`). */
  lastExit: string | null;
  /** `last exit reason` (`OS_REASON_CODESIGNING`) or `last terminating signal` (`Killed: 9`). */
  lastExitReason: string | null;
  /** How many times launchd has started it since it was loaded. */
  runs: number | null;
  /** The plist it was loaded from. */
  path: string | null;
  /** `keepalive | runatload | inferred program` */
  properties: string | null;
}

/** The top-level fields of one job's `launchctl print` block. */
export function parseLaunchctlPrint(text: string): LaunchctlJob {
  const job: LaunchctlJob = {
    state: null,
    pid: null,
    lastExitCode: null,
    lastExit: null,
    lastExitReason: null,
    runs: null,
    path: null,
    properties: null,
  };
  let depth = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '}') {
      depth--;
      continue;
    }
    const opens = line.endsWith('{');
    if (depth === 1 && !opens) {
      const match = /^([a-z][a-z ()]*?)\s*=\s*(.*)$/i.exec(line);
      if (match) assign(job, match[1] ?? '', (match[2] ?? '').trim());
    }
    if (opens) depth++;
  }
  return job;
}

function assign(job: LaunchctlJob, key: string, value: string): void {
  switch (key) {
    case 'state':
      job.state = value;
      return;
    case 'pid':
      if (/^\d+$/.test(value) && Number(value) > 0) job.pid = Number(value);
      return;
    case 'last exit code':
      job.lastExit = value;
      job.lastExitCode = /^-?\d+/.test(value) ? Number.parseInt(value, 10) : null;
      return;
    case 'last exit reason':
    case 'last terminating signal':
      job.lastExitReason ??= value;
      return;
    case 'runs':
      if (/^\d+$/.test(value)) job.runs = Number(value);
      return;
    case 'path':
      job.path = value;
      return;
    case 'properties':
      job.properties = value;
      return;
  }
}

export type LaunchctlPrintResult =
  | { kind: 'loaded'; job: LaunchctlJob }
  | { kind: 'not_loaded'; detail: string }
  | { kind: 'error'; detail: string };

/** One line from a command's output, whitespace folded. */
export function outputLine(stdout: string, stderr: string): string {
  return (stderr.trim() || stdout.trim()).replace(/\s+/g, ' ');
}

/**
 * What an exit of `launchctl print <domain>/<label>` means. "Could not find
 * service" is the only answer that proves the job is not loaded; anything else
 * that fails (no GUI domain for this user, permission) is an error, not a
 * verdict.
 */
export function readLaunchctlPrint(exitCode: number | null, stdout: string, stderr: string): LaunchctlPrintResult {
  const detail = outputLine(stdout, stderr);
  if (exitCode === 0) return { kind: 'loaded', job: parseLaunchctlPrint(stdout) };
  if (/could not find service/i.test(detail)) return { kind: 'not_loaded', detail };
  return { kind: 'error', detail: detail || `exit code ${exitCode}` };
}

/**
 * Whether `launchctl print-disabled <domain>` lists `label` as disabled: true
 * when disabled, false when explicitly enabled, null when not listed (a job
 * is enabled unless someone disabled it). Older macOS prints `=> true`
 * (disabled) / `=> false`, newer `=> disabled` / `=> enabled`.
 */
export function parseLaunchctlDisabled(text: string, label: string): boolean | null {
  const prefix = `"${label}"`;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith(prefix)) continue;
    const value = line
      .slice(prefix.length)
      .replace(/^\s*=>\s*/, '')
      .trim();
    if (value === 'disabled' || value === 'true') return true;
    if (value === 'enabled' || value === 'false') return false;
  }
  return null;
}
