import { accessSync, chmodSync, constants, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  chooseRestart,
  findExecutable,
  interpretRestart,
  type RestartFlavour,
  type RestartPlan,
  reasonFromJson,
  type StrategyEnvironment,
} from '../../../main/core/gateway/control.js';
import type { CommandResult } from '../../../main/core/gateway/run-command.js';

const HOME = '/Users/ada';

/** The real "executable file exists" check, as the daemon wires it. */
function realExists(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** An environment whose file system holds exactly `files`. */
function environment(overrides: Partial<StrategyEnvironment> & { files?: string[] } = {}): StrategyEnvironment {
  const files = new Set(overrides.files ?? []);
  return {
    platform: 'darwin',
    uid: 501,
    profile: null,
    env: { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' },
    home: HOME,
    exists: (path) => files.has(path),
    ...overrides,
  };
}

const none = { restartCommand: null, flavour: 'plain' as RestartFlavour, waitSec: 30 };

describe('chooseRestart', () => {
  it('an explicit restartCommand wins over everything', () => {
    const choice = chooseRestart(
      { ...none, restartCommand: ['/usr/local/bin/restart-gw', '--now'] },
      environment({ files: ['/opt/homebrew/bin/openclaw'] }),
    );
    expect(choice).toEqual({
      plan: {
        strategy: 'command',
        argv: ['/usr/local/bin/restart-gw', '--now'],
        description: 'restart command: /usr/local/bin/restart-gw --now',
      },
      problem: null,
    });
  });

  it('an empty restartCommand is a problem, not a silent fallback', () => {
    const choice = chooseRestart({ ...none, restartCommand: [] }, environment());
    expect(choice.plan).toBeNull();
    expect(choice.problem).toContain('watchdog.restartCommand');
  });

  it.each([
    ['safe', ['--safe']],
    ['force', ['--force']],
    ['wait', ['--wait', '45s']],
    ['plain', []],
  ] as const)('openclaw CLI, flavour %s', (flavour, extra) => {
    const choice = chooseRestart(
      { restartCommand: null, flavour, waitSec: 45 },
      environment({ files: ['/opt/homebrew/bin/openclaw'] }),
    );
    expect(choice.problem).toBeNull();
    expect(choice.plan?.strategy).toBe('openclaw');
    expect(choice.plan?.argv).toEqual(['/opt/homebrew/bin/openclaw', 'gateway', 'restart', '--json', ...extra]);
    expect(choice.plan?.description).toContain(flavour);
  });

  it.each(['safe', 'force', 'wait', 'plain'] as const)('openclaw CLI with a profile, flavour %s', (flavour) => {
    const choice = chooseRestart(
      { restartCommand: null, flavour, waitSec: 10 },
      environment({ platform: 'linux', profile: 'work', files: [join(HOME, '.npm-global/bin/openclaw')] }),
    );
    const argv = choice.plan?.argv ?? [];
    expect(argv.slice(0, 6)).toEqual([
      join(HOME, '.npm-global/bin/openclaw'),
      '--profile',
      'work',
      'gateway',
      'restart',
      '--json',
    ]);
    expect(choice.plan?.description).toContain('profile work');
  });

  it('the openclaw CLI is preferred on every platform', () => {
    for (const platform of ['darwin', 'linux', 'freebsd'] as const) {
      const choice = chooseRestart(
        none,
        environment({ platform, files: ['/usr/local/bin/openclaw', '/usr/bin/systemctl'] }),
      );
      expect(choice.plan?.strategy).toBe('openclaw');
    }
    const windows = environment({ platform: 'win32', env: { PATH: 'C:\\npm' }, files: ['C:\\npm\\openclaw.CMD'] });
    expect(chooseRestart(none, windows).plan?.argv[0]).toBe('C:\\npm\\openclaw.CMD');
  });

  it('macOS without the CLI: launchctl kickstart of the gateway label', () => {
    const choice = chooseRestart(none, environment({ files: ['/bin/launchctl'] }));
    expect(choice.plan).toEqual({
      strategy: 'launchd',
      argv: ['/bin/launchctl', 'kickstart', '-k', 'gui/501/ai.openclaw.gateway'],
      description: 'launchctl kickstart -k ai.openclaw.gateway',
    });
  });

  it('macOS profile label, and launchctl assumed in /bin even when PATH hides it', () => {
    const choice = chooseRestart(none, environment({ profile: 'work', env: { PATH: '' } }));
    expect(choice.plan?.argv).toEqual(['/bin/launchctl', 'kickstart', '-k', 'gui/501/ai.openclaw.work']);
  });

  it('macOS without a user id cannot address the launchd domain', () => {
    const choice = chooseRestart(none, environment({ uid: null }));
    expect(choice.plan).toBeNull();
    expect(choice.problem).toContain('set watchdog.restartCommand');
  });

  it('Linux without the CLI: systemctl --user restart of the unit', () => {
    const files = ['/usr/bin/systemctl'];
    expect(chooseRestart(none, environment({ platform: 'linux', files })).plan).toEqual({
      strategy: 'systemd',
      argv: ['/usr/bin/systemctl', '--user', 'restart', 'openclaw-gateway.service'],
      description: 'systemctl --user restart openclaw-gateway.service',
    });
    expect(chooseRestart(none, environment({ platform: 'linux', profile: 'lab', files })).plan?.argv).toEqual([
      '/usr/bin/systemctl',
      '--user',
      'restart',
      'openclaw-gateway-lab.service',
    ]);
  });

  it('Linux without the CLI or systemctl: a problem with a hint', () => {
    const choice = chooseRestart(none, environment({ platform: 'linux' }));
    expect(choice.plan).toBeNull();
    expect(choice.problem).toBe('no openclaw CLI and no systemctl on PATH: set watchdog.restartCommand');
  });

  it('other platforms without the CLI: a problem with a hint', () => {
    const choice = chooseRestart(none, environment({ platform: 'win32', env: { PATH: 'C:\\Windows' } }));
    expect(choice).toEqual({
      plan: null,
      problem: 'no openclaw CLI on PATH, not macOS/Linux: set watchdog.restartCommand',
    });
  });

  it('a blank profile is no profile', () => {
    const choice = chooseRestart(none, environment({ profile: '  ', files: ['/bin/launchctl'] }));
    expect(choice.plan?.argv[3]).toBe('gui/501/ai.openclaw.gateway');
  });
});

describe('findExecutable', () => {
  let tmp: string | null = null;
  afterEach(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    tmp = null;
  });

  it.skipIf(process.platform === 'win32')(
    'finds an executable in a temp dir on PATH, in PATH order, ignoring non-executables',
    () => {
      tmp = mkdtempSync(join(tmpdir(), 'breakerbar-find-'));
      const first = join(tmp, 'a');
      const second = join(tmp, 'b');
      mkdirSync(first);
      mkdirSync(second);
      writeFileSync(join(first, 'openclaw'), 'not executable\n');
      chmodSync(join(first, 'openclaw'), 0o644);
      writeFileSync(join(second, 'openclaw'), '#!/bin/sh\nexit 0\n');
      chmodSync(join(second, 'openclaw'), 0o755);
      const env = environment({
        platform: process.platform,
        env: { PATH: `${first}:${second}` },
        home: tmp,
        exists: realExists,
      });
      expect(findExecutable('openclaw', env)).toBe(join(second, 'openclaw'));
      expect(findExecutable('no-such-tool-here', env)).toBeNull();

      chmodSync(join(first, 'openclaw'), 0o755);
      expect(findExecutable('openclaw', env)).toBe(join(first, 'openclaw'));
    },
  );

  it('looks in the usual install places a service PATH leaves out', () => {
    for (const dir of [
      '/opt/homebrew/bin',
      '/usr/local/bin',
      '.openclaw/bin',
      '.npm-global/bin',
      '.local/bin',
      '.volta/bin',
      '.bun/bin',
    ]) {
      const full = dir.startsWith('/') ? `${dir}/openclaw` : join(HOME, dir, 'openclaw');
      expect(findExecutable('openclaw', environment({ files: [full] }))).toBe(full);
    }
  });

  it('PATH comes first, and empty PATH entries are not the current directory', () => {
    const env = environment({
      env: { PATH: ':/custom/bin' },
      files: ['/custom/bin/openclaw', '/usr/local/bin/openclaw', 'openclaw'],
    });
    expect(findExecutable('openclaw', env)).toBe('/custom/bin/openclaw');
    expect(findExecutable('openclaw', environment({ env: { PATH: '::' }, files: ['openclaw'] }))).toBeNull();
  });

  it('a name with a directory is only checked as given', () => {
    expect(findExecutable('/x/openclaw', environment({ files: ['/x/openclaw'] }))).toBe('/x/openclaw');
    expect(findExecutable('bin/openclaw', environment({ files: ['/usr/bin/bin/openclaw'] }))).toBeNull();
  });

  it('Windows: PATHEXT extensions and ; separators', () => {
    const env = environment({
      platform: 'win32',
      home: 'C:\\Users\\ada',
      env: { PATH: 'C:\\tools;C:\\npm', PATHEXT: '.EXE;.CMD' },
      files: ['C:\\npm\\openclaw.CMD'],
    });
    expect(findExecutable('openclaw', env)).toBe('C:\\npm\\openclaw.CMD');
  });
});

const result = (over: Partial<CommandResult>): CommandResult => ({
  exitCode: 0,
  signal: null,
  timedOut: false,
  spawnError: null,
  stdout: '',
  stderr: '',
  durationMs: 1200,
  ...over,
});

const openclawPlan: RestartPlan = {
  strategy: 'openclaw',
  argv: ['/usr/local/bin/openclaw', 'gateway', 'restart', '--json', '--force'],
  description: 'openclaw gateway restart (force)',
};
const systemdPlan: RestartPlan = {
  strategy: 'systemd',
  argv: ['/usr/bin/systemctl', '--user', 'restart', 'openclaw-gateway.service'],
  description: 'systemctl --user restart openclaw-gateway.service',
};

describe('interpretRestart', () => {
  it('openclaw CLI: 0 done, 2 still starting, anything else failed with its JSON reason', () => {
    expect(interpretRestart(openclawPlan, result({ exitCode: 0 })).outcome).toBe('done');
    const starting = interpretRestart(
      openclawPlan,
      result({ exitCode: 2, stdout: '{"ok":false,"status":"still-starting"}' }),
    );
    expect(starting).toEqual({
      outcome: 'still_starting',
      message: 'openclaw gateway restart (force): gateway still starting: still-starting',
      pending: null,
    });
    const failed = interpretRestart(
      openclawPlan,
      result({
        exitCode: 1,
        stdout: '{"ok":false,"error":{"message":"gateway service not installed"}}',
        stderr: 'noise',
      }),
    );
    expect(failed).toEqual({
      outcome: 'failed',
      message: 'openclaw gateway restart (force) failed with exit code 1: gateway service not installed',
      pending: null,
    });
  });

  it('openclaw CLI without JSON output falls back to the last stderr line', () => {
    const failed = interpretRestart(
      openclawPlan,
      result({ exitCode: 1, stdout: 'plain text', stderr: 'first\nError: no gateway\n' }),
    );
    expect(failed.message).toBe('openclaw gateway restart (force) failed with exit code 1: Error: no gateway');
  });

  it('other strategies: 0 done, anything else failed (2 is not special)', () => {
    expect(interpretRestart(systemdPlan, result({ exitCode: 0 })).outcome).toBe('done');
    const two = interpretRestart(systemdPlan, result({ exitCode: 2, stdout: '{"status":"still-starting"}' }));
    expect(two.outcome).toBe('failed');
    const failed = interpretRestart(
      systemdPlan,
      result({ exitCode: 5, stderr: 'Unit openclaw-gateway.service not found.\n' }),
    );
    expect(failed).toEqual({
      outcome: 'failed',
      message:
        'systemctl --user restart openclaw-gateway.service failed with exit code 5: Unit openclaw-gateway.service not found.',
      pending: null,
    });
  });

  it('timeouts, signals and spawn errors fail with a clear message', () => {
    const timedOut = interpretRestart(
      openclawPlan,
      result({ exitCode: null, signal: 'SIGTERM', timedOut: true, durationMs: 300_000 }),
    );
    expect(timedOut).toEqual({
      outcome: 'failed',
      message: 'openclaw gateway restart (force) still running after 300.0 s: stopped it (timeout)',
      pending: null,
    });
    const spawn = interpretRestart(
      systemdPlan,
      result({ exitCode: null, spawnError: '/usr/bin/systemctl: no such program (ENOENT)' }),
    );
    expect(spawn.outcome).toBe('failed');
    expect(spawn.message).toContain('could not start: /usr/bin/systemctl: no such program (ENOENT)');
    const killed = interpretRestart(systemdPlan, result({ exitCode: null, signal: 'SIGKILL' }));
    expect(killed).toEqual({
      outcome: 'failed',
      message: 'systemctl --user restart openclaw-gateway.service was killed by SIGKILL',
      pending: null,
    });
  });

  it('reasonFromJson takes the usual fields and shortens them', () => {
    expect(reasonFromJson('{"error":"boom"}')).toBe('boom');
    expect(reasonFromJson('{"message":"  spaced\\n out  "}')).toBe('spaced out');
    expect(reasonFromJson('[1,2]')).toBeNull();
    expect(reasonFromJson('not json')).toBeNull();
    expect(reasonFromJson(JSON.stringify({ reason: 'x'.repeat(500) }))?.length).toBe(200);
  });
});
