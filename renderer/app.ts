/**
 * The dashboard's entry point: picks the way to the core (Electron's preload
 * bridge when present, else the local HTTP API), builds the views and tabs,
 * chooses the first view (the Doctor on a first run), and keeps the visible
 * view current from live events while the page is visible, and only then.
 */

import { createClient } from '../main/api/client.js';
import type { ApiEvent, ApiStatus, DoctorReport } from '../main/api/types.js';
import { LANGUAGES, type LanguageSetting } from '../main/words/i18n.js';
import { Cancelled, type ConnectionState, type DashboardApi } from './api.js';
import { HeadlineBanner } from './banner.js';
import { createBridgeApi } from './bridge-api.js';
import { fill, h } from './dom.js';
import { describeFailure } from './errors-ui.js';
import { opensOnDoctor } from './first-run.js';
import { useLanguage, words } from './format.js';
import { createHttpApi } from './http-api.js';
import { type LanguageEnvironment, languageOf, storedSetting, storeSetting } from './language.js';
import { Refresher } from './refresher.js';
import { Tabs } from './tabs.js';
import { Ticker } from './ticker.js';
import { fragmentParams, type TokenEnvironment, TokenStore } from './token.js';
import { tokenPrompt } from './token-prompt.js';
import { isViewKey, type Target, type Tone, targetOf, type View, type ViewContext, type ViewKey } from './view.js';
import { DoctorView } from './views/doctor.js';
import { ErrorsView } from './views/errors.js';
import { IncidentsView } from './views/incidents.js';
import { LogsView } from './views/logs.js';
import { OverviewView } from './views/overview.js';
import { SettingsView } from './views/settings.js';

/** How long the first view waits for the doctor's verdict before showing the overview anyway. */
const FIRST_RUN_WAIT_MS = 6000;
/** Success and info messages fade after this; errors stay until the next message. */
const MESSAGE_MS = 10_000;
/** How long the banner gathers events before reading the status again (when the overview, which reads it, is hidden). */
const BANNER_DEBOUNCE_MS = 1000;

function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`index.html lacks #${id}`);
  return found;
}

/** sessionStorage, or a stand-in when the browser refuses it (storage disabled): then the token lasts the page. */
function sessionStore(): TokenEnvironment['storage'] {
  try {
    return window.sessionStorage;
  } catch {
    const memory = new Map<string, string>();
    return {
      getItem: (key) => memory.get(key) ?? null,
      setItem: (key, value) => void memory.set(key, value),
      removeItem: (key) => void memory.delete(key),
    };
  }
}

/** localStorage, or none when the browser refuses it (then the language choice lasts the page). */
function languageEnvironment(): LanguageEnvironment {
  let storage: Storage | null = null;
  try {
    storage = window.localStorage;
  } catch {
    storage = null;
  }
  return { storage, languages: navigator.languages ?? [navigator.language] };
}

