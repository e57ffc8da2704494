/**
 * Stand-ins for the programs BreakerBar's restart strategies run, so that a
 * rehearsal exercises the real strategies (not a restart command) end to end:
 *
 * - `openclaw`: answers `gateway restart --json …` as OpenClaw 2026.9.6 does
 *   when a safe restart has to wait for active work (`result: deferred`,
 *   exit 0), then has the simulated gateway restart some time later, as the
 *   real gateway does once its work has drained.
 * - `launchctl`: a LaunchAgent job that is loaded and running until the
 *   rehearsal unloads it; then `print` answers "Could not find service"
 *   (exit 113) until `bootstrap` loads it again; `kickstart` restarts the
 *   simulated gateway.
 *
 * Each is a small Node script with the running Node's absolute path in its
 * `#!` line: a rehearsal's PATH holds only the directory of the fakes, so
 * `#!/usr/bin/env node` would not find Node. Every call is appended to one
 * log (a JSON line: program and arguments), which the rehearsal's `commands`
 * expectations read.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FakeCall {
  program: string;
  args: string[];
}

export interface FakeTools {
  /** The directory to put first on PATH. */
  bin: string;
  /** Where every call is logged. */
  log: string;
  /** The LaunchAgent job's state file (`loaded` or `unloaded`); launchd fakes only. */
  launchdState: string;
}

/** OpenClaw 2026.9.6's answer to `gateway restart --json --safe` while work is running (exit 0, nothing restarted yet). */
export function deferredRestartAnswer(pid: number): Record<string, unknown> {
  return {
    ok: true,
    result: 'deferred',
    message:
      'safe restart requested; gateway will restart after active work drains (bounded wait; may force after the timeout expires)',
    preflight: {
      safe: false,
      counts: {
        queueSize: 0,
        pendingReplies: 1,
        embeddedRuns: 1,
        cronRuns: 0,
        backgroundExecSessions: 0,
        rootRequests: 0,
        activeTasks: 0,
        totalActive: 2,
      },
      blockers: [
        { kind: 'reply', count: 1, message: '1 pending reply delivery operation(s)' },
        { kind: 'embedded-run', count: 1, message: '1 active embedded run(s)' },
      ],
      summary: 'restart deferred: 1 pending reply delivery operation(s); 1 active embedded run(s)',
    },
    restart: {
      ok: true,
      pid,
      signal: 'SIGUSR2',
      reason: 'gateway.restart.safe',
      mode: 'emit',
      cooldownMsApplied: 0,
      delayMs: 0,
      coalesced: false,
      emitHooksQueued: false,
    },
    warnings: ['restart deferred: 1 pending reply delivery operation(s); 1 active embedded run(s)'],
  };
}

/** `launchctl print gui/<uid>/<label>` of a running LaunchAgent, in launchd's layout (the fields BreakerBar reads). */
export function launchctlPrintRunning(target: string, plist: string, pid: number): string {
  return `${target} = {
\tactive count = 1
\tpath = ${plist}
\ttype = LaunchAgent
\tstate = running

\tprogram = /bin/sh
\tdomain = ${target.slice(0, target.lastIndexOf('/'))}
\tminimum runtime = 10
\texit timeout = 20
\truns = 2
\tpid = ${pid}
\timmediate reason = speculative
\tlast exit code = (never exited)

\tjob state = running

\tproperties = keepalive | runatload | inferred program
}
`;
}

/** A POST with node:http (loads in milliseconds, where fetch takes up to a second on a busy machine). */
const POST_FUNCTION = `function post(url, done) {
  const req = require('node:http').request(url, { method: 'POST', agent: false }, (res) => {
    res.resume();
    res.on('end', () => done(res.statusCode >= 200 && res.statusCode < 300 ? null : new Error('restart hook answered ' + res.statusCode)));
  });
  req.on('error', done);
  req.end();
}
`;

const header = () => `#!${process.execPath}\n'use strict';\n${POST_FUNCTION}`;

/** Appends the call to the log; shared by every fake. */
function logCall(log: string, program: string): string {
  return `require('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify({ program: ${JSON.stringify(program)}, args: process.argv.slice(2) }) + '\\n');\n`;
}

function writeScript(path: string, body: string): void {
  writeFileSync(path, body);
  chmodSync(path, 0o755);
}

