/**
 * The menu-bar app under the real Electron runtime (Playwright's `_electron`): it starts, creates its tray,
 * starts its own core, opens the dashboard from `app://dashboard` on first run, answers the dashboard
 * through the one IPC channel, exposes exactly the declared preload surface, and keeps the page on its
 * own origin.
 *
 * Run with `npx vitest run --config vitest.electron.config.ts` after `npm run build`, on a machine where
 * Electron's runtime is installed (`node node_modules/electron/install.js`) and, on Linux, under a display
 * (`xvfb-run -a`). The hosted workflow .github/workflows/app.yml does that on macOS and Linux. Machines
 * without access to Electron's download host only type-check this file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiStatus } from '../../main/api/types.js';
import { electronBinary } from '../../main/start.js';
import type { BreakerBarBridge } from '../../renderer/bridge.js';
import { until } from '../helpers/transcripts.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DASHBOARD_ORIGIN = 'app://dashboard';

/** The page's globals this test reads: the bridge, and what must not be there. */
type DashboardGlobals = typeof globalThis & {
  breakerbar?: BreakerBarBridge & Record<string, unknown>;
  require?: unknown;
  process?: unknown;
};

let app: ElectronApplication;
let page: Page;
let home: string;
let appLog = '';

beforeAll(async () => {
  const binary = electronBinary();
  if (!binary) throw new Error("Electron's runtime is not installed: run `node node_modules/electron/install.js`");
  home = mkdtempSync(join(tmpdir(), 'breakerbar-electron-'));
  const config = join(home, 'config.json');
  // Port 0: the core takes a free port and writes where it listens, which the app reads.
  writeFileSync(config, JSON.stringify({ server: { port: 0 } }));
  app = await _electron.launch({
    executablePath: binary,
    // Hosted Linux runners refuse Chromium's setuid/user-namespace sandbox; the renderer's own
    // `sandbox: true` is what the app sets and what is tested here.
    args: [...(process.platform === 'linux' ? ['--no-sandbox'] : []), ROOT],
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'xdg'),
      BREAKERBAR_HOME: join(home, 'breakerbar'),
      BREAKERBAR_CONFIG: config,
      OPENCLAW_STATE_DIR: join(home, 'openclaw'),
      BREAKERBAR_NODE: process.execPath,
    },
  });
  app.process().stderr?.on('data', (chunk: Buffer) => {
    appLog += chunk.toString();
  });
  // First run: the dashboard opens by itself once the app's own core answers.
  page = await app.firstWindow({ timeout: 90_000 });
  await page.waitForLoadState('domcontentloaded');
});

afterAll(async () => {
  await app?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('the menu-bar app under Electron', () => {
  it('starts with its tray and its own core', async () => {
    // Logged after the tray is enabled and the supervisor started (main/app/main.ts).
    await until(
      () => appLog.includes('BreakerBar app started'),
      30_000,
      () => `the start-up line in:\n${appLog}`,
    );
    const windows = await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length);
    expect(windows).toBe(1);
  });

  it('shows the dashboard from its own scheme, not from a file', () => {
    const url = new URL(page.url());
    expect(url.origin).toBe(DASHBOARD_ORIGIN);
    expect(url.pathname).toBe('/index.html');
  });

  it('exposes exactly the declared bridge and nothing of Node', async () => {
    const surface = await page.evaluate(() => {
      const globals = globalThis as DashboardGlobals;
      return {
        bridge: Object.keys(globals.breakerbar ?? {}).sort(),
        require: typeof globals.require,
        process: typeof globals.process,
      };
    });
    expect(surface).toEqual({ bridge: ['call', 'onEvent'], require: 'undefined', process: 'undefined' });
  });

  it('answers the dashboard through the IPC channel with the core status', async () => {
    const status = (await page.evaluate(() => (globalThis as DashboardGlobals).breakerbar?.call('status'))) as
      | ApiStatus
      | { error: string };
    expect(status).toHaveProperty('version');
    expect(Array.isArray((status as ApiStatus).breakers)).toBe(true);
  });

  it('refuses a call the route table does not know, without reaching the core', async () => {
    const answer = await page.evaluate(() => {
      const call = (globalThis as DashboardGlobals).breakerbar?.call as
        | ((route: string) => Promise<unknown>)
        | undefined;
      return call ? call('no-such-route') : { missing: 'window.breakerbar' };
    });
    expect(answer).toHaveProperty('error');
  });

  it('stays on its origin when the page tries to go elsewhere', async () => {
    const before = page.url();
    await page.evaluate(() => {
      location.href = 'file:///etc/hosts';
    });
    await page.evaluate(() => {
      location.href = 'https://example.com/';
    });
    // A later same-origin fragment change arrives; the refused ones never did.
    await page.evaluate(() => {
      location.hash = 'view=doctor';
    });
    await until(() => page.url().endsWith('#view=doctor'), 10_000, 'the fragment change');
    expect(new URL(page.url()).origin).toBe(new URL(before).origin);
  });

  it('serves nothing outside the dashboard files on its scheme', async () => {
    // Asked from the main process (the page itself cannot fetch app://: the scheme has no fetch support).
    const paths = ['/../package.json', '/%2e%2e/%2e%2e/package.json', '/..%2fpackage.json', '/main/start.js', '/'];
    const statuses = await app.evaluate(
      async ({ net }, asked) =>
        Promise.all(asked.map(async (path) => (await net.fetch(`app://dashboard${path}`)).status)),
      paths,
    );
    expect(statuses.slice(0, 4).every((status) => status >= 400)).toBe(true);
    expect(statuses[4]).toBe(200);
  });
});
