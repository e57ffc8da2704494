/**
 * The icon file for each tray state and platform: template images on macOS
 * (recoloured by the menu bar), a colour PNG elsewhere.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectedIconFiles, iconStateFor, trayIconFile, trayIconPath } from '../../main/app/icons.js';

describe('tray icons', () => {
  it.each([
    ['healthy', 'darwin', 'tray-healthyTemplate.png'],
    ['degraded', 'darwin', 'tray-degradedTemplate.png'],
    ['down', 'darwin', 'tray-downTemplate.png'],
    ['healthy', 'win32', 'tray-healthy.png'],
    ['down', 'win32', 'tray-down.png'],
    ['degraded', 'linux', 'tray-degraded.png'],
    ['down', 'freebsd', 'tray-down.png'],
  ] as const)('%s on %s is %s', (state, platform, file) => {
    expect(trayIconFile(state, platform)).toBe(file);
  });

  it('shows connecting with the degraded artwork', () => {
    expect(iconStateFor('connecting')).toBe('degraded');
    expect(trayIconPath('connecting', 'darwin', '/res')).toBe(join('/res', 'tray-degradedTemplate.png'));
    expect(trayIconPath('healthy', 'linux', '/res')).toBe(join('/res', 'tray-healthy.png'));
  });

  it('lists every file the artwork must provide, @2x beside each template', () => {
    const files = expectedIconFiles();
    expect(files).toHaveLength(9);
    for (const state of ['healthy', 'degraded', 'down']) {
      expect(files).toEqual(
        expect.arrayContaining([`tray-${state}Template.png`, `tray-${state}Template@2x.png`, `tray-${state}.png`]),
      );
    }
    // Only what the script writes: no ICO any more (Windows takes the PNG).
    expect(files.filter((f) => !f.endsWith('.png'))).toEqual([]);
  });
});
