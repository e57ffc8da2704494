/**
 * The Logs and Settings views in a real browser (Debian's Chromium), served by
 * a real BreakerBar core with an hour of history, in English and in Simplified
 * Chinese (chosen as the dashboard keeps the choice: `breakerbar.language` in
 * localStorage). What a person would check: probes folded to their changes,
 * the filter by kind and level with its state in words, used from the keyboard;
 * settings grouped by concern, each key under a plain label with its unit and
 * its raw path, a closed group opened from the group bar.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolOrSkip } from '../helpers/tools.js';
import { ensureDir, launchChromium, openPage, SCREENSHOT_DIR, visibleText, zoneAtNoon } from './browser.js';

const BROWSER = toolOrSkip('chromium');

import { buildDashboard, type DashboardDaemon, startDashboardDaemon } from './daemon-fixture.js';

let buildDir: string;
let daemon: DashboardDaemon;
let browser: Browser;

beforeAll(async () => {
  if (BROWSER.skip) return;
  buildDir = mkdtempSync(join(tmpdir(), 'bb-views-build-'));
  const staticDir = buildDashboard(join(buildDir, 'renderer'));
  [daemon, browser] = await Promise.all([startDashboardDaemon({ staticDir }), launchChromium()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.close();
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 10_000, interval: 100 });

/** A page whose dashboard speaks `language` (null: the browser's, en-US). */
async function open(language: 'en' | 'zh-CN' | null, view: string) {
  // Near noon in the page's zone: the fixture's hour of history is one day's, so its times are bare clock times.
  const probe = await openPage(browser, 'light', zoneAtNoon(daemon.now));
  if (language !== null) {
    await probe.page.addInitScript({
      content: `localStorage.setItem('breakerbar.language', ${JSON.stringify(language)});`,
    });
  }
  await probe.page.goto(`${daemon.url}/#token=${daemon.token}&view=${view}`);
  return probe;
}

const statuses = (page: Page) =>
  page.evaluate<string[]>(
    '[...document.querySelectorAll("[data-testid=probe-log] tbody tr")].map((r) => r.dataset.status + "×" + r.dataset.count)',
  );

