/**
 * Where the host finds the core, the preload, the dashboard and the tray icons,
 * from its own compiled location (development tree and packaged app alike).
 */
import { describe, expect, it } from 'vitest';
import { appPaths, assetsDir } from '../../main/app/paths.js';

describe('app paths', () => {
  it('finds the core, preload, renderer and icons from the compiled host', () => {
    const paths = appPaths('/app/dist/main/app', () => false);
    expect(paths).toEqual({
      coreScript: '/app/dist/main/cli/index.js',
      preload: '/app/dist/preload/index.cjs',
      rendererDir: '/app/dist/renderer',
      rendererUrl: 'app://dashboard/index.html',
      assetsDir: '/app/main/app/assets',
    });
    expect(assetsDir('/app/dist/main/app', (p) => p === '/app/dist/main/app/assets')).toBe('/app/dist/main/app/assets');
  });
});

describe('icons in a packaged app', () => {
  it('uses the unpacked copy beside the asar when there is one', () => {
    const res = '/Applications/BreakerBar.app/Contents/Resources';
    const exists = (p: string) => p === `${res}/app.asar.unpacked/main/app/assets`;
    expect(assetsDir(`${res}/app.asar/dist/main/app`, exists)).toBe(`${res}/app.asar.unpacked/main/app/assets`);
    expect(assetsDir(`${res}/app.asar/dist/main/app`, () => false)).toBe(`${res}/app.asar/main/app/assets`);
  });
});
