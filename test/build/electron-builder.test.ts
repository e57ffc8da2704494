/**
 * Packaging cannot run here (Electron's runtime is not downloadable), so the packaging
 * configuration is checked the way electron-builder itself reads it: loaded from
 * electron-builder.yml, validated against its schema, and fed to electron-builder's own
 * file matchers, hook loader and icon resolver. A typo in a key, a glob that misses the
 * native module or an icon electron-builder would reject fails here, not on a release
 * machine.
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOMParser } from '@xmldom/xmldom';
import type { Configuration, TargetConfiguration } from 'app-builder-lib';
import * as fileMatcher from 'app-builder-lib/out/fileMatcher.js';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { convertIcon } from 'app-builder-lib/out/util/iconConverter.js';
import { resolveFunction } from 'app-builder-lib/out/util/resolve.js';
import { DebugLogger, type FilterStats } from 'builder-util';
import { beforeAll, describe, expect, it } from 'vitest';

const projectDir = fileURLToPath(new URL('../..', import.meta.url));
let config: Configuration;

beforeAll(async () => {
  config = await getConfig(projectDir, null, null);
});

/** The relative path electron-builder matches a file against, as its copier computes it. */
function fakeStat(relative: string, isDirectory = false): FilterStats {
  const moduleFullFilePath = relative.startsWith('node_modules/') ? relative : undefined;
  return { isDirectory: () => isDirectory, moduleFullFilePath } as unknown as FilterStats;
}

/** electron-builder's own matcher for `files` or `asarUnpack`, as a predicate on relative paths. */
function matcher(name: 'files' | 'asarUnpack', platformOptions = config.mac ?? {}): (relative: string) => boolean {
  const matchers = fileMatcher.getFileMatchers(config, name, join(projectDir, 'out-app'), {
    macroExpander: (pattern) => pattern,
    customBuildOptions: platformOptions,
    globalOutDir: join(projectDir, 'release'),
    defaultSrc: projectDir,
  });
  const filter = matchers?.[0]?.createFilter();
  if (!filter) throw new Error(`electron-builder.yml has no ${name} patterns`);
  return (relative) => filter(join(projectDir, relative), fakeStat(relative));
}

/**
 * electron-builder's matcher for the production node_modules it copies (only the `files`
 * exclusions apply there). Internal to app-builder-lib, hence typed here; if it moves,
 * this test fails loudly rather than passing blindly.
 */
function nodeModulesMatcher(): (relative: string) => boolean {
  type Internal = (
    appDir: string,
    destination: string,
    macroExpander: (pattern: string) => string,
    platformOptions: object,
    packager: { config: Configuration; debugLogger: DebugLogger },
  ) => { createFilter(): (file: string, stat: FilterStats) => boolean };
  const create = (fileMatcher as unknown as { getNodeModuleFileMatcher: Internal }).getNodeModuleFileMatcher;
  const filter = create(projectDir, join(projectDir, 'out-app'), (p) => p, config.mac ?? {}, {
    config,
    debugLogger: new DebugLogger(false),
  }).createFilter();
  return (relative) => filter(join(projectDir, relative), fakeStat(relative));
}

/** `[{ target, arch }]` → `{ target: archs }`, for the shapes electron-builder accepts. */
function targets(list: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const entry of Array.isArray(list) ? list : [list]) {
    if (typeof entry === 'string') out[entry] = [];
    else {
      const { target, arch } = entry as TargetConfiguration;
      out[target] = arch == null ? [] : Array.isArray(arch) ? arch : [arch];
    }
  }
  return out;
}

