/**
 * The tray with Electron played by fake-electron.ts: the icon and menu for
 * each state, the menu rebuilt (setContextMenu again) when the state changes,
 * and each click reaching what it should: the core's restart path over HTTP
 * with the token (a real API server on loopback), pause and resume, the
 * confirmation and its preference, launch at login, logs, metrics, quit.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { headline, headlineText } from '../../main/api/headline.js';
import type { ApiStatus } from '../../main/api/types.js';
import { CoreApi } from '../../main/app/core-api.js';
import { createLoginItem } from '../../main/app/login-item.js';
import { PreferenceStore } from '../../main/app/preferences.js';
import { TrayController } from '../../main/app/tray.js';
import type { CoreView } from '../../main/app/tray-model.js';
import { translator } from '../../main/words/messages/index.js';
import { until } from '../helpers/transcripts.js';
import { type FakeCore, startFakeCore } from './fake-core.js';
import { app, dialog, FakeTray, Menu, reset, shell, state } from './fake-electron.js';
import { apiStatus, breaker, gateway, NOW, probe, watchdog } from './fixtures.js';

/** The tooltip is the headline, worded in English (the tray's default language). */
const tip = (status: ApiStatus) => headlineText(headline(status, NOW), translator('en'));

vi.mock('electron', async () => (await import('./fake-electron.js')).electron);

/** The part of the supervisor the tray reads, played by hand. */
class StubSupervisor extends EventEmitter<{ change: []; event: [] }> {
  view: CoreView = { phase: 'connecting', detail: 'starting the core…' };
  status: ApiStatus | null = null;
  api: CoreApi | null = null;
  readonly refresh = vi.fn();
  set(view: CoreView, status: ApiStatus | null): void {
    this.view = view;
    this.status = status;
    this.emit('change');
  }
}

let dir: string;
let core: FakeCore;
let supervisor: StubSupervisor;
let preferences: PreferenceStore;
let controller: TrayController;
const quit = vi.fn();

function connect(status: ApiStatus = apiStatus()): void {
  supervisor.api = new CoreApi({ url: core.url, token: () => core.token });
  supervisor.set({ phase: 'connected', mode: 'embedded', url: core.url, pid: 12 }, status);
}

function tray(): FakeTray {
  const instance = FakeTray.instances[0];
  if (!instance) throw new Error('no tray was created');
  return instance;
}

function menu() {
  const current = tray().menu;
  if (!current) throw new Error('no menu was set');
  return current;
}

function start(platform: NodeJS.Platform = 'darwin'): void {
  controller = new TrayController({
    supervisor: supervisor as never,
    openDashboard: vi.fn(),
    preferences,
    loginItem: createLoginItem({ platform, app, autostartDir: join(dir, 'autostart'), execArgs: ['/opt/bb'] }),
    platform,
    assetsDir: '/assets',
    logsDir: join(dir, 'logs'),
    quit,
    clock: () => NOW,
  });
  controller.enable();
}

beforeEach(async () => {
  reset();
  quit.mockClear();
  dir = mkdtempSync(join(tmpdir(), 'bb-app-tray-'));
  core = await startFakeCore();
  supervisor = new StubSupervisor();
  preferences = new PreferenceStore(join(dir, 'preferences.json'));
});

