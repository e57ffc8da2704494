/**
 * "Launch at Login" through the operating system's own mechanism: the login
 * items API on macOS and Windows (Electron's `app.setLoginItemSettings`), an
 * XDG autostart entry on Linux, where Electron has none
 * (https://specifications.freedesktop.org/autostart-spec/latest/).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What this module needs of Electron's `app`. */
export interface LoginItemApp {
  getLoginItemSettings(): { openAtLogin: boolean };
  setLoginItemSettings(settings: { openAtLogin: boolean }): void;
}

export interface LoginItem {
  /** Whether the app starts at login; null where it cannot be set. */
  get(): boolean | null;
  set(enabled: boolean): void;
}

export interface LoginItemOptions {
  platform: NodeJS.Platform;
  app: LoginItemApp;
  /** Linux: `$XDG_CONFIG_HOME/autostart` (default `~/.config/autostart`). */
  autostartDir: string;
  /** Linux: the command that starts the app (the AppImage, or the installed binary). Null: cannot say. */
  execArgs: string[] | null;
}

export const AUTOSTART_FILE = 'breakerbar.desktop';

export function createLoginItem(options: LoginItemOptions): LoginItem {
  const { platform, app } = options;
  if (platform === 'darwin' || platform === 'win32') {
    return {
      get: () => app.getLoginItemSettings().openAtLogin,
      set: (enabled) => app.setLoginItemSettings({ openAtLogin: enabled }),
    };
  }
  const file = join(options.autostartDir, AUTOSTART_FILE);
  const execArgs = options.execArgs;
  if (execArgs === null) return { get: () => null, set: () => {} };
  return {
    get: () => existsSync(file) && !/^Hidden=true$/m.test(readFileSync(file, 'utf8')),
    set: (enabled) => {
      if (!enabled) {
        rmSync(file, { force: true });
        return;
      }
      mkdirSync(options.autostartDir, { recursive: true });
      writeFileSync(file, desktopEntry(execArgs));
    },
  };
}

/** An XDG autostart entry running `execArgs`, each argument quoted as the Desktop Entry spec wants. */
export function desktopEntry(execArgs: string[]): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=BreakerBar',
    'Comment=Monitor and watchdog for the OpenClaw gateway',
    `Exec=${execArgs.map(quoteExecArg).join(' ')}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

export function quoteExecArg(raw: string): string {
  // `%` starts a field code (%f, %u…); a literal one is written twice.
  const arg = raw.replace(/%/g, '%%');
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  // Inside double quotes, ", `, $ and \ are escaped with a backslash; then the file format's own escaping
  // doubles every backslash once more.
  const quoted = `"${arg.replace(/(["`$\\])/g, '\\$1')}"`;
  return quoted.replace(/\\/g, '\\\\');
}

/** `$XDG_CONFIG_HOME/autostart`, or `~/.config/autostart`. */
export function autostartDir(env: NodeJS.ProcessEnv, home: string): string {
  const base = env.XDG_CONFIG_HOME?.trim() ? env.XDG_CONFIG_HOME : join(home, '.config');
  return join(base, 'autostart');
}
