/**
 * Rule: the package `npm pack` makes installs the way OpenClaw users install tools, into a fresh prefix with
 * the npm of the Node that will run it (Node 24 with npm 11, Node 22 with npm 10) and the one flag the docs
 * give, then runs: `--version`, `doctor`, a daemon that stores the calls of a transcript captured from
 * OpenClaw, serves the dashboard and stops cleanly, and a service file its manager accepts, naming that Node.
 * `npx` runs it from the tarball too. Without the flag npm 12 skips better-sqlite3's build and the commands
 * say how to fix it; a build for another Node is explained the same way. The tarball holds no tests and no
 * TypeScript.
 *
 * Offline but for the npm registry: prebuild-install cannot reach GitHub here, so better-sqlite3 compiles
 * against the headers the `node-<platform>-<arch>` npm package ships (`npm_config_nodedir`), as it does on
 * a machine for which no prebuilt binary fits. The Nodes and npms come from the registry into
 * `.cache/install-test` (once). Where the registry has no Node for the platform (macOS on arm64: those
 * packages stop at Node 18), BREAKERBAR_INSTALL_TEST_NODE22 and BREAKERBAR_INSTALL_TEST_NODE24 name Node
 * installs to use instead, each with the npm it bundles (the hosted workflow sets them).
 *
 * The service check follows the platform: a systemd unit checked by `systemd-analyze verify` on Linux, a
 * launchd plist checked by `plutil -lint` and read back by Python's plistlib on macOS (there only, in the
 * hosted workflow: this machine has no macOS).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unpackFromNpm } from '../helpers/npm-fetch.js';
import { aboutOurUnit, verifyUnit } from '../helpers/systemd-verify.js';
import { toolOrSkip } from '../helpers/tools.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CACHE = join(ROOT, '.cache', 'install-test');
const PLATFORM = `${process.platform === 'darwin' ? 'darwin' : 'linux'}-${process.arch}`;
const FIXTURE = join(ROOT, 'test', 'fixtures', 'openclaw-2026.7.1', 'records.jsonl');
const AGENT_DB = join(ROOT, 'test', 'fixtures', 'openclaw-2026.9.6', 'openclaw-agent.sqlite');
const MINUTES = 60_000;
/** What checks the service file: systemd's own verifier, or (macOS) Python's plistlib beside plutil. */
const SERVICE_CHECKER = toolOrSkip(process.platform === 'darwin' ? 'python3' : 'systemd-analyze');

interface Toolchain {
  name: string;
  /** The Node package's folder: bin/node and include/node (the headers node-gyp compiles against). */
  node: string;
  /** npm's package folder: bin/npm-cli.js. */
  npm: string;
}

let tmp: string;
let tarball: string;
let npmCache: string;
const children: ChildProcess[] = [];

/**
 * `npm` and `npx` beside nothing else, linked as a Node install links them (npm's own `bin/npm` shell script
 * expects to sit inside a Node install): what a lifecycle script's `npm run …` finds on PATH.
 */
function npmBin(chain: Toolchain): string {
  const dir = join(tmp, `${chain.name}-npm-bin`);
  if (!existsSync(dir)) {
    mkdirSync(dir);
    symlinkSync(join(chain.npm, 'bin', 'npm-cli.js'), join(dir, 'npm'));
    symlinkSync(join(chain.npm, 'bin', 'npx-cli.js'), join(dir, 'npx'));
  }
  return dir;
}

/**
 * The environment of a user's shell: this machine's (its proxy and certificate settings reach the registry),
 * without what `npm test` and the suite add (npm_*, BREAKERBAR_*, NODE_OPTIONS), with a fresh home and PATH
 * as a user's: this Node and its npm first, then the system's tools.
 */