function prepare(root: string): FakeTools {
  const dir = join(root, 'fakes');
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const log = join(dir, 'calls.log');
  writeFileSync(log, '');
  return { bin, log, launchdState: join(dir, 'launchd-job') };
}

/**
 * An `openclaw` whose `gateway restart` answers `deferred` and asks `restartUrl` (the rehearsal's restart
 * hook) to restart the gateway `afterMs` wall milliseconds later; any other command fails.
 */
export function writeFakeOpenclaw(root: string, restartUrl: string, afterMs: number): FakeTools {
  const tools = prepare(root);
  const answer = JSON.stringify(deferredRestartAnswer(48213), null, 2);
  writeScript(
    join(tools.bin, 'openclaw'),
    `${header()}${logCall(tools.log, 'openclaw')}
const args = process.argv.slice(2);
if (args[0] === 'gateway' && args[1] === 'restart' && args.includes('--json')) {
  post(${JSON.stringify(`${restartUrl}?afterMs=${Math.max(0, Math.round(afterMs))}`)}, (error) => {
    if (error === null) {
      process.stdout.write(${JSON.stringify(`${answer}\n`)});
      return;
    }
    process.stdout.write(JSON.stringify({ ok: false, error: String(error) }) + '\\n');
    process.exitCode = 1;
  });
} else {
  process.stderr.write('fake openclaw: unsupported command: ' + args.join(' ') + '\\n');
  process.exitCode = 1;
}
`,
  );
  return tools;
}

/**
 * A `launchctl` for one LaunchAgent job (`target` = gui/<uid>/<label>, loaded from `plist`): loaded and
 * running until the state file says `unloaded`; `bootstrap` loads it, `kickstart` posts `restartUrl`.
 */
export function writeFakeLaunchctl(root: string, restartUrl: string, target: string, plist: string): FakeTools {
  const tools = prepare(root);
  writeFileSync(tools.launchdState, 'loaded');
  const label = target.slice(target.lastIndexOf('/') + 1);
  const domain = target.slice(0, target.lastIndexOf('/'));
  const uid = domain.slice(domain.indexOf('/') + 1);
  writeScript(
    join(tools.bin, 'launchctl'),
    `${header()}${logCall(tools.log, 'launchctl')}
const fs = require('node:fs');
const args = process.argv.slice(2);
const stateFile = ${JSON.stringify(tools.launchdState)};
const loaded = () => fs.readFileSync(stateFile, 'utf8').trim() === 'loaded';
const fail = (code, text) => { process.stderr.write(text); process.exitCode = code; };
const notFound = ${JSON.stringify(`Bad request.\nCould not find service "${label}" in domain for user gui: ${uid}\n`)};
switch (args[0]) {
  case 'print':
    if (args[1] !== ${JSON.stringify(target)}) fail(113, notFound);
    else if (!loaded()) fail(113, notFound);
    else process.stdout.write(${JSON.stringify(launchctlPrintRunning(target, plist, 48213))});
    break;
  case 'print-disabled':
    process.stdout.write('disabled services = {\\n\\t"' + ${JSON.stringify(label)} + '" => enabled\\n}\\n');
    break;
  case 'bootstrap':
    if (args[1] !== ${JSON.stringify(domain)} || args[2] !== ${JSON.stringify(plist)}) fail(5, 'Bootstrap failed: 5: Input/output error\\n');
    else if (loaded()) fail(5, 'Bootstrap failed: 5: Input/output error\\n');
    else fs.writeFileSync(stateFile, 'loaded');
    break;
  case 'kickstart': {
    const target = args[args.length - 1];
    if (target !== ${JSON.stringify(target)} || !loaded()) { fail(113, 'Could not find service "' + ${JSON.stringify(label)} + '" in domain for user gui: ' + ${JSON.stringify(uid)} + '\\n'); break; }
    post(${JSON.stringify(restartUrl)}, (error) => { if (error !== null) fail(1, String(error) + '\\n'); });
    break;
  }
  default:
    fail(64, 'fake launchctl: unsupported command: ' + args.join(' ') + '\\n');
}
`,
  );
  return tools;
}

/** Every call the fakes logged, in order. */
export function readFakeCalls(tools: FakeTools): FakeCall[] {
  return readFileSync(tools.log, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as FakeCall);
}

/** The rehearsal unloads (or loads) the fake LaunchAgent job, as launchd does. */
export function setLaunchdJob(tools: FakeTools, state: 'loaded' | 'unloaded'): void {
  writeFileSync(tools.launchdState, state);
}
