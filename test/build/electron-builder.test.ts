/**
 * Packaging cannot run here (Electron's runtime is not downloadable), so the
 * packaging configuration is checked the way electron-builder itself checks it
 * before building: loaded from electron-builder.yml and validated against its
 * schema. A typo in a key fails here, not on a release machine.
 */
import { fileURLToPath } from 'node:url';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { DebugLogger } from 'builder-util';
import { describe, expect, it } from 'vitest';

const projectDir = fileURLToPath(new URL('../..', import.meta.url));

describe('electron-builder.yml', () => {
  it('is valid for electron-builder', async () => {
    const config = await getConfig(projectDir, null, null);
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
  });

  it('makes a menu-bar app: no Dock icon on macOS, the native module outside the archive', async () => {
    const config = await getConfig(projectDir, null, null);
    expect(config.appId).toBe('dev.breakerbar.app');
    expect(config.mac?.extendInfo).toMatchObject({ LSUIElement: true });
    expect(config.asarUnpack).toContain('node_modules/better-sqlite3/**');
  });

  it('rejects a misspelt key, so the check above can fail', async () => {
    const config = await getConfig(projectDir, null, null);
    const broken = { ...config, macc: {} } as typeof config;
    await expect(validateConfiguration(broken, new DebugLogger(false))).rejects.toThrow(/macc/);
  });
});
