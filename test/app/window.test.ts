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

beforeEach(() => {
  reset();
  window = new DashboardWindow({
    rendererIndex: '/app/dist/renderer/index.html',
    preload: '/app/dist/preload/index.cjs',
    platform: 'darwin',
  });
});

const only = () => {
  expect(FakeBrowserWindow.instances).toHaveLength(1);
  return FakeBrowserWindow.instances[0] as FakeBrowserWindow;
};

describe('dashboard window', () => {
  it('is created isolated, sandboxed, without Node, with our preload', () => {
    window.show();
    expect(only().options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      preload: '/app/dist/preload/index.cjs',
    });
    expect(only().loadFile).toHaveBeenCalledWith('/app/dist/renderer/index.html', {});
    expect(only().show).toHaveBeenCalled();
    expect(app.focus).toHaveBeenCalledWith({ steal: true });
  });

  it('opens at a route, and reuses the window the next time', () => {
    window.show();
    window.show('view=logs&at=5');
    window.show();
    expect(only().loadFile.mock.calls).toEqual([
      ['/app/dist/renderer/index.html', {}],
      ['/app/dist/renderer/index.html', { hash: 'view=logs&at=5' }],
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
