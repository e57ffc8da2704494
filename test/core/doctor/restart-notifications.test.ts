/**
 * The doctor's restart and notification checks: what would run, whether it
 * exists, which desktop backend applies, and webhook problems without ever
 * showing a webhook's URL.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Environment } from '../../../main/core/config/index.js';
import { type DoctorReport, type Finding, runDoctor } from '../../../main/core/doctor/index.js';
import { fakeExecutable } from '../gateway/fake-executable.js';
import { ownerFixture } from '../gateway/owner-fixtures.js';
import { fixture } from '../gateway/service-fixtures.js';

const UNIT = 'openclaw-gateway.service';

let tmp: string;
let binDir: string;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-doctor-'));
  binDir = join(tmp, 'bin');
  mkdirSync(binDir);
});

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

function environment(extra: NodeJS.ProcessEnv = {}, platform: NodeJS.Platform = 'linux'): Environment {
  return { env: { PATH: binDir, BREAKERBAR_HOME: join(tmp, 'bbhome'), ...extra }, home: join(tmp, 'home'), platform };
}

function config(overrides: { watchdog?: object; notifications?: object } = {}): string {
  const path = join(tmp, 'config.json');
  writeFileSync(
    path,
    JSON.stringify({
      openclawDir: join(tmp, 'openclaw'),
      dataDir: join(tmp, 'data'),
      gatewayLogDir: join(tmp, 'logs'),
      gatewayUrl: 'http://127.0.0.1:9',
      watchdog: { restartCommand: ['/bin/true'], ...overrides.watchdog },
      notifications: { desktop: false, ...overrides.notifications },
    }),
  );
  return path;
}

function doctor(configFile: string, env = environment()): Promise<DoctorReport> {
  return runDoctor({ configFile, environment: env, probeTimeoutMs: 200 });
}

const area = (report: DoctorReport, name: Finding['area']) => report.findings.filter((f) => f.area === name);

function executable(name: string): string {
  const path = join(binDir, name);
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
  return path;
}

describe('restart strategy', () => {
  it('a restartCommand whose program exists is ok, one line for every trigger', async () => {
    const restart = area(await doctor(config()), 'restart');
    expect(restart.map((f) => [f.level, f.title])).toEqual([
      ['info', 'watchdog on'],
      ['ok', 'every restart (manual, health): restart command: /bin/true'],
      ['info', 'gateway owner: unknown'],
    ]);
  });

  it('a restartCommand pointing at a missing program is an error with the fix', async () => {
    const restart = area(
      await doctor(config({ watchdog: { restartCommand: ['/nonexistent/gw-restart', '--now'] } })),
      'restart',
    );
    const error = restart.find((f) => f.level === 'error');
    expect(error?.title).toBe('every restart (manual, health): /nonexistent/gw-restart not found');
    expect(error?.detail).toBe('would run: /nonexistent/gw-restart --now');
    expect(error?.fix).toContain('watchdog.restartCommand');
  });

  it('finds a bare program name on PATH, and says when it is not there', async () => {
    const found = executable('restart-gw');
    const ok = area(await doctor(config({ watchdog: { restartCommand: ['restart-gw'] } })), 'restart');
    expect(ok.find((f) => f.level === 'ok')?.detail).toBe(`would run: restart-gw (restart-gw is ${found})`);
    const missing = area(await doctor(config({ watchdog: { restartCommand: ['no-such-restarter'] } })), 'restart');
    expect(missing.find((f) => f.level === 'error')?.title).toContain('no-such-restarter not found');
  });

  it('picks the openclaw CLI per trigger with its flavour', async () => {
    const openclaw = executable('openclaw');
    const restart = area(
      await doctor(config({ watchdog: { restartCommand: null, healthRestart: 'force', stormRestart: 'wait' } })),
      'restart',
    );
    expect(restart.filter((f) => f.level === 'ok').map((f) => f.title)).toEqual([
      'manual restart: openclaw gateway restart (safe)',
      'restart of a dead or hung gateway: openclaw gateway restart (force)',
      'restart after a 429 storm: openclaw gateway restart (wait 30s)',
    ]);
    // Storm restarts on with the manual flavour: one line for both.
    const safe = area(await doctor(config({ watchdog: { restartCommand: null, stormRestart: 'safe' } })), 'restart');
    expect(safe.filter((f) => f.level === 'ok').map((f) => f.title)).toContain(
      'manual restart, restart after a 429 storm: openclaw gateway restart (safe)',
    );
    // By default a storm restarts nothing: no plan for it, and the watchdog line says storms are waited out.
    const byDefault = area(await doctor(config({ watchdog: { restartCommand: null } })), 'restart');
    expect(byDefault.filter((f) => f.level === 'ok').map((f) => f.title)).toEqual([
      'manual restart: openclaw gateway restart (safe)',
      'restart of a dead or hung gateway: openclaw gateway restart (wait 30s)',
    ]);
    expect(byDefault[0]?.detail).toContain('a 429 storm is alerted and waited out, not restarted');
    expect(restart[1]?.detail).toBe(`would run: ${openclaw} gateway restart --json --safe`);
  });

  it('no CLI and no systemctl: an error with the fix; with systemctl but no unit installed: an error too', async () => {
    const none = area(await doctor(config({ watchdog: { restartCommand: null } })), 'restart');
    const error = none.find((f) => f.level === 'error');
    expect(error?.title).toContain('no way to restart the gateway');
    expect(error?.fix).toContain('watchdog.restartCommand');

    const show = `--user show ${UNIT} --property=LoadState,LoadError,ActiveState,SubState,Result,MainPID,NRestarts,ExecMainStatus,UnitFileState,FragmentPath`;
    const systemctl = fakeExecutable(binDir, 'systemctl', { [show]: fixture('systemctl show not found') });
    const noUnit = area(await doctor(config({ watchdog: { restartCommand: null } })), 'restart');
    const notInstalled = noUnit.find((f) => f.level === 'error');
    expect(notInstalled?.title).toBe(
      `every restart (manual, health): systemctl --user restart ${UNIT}, but the gateway service is not installed`,
    );
    expect(notInstalled?.detail).toContain(`no ${UNIT} in ${join(tmp, 'home', '.config', 'systemd', 'user', UNIT)}`);
    expect(notInstalled?.fix).toContain('openclaw gateway install');
    // The doctor only reads: nothing but `systemctl show` ran.
    expect(systemctl.lines().every((line) => line.startsWith(`systemctl --user show ${UNIT}`))).toBe(true);

    const unitDir = join(tmp, 'home', '.config', 'systemd', 'user');
    mkdirSync(unitDir, { recursive: true });
    writeFileSync(join(unitDir, UNIT), '[Service]\n');
    const failed = fixture('systemctl show failed start limit');
    fakeExecutable(binDir, 'systemctl', {
      [show]: { ...failed, stdout: failed.stdout.replaceAll('/home/ada', join(tmp, 'home')) },
    });
    const withUnit = area(await doctor(config({ watchdog: { restartCommand: null } })), 'restart');
    expect(withUnit.filter((f) => f.level === 'error')).toEqual([]);
    expect(withUnit.find((f) => f.level === 'ok')?.title).toContain(`systemctl --user restart ${UNIT}`);
    // A unit stuck in its start limit is worth a warning, with what to do now.
    const unitState = withUnit.find((f) => f.level === 'warn');
    expect(unitState?.title).toBe(
      `systemd unit ${UNIT}: failed (failed), result start-limit-hit, last exit status 1, 10 automatic restarts`,
    );
  });

  it("names the gateway's owner: OpenClaw stopped itself (exit 78) is an error with the fix, and no restart advice", async () => {
    const unitDir = join(tmp, 'home', '.config', 'systemd', 'user');
    mkdirSync(unitDir, { recursive: true });
    writeFileSync(join(unitDir, UNIT), '[Service]\n');
    const show = `--user show ${UNIT} --property=LoadState,LoadError,ActiveState,SubState,Result,MainPID,NRestarts,ExecMainStatus,UnitFileState,FragmentPath`;
    const parked = fixture('systemctl show failed exit 78');
    fakeExecutable(binDir, 'systemctl', {
      [show]: { ...parked, stdout: parked.stdout.replaceAll('/home/ada', join(tmp, 'home')) },
      [`--user show ${UNIT} --property=Environment`]: { stdout: ownerFixture('systemctl-show-environment-plain.txt') },
    });
    const restart = area(await doctor(config({ watchdog: { restartCommand: null } })), 'restart');
    const owner = restart.find((f) => f.title.startsWith('OpenClaw stopped itself'));
    expect(owner).toMatchObject({
      level: 'error',
      title:
        'OpenClaw stopped itself: its database schema is newer than this gateway (exit 78); BreakerBar will not restart it',
      fix: 'upgrade OpenClaw, then start the gateway again (`openclaw gateway start`)',
    });
    expect(owner?.detail).toContain('last exit status 78');
    expect(restart.some((f) => f.fix?.includes('reset-failed'))).toBe(false);
  });

  it("names the gateway's owner: an external supervisor without restartCommand is a warning naming it", async () => {
    const unitDir = join(tmp, 'home', '.config', 'systemd', 'user');
    mkdirSync(unitDir, { recursive: true });
    writeFileSync(join(unitDir, UNIT), '[Service]\n');
    const show = `--user show ${UNIT} --property=LoadState,LoadError,ActiveState,SubState,Result,MainPID,NRestarts,ExecMainStatus,UnitFileState,FragmentPath`;
    const active = fixture('systemctl show active');
    fakeExecutable(binDir, 'systemctl', {
      [show]: { ...active, stdout: active.stdout.replaceAll('/home/ada', join(tmp, 'home')) },
      [`--user show ${UNIT} --property=Environment`]: {
        stdout: ownerFixture('systemctl-show-environment-external.txt'),
      },
    });
    const restart = area(await doctor(config({ watchdog: { restartCommand: null } })), 'restart');
    const owner = restart.find((f) => f.title.startsWith('gateway owner'));
    expect(owner).toMatchObject({
      level: 'warn',
      title: `gateway owner: an external supervisor: systemd user unit ${UNIT}; BreakerBar alerts instead of restarting it`,
    });
    expect(owner?.words?.title).toMatchObject({ key: 'doctor.restart.ownerBlocked' });
    expect(owner?.fix).toContain('watchdog.restartCommand');
  });

  it('no user bus for systemctl: the plan cannot work, and the doctor says why', async () => {
    const unitDir = join(tmp, 'home', '.config', 'systemd', 'user');
    mkdirSync(unitDir, { recursive: true });
    writeFileSync(join(unitDir, UNIT), '');
    fakeExecutable(binDir, 'systemctl', {
      [`--user show ${UNIT} --property=LoadState,LoadError,ActiveState,SubState,Result,MainPID,NRestarts,ExecMainStatus,UnitFileState,FragmentPath`]:
        fixture('systemctl user bus unavailable'),
    });
    const restart = area(await doctor(config({ watchdog: { restartCommand: null } })), 'restart');
    const error = restart.find((f) => f.level === 'error');
    expect(error?.title).toBe(`every restart (manual, health): systemctl --user restart ${UNIT} cannot work here`);
    expect(error?.detail).toContain('Failed to connect to bus: No medium found');
  });

  it('macOS without the CLI: a parked LaunchAgent is runnable and reported as a warning', async () => {
    const label = 'ai.openclaw.gateway';
    const uid = typeof process.getuid === 'function' ? process.getuid() : 501;
    fakeExecutable(binDir, 'launchctl', { [`print gui/${uid}/${label}`]: fixture('launchctl print parked') });
    const restart = area(
      await doctor(config({ watchdog: { restartCommand: null } }), environment({}, 'darwin')),
      'restart',
    );
    expect(restart.find((f) => f.level === 'ok')?.title).toBe(
      `every restart (manual, health): launchctl kickstart -k ${label}`,
    );
    const parked = restart.find((f) => f.level === 'warn');
    expect(parked?.title).toContain('loaded but not running and launchd is not respawning it');
    expect(parked?.fix).toBe(`now: \`launchctl kickstart -k gui/${uid}/${label}\``);
  });

  it('shows a disabled or dry-run watchdog as info; then only a manual restart problem is an error', async () => {
    const off = area(
      await doctor(config({ watchdog: { enabled: false, restartCommand: null, manualRestart: 'force' } })),
      'restart',
    );
    expect(off[0]).toMatchObject({ level: 'info', title: 'watchdog off (watchdog.enabled false)' });
    expect(off.find((f) => f.level === 'error')?.title).toContain('every restart');

    const dry = area(await doctor(config({ watchdog: { dryRun: true } })), 'restart');
    expect(dry[0]).toMatchObject({ level: 'info', title: 'watchdog in dry run (watchdog.dryRun)' });
  });
});

describe('desktop notifications', () => {
  const desktopOn = { notifications: { desktop: true } };

  it('on Linux without notify-send on PATH: a warning with the install hint', async () => {
    const desktop = area(await doctor(config(desktopOn)), 'notifications')[0];
    expect(desktop).toMatchObject({ level: 'warn', title: 'desktop notifications: notify-send not found on PATH' });
    expect(desktop?.fix).toBe(
      'apt-get install libnotify-bin and run a notification daemon, or set notifications.desktop to false',
    );
  });

  it('on Linux with notify-send: ok with a session bus, a warning without one', async () => {
    const notifySend = executable('notify-send');
    const withBus = await doctor(config(desktopOn), environment({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/x' }));
    expect(area(withBus, 'notifications')[0]).toMatchObject({
      level: 'ok',
      detail: `${notifySend}; session bus found`,
    });
    const noBus = await doctor(config(desktopOn));
    expect(area(noBus, 'notifications')[0]).toMatchObject({ level: 'warn' });
    expect(area(noBus, 'notifications')[0]?.title).toContain('DBUS_SESSION_BUS_ADDRESS');
  });

  it("on macOS and Windows: node-notifier's bundled helper", async () => {
    const mac = await doctor(config(desktopOn), environment({}, 'darwin'));
    expect(area(mac, 'notifications')[0]).toMatchObject({
      level: 'ok',
      title: "desktop notifications through node-notifier's bundled terminal-notifier",
    });
    const win = await doctor(config(desktopOn), environment({}, 'win32'));
    expect(area(win, 'notifications')[0]).toMatchObject({
      level: 'ok',
      title: "desktop notifications through node-notifier's bundled SnoreToast",
    });
  });

  it('off: info', async () => {
    expect(area(await doctor(config()), 'notifications')[0]).toMatchObject({
      level: 'info',
      title: 'desktop notifications off (notifications.desktop false)',
    });
  });
});

describe('webhooks', () => {
  const botToken = '123456789:AAE-secret-bot-token';
  const slackPath = '/services/T000/B000/slack-secret-path';

  it('reports each webhook redacted, and a telegram one without chatId as an error; the URLs never appear', async () => {
    const file = config({
      notifications: {
        webhooks: [
          { type: 'slack', url: `https://hooks.slack.com${slackPath}`, events: ['breaker_opened'] },
          { type: 'telegram', url: `https://api.telegram.org/bot${botToken}/sendMessage` },
        ],
      },
    });
    const report = await doctor(file);
    const hooks = area(report, 'notifications').filter((f) => f.title.startsWith('webhook'));
    expect(hooks.map((f) => [f.level, f.title])).toEqual([
      ['ok', 'webhook 1: slack → https://hooks.slack.com/…'],
      ['error', 'webhook 2: telegram → https://api.telegram.org/…'],
    ]);
    expect(hooks[0]?.detail).toContain('events: breaker_opened');
    expect(hooks[1]?.detail).toContain('chatId');
    expect(hooks[1]?.fix).toBe(`fix notifications.webhooks[1] in ${file}`);
    const text = JSON.stringify(report);
    expect(text).not.toContain(botToken);
    expect(text).not.toContain(slackPath);
  });

  it('says when there is no channel at all', async () => {
    const none = area(await doctor(config()), 'notifications').find((f) => f.title === 'no webhooks');
    expect(none?.detail).toContain('desktop notifications are off');
    expect(none?.fix).toContain('notifications.webhooks');
  });
});
