/**
 * Restarting the gateway's systemd user unit without the openclaw CLI:
 * systemctl is a fake on PATH answering with `systemctl show` output; the
 * commands, their order, and the read-back after the restart are asserted.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chooseRestart,
  executeRestart,
  type RestartPlan,
  type StrategyEnvironment,
} from '../../../main/core/gateway/control.js';
import { type FakeAnswer, fakeExecutable } from './fake-executable.js';
import { ownerFixture } from './owner-fixtures.js';
import { fixture } from './service-fixtures.js';
import { type Harness, harness } from './strategy-harness.js';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.cleanup());

const UNIT = 'openclaw-gateway.service';
const SHOW = `--user show ${UNIT} --property=LoadState,LoadError,ActiveState,SubState,Result,MainPID,NRestarts,ExecMainStatus,UnitFileState,FragmentPath`;

function linux(overrides: Partial<StrategyEnvironment> = {}): StrategyEnvironment {
  return h.environment({ platform: 'linux', ...overrides });
}

/** A `systemctl show` answer whose unit path points into this test's home. */
function at(name: string): FakeAnswer {
  const answer = fixture(name);
  return { ...answer, stdout: answer.stdout.replaceAll('/home/ada', h.home) };
}

function unitFile(): string {
  return h.file(join(h.home, '.config', 'systemd', 'user', UNIT), '[Service]\nExecStart=/usr/bin/openclaw gateway\n');
}

function plan(env = linux()): RestartPlan {
  const { plan } = chooseRestart({ restartCommand: null, flavour: 'force', waitSec: 30 }, env);
  if (!plan) throw new Error('expected a systemd plan');
  return plan;
}