function userEnv(chain: Toolchain, home: string): NodeJS.ProcessEnv {
  const machine = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(npm_|BREAKERBAR_)/i.test(key) && key !== 'NODE_OPTIONS' && key !== 'INIT_CWD',
    ),
  );
  return {
    ...machine,
    HOME: home,
    PATH: [join(chain.node, 'bin'), npmBin(chain), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    LANG: 'C.UTF-8',
    npm_config_cache: npmCache,
    npm_config_nodedir: chain.node,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

/**
 * An install that builds better-sqlite3 (minutes of CPU), run at a low priority: the compilers it starts inherit
 * it, so the other files' timing-sensitive tests, running at the same time, keep the CPU they need. The priority
 * changes when the build gets a core, never what it builds.
 */
function inBackground<T extends Promise<unknown> & { child: ChildProcess }>(pending: T): T {
  if (pending.child.pid !== undefined) setPriority(pending.child.pid, 10);
  return pending;
}

function npmRun(chain: Toolchain, args: string[], env: NodeJS.ProcessEnv, cwd = tmp) {
  return run(join(chain.node, 'bin', 'node'), [join(chain.npm, 'bin', 'npm-cli.js'), ...args], {
    env,
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  });
}

interface Installed {
  chain: Toolchain;
  env: NodeJS.ProcessEnv;
  prefix: string;
  bin: string;
  log: string;
}

async function install(chain: Toolchain, flags: string[]): Promise<Installed> {
  const home = mkdtempSync(join(tmp, `${chain.name}-home-`));
  const prefix = mkdtempSync(join(tmp, `${chain.name}-prefix-`));
  const env = userEnv(chain, home);
  const { stdout, stderr } = await inBackground(
    npmRun(chain, ['install', '-g', '--prefix', prefix, tarball, ...flags], env),
  );
  return { chain, env, prefix, bin: join(prefix, 'bin', 'breakerbar'), log: `${stdout}${stderr}` };
}

/** The installed CLI run as the user runs it (its `#!/usr/bin/env node` finds this toolchain's Node). */
async function breakerbar(target: Installed, args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run(target.bin, args, { env: { ...target.env, ...extraEnv } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The checkout's own files (what git knows), copied so that `npm pack`'s build never touches this dist/. */
async function copyOfCheckout(): Promise<string> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const copy = join(tmp, 'checkout');
  for (const file of stdout.split('\0').filter(Boolean)) {
    if (!existsSync(join(ROOT, file))) continue; // deleted but not yet committed
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(ROOT, file), join(copy, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  // What an earlier build left of a module since removed: `prepack` must not ship it.
  mkdirSync(join(copy, 'dist', 'main'), { recursive: true });
  writeFileSync(join(copy, 'dist', 'main', 'removed-module.js'), 'export {};\n');
  return copy;
}

const toolchains: Record<'node24' | 'node22', Promise<Toolchain>> = {} as never;
let npm12: Promise<string>;

/** Where the environment names a Node install to use instead of the registry's (see the header). */
const GIVEN_NODE = { node22: 'BREAKERBAR_INSTALL_TEST_NODE22', node24: 'BREAKERBAR_INSTALL_TEST_NODE24' } as const;

/**
 * A Node and an npm: the Node install the environment names (with its bundled npm), else the Node package
 * `fetch` unpacks from the registry beside the npm the caller chose.
 */
async function toolchain(
  name: 'node22' | 'node24',
  fetch: () => Promise<[node: string, npm: string]>,
): Promise<Toolchain> {
  const variable = GIVEN_NODE[name];
  const given = process.env[variable];
  if (given) {
    const npm = join(given, 'lib', 'node_modules', 'npm');
    if (!existsSync(join(given, 'bin', 'node')) || !existsSync(join(npm, 'bin', 'npm-cli.js'))) {
      throw new Error(`${variable}=${given} is not a Node install (bin/node, lib/node_modules/npm)`);
    }
    return { name, node: given, npm };
  }
  const [node, npm] = await fetch();
  return { name, node, npm };
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'breakerbar-install-'));
  npmCache = join(CACHE, 'npm-cache');
  // Node 24: the one `npm run setup` fetched when it is there (same layout), else fetched here.
  const setupNode = join(ROOT, '.cache', 'node24');
  toolchains.node24 = toolchain('node24', () =>
    Promise.all([
      unpackFromNpm(
        `node-${PLATFORM}@24`,
        existsSync(join(setupNode, '.installed')) ? setupNode : join(CACHE, 'node24'),
      ),
      unpackFromNpm('npm@11', join(CACHE, 'npm11')),
    ]),
  );
  toolchains.node22 = toolchain('node22', () =>
    Promise.all([
      unpackFromNpm(`node-${PLATFORM}@22`, join(CACHE, 'node22')),
      unpackFromNpm('npm@10', join(CACHE, 'npm10')),
    ]),
  );
  npm12 = unpackFromNpm('npm@12', join(CACHE, 'npm12'));
  // Awaited by the tests that need them; until then a failure must not count as unhandled.
  for (const pending of [toolchains.node22, npm12]) pending.catch(() => {});
  const node24 = await toolchains.node24;
  const checkout = await copyOfCheckout();
  const { stdout } = await npmRun(
    node24,
    ['pack', '--json', '--pack-destination', tmp],
    userEnv(node24, tmp),
    checkout,
  );
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (!packed) throw new Error(`npm pack printed no package:\n${stdout}`);
  tarball = join(tmp, packed.filename);
  writeFileSync(join(tmp, 'files.json'), JSON.stringify(packed.files.map((f) => f.path)));
  // Each of these builds better-sqlite3 (here a compile, about 80 s of one core): started together, not one
  // after another. The tests await them; until then a failure must not count as unhandled.
  for (const pending of [installedWith('node24'), installedWith('node22'), npxScan()]) pending.catch(() => {});
}, 15 * MINUTES);

afterAll(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the tarball', () => {
  it('holds what runs, README and LICENSE, and no tests, TypeScript sources, source maps or stale builds', () => {
    const files = JSON.parse(readFileSync(join(tmp, 'files.json'), 'utf8')) as string[];
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/main/cli/index.js']));
    expect(files.some((f) => f.startsWith('dist/renderer/'))).toBe(true);
    expect(
      files.filter((f) => f.startsWith('test/') || f.startsWith('dist/test/') || f.startsWith('dist/bench/')),
    ).toEqual([]);
    expect(files.filter((f) => /\.(ts|cts|mts|map)$/.test(f))).toEqual([]);
    expect(files).not.toContain('dist/main/removed-module.js');
  });
});

/**
 * `npx … breakerbar scan` on a copy of an agent database OpenClaw 2026.9.6 wrote, as a user's first npx: with
 * its own npm cache, so the package is installed (and better-sqlite3 built) afresh. Run once.
 */
let npxScanRun: Promise<{ stdout: string }> | undefined;
function npxScan(): Promise<{ stdout: string }> {
  npxScanRun ??= toolchains.node24.then((node24) => {
    const state = join(tmp, 'npx-openclaw');
    mkdirSync(join(state, 'agents', 'main', 'agent'), { recursive: true });
    cpSync(AGENT_DB, join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite'));
    const env = { ...userEnv(node24, mkdtempSync(join(tmp, 'npx-home-'))), npm_config_cache: join(tmp, 'npx-cache') };
    const npx = join(node24.npm, 'bin', 'npx-cli.js');
    const args = ['--yes', '--allow-scripts=better-sqlite3', '--package', tarball, '--', 'breakerbar'];
    return inBackground(
      run(join(node24.node, 'bin', 'node'), [npx, ...args, 'scan', state, '--json'], {
        env,
        cwd: tmp,
        maxBuffer: 64 * 1024 * 1024,
      }),
    );
  });
  return npxScanRun;
}

/** Each toolchain's install with the flag, made once whoever asks first (the tests run in a shuffled order). */
const installs: Partial<Record<'node24' | 'node22', Promise<Installed>>> = {};
function installedWith(name: 'node24' | 'node22'): Promise<Installed> {
  installs[name] ??= toolchains[name].then((chain) => install(chain, ['--allow-scripts=better-sqlite3']));
  return installs[name];
}

describe.each(['node24', 'node22'] as const)('npm install -g on %s', (name) => {
  let installed: Installed;

  beforeAll(async () => {
    installed = await installedWith(name);
  }, 15 * MINUTES);

  it('installs the bin, which prints the version', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await breakerbar(installed, ['--version']);
    expect(result.stdout.trim()).toBe(pkg.version);
  });

  it('doctor reports, without a stack trace', async () => {
    const result = await breakerbar(installed, ['doctor'], { BREAKERBAR_HOME: join(tmp, `${name}-doctor`) });
    expect([0, 1]).toContain(result.code);
    expect(result.stdout).toMatch(/BreakerBar/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it(
    'the daemon stores the calls of a captured transcript, serves the dashboard and stops cleanly',
    async () => {
      const dir = mkdtempSync(join(tmp, `${name}-daemon-`));
      const sessions = join(dir, 'openclaw', 'agents', 'main', 'sessions');
      mkdirSync(sessions, { recursive: true });
      const header = JSON.stringify({
        type: 'session',
        version: 3,
        id: 'captured',
        timestamp: '2026-12-01T00:00:00.000Z',
      });
      writeFileSync(join(sessions, 'captured.jsonl'), `${header}\n${readFileSync(FIXTURE, 'utf8')}`);
      const dataDir = join(dir, 'data');
      const config = join(dir, 'config.json');
      writeFileSync(
        config,
        JSON.stringify({
          openclawDir: join(dir, 'openclaw'),
          dataDir,
          gatewayUrl: 'http://127.0.0.1:1',
          watchdog: { enabled: false },
          notifications: { desktop: false },
          ingest: { backfillDays: 3650 },
          server: { port: 0 },
        }),
      );
      const child = spawn(installed.bin, ['daemon', '--config', config], {
        env: installed.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await expect.poll(() => existsSync(join(dataDir, 'api-url')), { timeout: MINUTES, interval: 100 }).toBe(true);
      const url = readFileSync(join(dataDir, 'api-url'), 'utf8').trim();
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<!doctype html>/i);
      const stored = async () => (await breakerbar(installed, ['history', '--json', '--config', config])).stdout;
      await expect
        .poll(async () => (JSON.parse((await stored()) || '{}') as { calls?: number }).calls ?? 0, {
          timeout: MINUTES,
          interval: 250,
        })
        .toBe(15);
      child.kill('SIGTERM');
      expect(await exited, output).toBe(0);
      expect(existsSync(join(dataDir, 'breakerbar.pid'))).toBe(false);
      expect(existsSync(join(dataDir, 'api-url'))).toBe(false);
    },
    3 * MINUTES,
  );

  /** The service file `service install --dry-run` would write, and the paths it must run. */
  async function dryRunService() {
    const result = await breakerbar(installed, ['service', 'install', '--dry-run'], {
      BREAKERBAR_HOME: join(tmp, `${name}-svc`),
    });
    expect(result.code, result.stderr).toBe(0);
    const file = /Would write [^\n]*:\n\n([\s\S]*?)\nWould run:/.exec(result.stdout)?.[1];
    expect(file, result.stdout).toBeDefined();
    const node = realpathSync(join(installed.chain.node, 'bin', 'node'));
    const cli = realpathSync(
      join(installed.prefix, 'lib', 'node_modules', 'breakerbar', 'dist', 'main', 'cli', 'index.js'),
    );
    return { file: file as string, node, cli };
  }

  it.skipIf(SERVICE_CHECKER.skip)(
    SERVICE_CHECKER.title('service install --dry-run prints a service file its manager accepts, running this Node'),
    async () => {
      const { file, node, cli } = await dryRunService();
      if (process.platform !== 'darwin') {
        expect(file).toContain(`ExecStart="${node}" "${cli}" "daemon"`);
        const verdict = verifyUnit(file, tmp);
        expect(aboutOurUnit(verdict.output), `${verdict.mode} mode:\n${verdict.output}`).toEqual([]);
        return;
      }
      const plist = join(tmp, `${name}.plist`);
      writeFileSync(plist, file);
      await run('plutil', ['-lint', plist]);
      const { stdout } = await run('python3', [
        '-c',
        'import json,plistlib,sys; print(json.dumps(plistlib.load(open(sys.argv[1],"rb"))))',
        plist,
      ]);
      expect(JSON.parse(stdout)).toMatchObject({ ProgramArguments: [node, cli, 'daemon'], RunAtLoad: true });
    },
  );
});

describe('npx', () => {
  it(
    'runs it from the tarball without a global install: scan reads an agent database OpenClaw wrote',
    async () => {
      const { stdout } = await npxScan();
      // The fixture's twelve assistant messages, read through better-sqlite3 as built by this npx.
      expect(JSON.parse(stdout)).toMatchObject({ files: 1, malformed: 0, calls: 12 });
    },
    10 * MINUTES,
  );
});

describe('an unusable SQLite module, explained', () => {
  it(
    'npm 12 without the flag skips the build; the commands name the reinstall',
    async () => {
      const node24 = await toolchains.node24;
      const installed = await install({ ...node24, name: 'npm12', npm: await npm12 }, []);
      expect(installed.log).toMatch(/better-sqlite3/);
      const result = await breakerbar(installed, ['history'], { BREAKERBAR_HOME: join(tmp, 'npm12-home') });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('npm did not run its install script');
      expect(result.stderr).toContain('--allow-scripts=better-sqlite3');
    },
    10 * MINUTES,
  );

  it(
    'a module built for Node 22, run by Node 24, is named as such',
    async () => {
      const node24 = await toolchains.node24;
      // The Node 22 block's install (a second one would compile again), run by Node 24.
      const installed = await installedWith('node22');
      const cli = join(installed.prefix, 'lib', 'node_modules', 'breakerbar', 'dist', 'main', 'cli', 'index.js');
      const result = await run(join(node24.node, 'bin', 'node'), [cli, 'history'], {
        env: { ...userEnv(node24, tmp), BREAKERBAR_HOME: join(tmp, 'abi-home') },
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? '' }),
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/compiled for another Node \(NODE_MODULE_VERSION 127\)/);
      expect(result.stderr).toMatch(/NODE_MODULE_VERSION 137/);
    },
    15 * MINUTES,
  );
});
