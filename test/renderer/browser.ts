/**
 * Debian's Chromium driven by playwright-core, for the dashboard tests. The
 * browser is the system's (`apt-get install chromium`); playwright never
 * downloads one here.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { CHROMIUM } from '../helpers/tools.js';
import { REPO } from './daemon-fixture.js';

export { CHROMIUM };

/** Where each run leaves its screenshots (CI keeps the folder; it is not committed). */
export const SCREENSHOT_DIR = join(REPO, 'test-results', 'screenshots');
/** The committed screenshots the README shows, refreshed with BREAKERBAR_UPDATE_SCREENSHOTS=1. */
export const DOCS_SCREENSHOT_DIR = join(REPO, 'docs', 'screenshots');

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface PageProbe {
  page: Page;
  context: BrowserContext;
  /** Uncaught errors and console errors in the page. */
  errors: string[];
  /** CSP violations the page reported (`securitypolicyviolation`), as "directive: blocked URI". */
  violations(): Promise<string[]>;
}

/**
 * A fresh context (its own sessionStorage) and page. An init script (injected by the DevTools protocol,
 * which the CSP does not govern) records every CSP violation the page reports.
 */
/**
 * The fixed-offset zone (`Etc/GMT±N`) in which `instant` falls near noon: a page shown an hour of history
 * leading up to it then never sees that hour cross midnight, whatever the real time of day of the run.
 */
export function zoneAtNoon(instant: number): string {
  const offset = 12 - new Date(instant).getUTCHours(); // hours east of UTC, -11..12
  // The Etc zones count the other way: Etc/GMT-3 is three hours east of UTC.
  return offset === 0 ? 'Etc/GMT' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

export async function openPage(
  browser: Browser,
  colorScheme: 'light' | 'dark' = 'light',
  timezoneId?: string,
): Promise<PageProbe> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    colorScheme,
    locale: 'en-US',
    ...(timezoneId ? { timezoneId } : {}),
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  // Browser-side code is given as text: this file is type-checked for Node, without the DOM's types.
  await page.addInitScript({
    content: `window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (event) => {
        window.__cspViolations.push(event.effectiveDirective + ': ' + event.blockedURI);
      });`,
  });
  return {
    page,
    context,
    errors,
    violations: () => page.evaluate<string[]>('[...window.__cspViolations]'),
  };
}

export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * What a person sees of `locator`: the rendered text, laid out (a term and its value on separate lines),
 * which is what the assertions are about; the DOM's raw textContent would run them together.
 */
export function visibleText(locator: Locator): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point here.
  return locator.innerText();
}