describe.skipIf(BROWSER.skip)(BROWSER.title('the Logs view'), () => {
  it('folds probes to their changes and filters by kind and level, from the keyboard', async () => {
    const { page, context, errors } = await open(null, 'logs');
    try {
      const probes = page.getByTestId('probe-log');
      await probes.waitFor();
      // The hour of probes: healthy, refused for the minute of the restart (two probes), healthy again.
      const runs = await statuses(page);
      expect(runs).toContain('refused×2');
      const refusedAt = runs.indexOf('refused×2');
      expect(runs[refusedAt + 1]).toMatch(/^ok×\d+$/);
      expect(Number(runs[refusedAt + 1]!.split('×')[1])).toBeGreaterThan(50);
      expect(runs.length).toBeLessThan(10);
      const refused = probes.locator('tr[data-status="refused"]');
      expect(await refused.locator('td').nth(1).textContent()).toBe('connection refused');
      expect(await refused.locator('td').nth(2).textContent()).toBe('×2');
      // A run's time is its span, from its first probe to its last (one time when both fall in one minute).
      expect(await refused.locator('time').textContent()).toMatch(/^\d\d:\d\d(–\d\d:\d\d)?$/);
      expect(await probes.locator('tr').nth(1).locator('time').textContent()).toMatch(/^\d\d:\d\d–\d\d:\d\d$/);

      const state = page.getByTestId('log-filter-state');
      expect(await visibleText(state)).toMatch(
        /^Showing restarts, watchdog decisions, notifications, breaker transitions, and health probes · Everything · \d+ of \d+ rows\.$/,
      );

      // Errors only: the refused run stays, the healthy ones go, and the page says how many rows it hid.
      await page.getByLabel('Errors only').check();
      await poll(() => statuses(page)).toEqual(['refused×2']);
      expect(await visibleText(state)).toContain('Errors only');
      expect(await visibleText(page.locator('[data-kind="probes"] .hidden-rows'))).toMatch(
        /^\d+ rows hidden by the level filter\.$/,
      );
      // The failed webhook deliveries are errors; the delivered ones are not.
      expect(await page.getByTestId('notification-log').locator('tr[data-ok="true"]').count()).toBe(0);
      expect(await page.getByTestId('notification-log').locator('tr[data-ok="false"]').count()).toBeGreaterThan(0);

      // Keyboard: Space on the focused checkbox hides the probes; the focus stays on it across the re-render.
      await page.locator('#log-kind-probes').focus();
      await page.keyboard.press('Space');
      await poll(() => page.getByTestId('probe-log').count()).toBe(0);
      expect(await page.evaluate<string>('document.activeElement?.id ?? ""')).toBe('log-kind-probes');
      expect(await visibleText(state)).not.toContain('health probes');
      // The storm restart recovered: a warning, hidden by the level, and said to be (not "no restarts").
      expect(await page.getByTestId('restart-log').count()).toBe(0);
      expect(await page.getByTestId('restart-log-empty').count()).toBe(0);
      expect(await visibleText(page.locator('[data-kind="restarts"] .hidden-rows'))).toBe(
        '1 row hidden by the level filter.',
      );

      // One button brings everything back.
      await page.getByRole('button', { name: 'Show everything' }).click();
      await poll(() => statuses(page)).toContain('refused×2');
      expect((await statuses(page)).length).toBe(runs.length);
      expect(await page.getByRole('button', { name: 'Show everything' }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('speaks Chinese when that is the dashboard language', async () => {
    const { page, context, errors } = await open('zh-CN', 'logs');
    try {
      await page.getByTestId('probe-log').waitFor();
      expect(await page.locator('#tab-logs').textContent()).toBe('日志');
      expect(await page.locator('#restarts-heading').textContent()).toBe('重启');
      expect(await page.locator('#probes-heading').textContent()).toBe('健康探测');
      const refused = page.getByTestId('probe-log').locator('tr[data-status="refused"]');
      expect(await refused.locator('td').nth(1).textContent()).toBe('连接被拒绝');
      const restart = page.locator('[data-testid="restart-log"] tr[data-result="recovered"]');
      expect(await restart.locator('td').nth(1).textContent()).toBe('429 风暴');
      expect(await restart.locator('td').nth(3).textContent()).toBe('已恢复');
      expect(await visibleText(page.getByTestId('log-filter-state'))).toMatch(
        /^正在显示.+ · 全部 · 共 \d+ 行，显示 \d+ 行。$/,
      );

      await page.getByLabel('仅错误').check();
      await poll(() => statuses(page)).toEqual(['refused×2']);
      expect(await visibleText(page.getByTestId('log-filter-state'))).toContain('仅错误');
      await page.screenshot({ path: join(ensureDir(SCREENSHOT_DIR), 'logs-zh-CN.png'), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe.skipIf(BROWSER.skip)(BROWSER.title('the Errors and Doctor views in Chinese'), () => {
  it('word their own headings, legends, summaries and buttons in Chinese', async () => {
    const { page, context, errors } = await open('zh-CN', 'errors');
    try {
      const block = page.locator('.timeline[data-dep="zhipu/glm-5.1"]');
      await block.locator('canvas').first().waitFor();
      expect(await page.locator('#tab-errors').textContent()).toBe('错误');
      expect(await visibleText(block.locator('.legend [data-group="rate_limited"]'))).toBe('429 限流：86');
      expect(await visibleText(block.getByTestId('errors-summary'))).toMatch(
        /^最近一小时共 \d+ 次调用，其中 86 次错误（每根柱形每分钟）。$/,
      );
      expect(await page.locator('.timeline[data-dep="*"] h2').textContent()).toBe('全部依赖');
      expect(await page.getByLabel('最近一天').count()).toBe(1);

      await page.locator('#tab-doctor').click();
      await page.locator('#panel-doctor .finding').first().waitFor();
      expect(await page.locator('#panel-doctor h2').textContent()).toBe('诊断');
      expect(await visibleText(page.getByTestId('doctor-summary'))).toMatch(/^\d+ 个错误，\d+ 个警告，\d+ 项正常。$/);
      expect(await page.locator('#panel-doctor [data-area="gateway"] h3').textContent()).toBe('网关');
      expect(await page.getByRole('button', { name: '重新检查' }).count()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe.skipIf(BROWSER.skip)(BROWSER.title('the Settings view'), () => {
  it('groups the keys by concern, each under a plain label with its unit and raw key', async () => {
    const { page, context, errors } = await open('en', 'settings');
    try {
      const field = page.locator('[data-field="watchdog.healthFailuresBeforeRestart"]');
      await field.waitFor();
      const groups = await page.locator('details.settings-group .group-name').allInnerTexts();
      expect(groups.slice(0, 4)).toEqual(['Gateway', 'Watchdog & restarts', 'Breakers', 'Notifications']);
      expect(groups).toContain('Spend & budgets');
      expect(groups).toContain('Fleet');
      expect(groups).toContain('Storage');
      expect(groups[groups.length - 1]).toBe('Advanced');
      expect(await field.locator('.field-label').textContent()).toBe('Restart after this many dead probes');
      expect(await field.locator('.field-key').textContent()).toBe('watchdog.healthFailuresBeforeRestart');
      expect(await field.locator('.unit').textContent()).toBe('probes');
      expect(await page.locator('[data-field="watchdog.maxRestartsPerHour"] .unit').textContent()).toBe('per hour');
      expect(await page.locator('[data-field="health.intervalSec"] .unit').textContent()).toBe('seconds');
      // The input is named by its label (and the raw key) for a screen reader.
      expect(await page.getByLabel('Restart after this many dead probes').getAttribute('id')).toBe(
        'cfg-watchdog-healthFailuresBeforeRestart',
      );
      expect(await page.locator('[data-unlabeled]').count()).toBe(0);

      // The config sets watchdog keys, none of the fleet's: Watchdog opens, Fleet waits behind its summary.
      expect(await page.locator('details[data-group="watchdog"]').getAttribute('open')).not.toBeNull();
      const fleet = page.locator('details[data-group="fleet"]');
      expect(await fleet.getAttribute('open')).toBeNull();
      expect(await page.locator('#cfg-fleet-hostId').isVisible()).toBe(false);
      await page.locator('.group-nav button[data-group="fleet"]').click();
      expect(await fleet.getAttribute('open')).not.toBeNull();
      expect(await page.locator('#cfg-fleet-hostId').isVisible()).toBe(true);
      expect(await page.evaluate<string>('document.activeElement?.closest("details")?.dataset.group ?? ""')).toBe(
        'fleet',
      );
      await page.getByRole('button', { name: 'Close all groups' }).click();
      expect(await page.locator('details.settings-group[open]').count()).toBe(0);
      await page.getByRole('button', { name: 'Open all groups' }).click();
      expect(await page.locator('details.settings-group:not([open])').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('speaks Chinese: groups, labels, units, buttons and the form’s own errors', async () => {
    const { page, context, errors } = await open('zh-CN', 'settings');
    try {
      const field = page.locator('[data-field="watchdog.healthFailuresBeforeRestart"]');
      await field.waitFor();
      expect(await page.locator('#tab-settings').textContent()).toBe('设置');
      const groups = await page.locator('details.settings-group .group-name').allInnerTexts();
      expect(groups.slice(0, 4)).toEqual(['网关', '看门狗与重启', '熔断器', '通知']);
      expect(await field.locator('.field-label').textContent()).toBe('连续多少次探测失败后重启');
      expect(await field.locator('.field-key').textContent()).toBe('watchdog.healthFailuresBeforeRestart');
      expect(await page.locator('[data-field="health.intervalSec"] .unit').textContent()).toBe('秒');
      expect(await visibleText(page.locator('[data-field="watchdog.threshold"] .help'))).toContain('默认值：3');

      await page.locator('#cfg-budgets-rates').fill('[{"agent": "*",');
      // The "(changed)" mark is drawn by CSS from words the view puts in an attribute.
      expect(
        await page.evaluate<string>(
          `getComputedStyle(document.querySelector('[data-field="budgets.rates"] label'), '::after').content`,
        ),
      ).toBe('"（已修改）"');
      await page.getByRole('button', { name: '保存修改' }).click();
      expect(await visibleText(page.locator('#cfg-budgets-rates-error'))).toMatch(/^不是有效的 JSON：应为 /);
      expect(await visibleText(page.locator('.form-status'))).toBe('未保存：请修正标出的字段。');
      await page.screenshot({ path: join(ensureDir(SCREENSHOT_DIR), 'settings-zh-CN.png') });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
