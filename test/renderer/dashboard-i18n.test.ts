/**
 * The dashboard in both languages, in a real browser (Debian's Chromium), on the
 * real HTTP server with a backend whose status is set by each test and a page
 * clock fixed at NOW: a storm, a calm day, a first run and the incidents, each
 * in English and 简体中文. The headline must read exactly as the shared headline
 * words that status at NOW (the tray and the CLI say the same sentence), the
 * cards must show their last 24 hours as a drawn sparkline, and every label must
 * be in the language chosen. Spend and incidents are answered as their contracts
 * say, or are missing as from an older core (contracts.ts).
 *
 * BREAKERBAR_UPDATE_SCREENSHOTS=1 writes the storm in both languages, light and
 * dark, and an incident's timeline to docs/screenshots/.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { headline, headlineText } from '../../main/api/headline.js';
import { type ApiServer, startApiServer } from '../../main/api/server/http.js';
import type { ApiHistory, ApiStatus, HistoryQuery } from '../../main/api/types.js';
import type { Outcome } from '../../main/core/calls/classify.js';
import { CallTally } from '../../main/core/calls/summary.js';
import type { Language } from '../../main/words/i18n.js';
import { translator } from '../../main/words/messages/index.js';
import { apiStatus, breaker, MIN, NOW, source, watchdog } from '../app/fixtures.js';
import { FakeBackend, recordingLogger } from '../helpers/fake-backend.js';
import { toolOrSkip } from '../helpers/tools.js';
import { DOCS_SCREENSHOT_DIR, ensureDir, launchChromium, SCREENSHOT_DIR, visibleText } from './browser.js';

const BROWSER = toolOrSkip('chromium');

import { type Contracts, serveContracts, stormIncidents, stormSpend, summaryOf } from './contracts.js';
import { buildDashboard } from './daemon-fixture.js';

const TOKEN = randomBytes(32).toString('hex');
const LANGS: readonly Language[] = ['en', 'zh-CN'];
const ZHIPU = 'zhipu/glm-5.1';
const ANTHROPIC = 'anthropic/claude-sonnet-4-5';
const DEEPSEEK = 'deepseek/deepseek-v4-pro';
const STEP_15_MIN = 900_000;

/** Steps of the last day: calls every quarter hour, and for zhipu a storm of 429s over the last two hours. */
function dayOf(query: HistoryQuery): ApiHistory['steps'] {
  const steps: ApiHistory['steps'] = [];
  const zero = (): Record<Outcome, number> => ({
    ok: 0,
    rate_limited: 0,
    overloaded: 0,
    server_error: 0,
    timeout: 0,
    connection_reset: 0,
    aborted: 0,
    auth: 0,
    billing: 0,
    context_overflow: 0,
    other_error: 0,
  });
  for (let t = query.from; t < query.to; t += query.stepMs) {
    const outcomes = zero();
    const hour = Math.floor((t - query.from) / 3_600_000);
    outcomes.ok = 4 + ((hour * 7) % 9);
    if (query.dep === ZHIPU && t >= query.to - 2 * 3_600_000) outcomes.rate_limited = 12 + (hour % 3);
    if (query.dep === ANTHROPIC && t >= query.to - 30 * MIN) outcomes.server_error = 5;
    steps.push({ t, outcomes });
  }
  return steps;
}

/** The fake backend, with a last day of calls per dependency and an hour of probes. */
class DayBackend extends FakeBackend {
  override history(query: HistoryQuery): ApiHistory {
    const base = super.history(query);
    if (query.stepMs === STEP_15_MIN) return { ...base, steps: dayOf(query) };
    const probes = [];
    for (let ts = query.from; ts < Math.min(query.to, NOW); ts += 30_000) {
      const slow = ts > NOW - 25 * MIN;
      probes.push({ ts, ok: true, status: 'ok', startup: 'started', latencyMs: slow ? 180 : 24, detail: null });
    }
    return { ...base, probes };
  }
}

