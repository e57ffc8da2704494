/**
 * Rule: `breakerbar service install|uninstall|status` validates its arguments
 * with usage errors, runs the daemon with an absolute --config, prints the file
 * and commands on --dry-run, and exits 1 with a clear message when the service
 * manager cannot do it. Temp home, fake launchctl/systemctl: nothing real is touched.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Io, parseCommandArgs, UsageError } from '../../main/cli/command.js';
import { createServiceCommand, type ServiceDeps, serviceCommand } from '../../main/cli/service.js';
import { ConfigError } from '../../main/core/config/index.js';
import type { RunResult } from '../../main/core/service-managers/manager.js';
import { programArguments } from '../../main/core/service-managers/unit-files.js';

let home: string;
let cwd: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'breakerbar-service-cli-'));
  cwd = join(home, 'work dir');
  mkdirSync(cwd);
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

interface Result {
  code: number;
  out: string;
  err: string;
  calls: string[];
}

/** `breakerbar service ...argv` on `platform`, with systemctl/launchctl answering from `answers` (prefix → result). */
async function service(
  platform: NodeJS.Platform,
  argv: string[],
  answers: Array<[string, RunResult]> = [],
  env: NodeJS.ProcessEnv = {},
): Promise<Result> {
  const calls: string[] = [];
  const deps: ServiceDeps = {
    environment: () => ({ env: { BREAKERBAR_HOME: join(home, 'bbhome'), ...env }, home, platform }),
    cwd: () => cwd,
    uid: 501,
    user: 'ann',
    lingerDir: join(home, 'linger'),
    sleep: async () => {},
    run: async (args) => {
      const line = args.join(' ');
      calls.push(line);
      return answers.find(([prefix]) => line.startsWith(prefix))?.[1] ?? { code: 0, stdout: '', stderr: '' };
    },
    programArguments: (configFile) => programArguments(configFile),
  };
  const command = createServiceCommand(deps);
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (t) => out.push(t), err: (t) => err.push(t), isTTY: false };
  const code = await command.run(parseCommandArgs(command, argv), io);
  return { code, out: out.join(''), err: err.join(''), calls };
}

const UNIT = () => join(home, '.config', 'systemd', 'user', 'breakerbar.service');
const PLIST = () => join(home, 'Library', 'LaunchAgents', 'ai.breakerbar.daemon.plist');

describe('arguments', () => {
  it.each([
    [[], /missing action: one of install, uninstall, status/],
    [['start'], /unknown action "start"/],
    [['install', 'now'], /unexpected argument "now"/],
    [['install', '--json'], /--json only applies to status/],
    [['status', '--dry-run'], /--dry-run applies to install and uninstall/],
    [['uninstall', '--config', 'x.json'], /--config only applies to install/],
  ])('%j is a usage error', async (argv, message) => {
    await expect(service('linux', argv)).rejects.toThrow(UsageError);
    await expect(service('linux', argv)).rejects.toThrow(message);
  });

  it('unknown flags are usage errors', () => {
    expect(() => parseCommandArgs(serviceCommand, ['install', '--dryrun'])).toThrow(UsageError);
  });

  it('the help names every action and option, and the command is called service', () => {
    expect(serviceCommand.name).toBe('service');
    for (const word of ['install', 'uninstall', 'status', 'launchd', 'systemd', 'enable-linger', 'Task Scheduler']) {
      expect(serviceCommand.help).toContain(word);
    }
    for (const option of Object.keys(serviceCommand.options)) expect(serviceCommand.help).toContain(`--${option}`);
  });
});

describe('install', () => {
  it('--dry-run prints the unit with the absolute --config and the commands, and writes nothing', async () => {
    writeFileSync(join(cwd, 'bb.json'), '{}');
    const result = await service('linux', ['install', '--dry-run', '--config', 'bb.json']);
    expect(result.code, result.err).toBe(0);
    expect(result.calls).toEqual([]);
    expect(existsSync(join(home, '.config'))).toBe(false);
    expect(result.out).toContain(`Would write ${UNIT()}:`);
    expect(result.out).toContain(`"daemon" "--config" "${join(cwd, 'bb.json')}"`);
    expect(result.out).toContain(`"${process.execPath}"`);
    expect(result.out).toMatch(
      /Would run:\n {2}systemctl --user daemon-reload\n {2}systemctl --user enable --now breakerbar.service\n/,
    );
  });

  it('on macOS writes the plist and bootstraps it', async () => {
    const result = await service('darwin', ['install']);
    expect(result.code, result.err).toBe(0);
    expect(result.calls).toEqual([
      'launchctl bootout gui/501/ai.breakerbar.daemon',
      'launchctl enable gui/501/ai.breakerbar.daemon',
      `launchctl bootstrap gui/501 ${PLIST()}`,
    ]);
    expect(result.out).toContain(`Wrote ${PLIST()}`);
    expect(result.out).toContain('installed as launchd agent ai.breakerbar.daemon');
    const plist = readFileSync(PLIST(), 'utf8');
    expect(plist).toContain('<string>daemon</string>');
    expect(plist).not.toContain('--config');
    // BREAKERBAR_HOME from the installing environment goes with it.
    expect(plist).toContain(`<string>${join(home, 'bbhome')}</string>`);
  });

  it('when systemctl --user cannot be used: unit written, exit 1, what failed and how to start it', async () => {
    const noBus = { code: 1, stdout: '', stderr: 'Failed to connect to bus: No medium found' };
    const result = await service('linux', ['install'], [['systemctl', noBus]]);
    expect(result.code).toBe(1);
    expect(existsSync(UNIT())).toBe(true);
    expect(result.out).toContain(`Wrote ${UNIT()}`);
    expect(result.err).toMatch(/breakerbar service: systemctl --user is not usable here.*No medium found/);
    expect(result.err).toContain('systemctl --user enable --now breakerbar.service');
    expect(result.out).not.toContain('installed as');
  });

  it('a config the daemon could not load fails the install before anything is written', async () => {
    await expect(service('linux', ['install', '--config', 'missing.json'])).rejects.toThrow(ConfigError);
    writeFileSync(join(cwd, 'bad.json'), '{"server": {"port": "nope"}}');
    await expect(service('linux', ['install', '--config', 'bad.json'])).rejects.toThrow(ConfigError);
    expect(existsSync(join(home, '.config'))).toBe(false);
  });

  it('Windows and other platforms: exit 1 with the supported platforms and the Task Scheduler way', async () => {
    const result = await service('win32', ['install']);
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      'breakerbar service: service install supports macOS (launchd) and Linux (systemd); on Windows run `breakerbar daemon` from Task Scheduler',
    );
  });
});

