/**
 * The files that install `breakerbar daemon` as a per-user service: a launchd
 * LaunchAgent plist (macOS) and a systemd user unit (Linux). Pure text
 * generators; writing them and telling launchctl/systemctl is manager.ts's job.
 */
import { dirname, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LAUNCHD_LABEL = 'ai.breakerbar.daemon';
export const SYSTEMD_UNIT = 'breakerbar.service';

/** A value that cannot be written into a service file (control characters, a bad variable name ...). */
export class UnitFileError extends Error {
  override name = 'UnitFileError';
}

/**
 * `breakerbar daemon` as a service runs it: this Node binary, the built CLI
 * entry point (absolute), and `--config FILE` when one was named.
 */
export function programArguments(configFile?: string, moduleUrl: string = import.meta.url): string[] {
  return [process.execPath, cliEntryPath(moduleUrl), 'daemon', ...(configFile ? ['--config', configFile] : [])];
}

/**
 * Absolute path of `dist/main/cli/index.js`. Built, this module is
 * dist/main/core/service-managers/unit-files.js, two directories below the CLI; run from
 * source (tests: main/core/service-managers/unit-files.ts) it points at the build output
 * in dist/ instead, since a service must run compiled JavaScript.
 */
export function cliEntryPath(moduleUrl: string = import.meta.url): string {
  const here = fileURLToPath(moduleUrl);
  return here.endsWith('.ts')
    ? fileURLToPath(new URL('../../../dist/main/cli/index.js', moduleUrl))
    : fileURLToPath(new URL('../../cli/index.js', moduleUrl));
}

/**
 * PATH for the daemon. Services start with a minimal PATH (launchd:
 * /usr/bin:/bin:/usr/sbin:/sbin; systemd --user: the manager's), which finds
 * neither a Node installed by nvm/Homebrew nor the `openclaw` CLI installed next
 * to it: put the Node binary's directory first, then the usual install places.
 */
export function servicePath(nodeBinary: string, platform: NodeJS.Platform): string {
  const dirs = [
    isAbsolute(nodeBinary) ? dirname(nodeBinary) : undefined,
    ...(platform === 'darwin' ? ['/opt/homebrew/bin'] : []),
    '/usr/local/bin',
    '/usr/bin',
    '/bin',
    '/usr/sbin',
    '/sbin',
  ];
  return [...new Set(dirs.filter((d): d is string => d !== undefined))].join(':');
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkEnvNames(env: Record<string, string>): void {
  for (const name of Object.keys(env)) {
    if (!ENV_NAME.test(name)) throw new UnitFileError(`"${name}" is not a valid environment variable name`);
  }
}

// ---------------------------------------------------------------------------
// launchd

export interface LaunchAgentOptions {
  /** launchd label, also the plist's file name (default ai.breakerbar.daemon). */
  label?: string;
  /** The command: argv[0] must be an absolute path (launchd does no PATH lookup for it here). */
  programArguments: string[];
  /** Directory of daemon.log (stdout) and daemon.err.log (stderr), e.g. ~/Library/Logs/BreakerBar. */
  logDir: string;
  /** Extra environment; overrides the default PATH when it names PATH. */
  env?: Record<string, string>;
}

/** XML 1.0 allows tab, LF, CR and every code point from U+0020 except lone surrogates and U+FFFE/U+FFFF. */
function xmlCanHold(text: string): boolean {
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (cp < 0x20 && cp !== 0x9 && cp !== 0xa && cp !== 0xd) return false;
    if ((cp >= 0xd800 && cp <= 0xdfff) || cp === 0xfffe || cp === 0xffff) return false;
  }
  return true;
}

/** Escapes text for an XML element (all five predefined entities, so it is safe in attributes too). */
export function xmlEscape(text: string): string {
  if (!xmlCanHold(text)) {
    throw new UnitFileError(`${JSON.stringify(text)} contains a character an XML property list cannot hold`);
  }
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** `~/Library/LaunchAgents/<label>.plist` for `breakerbar daemon`. */
export function launchAgentPlist(options: LaunchAgentOptions): string {
  const { label = LAUNCHD_LABEL, programArguments: argv, logDir } = options;
  const first = argv[0];
  if (first === undefined || !isAbsolute(first)) {
    throw new UnitFileError('the program to run must be an absolute path');
  }
  const env = { PATH: servicePath(first, 'darwin'), ...options.env };
  checkEnvNames(env);
  const logs = logDir.replace(/\/+$/, '');
  const str = (s: string) => `<string>${xmlEscape(s)}</string>`;
  const key = (k: string) => `\t<key>${xmlEscape(k)}</key>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    key('Label'),
    `\t${str(label)}`,
    key('ProgramArguments'),
    '\t<array>',
    ...argv.map((arg) => `\t\t${str(arg)}`),
    '\t</array>',
    key('RunAtLoad'),
    '\t<true/>',
    // Restart only after an unsuccessful exit (non-zero status or a crash), not
    // `KeepAlive true`: `breakerbar daemon` exits 0 only when it was asked to stop
    // (SIGTERM/SIGINT), and a daemon stopped on purpose must stay stopped. A bad
    // config or a held lock exits 1 and is retried every ThrottleInterval.
    key('KeepAlive'),
    '\t<dict>',
    '\t\t<key>SuccessfulExit</key>',
    '\t\t<false/>',
    '\t</dict>',
    // At most one restart per 10 s, so a daemon failing at start does not spin.
    key('ThrottleInterval'),
    '\t<integer>10</integer>',
    key('StandardOutPath'),
    `\t${str(`${logs}/daemon.log`)}`,
    key('StandardErrorPath'),
    `\t${str(`${logs}/daemon.err.log`)}`,
    key('EnvironmentVariables'),
    '\t<dict>',
    ...Object.entries(env).flatMap(([name, value]) => [`\t\t<key>${xmlEscape(name)}</key>`, `\t\t${str(value)}`]),
    '\t</dict>',
    key('ProcessType'),
    `\t${str('Background')}`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------
// systemd

export interface SystemdUnitOptions {
  /** The command: execStart[0] must be an absolute path. */
  execStart: string[];
  /** Extra environment; overrides the default PATH when it names PATH. */
  env?: Record<string, string>;
  description?: string;
}

/** C-style escapes for what cannot stand literally in a unit file line; systemd unescapes them (EXTRACT_CUNESCAPE). */
function escapeControl(text: string): string {
  if (text.includes('\0')) throw new UnitFileError(`${JSON.stringify(text)} contains a NUL character`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is the point
  return text.replace(/[\u0001-\u001f\u007f]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

/**
 * One word of a unit file command line or assignment, as systemd reads it back:
 * double-quoted, `\` and `"` backslash-escaped, control characters C-escaped,
 * `%` doubled (specifiers are expanded in ExecStart=, Environment= and
 * Description=) and, when `dollar` is set, `$` doubled (ExecStart= substitutes
 * `$VAR`/`${VAR}` in the arguments; `$$` is a literal `$`).
 */
export function systemdQuote(word: string, { dollar }: { dollar: boolean }): string {
  let text = word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
  if (dollar) text = text.replace(/\$/g, '$$$$');
  return `"${escapeControl(text)}"`;
}

/**
 * Characters systemd refuses in the executable of ExecStart= ("Executable name
 * contains special characters", systemd 252), however they are quoted: quotes,
 * backslash, control characters. Arguments may contain anything.
 */
function systemdRefusesExecutable(path: string): boolean {
  return [...path].some(
    (c) => c === '"' || c === "'" || c === '\\' || (c.codePointAt(0) as number) < 0x20 || c === '\x7f',
  );
}

/**
 * ExecStart= for `argv`. The executable (first word) is not subject to
 * variable substitution, so its `$` stays single (a `$$` there would name a
 * different file); every later argument gets `$` doubled. An executable path
 * systemd refuses outright is run through /usr/bin/env, as an argument.
 */
export function systemdExecLine(argv: string[]): string {
  const first = argv[0];
  if (first === undefined || !isAbsolute(first)) {
    throw new UnitFileError('the program to run must be an absolute path');
  }
  const words = systemdRefusesExecutable(first) ? ['/usr/bin/env', ...argv] : argv;
  return words.map((word, i) => systemdQuote(word, { dollar: i > 0 })).join(' ');
}

/** `~/.config/systemd/user/breakerbar.service` for `breakerbar daemon`. */
export function systemdUserUnit(options: SystemdUnitOptions): string {
  const { execStart, description = 'BreakerBar: monitor and watchdog for the OpenClaw gateway' } = options;
  const exec = systemdExecLine(execStart);
  const env = { PATH: servicePath(execStart[0] as string, 'linux'), ...options.env };
  checkEnvNames(env);
  // Description= is taken verbatim (no unquoting) but specifiers are expanded; it must stay on
  // one line, and a trailing backslash would continue it onto the next.
  const desc = [...description]
    .map((c) => ((c.codePointAt(0) as number) < 0x20 || c === '\x7f' ? ' ' : c))
    .join('')
    .replace(/[\s\\]+$/, '')
    .replace(/%/g, '%%');
  return [
    '[Unit]',
    `Description=${desc}`,
    'After=network.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${exec}`,
    // Like launchd's KeepAlive {SuccessfulExit: false}: restart after a crash or a
    // failing exit, never after `breakerbar daemon` exited 0 because it was stopped.
    'Restart=on-failure',
    'RestartSec=10',
    // Environment= does no `$` substitution, so only `%`, `\`, `"` need escaping.
    ...Object.entries(env).map(([name, value]) => `Environment=${systemdQuote(`${name}=${value}`, { dollar: false })}`),
    // The daemon stops cleanly on SIGTERM (closes the database); give it time.
    'KillSignal=SIGTERM',
    'TimeoutStopSec=30',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}