function lastDay(rows: Array<[string, Outcome, number]>): ApiStatus['lastDay'] {
  const tally = new CallTally();
  for (const [dep, outcome, n] of rows) tally.add(dep, outcome, 0, n);
  return tally.summary();
}

/** A 429 storm on zhipu (throttled) and anthropic failing (open), deepseek answering, an incident open. */
function stormStatus(): ApiStatus {
  const [open, closed] = stormIncidents(NOW);
  const spend = stormSpend(NOW);
  return apiStatus({
    breakers: [
      breaker(ZHIPU, {
        state: 'throttled',
        reason: 'rate limited, Retry-After 120 s',
        since: NOW - 3 * MIN,
        openUntil: NOW + 9 * MIN,
        retryAfterUntil: NOW + 90_000,
        window: { calls: 16, failures: 10, successes: 6, failureRate: 0.625 },
        consecutiveFailures: 6,
        rejections: 80,
        openclawCooldown: { until: NOW + 11 * MIN, reason: 'rate_limit', profile: 'zhipu:default', kind: 'cooldown' },
      }),
      breaker(ANTHROPIC, {
        state: 'open',
        reason: '5 consecutive failures',
        since: NOW - 2 * MIN,
        openUntil: NOW + 28_000,
        window: { calls: 9, failures: 5, successes: 4, failureRate: 5 / 9 },
        consecutiveFailures: 5,
        rejections: 3,
      }),
      breaker(DEEPSEEK, { reason: 'initial state', since: 0 }),
    ],
    tokens: [{ agentId: 'main', dep: DEEPSEEK, tokensPerMinute: 1600, budget: 100_000, overBudget: false }],
    watchdog: watchdog({
      consecutiveChecks: 1,
      rateLimited: { since: NOW - 3 * MIN, deps: [{ dep: ZHIPU, fallbacks: [DEEPSEEK] }] },
    }),
    incidents: { open: [summaryOf(open!)], lastClosed: summaryOf(closed!), mttrByWeek: [] },
    quota: spend.quota,
    budgets: spend.budgets,
    lastDay: lastDay([
      [ZHIPU, 'ok', 290],
      [ZHIPU, 'rate_limited', 118],
      [DEEPSEEK, 'ok', 231],
    ]),
  });
}

/** Every breaker closed, nothing in their windows, but the day had calls. */
function calmStatus(): ApiStatus {
  return apiStatus({
    breakers: [
      breaker(DEEPSEEK, {
        reason: '2 successful trials',
        window: { calls: 0, failures: 0, successes: 0, failureRate: 0 },
      }),
      breaker(ZHIPU, {
        reason: 'initial state',
        since: 0,
        window: { calls: 0, failures: 0, successes: 0, failureRate: 0 },
      }),
    ],
    incidents: { open: [], lastClosed: summaryOf(stormIncidents(NOW)[1]!), mttrByWeek: [] },
    lastDay: lastDay([
      [DEEPSEEK, 'ok', 140],
      [DEEPSEEK, 'timeout', 2],
      [ZHIPU, 'ok', 36],
    ]),
  });
}

/** Nothing read yet: no dependency, no call. */
function firstRunStatus(): ApiStatus {
  return apiStatus({ breakers: [], sources: [source({ calls: 0, lines: 0, stored: 0, lastEventAt: null })] });
}

let buildDir: string;
let staticDir: string;
let backend: DayBackend;
let server: ApiServer;
let browser: Browser;

