/**
 * The dashboard in a real browser (Debian's Chromium, driven by playwright-core),
 * served by a real BreakerBar core fed with an hour of generated history: a 429
 * storm with a storm restart in it, a throttled and an open breaker, delivered
 * and failed notifications. What a person would check: the cards and counts,
 * the storm and the restart on the chart, the restart log, the restart button
 * reaching the API with the token, the inline token prompt, the settings form's
 * inline errors, live updates (and none while hidden), keyboard use, and the CSP.
 *
 * Screenshots of every view in light and dark land in test-results/screenshots/;
 * BREAKERBAR_UPDATE_SCREENSHOTS=1 also refreshes the committed ones in docs/screenshots/.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSignInPage } from '../../main/cli/dashboard.js';
import { translator } from '../../main/words/messages/index.js';
import { toolOrSkip } from '../helpers/tools.js';
import { until } from '../helpers/transcripts.js';
import { DOCS_SCREENSHOT_DIR, ensureDir, launchChromium, openPage, SCREENSHOT_DIR, visibleText } from './browser.js';

const BROWSER = toolOrSkip('chromium');

import { serveContracts, stormIncidents, stormSpend } from './contracts.js';
import { buildDashboard, type DashboardDaemon, startDashboardDaemon } from './daemon-fixture.js';

const VIEWS = ['overview', 'incidents', 'errors', 'logs', 'settings', 'doctor'] as const;
const RESTART_REASON = 'restart requested from the dashboard';

let buildDir: string;
let staticDir: string;
let daemon: DashboardDaemon;
let browser: Browser;

beforeAll(async () => {
  if (BROWSER.skip) return;
  buildDir = mkdtempSync(join(tmpdir(), 'bb-dashboard-build-'));
  staticDir = buildDashboard(join(buildDir, 'renderer'));
  [daemon, browser] = await Promise.all([startDashboardDaemon({ staticDir }), launchChromium()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.close();
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

/**
 * A page on the daemon, with spend and incidents answered as their contracts say where this core does not
 * serve them yet (see contracts.ts).
 */
async function openDashboard(browser: Browser, scheme: 'light' | 'dark' = 'light') {
  const probe = await openPage(browser, scheme);
  const now = Date.now();
  await serveContracts(probe.page, { spend: stormSpend(now), incidents: stormIncidents(now) });
  return probe;
}

/** Requests the page sends to a path (method, headers, body), recorded from now on. */
function recordRequests(page: Page, path: string): Request[] {
  const seen: Request[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === path) seen.push(request);
  });
  return seen;
}

/** Counts canvas pixels within 40 of an `#rrggbb` colour, over every canvas under `selector`. */
async function pixelsOfColour(page: Page, selector: string, hex: string): Promise<number> {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.trim().slice(i, i + 2), 16));
  return page.evaluate<number>(`(() => {
    let n = 0;
    for (const canvas of document.querySelectorAll(${JSON.stringify(`${selector} canvas`)})) {
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] > 200 && Math.abs(data[i] - ${r}) + Math.abs(data[i + 1] - ${g}) + Math.abs(data[i + 2] - ${b}) < 40) n++;
      }
    }
    return n;
  })()`);
}

/** expect.poll with room for a loaded machine (the default second is short when the whole suite runs). */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 10_000, interval: 100 });

const cssVariable = (page: Page, name: string) =>
  page.evaluate<string>(`getComputedStyle(document.documentElement).getPropertyValue(${JSON.stringify(name)}).trim()`);