/** A JSON POST to this page's own server, without the token (only the sign-in exchange uses it). */
/** The one call made before there is a token: a one-time code traded for it (`signIn` in the route table). */
const signIn = createClient(async ({ method, path, body }) => {
  const response = await fetch(path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
});

async function createApi(): Promise<DashboardApi> {
  const bridge = window.breakerbar;
  if (bridge) return createBridgeApi(bridge);
  const store = new TokenStore({ location: window.location, history: window.history, storage: sessionStore() });
  store.adoptFromLocation();
  // A spent or expired code falls through to the token prompt, as a page opened without one does.
  const code = store.takeCodeFromLocation();
  if (code !== null) await store.redeem(code, (value) => signIn.call('signIn', { code: value }));
  return createHttpApi(tokenPrompt(element('token-prompt'), store));
}

class Dashboard {
  private readonly views: Map<ViewKey, View>;
  private readonly loaded = new Set<ViewKey>();
  private readonly tabs: Tabs;
  private readonly refresher: Refresher;
  private readonly ticker: Ticker;
  private readonly connection = element('connection');
  private readonly messages = element('messages');
  private messageTimer: number | null = null;
  private unsubscribe: (() => void) | null = null;
  private connectionState: ConnectionState | null = null;
  /** What the link that opened the page points at, revealed once its view has loaded. */
  private target: Target | null = null;
  /** The user picked a view: the first-run check no longer moves them. */
  private navigated = false;
  private readonly doctor: DoctorView;
  private readonly banner: HeadlineBanner;
  private bannerTimer: number | null = null;
  private readonly languageEnv = languageEnvironment();
  private readonly languageSelect: HTMLSelectElement;

  constructor(private readonly api: DashboardApi) {
    this.applyLanguage(storedSetting(this.languageEnv));
    const context: ViewContext = {
      api,
      get t() {
        return words();
      },
      get language() {
        return words().language;
      },
      say: (message, tone) => this.say(message, tone),
      show: (view) => this.show(view, true),
      changed: (...types) => this.markStale(types),
      statusSeen: (status) => this.banner.show(status),
    };
    this.banner = new HeadlineBanner(element('headline'), words);
    this.languageSelect = this.languageSwitch();
    this.doctor = new DoctorView(context);
    const list: View[] = [
      new OverviewView(context),
      new IncidentsView(context),
      new ErrorsView(context),
      new LogsView(context),
      new SettingsView(context),
      this.doctor,
    ];
    this.views = new Map(list.map((view) => [view.key, view]));
    const main = element('views');
    fill(main, ...list.map((view) => view.panel));
    this.tabs = new Tabs(list, (key) => this.onSelect(key as ViewKey), words().t('dashboard.tabs'));
    fill(element('tabs'), this.tabs.list);
    this.tabs.list.addEventListener('click', () => {
      this.navigated = true;
    });
    this.tabs.list.addEventListener('keydown', () => {
      this.navigated = true;
    });
    this.refresher = new Refresher(
      () => this.current(),
      () => document.visibilityState === 'visible',
    );
    this.ticker = new Ticker(main, (now) => this.banner.render(now));
    document.documentElement.dataset.host = api.kind;
    fill(this.connection, words().t('dashboard.connection.connecting'));
  }

  /** The header's language switch: English, 简体中文, or the system's (`navigator.languages`). */
  private languageSwitch(): HTMLSelectElement {
    const select = h('select', { id: 'language', 'data-testid': 'language' });
    const setting = storedSetting(this.languageEnv);
    for (const value of [...LANGUAGES, 'auto'] as const) {
      const option = h('option', { value }, words().t(`common.language.${value}`));
      option.selected = value === setting;
      select.append(option);
    }
    select.addEventListener('change', () => {
      const chosen = select.value as LanguageSetting;
      storeSetting(this.languageEnv, chosen);
      this.applyLanguage(chosen);
      this.retranslate();
    });
    const label = h('label', { for: 'language', id: 'language-label' }, words().t('dashboard.language'));
    fill(element('language-switch'), label, select);
    return select;
  }

  /** Sets the language every helper words things in, and says it to the browser (`<html lang>`). */
  private applyLanguage(setting: LanguageSetting): void {
    const language = languageOf(setting, this.languageEnv);
    useLanguage(language);
    document.documentElement.lang = language;
  }

  /** Everything already on screen, again in the new language, without a request. */
  private retranslate(): void {
    const t = words();
    element('language-label').textContent = t.t('dashboard.language');
    for (const option of this.languageSelect.options) {
      option.textContent = t.t(`common.language.${option.value as LanguageSetting}`);
    }
    this.tabs.relabel(t.t('dashboard.tabs'));
    this.setConnection(this.connectionState);
    this.banner.render(Date.now());
    for (const view of this.views.values()) {
      if (!this.loaded.has(view.key)) continue;
      if (view.retranslate) view.retranslate();
      else if (view.key === this.tabs.selected) void this.refresher.now(view);
      else this.refresher.markStale([view.key]);
    }
  }

  /** The banner's own status read, for when the overview (which reads it anyway) is not the view shown. */
  private refreshBanner(delay = BANNER_DEBOUNCE_MS): void {
    if (this.bannerTimer !== null || document.visibilityState !== 'visible') return;
    this.bannerTimer = window.setTimeout(async () => {
      this.bannerTimer = null;
      if (this.tabs.selected === 'overview') return;
      try {
        this.banner.show(await this.api.status());
      } catch (error) {
        if (!(error instanceof Cancelled)) this.banner.failed(describeFailure(error));
      }
    }, delay);
  }

  async start(): Promise<void> {
    const params = fragmentParams(window.location.hash);
    const requested = params.get('view');
    document.addEventListener('visibilitychange', () => this.onVisibility());
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      for (const view of this.views.values()) view.redraw?.();
    });
    if (document.visibilityState === 'visible') this.goLive();
    this.refreshBanner(0);
    // In-page links (a card's incident) change the fragment: follow them as a link opening the page would.
    window.addEventListener('hashchange', () => this.follow(fragmentParams(window.location.hash)));

    if (requested !== null && isViewKey(requested)) {
      this.target = targetOf(params);
      this.show(requested);
      return;
    }
    await this.firstView();
  }

  private follow(params: URLSearchParams): void {
    const requested = params.get('view');
    if (requested === null || !isViewKey(requested)) return;
    const target = targetOf(params);
    this.navigated = true;
    if (this.tabs.selected === requested) {
      if (target) this.views.get(requested)?.reveal?.(target);
      return;
    }
    this.target = target;
    this.show(requested);
  }

  /** Overview, unless the doctor finds OpenClaw, the sources or the gateway missing, or nothing was read yet. */
  private async firstView(): Promise<void> {
    fill(element('views-status'), words().t('dashboard.loading'));
    const status = this.api.status().catch(() => null);
    const report = this.api.doctor().catch(() => null);
    const early = await status;
    if (early !== null) this.banner.show(early);
    if (early !== null && opensOnDoctor(null, early)) {
      fill(element('views-status'));
      this.openDoctor(await report, early);
      return;
    }
    const timeout = new Promise<'late'>((resolve) => window.setTimeout(() => resolve('late'), FIRST_RUN_WAIT_MS));
    const verdict = await Promise.race([report, timeout]);
    fill(element('views-status'));
    if (verdict !== 'late') {
      if (opensOnDoctor(verdict, early)) this.openDoctor(verdict, early);
      else this.show('overview');
      return;
    }
    this.show('overview');
    // The doctor is slow (a hung gateway takes its timeouts): switch only if the user has not moved on.
    const late = await report;
    if (!this.navigated && opensOnDoctor(late, early)) this.openDoctor(late, early);
  }

  private openDoctor(report: DoctorReport | null, _status: ApiStatus | null): void {
    this.doctor.firstRun = true;
    if (report !== null) {
      this.doctor.show(report);
      this.loaded.add('doctor');
    }
    this.show('doctor');
  }

  show(key: ViewKey, focus = false): void {
    this.tabs.select(key, focus);
  }

  private current(): View | null {
    const key = this.tabs.selected;
    return key !== null && isViewKey(key) ? (this.views.get(key) ?? null) : null;
  }

  private onSelect(key: ViewKey): void {
    const view = this.views.get(key);
    if (!view) return;
    // The view goes into the address, so a reload lands here again (a link's target is used once).
    window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#view=${key}`);
    const target = this.target;
    this.target = null;
    if (!this.loaded.has(key) || this.refresher.isStale(key)) {
      this.loaded.add(key);
      void this.refresher.now(view).then(() => {
        if (target) view.reveal?.(target);
      });
    } else if (target) {
      view.reveal?.(target);
    }
  }

  private markStale(types: readonly ApiEvent['type'][]): void {
    this.refreshBanner();
    const keys = [...this.views.values()]
      .filter((view) => this.loaded.has(view.key) && types.some((type) => view.affectedBy(type)))
      .map((view) => view.key);
    if (keys.length > 0) this.refresher.markStale(keys);
  }

  private goLive(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.api.subscribe(
      (event) => this.markStale([event.type]),
      (state) => this.onConnection(state),
    );
    this.ticker.start();
  }

  private goQuiet(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.ticker.stop();
    this.refresher.pause();
    this.setConnection(null);
  }

  private onVisibility(): void {
    if (document.visibilityState === 'visible') {
      this.goLive();
      // Events were not followed while hidden: whatever is loaded may be out of date.
      this.markStale(['transition', 'calls', 'probe', 'restart', 'decision', 'notification', 'budget']);
      this.refresher.resume();
    } else {
      this.goQuiet();
    }
  }

  private onConnection(state: ConnectionState): void {
    const recovered = state === 'live' && this.connectionState === 'reconnecting';
    this.setConnection(state);
    // Events sent while the stream was down are lost: catch up once it is back.
    if (recovered) this.markStale(['transition', 'calls', 'probe', 'restart', 'decision', 'notification', 'budget']);
  }

  private setConnection(state: ConnectionState | null): void {
    this.connectionState = state;
    this.connection.dataset.state = state ?? 'paused';
    const t = words();
    fill(
      this.connection,
      t.t(
        state === 'live'
          ? 'dashboard.connection.live'
          : state === 'reconnecting'
            ? 'dashboard.connection.reconnecting'
            : 'dashboard.connection.paused',
      ),
    );
  }

  private say(message: string, tone: Tone = 'info'): void {
    if (this.messageTimer !== null) window.clearTimeout(this.messageTimer);
    this.messageTimer = null;
    fill(this.messages, h('p', { class: `message tone-${tone}`, role: tone === 'error' ? 'alert' : null }, message));
    if (tone !== 'error') {
      this.messageTimer = window.setTimeout(() => fill(this.messages), MESSAGE_MS);
    }
  }
}

void createApi().then((api) => new Dashboard(api).start());