beforeAll(async () => {
  if (BROWSER.skip) return;
  buildDir = mkdtempSync(join(tmpdir(), 'bb-dashboard-i18n-'));
  staticDir = buildDashboard(join(buildDir, 'renderer'));
  backend = new DayBackend();
  [server, browser] = await Promise.all([
    startApiServer({
      backend,
      port: 0,
      token: TOKEN,
      log: recordingLogger(),
      version: '9.9.9',
      staticDir,
      clock: () => NOW,
    }),
    launchChromium(),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

beforeEach(() => {
  if (BROWSER.skip) return;
  backend.statusResult = stormStatus();
});

interface Opened {
  page: Page;
  context: BrowserContext;
  /** Uncaught errors in the page. */
  errors: string[];
}

/**
 * A page at NOW (its clock fixed there, timers running), in the time zone of this process (so the
 * expected words, computed here, name the same wall times), with `language` stored as the reader's choice.
 */
async function open(
  options: {
    language?: Language | 'auto';
    locale?: string;
    scheme?: 'light' | 'dark';
    contracts?: Contracts;
    view?: string;
  } = {},
): Promise<Opened> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 1000 },
    colorScheme: options.scheme ?? 'light',
    locale: options.locale ?? 'en-US',
    timezoneId: Intl.DateTimeFormat().resolvedOptions().timeZone,
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.clock.setFixedTime(NOW);
  if (options.language) {
    await page.addInitScript({
      content: `localStorage.setItem('breakerbar.language', ${JSON.stringify(options.language)});`,
    });
  }
  await serveContracts(page, options.contracts ?? { spend: stormSpend(NOW), incidents: stormIncidents(NOW) });
  await page.goto(`${server.url}/#token=${TOKEN}&view=${options.view ?? 'overview'}`);
  return { page, context, errors };
}

const expectedHeadline = (status: ApiStatus, language: Language) =>
  headlineText(headline(status, NOW), translator(language));

/** Canvas pixels drawn (not transparent) under `selector`. */
function drawnPixels(page: Page, selector: string): Promise<number> {
  return page.evaluate<number>(`(() => {
    let n = 0;
    for (const canvas of document.querySelectorAll(${JSON.stringify(`${selector} canvas`)})) {
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
    }
    return n;
  })()`);
}

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 10_000, interval: 100 });