describe.skipIf(BROWSER.skip)(BROWSER.title('the dashboard served by a real daemon'), { shuffle: false }, () => {
  it('opens on the overview: gateway health, a card per dependency with its state and counts, the watchdog', async () => {
    const { page, context, errors } = await openDashboard(browser);
    try {
      // The page's clock stands still (its timers still run) just after the instant the fixture's history
      // leads up to, however long the tests before this one took: time left on the cooldowns reads the
      // same on every run, and how long the gateway has been up is exact rather than a pattern.
      await until(
        async () => ((await daemon.status()).gateway?.upSince ?? null) !== null,
        10_000,
        'the gateway to be up',
      );
      const upSince = (await daemon.status()).gateway?.upSince as number;
      const pageNow = Math.max(daemon.now + 5_000, upSince);
      await page.clock.setFixedTime(pageNow);
      await page.goto(`${daemon.url}/`);
      // No view named in the address: the first-run check runs, finds data and OpenClaw, stays here.
      await poll(() => page.getAttribute('#tab-overview', 'aria-selected')).toBe('true');
      const zhipu = page.locator('.card[data-dep="zhipu/glm-5.1"]');
      await zhipu.waitFor();
      expect(await zhipu.getAttribute('data-state')).toBe('throttled');
      const zhipuText = await visibleText(zhipu);
      expect(zhipuText).toContain('throttled');
      expect(zhipuText).toMatch(/Failure rate\s+\d+% of \d+ calls in the window/);
      expect(zhipuText).toMatch(/Failures in a row\s+6/);
      expect(zhipuText).toMatch(/Retry-After ends\s+in 1 min \d+ s/);
      expect(zhipuText).toMatch(/Next probe\s+in 9 min/);
      // The storm's 429s while the breaker was open 25 to 15 minutes ago.
      expect(zhipuText).toMatch(/Rejected while open\s+[1-9]\d+/);
      // OpenClaw's own cooldown on it, read from OpenClaw's state: a badge and a row with time left and why.
      expect(zhipuText).toMatch(/OpenClaw cooldown\s+\d+ min left \(rate_limit\) · profile zhipu:default/);
      expect(await zhipu.locator('.badge.openclaw-cooldown').textContent()).toBe('OpenClaw cooldown');

      const anthropic = page.locator('.card[data-dep="anthropic/claude-sonnet-4-5"]');
      expect(await anthropic.getAttribute('data-state')).toBe('open');
      expect(await visibleText(anthropic)).toMatch(/5 failures in a row/);

      const deepseek = page.locator('.card[data-dep="deepseek/deepseek-v4-pro"]');
      expect(await deepseek.getAttribute('data-state')).toBe('closed');
      // The rate is the minute before the clock: deepseek's last call (800 tokens) was 40 s before the
      // fixture's "now", so by the time the page shows it, it is that call or, on a slow machine, none.
      expect(await visibleText(deepseek)).toMatch(/main: (800|0) tokens\/min of 100K budget/);
      // Worst first: the open breaker leads.
      expect(await page.locator('.card').first().getAttribute('data-dep')).toBe('anthropic/claude-sonnet-4-5');

      const upFor = translator('en').duration(pageNow - upSince);
      expect(await visibleText(page.getByTestId('gateway-line'))).toMatch(
        new RegExp(`^up\\s+for ${upFor.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*· last probe`),
      );
      expect(await visibleText(page.getByTestId('gateway-summary'))).toMatch(
        /1 restart in the last hour · \d+ probes, 2 failed/,
      );
      const health = page.locator('[data-chart="health"]');
      await health.locator('canvas').first().waitFor();
      // The timeline: an hour of probes, with the minute the gateway was down during its restart.
      expect(Number(await health.getAttribute('data-probes'))).toBeGreaterThan(100);
      expect(Number(await health.getAttribute('data-down'))).toBe(1);
      expect(
        await pixelsOfColour(page, '[data-chart="health"]', await cssVariable(page, '--chart-latency')),
      ).toBeGreaterThan(100);

      const watchdog = await visibleText(page.locator('.watchdog'));
      expect(watchdog).toContain('Active');
      expect(watchdog).toMatch(/Storm checks\s+0 in a row; storms are waited out, not restarted/);
      expect(watchdog).toMatch(/Restart budget\s+\d of 4 left this hour/);
      expect(watchdog).toMatch(/Last restart\s+20 min ago, storm: recovered, recovered in 38 s/);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('charts the storm per dependency, with the storm restart and the breaker transitions marked on the same axis', async () => {
    const { page, context, errors } = await openDashboard(browser);
    try {
      const history = recordRequests(page, '/api/history');
      await page.goto(`${daemon.url}/#view=errors`);
      const zhipu = page.locator('.chart[data-dep="zhipu/glm-5.1"]');
      await zhipu.locator('canvas').first().waitFor();
      // 10 minutes of eight 429s, and the 6 just now.
      expect(Number(await zhipu.getAttribute('data-rate-limited'))).toBe(86);
      expect(Number(await zhipu.getAttribute('data-restart-marks'))).toBe(1);
      expect(Number(await zhipu.getAttribute('data-transition-marks'))).toBeGreaterThanOrEqual(3);
      expect(
        Number(await page.locator('.chart[data-dep="deepseek/deepseek-v4-pro"]').getAttribute('data-rate-limited')),
      ).toBe(0);
      const block = page.locator('.timeline[data-dep="zhipu/glm-5.1"]');
      expect(await visibleText(block.getByTestId('errors-summary'))).toMatch(
        /^86 errors in \d+ calls, last hour \(bars per minute\)/,
      );
      expect(await visibleText(block.locator('.legend [data-group="rate_limited"]'))).toBe('429 rate limited: 86');

      // Drawn, not just computed: the bars in the 429 colour and the restart line in its own.
      expect(
        await pixelsOfColour(
          page,
          '.chart[data-dep="zhipu/glm-5.1"]',
          await cssVariable(page, '--outcome-rate-limited'),
        ),
      ).toBeGreaterThan(500);
      expect(
        await pixelsOfColour(page, '.chart[data-dep="zhipu/glm-5.1"]', await cssVariable(page, '--chart-restart')),
      ).toBeGreaterThan(50);
      expect(
        await pixelsOfColour(
          page,
          '.chart[data-dep="deepseek/deepseek-v4-pro"]',
          await cssVariable(page, '--outcome-rate-limited'),
        ),
      ).toBe(0);

      // The marks are listed under the chart too.
      await block.locator('details.marks summary').click();
      const marks = await block.locator('details.marks li').allInnerTexts();
      expect(marks.some((m) => /restart \(storm\): 3 checks in a row saw new 429s → recovered/.test(m))).toBe(true);
      expect(marks.some((m) => /zhipu\/glm-5\.1: closed → throttled/.test(m))).toBe(true);

      // A wider range asks for wider steps and keeps the storm.
      await page.getByLabel('Last day').check();
      await poll(() => visibleText(block.getByTestId('errors-summary'))).toMatch(/last day \(bars per 5 minutes\)/);
      expect(history.some((r) => new URL(r.url()).searchParams.get('step') === '300')).toBe(true);
      expect(Number(await page.locator('.chart[data-dep="zhipu/glm-5.1"]').getAttribute('data-rate-limited'))).toBe(86);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('lists the restart with its reason, trigger, result, recovery, command and exit code, and each notification with its delivery', async () => {
    const { page, context } = await openDashboard(browser);
    try {
      // Relative times ("20 min ago") read from a page clock fixed just after the fixture's history.
      await page.clock.setFixedTime(daemon.now + 5_000);
      // As the tray app links a clicked notification: the view, and the event to show in it.
      const opened = daemon.monitor
        .gateway!.history.notifications(0, Number.MAX_SAFE_INTEGER)
        .find((n) => n.kind === 'breaker_opened');
      await page.goto(
        `${daemon.url}/#view=logs&at=${opened?.ts}&kind=breaker_opened&dep=anthropic%2Fclaude-sonnet-4-5`,
      );
      // The storm's restart (the fixture's): a restart asked for from the dashboard may be listed too.
      const row = page.locator('[data-testid="restart-log"] tr[data-result="recovered"]').filter({ hasText: 'storm' });
      await row.waitFor();
      const cells = await row.locator('td').allInnerTexts();
      expect(cells[1]).toBe('storm');
      expect(cells[2]).toBe('3 checks in a row saw new 429s');
      expect(cells[3]).toBe('recovered');
      expect(cells[4]).toBe('38 s');
      expect(cells[5]).toContain('openclaw gateway restart --wait 30s --json');
      expect(cells[6]).toBe('0');
      expect(cells[0]).toContain('20 min ago');

      const notifications = page.getByTestId('notification-log');
      expect(await notifications.locator('tr[data-ok="true"]').count()).toBeGreaterThan(0);
      const failed = notifications.locator('tr[data-ok="false"]').first();
      expect(await visibleText(failed)).toMatch(/failed\s+http:\/\/127\.0\.0\.1:\d+\/…: HTTP 500/);
      expect(await page.getByTestId('decision-log').locator('tr').count()).toBeGreaterThan(1);
      await poll(() => page.locator('tr.target').getAttribute('data-kind')).toBe('breaker_opened');
      expect(await page.locator('tr.target').count()).toBe(1);
      expect(page.url()).toMatch(/#view=logs$/);
    } finally {
      await context.close();
    }
  });

  it('looks right in light and dark: a screenshot of every view in each', async () => {
    const updateDocs = process.env.BREAKERBAR_UPDATE_SCREENSHOTS === '1';
    const out = ensureDir(SCREENSHOT_DIR);
    for (const scheme of ['light', 'dark'] as const) {
      const { page, context, errors } = await openDashboard(browser, scheme);
      try {
        await page.goto(`${daemon.url}/#token=${daemon.token}&view=overview`);
        expect(await page.evaluate('matchMedia("(prefers-color-scheme: dark)").matches')).toBe(scheme === 'dark');
        const background = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
        // The page follows the scheme: a light background in light mode, a dark one in dark mode.
        const [r = 0, g = 0, b = 0] = (background.match(/\d+/g) ?? []).map(Number);
        expect((r + g + b) / 3 > 128).toBe(scheme === 'light');
        const ready: Record<(typeof VIEWS)[number], string> = {
          overview: '[data-chart="health"] canvas',
          incidents: '[data-testid="incidents-table"]',
          errors: '.chart[data-dep="zhipu/glm-5.1"] canvas',
          logs: '[data-testid="restart-log"]',
          settings: '#cfg-watchdog-threshold',
          doctor: '#panel-doctor .finding',
        };
        for (const view of VIEWS) {
          await page.locator(`#tab-${view}`).click();
          await page.locator(ready[view]).first().waitFor();
          const file = join(out, `${view}-${scheme}.png`);
          await page.screenshot({ path: file });
          if (updateDocs && scheme === 'light') copyFileSync(file, join(ensureDir(DOCS_SCREENSHOT_DIR), `${view}.png`));
        }
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  it('moves between views with the keyboard (arrows, Home, End) and keeps the restart behind a confirmation', async () => {
    const { page, context } = await openDashboard(browser);
    try {
      const restarts = recordRequests(page, '/api/watchdog/restart');
      await page.goto(`${daemon.url}/#view=overview`);
      await page.locator('.card').first().waitFor();
      await page.keyboard.press('Tab');
      const focused = () => page.evaluate<string>('document.activeElement?.id ?? ""');
      expect(await focused()).toBe('tab-overview');
      const expectView = async (view: string) => {
        expect(await focused()).toBe(`tab-${view}`);
        expect(await page.getAttribute(`#tab-${view}`, 'aria-selected')).toBe('true');
        // Exactly one panel shown, this view's (it may still be empty while its data loads).
        expect(
          await page.evaluate<string[]>(
            '[...document.querySelectorAll("[role=tabpanel]")].filter((p) => !p.hidden).map((p) => p.id)',
          ),
        ).toEqual([`panel-${view}`]);
      };
      await page.keyboard.press('ArrowRight');
      await expectView('incidents');
      await page.keyboard.press('ArrowRight');
      await expectView('errors');
      await page.keyboard.press('ArrowRight');
      await expectView('logs');
      await page.keyboard.press('End');
      await expectView('doctor');
      await page.keyboard.press('ArrowRight');
      await expectView('overview');
      await page.keyboard.press('ArrowLeft');
      await expectView('doctor');
      await page.keyboard.press('Home');
      await expectView('overview');
      expect(page.url()).toContain('#view=overview');
      // Tab leaves the tab list for the language switch, then the panel.
      await page.keyboard.press('Tab');
      expect(await focused()).toBe('language');
      await page.keyboard.press('Tab');
      expect(await focused()).toBe('panel-overview');

      await page.locator('[data-action="restart"]').focus();
      await page.keyboard.press('Enter');
      const dialog = page.locator('dialog.confirm');
      await dialog.waitFor();
      expect(await visibleText(dialog)).toContain('Force restart');
      // The safe restart has the focus, never the forced one; Escape cancels and nothing is sent.
      expect(await page.evaluate<string>('document.activeElement?.dataset.choice ?? ""')).toBe('restart');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(restarts).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('restarts the gateway from the button: confirmed, sent with the token from the URL, recorded and logged', async () => {
    const { page, context } = await openDashboard(browser);
    try {
      const sent = recordRequests(page, '/api/watchdog/restart');
      const simulatedRestarts = daemon.gateway.restarts;
      await page.goto(`${daemon.url}/#token=${daemon.token}&view=overview`);
      // The token left the address bar for this tab's storage; the view stayed.
      expect(page.url()).not.toContain('token');
      expect(page.url()).toContain('#view=overview');
      expect(await page.evaluate<string | null>('sessionStorage.getItem("breakerbar.apiToken")')).toBe(daemon.token);

      await page.locator('[data-action="restart"]').click();
      await page.locator('dialog.confirm button[data-choice="restart"]').click();
      await until(() => sent.length === 1);
      const request = sent[0]!;
      expect(request.method()).toBe('POST');
      const headers = await request.allHeaders();
      expect(headers.authorization).toBe(`Bearer ${daemon.token}`);
      expect(headers['content-type']).toBe('application/json');
      expect(request.postDataJSON()).toEqual({ force: false, reason: RESTART_REASON });
      expect((await request.response())?.status()).toBe(200);
      await poll(() => visibleText(page.locator('.messages'))).toMatch(/^Restart: restart \(/);

      const side = daemon.monitor.gateway!;
      await until(() => side.history.restarts(0, Number.MAX_SAFE_INTEGER).some((r) => r.reason === RESTART_REASON));
      await side.watchdog.settled();
      expect(daemon.gateway.restarts).toBe(simulatedRestarts + 1);

      // The new restart reaches the log (live, through the event stream).
      await page.locator('#tab-logs').click();
      const row = page.locator('[data-testid="restart-log"] tr').filter({ hasText: RESTART_REASON });
      await row.waitFor();
      expect(await visibleText(row.locator('td').nth(1))).toBe('manual');
    } finally {
      await context.close();
    }
  });

  it('signs in through the page dashboard --open writes, with a one-time code that works once, as a session', async () => {
    const response = await fetch(`${daemon.url}/api/session/code`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const { code } = (await response.json()) as { code: string };
    const pageDir = mkdtempSync(join(tmpdir(), 'bb-sign-in-page-'));
    const first = await openDashboard(browser);
    try {
      // The file the CLI hands the browser: it forwards to the dashboard with the code.
      const signInPage = writeSignInPage(pageDir, `${daemon.url}/#code=${code}&view=overview`);
      await first.page.goto(pathToFileURL(signInPage).href);
      await until(
        async () =>
          (await first.page
            .evaluate<string | null>('sessionStorage.getItem("breakerbar.apiToken")')
            .catch(() => null)) !== null,
      );
      const session = await first.page.evaluate<string | null>('sessionStorage.getItem("breakerbar.apiToken")');
      // A session of its own, never the API token.
      expect(session).toMatch(/^bbs\./);
      expect(session).not.toBe(daemon.token);
      expect(first.page.url()).toMatch(new RegExp(`^${daemon.url}/`));
      expect(first.page.url()).not.toContain('code');
      expect(first.page.url()).toContain('#view=overview');
    } finally {
      await first.context.close();
      rmSync(pageDir, { recursive: true, force: true });
    }
    // The same code again: spent, so the page stays signed out (and asks for the token when it needs it).
    const second = await openDashboard(browser);
    try {
      const exchanges = recordRequests(second.page, '/api/session');
      await second.page.goto(`${daemon.url}/#code=${code}`);
      await until(() => exchanges.length === 1);
      expect((await exchanges[0]!.response())?.status()).toBe(401);
      expect(await second.page.evaluate<string | null>('sessionStorage.getItem("breakerbar.apiToken")')).toBeNull();
    } finally {
      await second.context.close();
    }
  });

  it('asks for the token inline when the tab has none, says where it comes from, and retries with it', async () => {
    const { page, context } = await openDashboard(browser);
    try {
      const pauses = recordRequests(page, '/api/watchdog/pause');
      await page.goto(`${daemon.url}/#view=overview`);
      await page.getByRole('button', { name: 'Pause 15 min' }).click();
      const prompt = page.getByTestId('token-prompt');
      await prompt.waitFor();
      const words = await visibleText(prompt);
      expect(words).toContain('breakerbar dashboard');
      expect(words).toContain('<dataDir>/api-token');
      expect(pauses).toEqual([]);
      expect(await page.evaluate<string>('document.activeElement?.id ?? ""')).toBe('token-input');

      await page.fill('#token-input', 'not a token');
      await page.getByRole('button', { name: 'Use token' }).click();
      expect(await visibleText(page.locator('#token-error'))).toContain('64 hexadecimal characters');
      expect(pauses).toEqual([]);

      // A well-formed but wrong token: the server refuses it and the prompt says so.
      await page.fill('#token-input', 'f'.repeat(64));
      await page.getByRole('button', { name: 'Use token' }).click();
      await poll(() => visibleText(prompt)).toContain('That API token was refused');
      expect(pauses).toHaveLength(1);
      expect((await pauses[0]!.response())?.status()).toBe(401);

      await page.fill('#token-input', daemon.token);
      await page.getByRole('button', { name: 'Use token' }).click();
      await until(() => pauses.length === 2);
      expect((await pauses[1]!.allHeaders()).authorization).toBe(`Bearer ${daemon.token}`);
      expect(pauses[1]!.postDataJSON()).toEqual({ durationSec: 900 });
      await poll(() => visibleText(page.getByTestId('watchdog-mode'))).toMatch(/^Paused · resumes in 1[45] min/);
      expect(daemon.monitor.gateway?.watchdog.status().paused).toBe(true);

      // The token is kept for the tab: Resume needs no prompt.
      await page.locator('[data-action="resume"]').click();
      await poll(() => visibleText(page.getByTestId('watchdog-mode'))).toBe('Active');
      expect(await prompt.count()).toBe(0);
      expect(daemon.monitor.gateway?.watchdog.status().paused).toBe(false);
    } finally {
      await context.close();
    }
  });

  it('edits the config file: a refused value is shown next to its field, a valid change writes that key only', async () => {
    const { page, context } = await openDashboard(browser);
    try {
      const before = readFileSync(daemon.configFile, 'utf8');
      await page.goto(`${daemon.url}/#token=${daemon.token}&view=settings`);
      const threshold = page.locator('#cfg-watchdog-threshold');
      await threshold.waitFor();
      expect(await threshold.inputValue()).toBe('3');
      expect(await visibleText(page.locator('[data-field="watchdog.threshold"] .help'))).toContain(
        'an integer from 1 to 1000',
      );

      await threshold.fill('0');
      await page.getByRole('button', { name: 'Save changes' }).click();
      const error = page.locator('#cfg-watchdog-threshold-error');
      await error.waitFor();
      expect(await visibleText(error)).toMatch(/watchdog\.threshold.*an integer from 1 to 1000/);
      expect(await threshold.getAttribute('aria-invalid')).toBe('true');
      expect(await page.evaluate<string>('document.activeElement?.id ?? ""')).toBe('cfg-watchdog-threshold');
      expect(readFileSync(daemon.configFile, 'utf8')).toBe(before);

      // Text that is not JSON never leaves the page.
      await threshold.fill('3');
      await page.locator('#cfg-budgets-rates').fill('[{"agent": "*",');
      await page.getByRole('button', { name: 'Save changes' }).click();
      expect(await visibleText(page.locator('#cfg-budgets-rates-error'))).toContain('not valid JSON');
      expect(await error.isHidden()).toBe(true);
      await page.getByRole('button', { name: 'Discard changes' }).click();

      await page.locator('#cfg-watchdog-threshold').fill('5');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await poll(() => visibleText(page.locator('.form-status'))).toBe('Saved 1 change.');
      const written = JSON.parse(readFileSync(daemon.configFile, 'utf8')) as Record<string, unknown>;
      const original = JSON.parse(before) as { watchdog: Record<string, unknown> };
      expect(written).toEqual({ ...original, watchdog: { ...original.watchdog, threshold: 5 } });
      expect(await page.locator('#cfg-watchdog-threshold').inputValue()).toBe('5');
    } finally {
      await context.close();
    }
  });

  it('follows live events while visible, and sends nothing while hidden', async () => {
    const { page, context } = await openDashboard(browser);
    try {
      const api: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/api/')) api.push(new URL(request.url()).pathname);
      });
      // The page's timers run on a clock this test can move on, so "nothing happened for a while" is seen
      // without waiting for it. Until then the clock runs as usual.
      await page.clock.install();
      await page.goto(`${daemon.url}/#view=overview`);
      await page.locator('.card').first().waitFor();
      await poll(() => visibleText(page.locator('#connection'))).toBe('live');

      // New calls appear without a reload: the event stream says so, the overview refreshes.
      const now = Date.now();
      daemon.write(
        Array.from({ length: 6 }, (_, i) => ({ dep: 'openai/gpt-5.2', outcome: 'timeout' as const, ts: now + i })),
      );
      await page.locator('.card[data-dep="openai/gpt-5.2"]').waitFor({ timeout: 10_000 });

      await page.evaluate(`Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'))`);
      expect(await visibleText(page.locator('#connection'))).toBe('paused');
      const countdown = page.locator('.card[data-dep="zhipu/glm-5.1"] [data-live="countdown"]').first();
      const frozen = await visibleText(countdown);
      api.length = 0;
      daemon.write([{ dep: 'mistral/mistral-large', outcome: 'ok', ts: Date.now() }]);
      // The daemon has the new call (a page still following events would hear of it now) ...
      await until(
        async () => JSON.stringify(await daemon.status()).includes('mistral/mistral-large'),
        10_000,
        'the daemon to store the new call',
      );
      // ... and a minute of the page's time passes: every timer the page had armed runs.
      await page.clock.runFor(60_000);
      // A request of our own: those the page sent before it are reported before it.
      await page.evaluate("fetch('/api/this-request-marks-the-end').catch(() => {})");
      expect(api).toEqual(['/api/this-request-marks-the-end']);
      api.length = 0;
      // No ticker either: the countdown did not move.
      expect(await visibleText(countdown)).toBe(frozen);
      expect(await page.locator('.card[data-dep="mistral/mistral-large"]').count()).toBe(0);

      await page.evaluate(`Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'))`);
      await page.locator('.card[data-dep="mistral/mistral-large"]').waitFor({ timeout: 10_000 });
      expect(api).toContain('/api/events');
      expect(await visibleText(countdown)).not.toBe(frozen);
    } finally {
      await context.close();
    }
  });

  it('runs under its CSP: header and meta policy, no inline script or style attribute takes effect, no violation in normal use', async () => {
    const { page, context, errors, violations } = await openDashboard(browser);
    try {
      const response = await page.goto(`${daemon.url}/#token=${daemon.token}`);
      expect(response?.headers()['content-security-policy']).toMatch(/default-src 'self'/);
      const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
      expect(meta).toContain("script-src 'self'");
      expect(meta).toContain("style-src 'self'");
      expect(meta).not.toContain('unsafe');
      const script = await fetch(`${daemon.url}/assets/app.js`);
      expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(script.headers.get('content-security-policy')).toMatch(/default-src 'self'/);

      // Every view in normal use: nothing the policy refuses.
      for (const view of VIEWS) {
        await page.locator(`#tab-${view}`).click();
        await page.locator(`#panel-${view} > *`).first().waitFor();
      }
      await page.locator('#panel-doctor .finding').first().waitFor();
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);

      await page.evaluate(`(() => {
        const script = document.createElement('script');
        script.textContent = 'window.__inlineRan = true';
        document.body.append(script);
        const holder = document.createElement('div');
        holder.innerHTML = '<img src="x.png" onerror="window.__handlerRan = true"><p id="styled" style="color: rgb(255, 0, 0)">x</p>';
        document.body.append(holder);
      })()`);
      await poll(() => violations()).toEqual(
        expect.arrayContaining([expect.stringMatching(/^script-src/), expect.stringMatching(/^style-src/)]),
      );
      expect(await page.evaluate('window.__inlineRan === undefined && window.__handlerRan === undefined')).toBe(true);
      expect(await page.evaluate<string>('getComputedStyle(document.getElementById("styled")).color')).not.toBe(
        'rgb(255, 0, 0)',
      );
      // What the console said since: only the browser reporting what it blocked (and the missing image).
      expect(errors.filter((e) => !/Content Security Policy|404/.test(e))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe.skipIf(BROWSER.skip)(BROWSER.title('the dashboard on a first run'), () => {
  it('opens on the Doctor, not an empty overview, when nothing has been read', async () => {
    const empty = await startDashboardDaemon({ staticDir, history: false });
    const { page, context } = await openDashboard(browser);
    try {
      await page.goto(`${empty.url}/`);
      await page.getByTestId('first-run').waitFor();
      expect(await page.getAttribute('#tab-doctor', 'aria-selected')).toBe('true');
      expect(await page.locator('#panel-doctor .finding').count()).toBeGreaterThan(3);
      expect(await visibleText(page.locator('#panel-doctor [data-area="openclaw"]'))).toContain(empty.stateDir);
      // The overview is still one step away, and sends the user back here.
      await page.locator('#tab-overview').click();
      await page.getByRole('button', { name: 'Open the Doctor' }).click();
      expect(await page.getAttribute('#tab-doctor', 'aria-selected')).toBe('true');
    } finally {
      await context.close();
      await empty.close();
    }
  });
});
