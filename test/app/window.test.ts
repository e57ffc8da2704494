/**
 * The dashboard window: isolated and sandboxed with our preload, opened at a
 * route, hidden (not closed) by the close button until the app quits, and
 * fed the core's events.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DashboardWindow } from '../../main/app/window.js';
import { app, FakeBrowserWindow, reset } from './fake-electron.js';
import { notice } from './fixtures.js';

vi.mock('electron', async () => (await import('./fake-electron.js')).electron);

let window: DashboardWindow;
const guard = vi.fn();

beforeEach(() => {
  reset();
  guard.mockReset();
  window = new DashboardWindow({
    url: 'app://dashboard/index.html',
    preload: '/app/dist/preload/index.cjs',
    platform: 'darwin',
    guard,
  });
});

const only = () => {
  expect(FakeBrowserWindow.instances).toHaveLength(1);
  return FakeBrowserWindow.instances[0] as FakeBrowserWindow;
};

/** Every web preference, as Electron's security checklist wants them; `devTools` depends on packaging. */
const preferences = (devTools: boolean) => ({
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
  safeDialogs: true,
  navigateOnDragDrop: false,
  devTools,
  spellcheck: false,
  preload: '/app/dist/preload/index.cjs',
});

describe('dashboard window', () => {
  it('is created isolated, sandboxed, without Node, with our preload, and loads app://dashboard', () => {
    window.show();
    expect(only().options.webPreferences).toEqual(preferences(true));
    expect(only().loadURL).toHaveBeenCalledWith('app://dashboard/index.html');
    expect(only().show).toHaveBeenCalled();
    expect(app.focus).toHaveBeenCalledWith({ steal: true });
  });

  it('has no developer tools in a packaged app', () => {
    app.isPackaged = true;
    window.show();
    expect(only().options.webPreferences).toEqual(preferences(false));
  });

  it('guards its web contents as it creates them, before loading anything', () => {
    window.show();
    expect(guard).toHaveBeenCalledTimes(1);
    expect(guard).toHaveBeenCalledWith(only().webContents);
    expect(guard.mock.invocationCallOrder[0]).toBeLessThan(only().loadURL.mock.invocationCallOrder[0] as number);
    window.show('view=logs');
    expect(guard).toHaveBeenCalledTimes(1);
  });

  it('opens at a route, and reuses the window the next time', () => {
    window.show();
    window.show('view=logs&at=5');
    window.show();
    expect(only().loadURL.mock.calls).toEqual([
      ['app://dashboard/index.html'],
      ['app://dashboard/index.html#view=logs&at=5'],
    ]);
    expect(only().show).toHaveBeenCalledTimes(3);
  });

  it('hides on close while the app runs, and closes once it quits', () => {
    window.show();
    expect(only().userCloses()).toBe(false);
    expect(only().hide).toHaveBeenCalled();
    expect(window.isOpen).toBe(false);
    window.allowClose();
    expect(only().userCloses()).toBe(true);
    // A new show after a real close makes a new window.
    window.show();
    expect(FakeBrowserWindow.instances).toHaveLength(2);
  });

  it('pushes the core’s events to the page, and nothing when there is no window', () => {
    window.send({ type: 'notice', data: notice() });
    window.show();
    window.send({ type: 'notice', data: notice() });
    expect(only().webContents.send).toHaveBeenCalledTimes(1);
    expect(only().webContents.send).toHaveBeenCalledWith('breakerbar:event', { type: 'notice', data: notice() });
  });
});