afterEach(async () => {
  controller?.destroy();
  await core.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('icon and menu for each state', () => {
  it('connecting: the degraded icon, the core line, actions that need a core disabled', () => {
    start();
    expect(tray().image.path).toBe('/assets/tray-degradedTemplate.png');
    expect(tray().image.setTemplateImage).toHaveBeenCalledWith(true);
    expect(tray().tooltip).toBe('BreakerBar: starting the core…');
    expect(menu().find('core')?.label).toBe('Core: starting the core…');
    expect(menu().find('restart')?.enabled).toBe(false);
    expect(menu().find('open-dashboard')?.enabled).toBe(true);
  });

  it('healthy: the healthy icon and the gateway, watchdog and dependency lines', () => {
    start();
    connect();
    expect(tray().image.path).toBe('/assets/tray-healthyTemplate.png');
    expect(tray().tooltip).toBe(tip(apiStatus()));
    expect(tray().tooltip).toBe('All well · 2 dependencies answering');
    expect(menu().labels().slice(0, 5)).toEqual([
      tip(apiStatus()),
      'Gateway: up 3 h · probed 12 s ago',
      'Watchdog: active · 4/4 restarts left this hour',
      'deepseek/deepseek-v4-pro: closed',
      'zhipu/glm-5.1: closed',
    ]);
    expect(menu().find('restart')).toMatchObject({ label: 'Restart Gateway…', enabled: true });
  });

  it('degraded: a throttled dependency with its Retry-After countdown', () => {
    start();
    connect(apiStatus({ breakers: [breaker('zhipu/glm-5.1', { state: 'throttled', retryAfterUntil: NOW + 42_000 })] }));
    expect(tray().image.path).toBe('/assets/tray-degradedTemplate.png');
    expect(menu().find('dep:zhipu/glm-5.1')?.label).toBe('zhipu/glm-5.1: throttled, Retry-After ends in 42 s');
  });

  it('down: the down icon when the gateway is dead', () => {
    start('linux');
    const dead = apiStatus({
      gateway: gateway({ last: probe({ ok: false, dead: true, class: 'refused' }), downSince: NOW - 60_000 }),
    });
    connect(dead);
    expect(tray().image.path).toBe('/assets/tray-down.png');
    expect(tray().tooltip).toBe(tip(dead));
    expect(tray().tooltip).toMatch(/^Gateway down since /);
  });

  it('shows a word in the macOS menu bar when the artwork is missing, so the app stays reachable', () => {
    start('darwin');
    expect(tray().title).toBe('BreakerBar');
  });

  it('rebuilds the menu and sets it again when the state changes, and only then', () => {
    start('linux');
    connect();
    const before = tray().setContextMenu.mock.calls.length;
    const firstMenu = menu();
    controller.render();
    expect(tray().setContextMenu.mock.calls.length).toBe(before);
    supervisor.set(
      supervisor.view,
      apiStatus({ breakers: [breaker('zhipu/glm-5.1', { state: 'open', openUntil: NOW + 30_000 })] }),
    );
    expect(tray().setContextMenu.mock.calls.length).toBe(before + 1);
    expect(menu()).not.toBe(firstMenu);
    expect(menu().find('dep:zhipu/glm-5.1')?.label).toBe('zhipu/glm-5.1: open, next probe in 30 s');
    expect(tray().setImage).toHaveBeenLastCalledWith(expect.objectContaining({ path: '/assets/tray-down.png' }));
    expect(Menu.buildFromTemplate).toHaveBeenCalledTimes(before + 1);
  });

  it('opens the menu on a left click on Windows', () => {
    start('win32');
    tray().emit('click');
    expect(tray().popUpContextMenu).toHaveBeenCalled();
  });
});

describe('clicks', () => {
  it('Restart Gateway asks first, then reaches the core’s restart path with the token', async () => {
    start();
    connect();
    menu().click('restart');
    await until(() => core.backend.watchdogRequests.length === 1);
    expect(dialog.showMessageBox).toHaveBeenCalledWith(
      expect.objectContaining({ message: 'Restart the OpenClaw gateway?', checkboxLabel: 'Do not ask again' }),
    );
    expect(core.backend.watchdogRequests).toEqual([
      { action: 'restart', reason: 'restart from the menu bar', force: false },
    ]);
    await until(() => supervisor.refresh.mock.calls.length > 0);
  });

  it('Cancel in the confirmation sends nothing', async () => {
    start();
    connect();
    state.dialogAnswers.push({ response: 1 });
    await controller.perform('restart');
    expect(dialog.showMessageBox).toHaveBeenCalledTimes(1);
    expect(core.backend.watchdogRequests).toEqual([]);
  });

  it('"Do not ask again" turns the confirmation off, persisted; the next restart goes straight through', async () => {
    start();
    connect();
    state.dialogAnswers.push({ response: 0, checkboxChecked: true });
    await controller.perform('restart');
    expect(JSON.parse(readFileSync(join(dir, 'preferences.json'), 'utf8'))).toMatchObject({ confirmRestart: false });
    expect(menu().find('restart')?.label).toBe('Restart Gateway');
    expect(menu().find('toggle-confirm-restart')?.checked).toBe(false);

    await controller.perform('restart');
    expect(dialog.showMessageBox).toHaveBeenCalledTimes(1);
    expect(core.backend.watchdogRequests).toHaveLength(2);
    // And the checkbox in the menu turns it back on.
    menu().click('toggle-confirm-restart');
    expect(new PreferenceStore(join(dir, 'preferences.json')).value.confirmRestart).toBe(true);
  });

  it('tells the user when the watchdog did not restart, and when the core refused', async () => {
    start();
    connect();
    preferences.set({ confirmRestart: false });
    core.backend.watchdogError = new Error('this instance does not watch a gateway');
    await controller.perform('restart');
    expect(dialog.showMessageBox).toHaveBeenLastCalledWith(
      expect.objectContaining({ type: 'error', detail: 'this instance does not watch a gateway' }),
    );
  });

  it.each([
    ['pause-15m', 900],
    ['pause-1h', 3600],
    ['pause-until-resumed', null],
  ] as const)('%s pauses the watchdog for %s s', async (id, durationSec) => {
    start();
    connect();
    menu().click(id);
    await until(() => core.backend.watchdogRequests.length === 1);
    expect(core.backend.watchdogRequests[0]).toEqual({
      action: 'pause',
      durationSec,
      reason: 'paused from the menu bar',
    });
  });

  it('Resume resumes a paused watchdog', async () => {
    start();
    connect(apiStatus({ watchdog: watchdog({ paused: true }) }));
    menu().click('resume');
    await until(() => core.backend.watchdogRequests.length === 1);
    expect(core.backend.watchdogRequests).toEqual([{ action: 'resume' }]);
  });

  it('Launch at Login toggles the OS login item', async () => {
    start('darwin');
    expect(menu().find('toggle-launch-at-login')).toMatchObject({ checked: false, enabled: true });
    await controller.perform('toggle-launch-at-login');
    expect(app.setLoginItemSettings).toHaveBeenLastCalledWith({ openAtLogin: true });
    expect(menu().find('toggle-launch-at-login')?.checked).toBe(true);
    await controller.perform('toggle-launch-at-login');
    expect(app.setLoginItemSettings).toHaveBeenLastCalledWith({ openAtLogin: false });
  });

  it('opens the logs folder, the metrics in the browser, the dashboard; Quit quits', async () => {
    start();
    connect();
    await controller.perform('open-logs');
    expect(shell.openPath).toHaveBeenCalledWith(join(dir, 'logs'));
    await controller.perform('open-metrics');
    expect(shell.openExternal).toHaveBeenCalledWith(`${core.url}/metrics`);
    await controller.perform('open-dashboard');
    await controller.perform('quit');
    expect(quit).toHaveBeenCalledTimes(1);
  });

  it('says so when no core is there to ask', async () => {
    start();
    await controller.perform('pause-1h');
    expect(dialog.showMessageBox).toHaveBeenCalledWith(
      expect.objectContaining({ type: 'error', detail: "BreakerBar's core is not reachable: starting the core…" }),
    );
  });
});