describe('systemd strategy', () => {
  it('is chosen on Linux without the CLI, with the unit named after the profile', () => {
    const systemctl = fakeExecutable(h.bin, 'systemctl', {});
    expect(plan()).toEqual({
      strategy: 'systemd',
      argv: [systemctl.path, '--user', 'restart', UNIT],
      description: `systemctl --user restart ${UNIT}`,
    });
    expect(plan(linux({ profile: 'lab' })).argv.at(-1)).toBe('openclaw-gateway-lab.service');
    expect(plan(linux({ env: { PATH: h.bin, OPENCLAW_SYSTEMD_UNIT: 'my-gw' } })).argv.at(-1)).toBe('my-gw.service');
  });

  it('a unit OpenClaw stopped with exit 78 (failed or inactive) is neither reset nor restarted', async () => {
    unitFile();
    for (const show of [
      at('systemctl show failed exit 78'),
      { stdout: ownerFixture('systemctl-show-inactive-exit-78.txt').replaceAll('/home/ada', h.home) },
    ]) {
      const systemctl = fakeExecutable(h.bin, 'systemctl', { [SHOW]: show });
      const attempt = await executeRestart(plan(), h.context(linux()));
      // Only the unit is read (the fake's log spans both rounds): no reset-failed, no restart.
      expect(new Set(systemctl.lines())).toEqual(new Set([`systemctl ${SHOW}`]));
      expect(attempt.outcome).toBe('failed');
      expect(attempt.message).toContain(
        'OpenClaw stopped itself: its database schema is newer than this gateway (exit 78); upgrade OpenClaw',
      );
      expect(attempt.message).toContain('ExecMainStatus=78');
    }
  });

  it('a failed unit (start limit hit): reset-failed, restart, then verify it is active', async () => {
    unitFile();
    const systemctl = fakeExecutable(h.bin, 'systemctl', {
      [SHOW]: [at('systemctl show failed start limit'), at('systemctl show active after restart')],
      [`--user reset-failed ${UNIT}`]: { exitCode: 0 },
      [`--user restart ${UNIT}`]: { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(linux()));
    expect(systemctl.lines()).toEqual([
      `systemctl ${SHOW}`,
      `systemctl --user reset-failed ${UNIT}`,
      `systemctl --user restart ${UNIT}`,
      `systemctl ${SHOW}`,
    ]);
    expect(attempt.outcome).toBe('done');
    expect(attempt.message).toBe(
      `systemd unit ${UNIT}: it had failed (failed/failed, exit status 1): reset and restarted it; active (pid 22410)`,
    );
    expect(attempt.service).toMatchObject({ health: 'running', pid: 22410, fileExists: true });
  });

  it('a crash-looping unit (auto-restart) is reset before the restart too', async () => {
    unitFile();
    const systemctl = fakeExecutable(h.bin, 'systemctl', {
      [SHOW]: [at('systemctl show auto-restart'), at('systemctl show active after restart')],
      [`--user reset-failed ${UNIT}`]: { exitCode: 0 },
      [`--user restart ${UNIT}`]: { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(linux()));
    expect(systemctl.lines()[1]).toBe(`systemctl --user reset-failed ${UNIT}`);
    expect(attempt.message).toContain('it was crash-looping (4 automatic restarts)');
  });

  it('an active unit: just restart, and read it back', async () => {
    unitFile();
    const systemctl = fakeExecutable(h.bin, 'systemctl', {
      [SHOW]: [at('systemctl show active'), at('systemctl show active after restart')],
      [`--user restart ${UNIT}`]: { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(linux()));
    expect(systemctl.lines()).toEqual([`systemctl ${SHOW}`, `systemctl --user restart ${UNIT}`, `systemctl ${SHOW}`]);
    expect(attempt.outcome).toBe('done');
  });

  it('unit file present but not loaded: daemon-reload, then start', async () => {
    unitFile();
    const systemctl = fakeExecutable(h.bin, 'systemctl', {
      [SHOW]: [
        at('systemctl show not found'),
        at('systemctl show inactive'),
        at('systemctl show active after restart'),
      ],
      '--user daemon-reload': { exitCode: 0 },
      [`--user start ${UNIT}`]: { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(linux()));
    expect(systemctl.lines()).toEqual([
      `systemctl ${SHOW}`,
      'systemctl --user daemon-reload',
      `systemctl ${SHOW}`,
      `systemctl --user start ${UNIT}`,
      `systemctl ${SHOW}`,
    ]);
    expect(attempt.outcome).toBe('done');
    expect(attempt.message).toContain('it was not loaded: reloaded systemd and started it; active (pid 22410)');
  });

  it('the unit file is found in $XDG_CONFIG_HOME too', async () => {
    const xdg = join(h.root, 'xdg');
    h.file(join(xdg, 'systemd', 'user', UNIT), '[Service]\n');
    fakeExecutable(h.bin, 'systemctl', {
      [SHOW]: [at('systemctl show not found'), at('systemctl show active after restart')],
      '--user daemon-reload': { exitCode: 0 },
      [`--user start ${UNIT}`]: { exitCode: 0 },
    });
    const env = linux({ env: { PATH: h.bin, XDG_CONFIG_HOME: xdg } });
    const attempt = await executeRestart(plan(env), h.context(env));
    expect(attempt.outcome).toBe('done');
  });

  it('not installed: no unit file anywhere, nothing run but the read', async () => {
    const systemctl = fakeExecutable(h.bin, 'systemctl', { [SHOW]: at('systemctl show not found') });
    const attempt = await executeRestart(plan(), h.context(linux()));
    expect(systemctl.lines()).toEqual([`systemctl ${SHOW}`]);
    expect(attempt.outcome).toBe('failed');
    expect(attempt.message).toContain(
      `the gateway is not installed as a systemd user unit here: no ${UNIT} in ${join(h.home, '.config/systemd/user', UNIT)}, /etc/systemd/user/${UNIT}`,
    );
    expect(attempt.message).toContain('`openclaw gateway install`');
  });

  it('a masked unit is left alone', async () => {
    const systemctl = fakeExecutable(h.bin, 'systemctl', { [SHOW]: at('systemctl show masked') });
    const attempt = await executeRestart(plan(), h.context(linux()));
    expect(systemctl.lines()).toHaveLength(1);
    expect(attempt.outcome).toBe('failed');
    expect(attempt.message).toContain('is masked');
  });

  it('no user bus: the read fails, nothing is acted on, and the hint says why', async () => {
    unitFile();
    const systemctl = fakeExecutable(h.bin, 'systemctl', { [SHOW]: at('systemctl user bus unavailable') });
    const attempt = await executeRestart(plan(), h.context(linux()));
    expect(systemctl.lines()).toHaveLength(1);
    expect(attempt.outcome).toBe('failed');
    expect(attempt.message).toContain('failed with exit code 1: Failed to connect to bus: No medium found');
    expect(attempt.message).toContain('cannot reach the user manager');
    expect(attempt.service?.health).toBe('unknown');
  });

  it('the restart itself fails: failed with systemctl’s words', async () => {
    unitFile();
    fakeExecutable(h.bin, 'systemctl', {
      [SHOW]: at('systemctl show active'),
      [`--user restart ${UNIT}`]: at('systemctl restart failed'),
    });
    const attempt = await executeRestart(plan(), h.context(linux()));
    expect(attempt.outcome).toBe('failed');
    expect(attempt.message).toMatch(/^`systemctl --user restart openclaw-gateway.service` failed with exit code 1: /);
    expect(attempt.result?.exitCode).toBe(1);
  });

  it('still activating when the settle time is up: still starting, not failed', async () => {
    unitFile();
    fakeExecutable(h.bin, 'systemctl', {
      [SHOW]: [at('systemctl show active'), at('systemctl show activating')],
      [`--user restart ${UNIT}`]: { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(linux(), { settleMs: 1000 }));
    expect(attempt.outcome).toBe('still_starting');
    expect(attempt.message).toContain('still starting (activating/start)');
    expect(h.slept()).toBe(500);
  });

  it('the unit fails right after the restart (exit 78): failed, with the exit status', async () => {
    unitFile();
    fakeExecutable(h.bin, 'systemctl', {
      [SHOW]: [at('systemctl show active'), at('systemctl show failed exit 78')],
      [`--user restart ${UNIT}`]: { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(linux()));
    expect(attempt.outcome).toBe('failed');
    expect(attempt.message).toContain('systemd does not show it active');
    expect(attempt.message).toContain('result exit-code, last exit status 78');
  });

  it('a broken unit file (bad-setting) that daemon-reload does not fix: failed with systemd’s reason', async () => {
    unitFile();
    fakeExecutable(h.bin, 'systemctl', {
      [SHOW]: at('systemctl show bad setting'),
      '--user daemon-reload': { exitCode: 0 },
    });
    const attempt = await executeRestart(plan(), h.context(linux()));
    expect(attempt.outcome).toBe('failed');
    expect(attempt.message).toContain('still not loaded after `systemctl --user daemon-reload`');
    expect(attempt.message).toContain('has a bad unit file setting');
  });
});
