/**
 * Rule: install/uninstall/status drive launchctl and systemctl with exactly the
 * commands a user would type, write only under the given home, change nothing
 * in a dry run, and say plainly what failed and what to do by hand.
 * launchctl/systemctl are fakes recording argv; the home is a temp dir.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultRun,
  installService,
  PASSED_ENV,
  parseLaunchctlPrint,
  passedEnvironment,
  type RunResult,
  type ServiceContext,
  ServiceError,
  servicePaths,
  serviceStatus,
  shellCommand,
  UNSUPPORTED_PLATFORM,
  uninstallService,
} from '../../../main/core/service-managers/manager.js';

let home: string;
let lingerDir: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'breakerbar-service-'));
  lingerDir = join(home, 'linger');
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const OK: RunResult = { code: 0, stdout: '', stderr: '' };
const NO_BUS: RunResult = { code: 1, stdout: '', stderr: 'Failed to connect to bus: No medium found\n' };

/** A fake `run`: records every argv; answers by the first matching prefix (joined with spaces), else OK. */
function fakeRun(answers: Array<[string, RunResult | RunResult[]]> = []) {
  const calls: string[][] = [];
  const queues = answers.map(([prefix, r]) => [prefix, Array.isArray(r) ? [...r] : r] as const);
  const run = async (argv: string[]): Promise<RunResult> => {
    calls.push(argv);
    const line = argv.join(' ');
    for (const [prefix, answer] of queues) {
      if (!line.startsWith(prefix)) continue;
      if (!Array.isArray(answer)) return answer;
      return answer.length > 1 ? (answer.shift() as RunResult) : (answer[0] as RunResult);
    }
    return OK;
  };
  return { run, calls, lines: () => calls.map((c) => c.join(' ')) };
}

const PROGRAM = ['/usr/local/bin/node', '/opt/bb/dist/main/cli/index.js', 'daemon', '--config', '/etc/bb.json'];

function ctx(platform: NodeJS.Platform, run: ServiceContext['run'], extra: Partial<ServiceContext> = {}) {
  return {
    platform,
    home,
    env: {},
    uid: 501,
    user: 'ann',
    run,
    lingerDir,
    sleep: async () => {},
    programArguments: PROGRAM,
    ...extra,
  };
}

