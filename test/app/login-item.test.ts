/**
 * Launch at Login through the OS: login items on macOS and Windows, an XDG
 * autostart entry on Linux.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AUTOSTART_FILE,
  autostartDir,
  createLoginItem,
  desktopEntry,
  quoteExecArg,
} from '../../main/app/login-item.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bb-app-login-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function fakeApp() {
  let open = false;
  return {
    getLoginItemSettings: vi.fn(() => ({ openAtLogin: open })),
    setLoginItemSettings: vi.fn((s: { openAtLogin: boolean }) => {
      open = s.openAtLogin;
    }),
  };
}

describe('login item', () => {
  it.each(['darwin', 'win32'] as const)('uses the login items API on %s', (platform) => {
    const app = fakeApp();
    const item = createLoginItem({ platform, app, autostartDir: dir, execArgs: null });
    expect(item.get()).toBe(false);
    item.set(true);
    expect(app.setLoginItemSettings).toHaveBeenCalledWith({ openAtLogin: true });
    expect(item.get()).toBe(true);
  });

  it('writes and removes an autostart entry on Linux', () => {
    const app = fakeApp();
    const item = createLoginItem({
      platform: 'linux',
      app,
      autostartDir: join(dir, 'autostart'),
      execArgs: ['/opt/My Apps/BreakerBar.AppImage'],
    });
    expect(item.get()).toBe(false);
    item.set(true);
    const file = join(dir, 'autostart', AUTOSTART_FILE);
    expect(readFileSync(file, 'utf8')).toContain('Exec="/opt/My Apps/BreakerBar.AppImage"\n');
    expect(item.get()).toBe(true);
    item.set(false);
    expect(existsSync(file)).toBe(false);
    expect(app.setLoginItemSettings).not.toHaveBeenCalled();
  });

  it('cannot be set where the command that starts the app is unknown', () => {
    const item = createLoginItem({ platform: 'linux', app: fakeApp(), autostartDir: dir, execArgs: null });
    expect(item.get()).toBeNull();
  });

  it('quotes Exec arguments as the Desktop Entry spec wants', () => {
    expect(quoteExecArg('/usr/bin/breakerbar')).toBe('/usr/bin/breakerbar');
    expect(quoteExecArg('50%')).toBe('50%%');
    expect(quoteExecArg('a "b" $c')).toBe('"a \\\\"b\\\\" \\\\$c"');
    expect(desktopEntry(['/x'])).toMatch(/^\[Desktop Entry\]\nType=Application\nName=BreakerBar\n/);
    expect(autostartDir({ XDG_CONFIG_HOME: '/cfg' }, '/home/me')).toBe('/cfg/autostart');
    expect(autostartDir({}, '/home/me')).toBe('/home/me/.config/autostart');
  });
});
