/**
 * `openclaw [--profile P] gateway restart --json [--safe|--force|--wait Ns]`:
 * the CLI knows who owns the gateway (LaunchAgent, systemd unit, a foreground
 * process) and drains it, so it is preferred whenever it is installed.
 *
 * What its `--json` answer means (exit code, then the `result` field):
 * - 0, `restarted`: restarted and healthy.
 * - 0, `scheduled` / `deferred` / `coalesced`: accepted, the gateway restarts
 *   later: `--safe` asks the running gateway to restart once its active work
 *   has drained (`deferred` while work is running, forced after a bounded
 *   wait), and a restart requested from inside the gateway's own service is
 *   handed to a helper (`scheduled`). Nothing has restarted yet.
 * - 2, `still-starting`: restarted, the new gateway is still starting.
 * - 1: failed; `error` says why. Except `restart-health-failed`: it did
 *   restart the gateway and gave up waiting for its health checks (60–90 s).
 *   On a busy machine OpenClaw can take minutes to start, so that restart is
 *   still starting, given the startup grace like exit 2: treated as failed, the
 *   dead probes gathered while it ran triggered a second restart at once, which
 *   stopped the gateway as it was coming up (seen on the real gateway, 2026.9.6).
 */
import { formatters } from '../../../words/i18n.js';
import type { CommandResult } from '../run-command.js';
import { failureOf, shorten, succeeded } from './steps.js';
import type { PendingRestart, RestartFlavour, RestartOutcome, RestartPlan } from './types.js';

/** Exit code of `openclaw gateway restart` when the new gateway is still starting. */
export const OPENCLAW_STILL_STARTING = 2;

/**
 * How long a deferred safe restart waits for active work before the gateway
 * forces it (the gateway's default; `gateway.reload.deferralTimeoutMs` on
 * older releases can change it).
 */
export const OPENCLAW_SAFE_RESTART_MAX_DEFERRAL_MS = 5 * 60_000;

function flavourArgs(flavour: RestartFlavour, waitSec: number): string[] {
  switch (flavour) {
    case 'safe':
      return ['--safe'];
    case 'force':
      return ['--force'];
    case 'wait':
      return ['--wait', `${Math.max(1, Math.round(waitSec))}s`];
    case 'plain':
      return [];
  }
}