/** Every file under `dir`, relative. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

const PLIST = () => join(home, 'Library', 'LaunchAgents', 'ai.breakerbar.daemon.plist');
const UNIT = () => join(home, '.config', 'systemd', 'user', 'breakerbar.service');

// ---------------------------------------------------------------------------

describe('macOS (launchd)', () => {
  it('install writes the plist and log dir, unloads any old one, then bootstraps the gui domain', async () => {
    const fake = fakeRun([
      ['launchctl bootout', { code: 3, stdout: '', stderr: 'Boot-out failed: 3: No such process' }],
    ]);
    const report = await installService(ctx('darwin', fake.run));
    expect(report.ok, report.problems.join('\n')).toBe(true);
    expect(report.manager).toBe('launchd');
    expect(report.file).toBe(PLIST());
    expect(fake.lines()).toEqual([
      'launchctl bootout gui/501/ai.breakerbar.daemon',
      'launchctl enable gui/501/ai.breakerbar.daemon',
      `launchctl bootstrap gui/501 ${PLIST()}`,
    ]);
    const plist = readFileSync(PLIST(), 'utf8');
    expect(plist).toBe(report.content);
    for (const arg of PROGRAM) expect(plist).toContain(`<string>${arg}</string>`);
    expect(plist).toContain(`<string>${join(home, 'Library', 'Logs', 'BreakerBar', 'daemon.err.log')}</string>`);
    expect(existsSync(join(home, 'Library', 'Logs', 'BreakerBar'))).toBe(true);
    expect(report.notes.join('\n')).toContain('daemon.log');
  });

  it('install retries a bootstrap that races the bootout, and reports one that keeps failing', async () => {
    const flaky = fakeRun([['launchctl bootstrap', [{ code: 5, stdout: '', stderr: 'Bootstrap failed: 5' }, OK]]]);
    expect((await installService(ctx('darwin', flaky.run))).ok).toBe(true);
    expect(flaky.lines().filter((l) => l.startsWith('launchctl bootstrap'))).toHaveLength(2);

    const failing = fakeRun([
      ['launchctl bootstrap', { code: 125, stdout: '', stderr: 'Bootstrap failed: 125: Domain does not support' }],
    ]);
    const report = await installService(ctx('darwin', failing.run));
    expect(report.ok).toBe(false);
    expect(failing.lines().filter((l) => l.startsWith('launchctl bootstrap'))).toHaveLength(3);
    expect(report.problems.join('\n')).toMatch(/Bootstrap failed: 125.*exit 125/);
    expect(report.problems.join('\n')).toContain(`launchctl bootstrap gui/501 ${PLIST()}`);
    expect(existsSync(PLIST())).toBe(true);
  });

  it('uninstall boots it out and removes the plist; a second uninstall is a no-op that says so', async () => {
    await installService(ctx('darwin', fakeRun().run));
    const fake = fakeRun();
    const report = await uninstallService(ctx('darwin', fake.run));
    expect(report.ok).toBe(true);
    expect(report.removed).toBe(true);
    expect(existsSync(PLIST())).toBe(false);
    expect(fake.lines()).toEqual(['launchctl bootout gui/501/ai.breakerbar.daemon']);

    const again = fakeRun([['launchctl bootout', { code: 113, stdout: '', stderr: 'Could not find service' }]]);
    const second = await uninstallService(ctx('darwin', again.run));
    expect(second.ok).toBe(true);
    expect(second.removed).toBe(false);
    expect(second.notes.join('\n')).toMatch(/not installed/);
  });

  it('status parses launchctl print: running with its pid, or not loaded', async () => {
    await installService(ctx('darwin', fakeRun().run));
    const fake = fakeRun([['launchctl print', { code: 0, stdout: LAUNCHCTL_PRINT, stderr: '' }]]);
    const status = await serviceStatus(ctx('darwin', fake.run));
    expect(fake.lines()).toEqual(['launchctl print gui/501/ai.breakerbar.daemon']);
    expect(status).toMatchObject({
      manager: 'launchd',
      installed: true,
      enabled: true,
      state: 'running',
      running: true,
      pid: 4242,
      lastExitCode: 1,
    });

    const missing = fakeRun([['launchctl print', { code: 113, stdout: '', stderr: 'Could not find service' }]]);
    rmSync(PLIST());
    const off = await serviceStatus(ctx('darwin', missing.run));
    expect(off).toMatchObject({ installed: false, enabled: false, running: false, pid: null, state: 'not loaded' });
  });
});

const LAUNCHCTL_PRINT = `gui/501/ai.breakerbar.daemon = {
\tactive count = 1
\tpath = /Users/ann/Library/LaunchAgents/ai.breakerbar.daemon.plist
\ttype = LaunchAgent
\tstate = running

\tprogram = /usr/local/bin/node
\targuments = {
\t\t/usr/local/bin/node
\t\tpid = 7
\t}

\tenvironment = {
\t\tstate = waiting
\t\tPATH => /usr/bin
\t}

\tpid = 4242
\timmediate reason = speculative
\truns = 2
\tlast exit code = 1
\tendpoints = {
\t\t"x" = {
\t\t\tstate = idle
\t\t}
\t}
}
`;

describe('parseLaunchctlPrint', () => {
  it('reads only the top level of the service block', () => {
    expect(parseLaunchctlPrint(LAUNCHCTL_PRINT)).toEqual({ state: 'running', pid: 4242, lastExitCode: 1 });
    expect(
      parseLaunchctlPrint(
        'x = {\n\tstate = not running\n\tlast exit code = (never exited)\n\tsub = {\n\t\tpid = 9\n\t}\n}\n',
      ),
    ).toEqual({ state: 'not running', pid: null, lastExitCode: null });
  });
});

// ---------------------------------------------------------------------------

describe('Linux (systemd --user)', () => {
  it('install writes the unit, reloads, enables and starts it, and hints at linger', async () => {
    const fake = fakeRun();
    const report = await installService(ctx('linux', fake.run));
    expect(report.ok, report.problems.join('\n')).toBe(true);
    expect(report.manager).toBe('systemd');
    expect(fake.lines()).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable --now breakerbar.service',
    ]);
    const unit = readFileSync(UNIT(), 'utf8');
    expect(unit).toBe(report.content);
    expect(unit).toContain(`ExecStart=${PROGRAM.map((a) => `"${a}"`).join(' ')}`);
    expect(report.notes.join('\n')).toContain('loginctl enable-linger ann');

    // Lingering already: no hint.
    mkdirSync(lingerDir, { recursive: true });
    writeFileSync(join(lingerDir, 'ann'), '');
    const lingering = await installService(ctx('linux', fakeRun().run));
    expect(lingering.notes.join('\n')).not.toContain('enable-linger');
  });

  it('install honours XDG_CONFIG_HOME and copies only the non-secret variables', async () => {
    const xdg = join(home, 'xdg');
    const env = {
      XDG_CONFIG_HOME: xdg,
      OPENCLAW_STATE_DIR: '/srv/openclaw',
      OPENCLAW_GATEWAY_TOKEN: 'sekrit',
      UNRELATED: 'x',
    };
    const report = await installService(ctx('linux', fakeRun().run, { env }));
    expect(report.file).toBe(join(xdg, 'systemd', 'user', 'breakerbar.service'));
    const unit = readFileSync(report.file, 'utf8');
    expect(unit).toContain('Environment="OPENCLAW_STATE_DIR=/srv/openclaw"');
    expect(unit).toContain(`Environment="XDG_CONFIG_HOME=${xdg}"`);
    expect(unit).not.toContain('sekrit');
    expect(unit).not.toContain('UNRELATED');
  });

  it('install marks the daemon as a service, so SIGHUP reloads its config instead of stopping it', async () => {
    const unit = readFileSync((await installService(ctx('linux', fakeRun().run))).file, 'utf8');
    expect(unit).toContain('Environment="BREAKERBAR_SERVICE=1"');
    await installService(ctx('darwin', fakeRun().run));
    expect(readFileSync(PLIST(), 'utf8')).toMatch(/<key>BREAKERBAR_SERVICE<\/key>\s*<string>1<\/string>/);
  });

  it('install without a usable systemctl --user still writes the unit, says what failed and how to start it', async () => {
    const fake = fakeRun([['systemctl --user daemon-reload', NO_BUS]]);
    const report = await installService(ctx('linux', fake.run));
    expect(report.ok).toBe(false);
    expect(existsSync(UNIT())).toBe(true);
    expect(fake.lines()).toEqual(['systemctl --user daemon-reload']);
    const problem = report.problems.join('\n');
    expect(problem).toMatch(/systemctl --user is not usable/);
    expect(problem).toContain('Failed to connect to bus: No medium found');
    expect(problem).toContain(UNIT());
    expect(problem).toContain('systemctl --user enable --now breakerbar.service');
    expect(problem).toContain(shellCommand(PROGRAM));
  });

  it('install reports a failing enable', async () => {
    const fake = fakeRun([
      ['systemctl --user enable', { code: 1, stdout: '', stderr: 'Failed to enable unit: Unit file is masked.' }],
    ]);
    const report = await installService(ctx('linux', fake.run));
    expect(report.ok).toBe(false);
    expect(report.problems.join('\n')).toMatch(/enable --now breakerbar.service failed: .*masked/);
  });

  it('uninstall disables and stops, removes the unit, reloads', async () => {
    await installService(ctx('linux', fakeRun().run));
    const fake = fakeRun();
    const report = await uninstallService(ctx('linux', fake.run));
    expect(report.ok).toBe(true);
    expect(existsSync(UNIT())).toBe(false);
    expect(fake.lines()).toEqual([
      'systemctl --user disable --now breakerbar.service',
      'systemctl --user daemon-reload',
    ]);
  });

  it('uninstall without a user bus removes the unit but reports that it could not stop the service', async () => {
    await installService(ctx('linux', fakeRun().run));
    const report = await uninstallService(ctx('linux', fakeRun([['systemctl', NO_BUS]]).run));
    expect(report.ok).toBe(false);
    expect(existsSync(UNIT())).toBe(false);
    expect(report.problems.join('\n')).toMatch(/not usable.*disable --now/s);
  });

  it('status: active and enabled with its main pid', async () => {
    await installService(ctx('linux', fakeRun().run));
    const fake = fakeRun([
      ['systemctl --user is-active', { code: 0, stdout: 'active\n', stderr: '' }],
      ['systemctl --user is-enabled', { code: 0, stdout: 'enabled\n', stderr: '' }],
      ['systemctl --user show', { code: 0, stdout: '4242\n', stderr: '' }],
    ]);
    const status = await serviceStatus(ctx('linux', fake.run));
    expect(status).toMatchObject({
      manager: 'systemd',
      installed: true,
      enabled: true,
      state: 'active',
      running: true,
      pid: 4242,
      linger: false,
      problems: [],
    });
    expect(fake.lines()).toEqual([
      'systemctl --user is-active breakerbar.service',
      'systemctl --user is-enabled breakerbar.service',
      'systemctl --user show --property=MainPID --value breakerbar.service',
    ]);
    expect(status.notes.join('\n')).toContain('loginctl enable-linger ann');
  });

  it('status: failed/disabled is not running; no user bus is a problem, not a state', async () => {
    await installService(ctx('linux', fakeRun().run));
    const down = await serviceStatus(
      ctx(
        'linux',
        fakeRun([
          ['systemctl --user is-active', { code: 3, stdout: 'failed\n', stderr: '' }],
          ['systemctl --user is-enabled', { code: 1, stdout: 'disabled\n', stderr: '' }],
        ]).run,
      ),
    );
    expect(down).toMatchObject({ state: 'failed', enabled: false, running: false, pid: null, problems: [] });

    const noBus = await serviceStatus(ctx('linux', fakeRun([['systemctl', NO_BUS]]).run));
    expect(noBus.state).toBeNull();
    expect(noBus.running).toBe(false);
    expect(noBus.problems.join('\n')).toContain('Failed to connect to bus');
  });
});

// ---------------------------------------------------------------------------

describe('dry run', () => {
  it.each(['darwin', 'linux'] as const)(
    '%s: install and uninstall list the commands, write and run nothing',
    async (platform) => {
      const fake = fakeRun();
      const install = await installService(ctx(platform, fake.run, { dryRun: true }));
      expect(install.dryRun).toBe(true);
      expect(install.ok).toBe(true);
      expect(install.content).toContain('/opt/bb/dist/main/cli/index.js');
      expect(install.commands.length).toBeGreaterThanOrEqual(2);
      expect(install.dirs.length).toBeGreaterThanOrEqual(1);
      expect(install.wrote).toBe(false);
      expect(fake.calls).toEqual([]);
      expect(readdirSync(home)).toEqual([]);

      // An installed service, dry-run uninstalled, stays.
      await installService(ctx(platform, fakeRun().run));
      const before = filesUnder(home);
      const uninstall = await uninstallService(ctx(platform, fake.run, { dryRun: true }));
      expect(uninstall.fileExisted).toBe(true);
      expect(uninstall.removed).toBe(false);
      expect(uninstall.commands.map((c) => c[0])).toContain(platform === 'darwin' ? 'launchctl' : 'systemctl');
      expect(fake.calls).toEqual([]);
      expect(filesUnder(home)).toEqual(before);
    },
  );
});

describe('other platforms', () => {
  it.each(['win32', 'freebsd'] as const)('%s: a clear error naming what is supported', async (platform) => {
    await expect(installService(ctx(platform, fakeRun().run))).rejects.toThrow(ServiceError);
    await expect(uninstallService(ctx(platform, fakeRun().run))).rejects.toThrow(UNSUPPORTED_PLATFORM);
    await expect(serviceStatus(ctx(platform, fakeRun().run))).rejects.toThrow(/Task Scheduler/);
    expect(() => servicePaths({ platform, home, env: {} })).toThrow(/macOS \(launchd\) and Linux \(systemd\)/);
  });
});

describe('helpers', () => {
  it('passedEnvironment copies the listed variables, absolute, and nothing else', () => {
    const env = Object.fromEntries(PASSED_ENV.map((n) => [n, `/v/${n}`]));
    expect(
      passedEnvironment({ ...env, HOME: '/h', OPENCLAW_GATEWAY_TOKEN: 't', BREAKERBAR_HOME: 'rel' }, '/cwd'),
    ).toEqual({
      ...env,
      BREAKERBAR_HOME: '/cwd/rel',
    });
    expect(passedEnvironment({ OPENCLAW_STATE_DIR: '  ', OPENCLAW_GATEWAY_PORT: '18789' })).toEqual({
      OPENCLAW_GATEWAY_PORT: '18789',
    });
  });

  it('shellCommand quotes what a shell would split or expand', () => {
    expect(shellCommand(['launchctl', 'bootstrap', 'gui/501', "/Users/o'neil/a b.plist"])).toBe(
      "launchctl bootstrap gui/501 '/Users/o'\\''neil/a b.plist'",
    );
    expect(shellCommand(['echo', '$HOME', '--x=1'])).toBe("echo '$HOME' --x=1");
  });

  it('defaultRun returns exit code and output, and 127 for a missing program, without throwing', async () => {
    const result = await defaultRun([
      process.execPath,
      '-e',
      'process.stdout.write("out"); process.stderr.write("err"); process.exit(3)',
    ]);
    expect(result).toEqual({ code: 3, stdout: 'out', stderr: 'err' });
    expect(await defaultRun([process.execPath, '-e', ''])).toEqual({ code: 0, stdout: '', stderr: '' });
    const missing = await defaultRun([join(home, 'no-such-program')]);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toMatch(/command not found/);
  });
});
