import { describe, expect, it } from 'vitest';
import { chooseLaunch, hasDisplay } from '../main/start.js';

describe('npm start: the tray app where it can run, else the headless daemon', () => {
  const mac = { platform: 'darwin' as const, env: {}, electronBinary: '/x/Electron.app/Contents/MacOS/Electron' };

  it('opens the app on a Mac with the runtime', () => {
    expect(chooseLaunch(mac, false)).toEqual({ run: 'app', binary: mac.electronBinary });
  });

  it('fetches the runtime once on a desktop that skipped it, then falls back to the daemon', () => {
    const bare = { ...mac, electronBinary: null };
    expect(chooseLaunch(bare, false)).toEqual({ run: 'fetch-electron' });
    expect(chooseLaunch(bare, true)).toMatchObject({ run: 'daemon', why: expect.stringContaining('not installed') });
  });

  it('never tries to fetch where downloads are switched off', () => {
    const bare = { ...mac, env: { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' }, electronBinary: null };
    expect(chooseLaunch(bare, false).run).toBe('daemon');
  });

  it('runs the daemon on Linux without a display, even with the runtime', () => {
    const server = { platform: 'linux' as const, env: {}, electronBinary: '/x/electron' };
    expect(chooseLaunch(server, false)).toMatchObject({ run: 'daemon', why: expect.stringContaining('no display') });
    expect(chooseLaunch({ ...server, env: { WAYLAND_DISPLAY: 'wayland-0' } }, false).run).toBe('app');
    expect(hasDisplay('linux', { DISPLAY: ':0' })).toBe(true);
    expect(hasDisplay('win32', {})).toBe(true);
  });

  it('BREAKERBAR_HEADLESS=1 forces the daemon', () => {
    expect(chooseLaunch({ ...mac, env: { BREAKERBAR_HEADLESS: '1' } }, false).run).toBe('daemon');
  });
});
