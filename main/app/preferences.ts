/**
 * The tray's own preferences (not BreakerBar's configuration, which the core
 * owns): a small JSON file in Electron's userData directory. Unknown keys and
 * wrong types fall back to the defaults; a broken file is never fatal.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface Preferences {
  /** Ask "Restart the gateway?" before a restart from the menu. */
  confirmRestart: boolean;
  /** The dashboard opened by itself once, on the first run. */
  welcomed: boolean;
}

export const DEFAULT_PREFERENCES: Preferences = { confirmRestart: true, welcomed: false };

export function parsePreferences(value: unknown): Preferences {
  const record = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  const { confirmRestart, welcomed } = record as Record<string, unknown>;
  return {
    confirmRestart: typeof confirmRestart === 'boolean' ? confirmRestart : DEFAULT_PREFERENCES.confirmRestart,
    welcomed: typeof welcomed === 'boolean' ? welcomed : DEFAULT_PREFERENCES.welcomed,
  };
}

export class PreferenceStore {
  private current: Preferences;

  constructor(private readonly file: string) {
    this.current = PreferenceStore.read(file);
  }

  get value(): Preferences {
    return this.current;
  }

  set(change: Partial<Preferences>): Preferences {
    this.current = { ...this.current, ...change };
    mkdirSync(dirname(this.file), { recursive: true });
    // Written whole and renamed into place: a crash leaves the old file or the new one, never half of one.
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(this.current, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.file);
    return this.current;
  }

  private static read(file: string): Preferences {
    try {
      return parsePreferences(JSON.parse(readFileSync(file, 'utf8')));
    } catch {
      return { ...DEFAULT_PREFERENCES };
    }
  }
}
