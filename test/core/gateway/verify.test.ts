/**
 * verifyRestartStrategy: whether the restart the watchdog would run has
 * something real to act on here, and why not: the one place that fact is
 * decided (the doctor and the watchdog both ask it).
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type RestartOptions,
  type StrategyEnvironment,
  verifyRestartStrategy,
} from '../../../main/core/gateway/control.js';
import { runCommand } from '../../../main/core/gateway/run-command.js';
import { fakeExecutable } from './fake-executable.js';
import { fixture } from './service-fixtures.js';
import { type Harness, harness } from './strategy-harness.js';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.cleanup());

const AUTO: RestartOptions = { restartCommand: null, flavour: 'safe', waitSec: 30 };
const LABEL = 'ai.openclaw.gateway';
const TARGET = `gui/501/${LABEL}`;
const UNIT = 'openclaw-gateway.service';
const SHOW = `--user show ${UNIT} --property=LoadState,LoadError,ActiveState,SubState,Result,MainPID,NRestarts,ExecMainStatus,UnitFileState,FragmentPath`;

/** A recorded answer whose paths point into this test's home. */
function at(name: string) {
  const answer = fixture(name);
  return { ...answer, stdout: answer.stdout.replaceAll('/home/ada', h.home).replaceAll('/Users/ada', h.home) };
}

function verify(options: RestartOptions, env: StrategyEnvironment) {
  return verifyRestartStrategy(options, env, { run: runCommand, commandEnv: env.env });
}