describe.skipIf(BROWSER.skip).each(LANGS)(BROWSER.title('the dashboard in %s'), (language) => {
  const t = translator(language);

  it('opens a storm with the headline, cards that say why, their last day drawn, spend and the incident', async () => {
    const status = stormStatus();
    const { page, context, errors } = await open({ language });
    try {
      const banner = page.locator('#headline');
      await poll(() => banner.textContent()).toBe(expectedHeadline(status, language));
      expect(await banner.getAttribute('data-tone')).toBe(headline(status, NOW).tone);
      expect(await page.getAttribute('html', 'lang')).toBe(language);
      expect(await page.locator('#tab-overview').textContent()).toBe(t.t('dashboard.tab.overview'));
      expect(await page.locator('#tab-incidents').textContent()).toBe(t.t('dashboard.tab.incidents'));
      expect(await page.locator('#deps-heading').textContent()).toBe(t.t('dashboard.deps.heading'));
      expect(await page.locator('#watchdog-heading').textContent()).toBe(t.t('dashboard.watchdog.heading'));
      expect(await page.locator('#spend-heading').textContent()).toBe(t.t('dashboard.spend.heading'));

      const zhipu = page.locator(`.card[data-dep="${ZHIPU}"]`);
      await zhipu.waitFor();
      // Why, in words: the provider asked to wait 120 s.
      expect(await zhipu.getByTestId('why').textContent()).toContain(
        t.t('dashboard.why.retryAfter', { waitMs: 120_000 }),
      );
      expect(await zhipu.locator('.badge.state-throttled').textContent()).toBe(t.t('common.state.throttled'));
      // Today's figures from the spend report (by model).
      expect(await zhipu.getByTestId('day-figures').textContent()).toBe(
        `${t.t('dashboard.card.todayFigures', { calls: 412, failures: 118 })} · ${t.t('dashboard.card.tokensCost', { tokens: 1_840_000, cost: 3.12 })}`,
      );
      expect(await visibleText(zhipu)).toContain(t.t('dashboard.card.today'));
      // OpenClaw's cooldown, with time left at NOW.
      expect(await zhipu.getByTestId('openclaw-cooldown').textContent()).toBe(
        `${t.t('dashboard.time.left', { left: t.duration(11 * MIN) })}${t.t('dashboard.card.cooldownDetail', { reason: 'rate_limit', profile: 'zhipu:default' })}`,
      );
      // The open incident touching it, linked.
      const link = zhipu.getByTestId('card-incident').locator('a');
      expect(await link.textContent()).toBe(t.t('dashboard.card.incident', { id: 12 }));
      expect(await link.getAttribute('href')).toBe('#view=incidents&incident=12');
      expect(await page.locator(`.card[data-dep="${DEEPSEEK}"] [data-testid="card-incident"]`).count()).toBe(0);

      // The sparkline: the day's calls and failures, drawn.
      const spark = page.locator(`[data-chart="spark"][data-dep="${ZHIPU}"]`);
      await spark.locator('canvas').first().waitFor();
      const steps = dayOf({ from: 0, to: 86_400_000, stepMs: STEP_15_MIN, dep: ZHIPU });
      expect(steps).toHaveLength(96);
      const calls = steps.reduce((sum, s) => sum + Object.values(s.outcomes).reduce((a, b) => a + b, 0), 0);
      expect(Number(await spark.getAttribute('data-calls'))).toBe(calls);
      expect(Number(await spark.getAttribute('data-failures'))).toBe(
        calls - steps.reduce((sum, s) => sum + s.outcomes.ok, 0),
      );
      expect(await drawnPixels(page, `[data-chart="spark"][data-dep="${ZHIPU}"]`)).toBeGreaterThan(200);
      // One 24 h request per card, in quarter hours.
      const dayQueries = backend.historyQueries.filter((q) => q.stepMs === STEP_15_MIN);
      expect(new Set(dayQueries.map((q) => q.dep))).toEqual(new Set([ZHIPU, ANTHROPIC, DEEPSEEK]));
      expect(dayQueries.every((q) => q.to - q.from === 86_400_000)).toBe(true);

      // Spend: per provider over three periods, budgets and quota.
      const spend = page.getByTestId('spend-table');
      expect(await spend.locator('tbody tr').count()).toBe(3);
      expect(await spend.locator('tr[data-provider="zhipu"] td').first().textContent()).toBe(
        t.t('dashboard.spend.cell', { tokens: 1_840_000, cost: 3.12 }),
      );
      expect(await page.getByTestId('budgets').locator('li').count()).toBe(2);
      expect(
        await page.locator('[data-testid="budgets"] li[data-provider="anthropic"]').getAttribute('class'),
      ).toContain('projected-over');
      expect(await page.getByTestId('quota').textContent()).toContain(
        t.t('dashboard.spend.quotaLeft', { left: 1 - 0.82, exhausted: false }),
      );
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("says a calm day's figures (not an empty window), and all well in the headline", async () => {
    backend.statusResult = calmStatus();
    const status = calmStatus();
    // A core without the spend report: the cards fall back on the status's last 24 hours.
    const { page, context, errors } = await open({ language, contracts: {} });
    try {
      const banner = page.locator('#headline');
      await poll(() => banner.textContent()).toBe(expectedHeadline(status, language));
      expect(await banner.getAttribute('data-tone')).toBe('ok');
      const deepseek = page.locator(`.card[data-dep="${DEEPSEEK}"]`);
      await deepseek.waitFor();
      const text = await visibleText(deepseek);
      expect(text).toContain(t.t('dashboard.card.lastDay'));
      expect(await deepseek.getByTestId('day-figures').textContent()).toBe(
        t.t('dashboard.card.todayFigures', { calls: 142, failures: 2 }),
      );
      expect(text).not.toContain(t.t('dashboard.card.windowFigures', { calls: 0, rate: 0, failures: 0 }));
      expect(await deepseek.getByTestId('why').textContent()).toContain(t.t('dashboard.why.recovered', { n: 2 }));
      expect(await page.getByTestId('spend-unavailable').textContent()).toBe(t.t('dashboard.spend.unavailable'));
      await page.locator(`[data-chart="spark"][data-dep="${DEEPSEEK}"] canvas`).first().waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says a first run is waiting for the first call, and points at the Doctor', async () => {
    backend.statusResult = firstRunStatus();
    const { page, context, errors } = await open({ language });
    try {
      await poll(() => page.locator('#headline').textContent()).toBe(expectedHeadline(firstRunStatus(), language));
      expect(await page.locator('#headline').textContent()).toBe(t.t('headline.firstRun'));
      const none = page.getByTestId('deps-none');
      await none.waitFor();
      expect(await none.textContent()).toContain(t.t('dashboard.deps.none'));
      expect(await none.locator('button').textContent()).toBe(t.t('dashboard.deps.openDoctor'));
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("lists the incidents, opens one's timeline from the keyboard, and goes back to it", async () => {
    const incidents = stormIncidents(NOW);
    const { page, context, errors } = await open({ language, view: 'incidents' });
    try {
      const table = page.getByTestId('incidents-table');
      await table.waitFor();
      const headers = await table.locator('th').allTextContents();
      expect(headers).toEqual([
        t.t('dashboard.incidents.opened'),
        t.t('dashboard.incidents.duration'),
        t.t('dashboard.incidents.severity'),
        t.t('dashboard.incidents.causes'),
        t.t('dashboard.incidents.deps'),
        t.t('dashboard.incidents.turnsLost'),
        t.t('dashboard.incidents.restarts'),
      ]);
      const open12 = table.locator('tr[data-incident="12"] td');
      expect(await open12.nth(1).textContent()).toContain(t.t('dashboard.incidents.stillOpen', { ms: 25 * MIN }));
      expect(await open12.nth(2).textContent()).toBe(t.t('common.severity.critical'));
      expect(await open12.nth(3).textContent()).toBe(t.t('dashboard.cause.breaker'));
      expect(await open12.nth(5).textContent()).toBe('7');
      const closed11 = table.locator('tr[data-incident="11"] td');
      expect(await closed11.nth(1).textContent()).toBe(t.duration(12 * MIN));

      // Keyboard: focus the row's button and press Enter.
      await table.locator('tr[data-incident="12"] button').focus();
      await page.keyboard.press('Enter');
      const title = page.getByTestId('incident-title');
      await title.waitFor();
      expect(await title.textContent()).toBe(t.t('dashboard.incidents.title', { id: 12 }));
      expect(await page.evaluate<string>('document.activeElement?.dataset.testid ?? ""')).toBe('incident-title');
      const events = page.getByTestId('incident-timeline').locator('li');
      expect(await events.count()).toBe(incidents[0]!.timeline.length);
      expect(await events.first().locator('.badge').textContent()).toBe(t.t('dashboard.event.opened'));
      expect(await events.nth(2).textContent()).toContain('storm restart: recovered in 38 s');

      if (process.env.BREAKERBAR_UPDATE_SCREENSHOTS === '1' && language === 'en') {
        const file = join(ensureDir(SCREENSHOT_DIR), 'incident-en-light.png');
        await page.screenshot({ path: file });
        copyFileSync(file, join(ensureDir(DOCS_SCREENSHOT_DIR), 'incident-en-light.png'));
      }

      await page.getByRole('button', { name: t.t('dashboard.incidents.back') }).press('Enter');
      await table.waitFor();
      expect(await page.evaluate<string>('document.activeElement?.dataset.key ?? ""')).toBe('incident:12');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("follows a card's incident link to that incident's timeline", async () => {
    const { page, context } = await open({ language });
    try {
      await page.locator(`.card[data-dep="${ZHIPU}"] [data-testid="card-incident"] a`).click();
      await poll(() => page.getAttribute('#tab-incidents', 'aria-selected')).toBe('true');
      await poll(() => page.getByTestId('incident-title').textContent()).toBe(
        t.t('dashboard.incidents.title', { id: 12 }),
      );
    } finally {
      await context.close();
    }
  });
});

describe.skipIf(BROWSER.skip)(BROWSER.title('the language switch'), () => {
  it('re-renders every view in the language picked, without a reload, and keeps the choice', async () => {
    const status = stormStatus();
    const { page, context, errors } = await open({});
    try {
      const banner = page.locator('#headline');
      await poll(() => banner.textContent()).toBe(expectedHeadline(status, 'en'));
      await page.locator(`.card[data-dep="${ZHIPU}"]`).waitFor();
      // A marker that a reload would lose.
      await page.evaluate('window.__sameDocument = true');
      await page.selectOption('#language', 'zh-CN');
      await poll(() => banner.textContent()).toBe(expectedHeadline(status, 'zh-CN'));
      const zh = translator('zh-CN');
      expect(await page.getAttribute('html', 'lang')).toBe('zh-CN');
      expect(await page.locator('#deps-heading').textContent()).toBe(zh.t('dashboard.deps.heading'));
      expect(await page.locator('#tab-overview').textContent()).toBe(zh.t('dashboard.tab.overview'));
      expect(await page.locator('#language-label').textContent()).toBe(zh.t('dashboard.language'));
      // The sparkline is drawn again after the re-render.
      await page.locator(`[data-chart="spark"][data-dep="${ZHIPU}"] canvas`).first().waitFor();
      expect(await page.evaluate('window.__sameDocument === true')).toBe(true);
      expect(await page.evaluate('localStorage.getItem("breakerbar.language")')).toBe('zh-CN');

      await page.reload();
      await poll(() => banner.textContent()).toBe(expectedHeadline(status, 'zh-CN'));
      expect(await page.inputValue('#language')).toBe('zh-CN');

      // Back to the system's language: this browser's is English.
      await page.selectOption('#language', 'auto');
      await poll(() => banner.textContent()).toBe(expectedHeadline(status, 'en'));
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("follows the browser's languages when set to the system's", async () => {
    const { page, context } = await open({ language: 'auto', locale: 'zh-CN' });
    try {
      await poll(() => page.locator('#headline').textContent()).toBe(expectedHeadline(stormStatus(), 'zh-CN'));
      expect(await page.getAttribute('html', 'lang')).toBe('zh-CN');
      expect(await page.inputValue('#language')).toBe('auto');
    } finally {
      await context.close();
    }
  });

  it('says so when the core keeps no incidents', async () => {
    const { page, context } = await open({ contracts: {}, view: 'incidents' });
    try {
      await poll(() => page.getByTestId('incidents-unavailable').textContent()).toBe(
        translator('en').t('dashboard.incidents.unavailable'),
      );
    } finally {
      await context.close();
    }
  });

  it('shows the storm in both languages, light and dark (screenshots)', async () => {
    const update = process.env.BREAKERBAR_UPDATE_SCREENSHOTS === '1';
    for (const language of LANGS) {
      for (const scheme of ['light', 'dark'] as const) {
        const { page, context, errors } = await open({ language, scheme });
        try {
          await poll(() => page.locator('#headline').textContent()).toBe(expectedHeadline(stormStatus(), language));
          await page.locator('[data-chart="health"] canvas').first().waitFor();
          for (const dep of [ZHIPU, ANTHROPIC, DEEPSEEK]) {
            await page.locator(`[data-chart="spark"][data-dep="${dep}"] canvas`).first().waitFor();
          }
          const name = `storm-${language}-${scheme}.png`;
          const file = join(ensureDir(SCREENSHOT_DIR), name);
          await page.screenshot({ path: file, fullPage: true });
          if (update) copyFileSync(file, join(ensureDir(DOCS_SCREENSHOT_DIR), name));
          expect(errors).toEqual([]);
        } finally {
          await context.close();
        }
      }
    }
  });
});