describe('electron-builder.yml', () => {
  it('is valid for electron-builder', async () => {
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
  });

  it('rejects a misspelt key, so the check above can fail', async () => {
    const broken = { ...config, macc: {} } as typeof config;
    await expect(validateConfiguration(broken, new DebugLogger(false))).rejects.toThrow(/macc/);
  });

  it('flips the fuses: no RunAsNode, NODE_OPTIONS or inspector, only a validated app.asar, no file:// privileges', async () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
      loadBrowserProcessSpecificV8Snapshot: false,
    });
    // The schema knows each of them (a fuse electron-builder does not know would be refused below).
    await expect(
      validateConfiguration({ electronFuses: config.electronFuses } as typeof config, new DebugLogger(false)),
    ).resolves.toBeUndefined();
  });

  it('refuses a misspelt fuse or a fuse set to something else than a boolean, so the check above can fail', async () => {
    const misspelt = { ...config, electronFuses: { ...config.electronFuses, runAsNod: false } } as typeof config;
    await expect(validateConfiguration(misspelt, new DebugLogger(false))).rejects.toThrow(
      /configuration\.electronFuses/,
    );
    const notBoolean = {
      ...config,
      electronFuses: { ...config.electronFuses, runAsNode: 'no' },
    } as unknown as typeof config;
    await expect(validateConfiguration(notBoolean, new DebugLogger(false))).rejects.toThrow(
      /configuration\.electronFuses/,
    );
  });

  it('makes a menu-bar app: no Dock icon on macOS, a developer tool', () => {
    expect(config.appId).toBe('dev.breakerbar.app');
    expect(config.mac?.extendInfo).toMatchObject({ LSUIElement: true });
    expect(config.mac?.category).toBe('public.app-category.developer-tools');
    expect(config.linux?.category).toBe('Development');
  });

  it('builds dmg and zip for both Mac architectures, AppImage and deb, and an NSIS installer', () => {
    expect(targets(config.mac?.target)).toEqual({ dmg: ['arm64', 'x64'], zip: ['arm64', 'x64'] });
    expect(Object.keys(targets(config.linux?.target)).sort()).toEqual(['AppImage', 'deb']);
    expect(Object.keys(targets(config.win?.target))).toEqual(['nsis']);
  });

  it('packs the compiled app, its preload, the dashboard and the tray icons, without source maps', async () => {
    const packed = matcher('files');
    const pkg = JSON.parse(await readFile(join(projectDir, 'package.json'), 'utf8')) as { main: string };
    for (const file of [
      'package.json',
      pkg.main,
      'dist/main/cli/index.js',
      'dist/main/api/root/monitor.js',
      'dist/preload/index.cjs',
      'dist/renderer/index.html',
      'main/app/assets/tray-healthyTemplate.png',
    ]) {
      expect(packed(file), file).toBe(true);
    }
    for (const file of ['dist/main/app/index.js.map', 'dist/bench/run.js', 'main/api/root/monitor.ts', 'README.md']) {
      expect(packed(file), file).toBe(false);
    }
  });

  it("ships better-sqlite3's binary and JavaScript, not its C sources or a local compile's objects", () => {
    const packed = nodeModulesMatcher();
    for (const file of [
      'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
      'node_modules/better-sqlite3/lib/database.js',
      'node_modules/better-sqlite3/package.json',
      'node_modules/bindings/bindings.js',
    ]) {
      expect(packed(file), file).toBe(true);
    }
    for (const file of [
      'node_modules/better-sqlite3/deps/sqlite3/sqlite3.c',
      'node_modules/better-sqlite3/src/better_sqlite3.cpp',
      'node_modules/better-sqlite3/build/Release/obj/gen/sqlite3/sqlite3.c',
      'node_modules/better-sqlite3/build/Release/test_extension.node',
    ]) {
      expect(packed(file), file).toBe(false);
    }
  });

  it('keeps better-sqlite3 and every native binary outside the asar archive, and the rest inside', () => {
    const unpacked = matcher('asarUnpack');
    for (const file of [
      'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
      'node_modules/better-sqlite3/lib/database.js',
      'node_modules/better-sqlite3/package.json',
      'node_modules/some-other-addon/build/Release/addon.node',
      'main/app/assets/tray-down.png',
      'node_modules/node-notifier/vendor/snoreToast/snoretoast-x64.exe',
    ]) {
      expect(unpacked(file), file).toBe(true);
    }
    for (const file of ['dist/main/cli/index.js', 'dist/main/app/index.js', 'node_modules/json5/lib/index.js']) {
      expect(unpacked(file), file).toBe(false);
    }
  });

  it('rebuilds native modules for Electron, through a beforeBuild hook electron-builder can load', async () => {
    expect(config.npmRebuild).not.toBe(false);
    expect(config.buildDependenciesFromSource).not.toBe(true);
    const hook = await resolveFunction<(context: { appDir: string }) => Promise<boolean>>(
      'module',
      config.beforeBuild as string,
      'beforeBuild',
      projectDir,
    );
    expect(typeof hook).toBe('function');

    // The stale "already built" marker left by `npm rebuild better-sqlite3` is removed,
    // and the hook lets electron-builder's own rebuild go ahead (true).
    const appDir = await mkdtemp(join(tmpdir(), 'breakerbar-hook-'));
    try {
      const release = join(appDir, 'node_modules', 'better-sqlite3', 'build', 'Release');
      await mkdir(release, { recursive: true });
      await writeFile(join(release, '.forge-meta'), 'darwin--arm64--145');
      await writeFile(join(release, 'better_sqlite3.node'), 'binary');
      await expect(hook({ appDir })).resolves.toBe(true);
      await expect(stat(join(release, '.forge-meta'))).rejects.toThrow(/ENOENT/);
      await expect(stat(join(release, 'better_sqlite3.node'))).resolves.toBeTruthy();
    } finally {
      await rm(appDir, { recursive: true, force: true });
    }
  });

  it('signs with the hardened runtime and leaves notarization to the environment', () => {
    expect(config.mac?.hardenedRuntime).toBe(true);
    expect(config.mac?.notarize).not.toBe(false);
    expect(config.mac?.entitlements).toBe('build/entitlements.mac.plist');
    expect(config.mac?.entitlementsInherit).toBe('build/entitlements.mac.inherit.plist');
  });

  for (const key of ['entitlements', 'entitlementsInherit'] as const) {
    it(`has a well-formed ${key} plist that allows V8's JIT and nothing sandboxed`, async () => {
      const file = config.mac?.[key];
      expect(file).toBeTypeOf('string');
      const entitlements = parseEntitlements(await readFile(join(projectDir, file as string), 'utf8'));
      expect(entitlements['com.apple.security.cs.allow-jit']).toBe(true);
      expect(entitlements['com.apple.security.network.client']).toBe(true);
      // The app spawns `openclaw`, launchctl and systemctl: the App Sandbox would forbid that.
      expect(entitlements).not.toHaveProperty('com.apple.security.app-sandbox');
    });
  }

  it('parses entitlements strictly, so the checks above can fail', () => {
    expect(() => parseEntitlements('<plist version="1.0"><dict><key>a</key><true/></plist>')).toThrow();
    expect(() => parseEntitlements('<plist version="1.0"><dict><key>a</key></dict></plist>')).toThrow(/no value/);
    expect(parseEntitlements('<plist version="1.0"><dict><key>a</key><true/></dict></plist>')).toEqual({ a: true });
  });

  it('makes every platform icon from the one PNG in build/, which electron-builder accepts as large enough', async () => {
    // Converting needs electron-builder's icon tool, downloaded when packaging. Here a recorder stands in for
    // it (ELECTRON_BUILDER_ICONS_TOOLSET_DIR is electron-builder's own override): what is checked is which
    // file electron-builder resolves from the configuration, hands to the tool, and its size check.
    const work = await mkdtemp(join(tmpdir(), 'breakerbar-icons-'));
    const toolset = join(work, 'toolset');
    const calls = join(work, 'calls.jsonl');
    await mkdir(toolset);
    await writeFile(
      join(toolset, 'icon-tool.js'),
      `const fs = require('node:fs');
const path = require('node:path');
const arg = (name) => process.argv.find((a) => a.startsWith('--' + name + '='))?.slice(name.length + 3);
fs.appendFileSync(${JSON.stringify(calls)}, JSON.stringify({ input: arg('input'), format: arg('format') }) + '\\n');
const out = arg('out');
// An ICO directory with one 256 px entry (0 means 256), which electron-builder reads back for its size.
const ico = Buffer.alloc(22);
ico.writeUInt16LE(1, 2);
ico.writeUInt16LE(1, 4);
if (arg('format') === 'ico') fs.writeFileSync(path.join(out, 'icon.ico'), ico);
if (arg('format') === 'icns') fs.writeFileSync(path.join(out, 'icon.icns'), 'icns');
`,
    );
    const previous = process.env.ELECTRON_BUILDER_ICONS_TOOLSET_DIR;
    process.env.ELECTRON_BUILDER_ICONS_TOOLSET_DIR = toolset;
    const roots = [join(projectDir, 'build'), projectDir];
    const master = join(projectDir, 'build/icon.png');
    try {
      const resolve = (source: string | null | undefined, format: 'icns' | 'ico' | 'set', outDir: string) =>
        convertIcon({ sources: [source ?? 'missing'], fallbackSources: [], roots, format, outDir });

      const mac = await resolve(config.mac?.icon, 'icns', join(work, 'mac'));
      expect(mac).toEqual({ icons: [{ file: join(work, 'mac', 'icon.icns'), size: 1024 }], isFallback: false });
      const win = await resolve(config.win?.icon, 'ico', join(work, 'win'));
      expect(win).toEqual({ icons: [{ file: join(work, 'win', 'icon.ico'), size: 256 }], isFallback: false });
      // Linux takes the PNG as it is.
      const linux = await resolve(config.linux?.icon, 'set', join(work, 'linux'));
      expect(linux).toEqual({ icons: [{ file: master, size: 1024 }], isFallback: false });

      const recorded = (await readFile(calls, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(recorded).toEqual([
        { input: master, format: 'icns' },
        { input: master, format: 'ico' },
      ]);

      // …and electron-builder's check does reject an icon that is too small for an app.
      await expect(resolve('main/app/assets/tray-healthy.png', 'ico', join(work, 'small'))).rejects.toThrow(
        /at least 256x256/,
      );
    } finally {
      if (previous === undefined) delete process.env.ELECTRON_BUILDER_ICONS_TOOLSET_DIR;
      else process.env.ELECTRON_BUILDER_ICONS_TOOLSET_DIR = previous;
      await rm(work, { recursive: true, force: true });
    }
  });
});

