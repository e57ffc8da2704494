/**
 * A dangerous settings change saved from the dashboard in a real browser (Debian's Chromium): the page
 * shows what would change and asks for the code the daemon sent out of its reach; a wrong code is said
 * so and asked again, the right one saves, Cancel saves nothing. The server is the real HTTP API over a
 * config file on disk; only the rest of the core is a fake.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfigConfirmations } from '../../main/api/server/config-confirmation.js';
import type { ConfirmationDelivery } from '../../main/api/server/handlers.js';
import { type ApiServer, startApiServer } from '../../main/api/server/http.js';
import type { ConfigSaveResponse, ConfigView } from '../../main/api/types.js';
import { readConfigFile, writeConfigFile } from '../../main/core/config/file.js';
import { silentLogger } from '../../main/core/runtime/log.js';
import { FakeBackend } from '../helpers/fake-backend.js';
import { toolOrSkip } from '../helpers/tools.js';
import { launchChromium, openPage, visibleText } from './browser.js';
import { buildDashboard } from './daemon-fixture.js';

const BROWSER = toolOrSkip('chromium');
const TOKEN = randomBytes(32).toString('hex');
const INITIAL = { server: { port: 18820 }, watchdog: { threshold: 3 } };

/** The settings the form edits are a real config file's. */
class FileBackend extends FakeBackend {
  constructor(readonly file: string) {
    super();
  }
  override config(): ConfigView {
    return { ...readConfigFile(this.file), effective: {} };
  }
  override saveConfig(config: unknown): ConfigSaveResponse {
    writeConfigFile(this.file, config);
    return { ok: true, file: this.file, note: 'saved' };
  }
}

let dir: string;
let server: ApiServer;
let browser: Browser;
let backend: FileBackend;
const delivered: ConfirmationDelivery[] = [];

beforeAll(async () => {
  if (BROWSER.skip) return;
  dir = mkdtempSync(join(tmpdir(), 'bb-confirm-'));
  const staticDir = buildDashboard(join(dir, 'renderer'));
  backend = new FileBackend(join(dir, 'config.json'));
  // Keys set in the groups the test edits, so that those groups start open.
  writeConfigFile(backend.file, INITIAL);
  let n = 100_000;
  [server, browser] = await Promise.all([
    startApiServer({
      backend,
      port: 0,
      token: TOKEN,
      log: silentLogger,
      version: '9.9.9',
      staticDir,
      confirmations: createConfigConfirmations({ generate: () => String(++n) }),
      deliverConfirmation: (delivery) => delivered.push(delivery),
    }),
    launchChromium(),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 10_000, interval: 100 });
const written = () => JSON.parse(readFileSync(backend.file, 'utf8')) as Record<string, unknown>;

describe.skipIf(BROWSER.skip)(BROWSER.title('confirming a dangerous settings change'), () => {
  it('asks for the code sent out of band, says when one is wrong, saves with the right one', async () => {
    const { page, context } = await openPage(browser);
    // The codes sent for this test's change (the tests run in any order, and each one asks for a code).
    const sent = delivered.length;
    try {
      await page.goto(`${server.url}/#token=${TOKEN}&view=settings`);
      const host = page.locator('#cfg-server-host');
      await host.waitFor();
      await host.fill('0.0.0.0');
      await page.getByRole('button', { name: 'Save changes' }).click();

      const prompt = page.getByTestId('confirm-prompt');
      await prompt.waitFor();
      expect(await visibleText(prompt)).toContain('server.host: 127.0.0.1 → 0.0.0.0');
      expect(delivered.slice(sent)).toHaveLength(1);
      const delivery = delivered[sent] as ConfirmationDelivery;
      // The code reached the desktop channel, never the page.
      expect(await page.content()).not.toContain(delivery.code);
      expect(written()).toEqual(INITIAL);

      const code = page.locator('#confirm-code');
      await code.fill('12345');
      await page.getByRole('button', { name: 'Confirm and save' }).click();
      expect(await visibleText(page.locator('#confirm-error'))).toBe('The code is 6 digits.');

      await code.fill('999999');
      await page.getByRole('button', { name: 'Confirm and save' }).click();
      await poll(() => visibleText(page.locator('#confirm-error'))).toContain('not accepted');
      expect(written()).toEqual(INITIAL);

      await page.locator('#confirm-code').fill(delivery.code);
      await page.getByRole('button', { name: 'Confirm and save' }).click();
      await poll(() => visibleText(page.locator('.form-status'))).toBe('Saved 1 change.');
      expect(written()).toEqual({ ...INITIAL, server: { port: 18820, host: '0.0.0.0' } });
      expect(await prompt.count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('saves nothing when the prompt is cancelled', async () => {
    const { page, context } = await openPage(browser);
    try {
      const before = written();
      await page.goto(`${server.url}/#token=${TOKEN}&view=settings`);
      const command = page.locator('#cfg-watchdog-restartCommand');
      await command.waitFor();
      await command.fill('["sh", "-c", "echo hi"]');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByTestId('confirm-prompt').waitFor();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await poll(() => visibleText(page.locator('.form-status'))).toBe('Not saved: the change was not confirmed.');
      expect(written()).toEqual(before);
    } finally {
      await context.close();
    }
  });
});
