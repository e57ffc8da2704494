/**
 * The dashboard's entry point: picks the way to the core (Electron's preload
 * bridge when present, else the local HTTP API), builds the views and tabs,
 * chooses the first view (the Doctor on a first run), and keeps the visible
 * view current from live events while the page is visible, and only then.
 */

import type { DoctorReport } from '../main/core/doctor/index.js';
import type { ApiEvent, ApiStatus } from '../main/core/server/api-types.js';
import { resolveLanguage } from '../main/shared/i18n.js';
import { translator } from '../main/shared/messages/index.js';
import type { ConnectionState, DashboardApi } from './api.js';
import { createBridgeApi } from './bridge-api.js';
import { fill, h } from './dom.js';
import { opensOnDoctor } from './first-run.js';
import { createHttpApi } from './http-api.js';
import { Refresher } from './refresher.js';
import { Tabs } from './tabs.js';
import { Ticker } from './ticker.js';
import { fragmentParams, type TokenEnvironment, TokenStore } from './token.js';
import { tokenPrompt } from './token-prompt.js';
import { isViewKey, type Target, type Tone, targetOf, type View, type ViewContext, type ViewKey } from './view.js';
import { DoctorView } from './views/doctor.js';
import { ErrorsView } from './views/errors.js';
import { LogsView } from './views/logs.js';
import { OverviewView } from './views/overview.js';
import { SettingsView } from './views/settings.js';

/** How long the first view waits for the doctor's verdict before showing the overview anyway. */
const FIRST_RUN_WAIT_MS = 6000;
/** Success and info messages fade after this; errors stay until the next message. */
const MESSAGE_MS = 10_000;

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

/** The language chosen in the dashboard (`breakerbar.language` in localStorage), else the browser's. */
function storedLanguage(): string | null {
  try {
    return window.localStorage.getItem('breakerbar.language');
  } catch {
    return null;
  }
}

function createApi(): DashboardApi {
  const bridge = window.breakerbar;
  if (bridge) return createBridgeApi(bridge);
  const store = new TokenStore({ location: window.location, history: window.history, storage: sessionStore() });
  store.adoptFromLocation();
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

  constructor(private readonly api: DashboardApi) {
    const context: ViewContext = {
      api,
      t: translator(resolveLanguage([storedLanguage(), ...navigator.languages])),
      say: (message, tone) => this.say(message, tone),
      show: (view) => this.show(view, true),
      changed: (...types) => this.markStale(types),
    };
    this.doctor = new DoctorView(context);
    const list: View[] = [
      new OverviewView(context),
      new ErrorsView(context),
      new LogsView(context),
      new SettingsView(context),
      this.doctor,
    ];
    this.views = new Map(list.map((view) => [view.key, view]));
    const main = element('views');
    fill(main, ...list.map((view) => view.panel));
    this.tabs = new Tabs(list, (key) => this.onSelect(key as ViewKey));
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
    this.ticker = new Ticker(main);
    document.documentElement.dataset.host = api.kind;
  }

  async start(): Promise<void> {
    const params = fragmentParams(window.location.hash);
    const requested = params.get('view');
    document.addEventListener('visibilitychange', () => this.onVisibility());
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      for (const view of this.views.values()) view.redraw?.();
    });
    if (document.visibilityState === 'visible') this.goLive();

    if (requested !== null && isViewKey(requested)) {
      this.target = targetOf(params);
      this.show(requested);
      return;
    }
    await this.firstView();
  }

  /** Overview, unless the doctor finds OpenClaw, the sources or the gateway missing, or nothing was read yet. */
  private async firstView(): Promise<void> {
    fill(element('views-status'), 'Loading…');
    const status = this.api.status().catch(() => null);
    const report = this.api.doctor().catch(() => null);
    const early = await status;
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
    fill(this.connection, state === 'live' ? 'live' : state === 'reconnecting' ? 'reconnecting…' : 'paused');
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

const dashboard = new Dashboard(createApi());
void dashboard.start();