/**
 * Reads an entitlements plist the way codesign needs it: well-formed XML (xmldom with
 * every warning made fatal), a <plist> holding one <dict> of <key>/<true|false> pairs.
 */
function parseEntitlements(xml: string): Record<string, boolean> {
  const fail = (message: string) => {
    throw new Error(message);
  };
  const doc = new DOMParser({ errorHandler: { warning: fail, error: fail, fatalError: fail } }).parseFromString(
    xml,
    'text/xml',
  );
  const root = doc.documentElement;
  if (root?.nodeName !== 'plist') throw new Error('root element is not <plist>');
  const elements = (node: { childNodes: ArrayLike<unknown> }) =>
    Array.from(node.childNodes as ArrayLike<{ nodeType: number; nodeName: string; textContent: string | null }>).filter(
      (n) => n.nodeType === 1,
    );
  const dicts = elements(root);
  if (dicts.length !== 1 || dicts[0]?.nodeName !== 'dict') throw new Error('<plist> must hold exactly one <dict>');
  const items = elements(dicts[0] as unknown as { childNodes: ArrayLike<unknown> });
  const result: Record<string, boolean> = {};
  for (let i = 0; i < items.length; i += 2) {
    const key = items[i];
    const value = items[i + 1];
    if (key?.nodeName !== 'key') throw new Error(`expected <key>, found <${key?.nodeName}>`);
    const name = key.textContent ?? '';
    if (!value || value.nodeName === 'key') throw new Error(`key ${name} has no value`);
    if (value.nodeName !== 'true' && value.nodeName !== 'false') throw new Error(`${name} is not a boolean`);
    result[name] = value.nodeName === 'true';
  }
  return result;
}
