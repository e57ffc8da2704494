import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PREFERENCES, PreferenceStore, parsePreferences } from '../../main/app/preferences.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bb-app-prefs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('preferences', () => {
  it('asks before restarting until told otherwise, and remembers it', () => {
    const file = join(dir, 'preferences.json');
    expect(new PreferenceStore(file).value).toEqual(DEFAULT_PREFERENCES);
    expect(DEFAULT_PREFERENCES.confirmRestart).toBe(true);
    new PreferenceStore(file).set({ confirmRestart: false });
    expect(new PreferenceStore(file).value.confirmRestart).toBe(false);
  });

  it('falls back to the defaults for a broken file or wrong types', () => {
    const file = join(dir, 'preferences.json');
    writeFileSync(file, '{nope');
    expect(new PreferenceStore(file).value).toEqual(DEFAULT_PREFERENCES);
    expect(parsePreferences({ confirmRestart: 'no', welcomed: true })).toEqual({
      confirmRestart: true,
      welcomed: true,
    });
    expect(parsePreferences([])).toEqual(DEFAULT_PREFERENCES);
  });
});