export function openclawPlan(
  openclaw: string,
  profile: string | null,
  flavour: RestartFlavour,
  waitSec: number,
): RestartPlan {
  const argv = [
    openclaw,
    ...(profile ? ['--profile', profile] : []),
    'gateway',
    'restart',
    '--json',
    ...flavourArgs(flavour, waitSec),
  ];
  const how = flavour === 'wait' ? `wait ${argv[argv.length - 1]}` : flavour;
  return {
    strategy: 'openclaw',
    argv,
    description: `openclaw gateway restart (${how}${profile ? `, profile ${profile}` : ''})`,
  };
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The JSON object the CLI printed: all of stdout, or (when something logged
 * first) the last `{` at the start of a line through the end.
 */
export function parseCliJson(stdout: string): Json | null {
  const text = stdout.trim();
  const starts = [0];
  for (let i = text.indexOf('\n{'); i !== -1; i = text.indexOf('\n{', i + 1)) starts.push(i + 1);
  for (const start of starts.reverse()) {
    try {
      const parsed: unknown = JSON.parse(text.slice(start));
      if (isRecord(parsed)) return parsed;
    } catch {
      // Not JSON from here: try an earlier start.
    }
  }
  return null;
}

function str(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? shorten(value) : null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/**
 * A short reason from the CLI's `--json` output, whatever its exact shape:
 * the first string among the usual fields (`error` may be a string or an
 * object with a message). Null when stdout is not a JSON object.
 */
export function reasonFromJson(stdout: string): string | null {
  const record = parseCliJson(stdout);
  if (record === null) return null;
  if (isRecord(record.error)) {
    const message = str(record.error.message);
    if (message) return message;
  }
  for (const key of ['error', 'message', 'reason', 'detail', 'status'] as const) {
    const value = str(record[key]);
    if (value) return value;
  }
  return null;
}

const PENDING_KINDS = ['scheduled', 'deferred', 'coalesced'] as const;

/** What a `scheduled`/`deferred`/`coalesced` answer says about the restart to come. */
export function pendingFromJson(json: Json): PendingRestart | null {
  const word = str(json.result) ?? str(json.status);
  const kind = PENDING_KINDS.find((k) => k === word);
  if (!kind) return null;
  const preflight = isRecord(json.preflight) ? json.preflight : {};
  const restart = isRecord(json.restart) ? json.restart : {};
  const blockers = Array.isArray(preflight.blockers)
    ? preflight.blockers.map((b) => (isRecord(b) ? str(b.message) : str(b))).filter((b): b is string => b !== null)
    : [];
  const summary = str(preflight.summary);
  const reason = blockers.length > 0 ? (summary?.replace(/^restart deferred:\s*/i, '') ?? blockers.join('; ')) : null;
  const delayMs = num(restart.delayMs);
  const bound = kind === 'scheduled' ? 0 : OPENCLAW_SAFE_RESTART_MAX_DEFERRAL_MS;
  return {
    kind,
    reason,
    blockers,
    delayMs,
    maxWaitMs: (delayMs ?? 0) + bound,
    pid: num(restart.pid),
  };
}

/** Restart details are stored in English. */
const EN = formatters('en');
const seconds = (ms: number) => EN.duration(ms);

function pendingMessage(description: string, pending: PendingRestart): string {
  const when = pending.delayMs !== null && pending.delayMs > 0 ? ` in ${seconds(pending.delayMs)}` : '';
  switch (pending.kind) {
    case 'scheduled':
      return `${description}: restart scheduled${when || ', momentarily'}`;
    case 'deferred':
      return `${description}: restart deferred until active work drains${pending.reason ? ` (${pending.reason})` : ''}; forced after at most ${seconds(pending.maxWaitMs ?? 0)}`;
    case 'coalesced':
      return `${description}: joined a restart already pending${when}${pending.reason ? ` (${pending.reason})` : ''}`;
  }
}

export interface CliInterpretation {
  outcome: RestartOutcome;
  message: string;
  pending: PendingRestart | null;
}

export function interpretOpenclaw(plan: RestartPlan, result: CommandResult): CliInterpretation {
  // OpenClaw 2026.7 prints `--safe --json`'s answer on stderr (stdout empty); 2026.9 on stdout.
  const jsonText = parseCliJson(result.stdout) !== null || result.stdout.trim() !== '' ? result.stdout : result.stderr;
  const json = result.spawnError === null ? parseCliJson(jsonText) : null;
  const reason = reasonFromJson(jsonText);
  if (succeeded(result)) {
    if (json?.ok === false) {
      return {
        outcome: 'failed',
        message: `${plan.description} failed: ${reason ?? 'the CLI said ok: false'}`,
        pending: null,
      };
    }
    const pending = json ? pendingFromJson(json) : null;
    if (pending) return { outcome: 'pending', message: pendingMessage(plan.description, pending), pending };
    return { outcome: 'done', message: `${plan.description}: done`, pending: null };
  }
  if (result.spawnError === null && !result.timedOut && result.signal === null) {
    if (result.exitCode === OPENCLAW_STILL_STARTING) {
      return {
        outcome: 'still_starting',
        message: `${plan.description}: gateway still starting${reason ? `: ${reason}` : ''}`,
        pending: null,
      };
    }
    if (json && str(json.result) === 'restart-health-failed') {
      return {
        outcome: 'still_starting',
        message: `${plan.description}: restarted, not healthy yet when OpenClaw stopped waiting${reason ? ` (${reason})` : ''}; waiting for it to start`,
        pending: null,
      };
    }
  }
  return { outcome: 'failed', message: `${plan.description} ${failureOf(result, reason)}`, pending: null };
}