describe('verifyRestartStrategy', () => {
  it('a restartCommand is runnable when its program exists, and says which program is missing otherwise', async () => {
    const tool = h.file(join(h.bin, 'restart-gw'), '#!/bin/sh\nexit 0\n');
    const { chmodSync } = await import('node:fs');
    chmodSync(tool, 0o755);
    expect(await verify({ ...AUTO, restartCommand: ['restart-gw', '--now'] }, h.environment())).toEqual({
      runnable: true,
      strategy: 'command',
      problem: null,
      program: tool,
      checked: [`restart-gw: ${tool}`],
      service: null,
    });
    const missing = await verify({ ...AUTO, restartCommand: ['/nonexistent/gw'] }, h.environment());
    expect(missing).toMatchObject({ runnable: false, strategy: 'command', program: null });
    expect(missing.problem).toBe(
      '/nonexistent/gw not found (watchdog.restartCommand): install it or give its absolute path',
    );
  });

  it('the openclaw CLI is runnable wherever it is found; the service it manages is reported alongside', async () => {
    const openclaw = fakeExecutable(h.bin, 'openclaw', {});
    const systemctl = fakeExecutable(h.bin, 'systemctl', { [SHOW]: fixture('systemctl show auto-restart') });
    const result = await verify(AUTO, h.environment({ platform: 'linux' }));
    expect(result).toMatchObject({ runnable: true, strategy: 'openclaw', program: openclaw.path });
    expect(result.service).toMatchObject({ manager: 'systemd', health: 'respawn_pending', restarts: 4 });
    // Verifying never restarts anything.
    expect(openclaw.calls()).toEqual([]);
    expect(systemctl.lines()).toEqual([`systemctl ${SHOW}`]);
  });

  it('launchd: an unloaded LaunchAgent whose plist is there is runnable', async () => {
    const plist = h.file(join(h.home, 'Library', 'LaunchAgents', `${LABEL}.plist`), '<plist/>');
    fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: fixture('launchctl print not loaded'),
      'print-disabled gui/501': fixture('launchctl print-disabled legacy'),
    });
    // The legacy print-disabled format says `=> true`: disabled.
    const disabled = await verify(AUTO, h.environment());
    expect(disabled).toMatchObject({ runnable: false, strategy: 'launchd' });
    expect(disabled.problem).toContain('is disabled');

    fakeExecutable(h.bin, 'launchctl', {
      [`print ${TARGET}`]: fixture('launchctl print not loaded'),
      'print-disabled gui/501': fixture('launchctl print-disabled enabled'),
    });
    const result = await verify(AUTO, h.environment());
    expect(result).toMatchObject({ runnable: true, strategy: 'launchd', problem: null });
    expect(result.service).toMatchObject({ health: 'unloaded', fileExists: true, file: plist });
    expect(result.checked).toEqual([
      `launchctl: ${join(h.bin, 'launchctl')}`,
      `~/Library/LaunchAgents/${LABEL}.plist: present`,
      `launchctl print ${TARGET}: LaunchAgent ${LABEL}: not loaded (~/Library/LaunchAgents/${LABEL}.plist is there)`,
    ]);
  });

  it('launchd: a loaded job is runnable even when its plist moved; a parked one is reported as such', async () => {
    fakeExecutable(h.bin, 'launchctl', { [`print ${TARGET}`]: fixture('launchctl print parked') });
    const result = await verify(AUTO, h.environment());
    expect(result).toMatchObject({ runnable: true, strategy: 'launchd' });
    expect(result.service).toMatchObject({ health: 'parked', loaded: true, pid: null, lastExit: '1', restarts: 14 });
  });

  it('launchd: not installed is not runnable, naming the plist it looked for', async () => {
    fakeExecutable(h.bin, 'launchctl', { [`print ${TARGET}`]: fixture('launchctl print not loaded') });
    const result = await verify(AUTO, h.environment());
    expect(result.runnable).toBe(false);
    expect(result.problem).toContain(`~/Library/LaunchAgents/${LABEL}.plist does not exist`);
    expect(result.checked[1]).toBe(`~/Library/LaunchAgents/${LABEL}.plist: missing`);
  });

  it('launchd: OpenClaw.app in attach-only mode is named when there is no LaunchAgent', async () => {
    h.file(join(h.home, '.openclaw', 'disable-launchagent'));
    fakeExecutable(h.bin, 'launchctl', { [`print ${TARGET}`]: fixture('launchctl print not loaded') });
    const result = await verify(AUTO, h.environment());
    expect(result.problem).toContain(
      '~/.openclaw/disable-launchagent exists: OpenClaw.app attaches to a gateway it does not manage',
    );
  });

  it('launchd: without a user id nothing can be addressed', async () => {
    const result = await verify(AUTO, h.environment({ uid: null }));
    expect(result).toMatchObject({ runnable: false, strategy: null });
    expect(result.problem).toContain('the user id for launchctl (gui/<uid>) is unknown');
  });

  it('systemd: a loaded unit is runnable; no user bus is not, even with the unit file there', async () => {
    const unit = h.file(join(h.home, '.config', 'systemd', 'user', UNIT), '[Service]\n');
    fakeExecutable(h.bin, 'systemctl', { [SHOW]: at('systemctl show active') });
    const active = await verify(AUTO, h.environment({ platform: 'linux' }));
    expect(active).toMatchObject({ runnable: true, strategy: 'systemd' });
    expect(active.checked[1]).toBe(`unit file: ~/.config/systemd/user/${UNIT}`);

    fakeExecutable(h.bin, 'systemctl', { [SHOW]: fixture('systemctl user bus no runtime dir') });
    const noBus = await verify(AUTO, h.environment({ platform: 'linux' }));
    expect(noBus.runnable).toBe(false);
    expect(noBus.problem).toContain('$XDG_RUNTIME_DIR not defined');
    expect(noBus.problem).toContain('cannot reach the user manager');
    expect(noBus.service).toMatchObject({ health: 'unknown', fileExists: true, file: unit });
  });

  it('systemd: not installed, masked and broken units are not runnable', async () => {
    fakeExecutable(h.bin, 'systemctl', { [SHOW]: fixture('systemctl show not found') });
    const none = await verify(AUTO, h.environment({ platform: 'linux' }));
    expect(none.runnable).toBe(false);
    expect(none.problem).toContain('not installed as a systemd user unit');

    fakeExecutable(h.bin, 'systemctl', { [SHOW]: fixture('systemctl show masked') });
    expect((await verify(AUTO, h.environment({ platform: 'linux' }))).problem).toContain('is masked');

    h.file(join(h.home, '.config', 'systemd', 'user', UNIT), '[Service]\nBogus=\n');
    fakeExecutable(h.bin, 'systemctl', {
      [SHOW]: at('systemctl show bad setting'),
    });
    const broken = await verify(AUTO, h.environment({ platform: 'linux' }));
    expect(broken.runnable).toBe(false);
    expect(broken.problem).toBe(
      `systemd cannot load ${UNIT} (bad-setting): org.freedesktop.systemd1.BadUnitSetting "Unit ${UNIT} has a bad unit file setting."; fix ~/.config/systemd/user/${UNIT} and run \`systemctl --user daemon-reload\``,
    );
  });

  it('no CLI and no service manager: not runnable, with the fix', async () => {
    const linux = await verify(AUTO, h.environment({ platform: 'linux' }));
    expect(linux).toEqual({
      runnable: false,
      strategy: null,
      problem: 'no openclaw CLI and no systemctl on PATH: set watchdog.restartCommand',
      program: null,
      checked: [],
      service: null,
    });
    const windows = await verify(AUTO, h.environment({ platform: 'win32', env: { PATH: 'C:\\none' } }));
    expect(windows.problem).toBe('no openclaw CLI on PATH, not macOS/Linux: set watchdog.restartCommand');
  });
});