describe('uninstall', () => {
  it('removes an installed service; --dry-run only says what it would do', async () => {
    await service('linux', ['install']);
    const dry = await service('linux', ['uninstall', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.calls).toEqual([]);
    expect(dry.out).toContain(`Would remove ${UNIT()}`);
    expect(existsSync(UNIT())).toBe(true);

    const real = await service('linux', ['uninstall']);
    expect(real.code, real.err).toBe(0);
    expect(real.calls).toEqual(['systemctl --user disable --now breakerbar.service', 'systemctl --user daemon-reload']);
    expect(real.out).toContain(`Removed ${UNIT()}`);
    expect(existsSync(UNIT())).toBe(false);
    expect(readdirSync(join(home, '.config', 'systemd', 'user'))).toEqual([]);
  });
  it('`remove` is uninstall: install, status, remove, status round-trip', async () => {
    await service('linux', ['install']);
    const installed = JSON.parse((await service('linux', ['status', '--json'])).out) as { installed: boolean };
    expect(installed.installed).toBe(true);
    const removed = await service('linux', ['remove']);
    expect(removed.code, removed.err).toBe(0);
    expect(removed.calls).toEqual([
      'systemctl --user disable --now breakerbar.service',
      'systemctl --user daemon-reload',
    ]);
    const after = JSON.parse((await service('linux', ['status', '--json'])).out) as { installed: boolean };
    expect(after.installed).toBe(false);
    expect(existsSync(UNIT())).toBe(false);
  });
});

describe('status', () => {
  const running: Array<[string, RunResult]> = [
    ['systemctl --user is-active', { code: 0, stdout: 'active\n', stderr: '' }],
    ['systemctl --user is-enabled', { code: 0, stdout: 'enabled\n', stderr: '' }],
    ['systemctl --user show', { code: 0, stdout: '777\n', stderr: '' }],
  ];

  it('--json: one object; exit 0 while running', async () => {
    await service('linux', ['install']);
    const result = await service('linux', ['status', '--json'], running);
    expect(result.code).toBe(0);
    const status = JSON.parse(result.out) as Record<string, unknown>;
    expect(status).toMatchObject({
      manager: 'systemd',
      name: 'breakerbar.service',
      file: UNIT(),
      installed: true,
      enabled: true,
      state: 'active',
      running: true,
      pid: 777,
      linger: false,
    });
  });

  it('text: what is installed and running, plus the linger hint; exit 3 when not running', async () => {
    await service('linux', ['install']);
    const up = await service('linux', ['status'], running);
    expect(up.out).toMatch(/: running\n/);
    expect(up.out).toMatch(/state\s+active \(pid 777\)/);
    expect(up.out).toContain(`${UNIT()} (installed)`);
    expect(up.out).toContain('loginctl enable-linger ann');

    const down = await service(
      'linux',
      ['status'],
      [['systemctl --user is-active', { code: 3, stdout: 'inactive\n', stderr: '' }]],
    );
    expect(down.code).toBe(3);
    expect(down.out).toMatch(/: not running\n/);
  });

  it('exit 1 when the service manager cannot be asked', async () => {
    const result = await service(
      'linux',
      ['status'],
      [['systemctl', { code: 1, stdout: '', stderr: 'Failed to connect to bus: No medium found' }]],
    );
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/problem: .*Failed to connect to bus/);
  });

  it('macOS: not installed, not loaded', async () => {
    const result = await service(
      'darwin',
      ['status', '--json'],
      [['launchctl print', { code: 113, stdout: '', stderr: 'Could not find service' }]],
    );
    expect(result.code).toBe(3);
    expect(JSON.parse(result.out)).toMatchObject({
      manager: 'launchd',
      name: 'ai.breakerbar.daemon',
      installed: false,
      enabled: false,
      running: false,
    });
  });
});
