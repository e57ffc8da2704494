/**
 * What every view of the dashboard is to the shell (app.ts): a panel, a way
 * to fetch and render its data, and the events that make that data stale.
 */
import type { ApiEvent, ApiStatus } from '../main/api/types.js';
import type { Language } from '../main/words/i18n.js';
import type { Translator } from '../main/words/messages/index.js';
import type { DashboardApi } from './api.js';

export const VIEW_KEYS = ['overview', 'incidents', 'errors', 'logs', 'settings', 'doctor'] as const;
export type ViewKey = (typeof VIEW_KEYS)[number];

export function isViewKey(value: string): value is ViewKey {
  return (VIEW_KEYS as readonly string[]).includes(value);
}

export type Tone = 'info' | 'success' | 'error';

/** What a view may ask of the shell. */
export interface ViewContext {
  api: DashboardApi;
  /**
   * The reader's words in the language picked now (the header's switch). Read it when rendering, never keep
   * it: a switch replaces it and calls `retranslate()` on every view.
   */
  readonly t: Translator;
  /** The language `t` speaks. */
  readonly language: Language;
  /** A short message in the shared live region (announced to screen readers). */
  say(message: string, tone?: Tone): void;
  /** Switches to another view (the Doctor link in an empty overview, say). */
  show(view: ViewKey): void;
  /** Marks views stale after an action changed something (refreshes the visible one soon). */
  changed(...types: ApiEvent['type'][]): void;
  /** A status the view read: the headline banner above every view shows the newest. */
  statusSeen(status: ApiStatus): void;
}

export interface View {
  readonly key: ViewKey;
  /** The tab's name, in the current language (read again after a language switch). */
  readonly label: string;
  /** Filled by the view; the shell shows and hides it. */
  readonly panel: HTMLElement;
  /** Fetches what the view shows and renders it. Errors are the view's to show. */
  refresh(): Promise<void>;
  /** Whether an event of this type can change what the view shows. */
  affectedBy(type: ApiEvent['type']): boolean;
  /** How long to gather events before refreshing (a storm sends many `calls` events). */
  readonly debounceMs: number;
  /** The colour scheme changed: rebuild anything drawn with the old colours. */
  redraw?(): void;
  /**
   * The language changed (`context.t` already speaks the new one): render again from the data already
   * fetched, without a request. A view without it is refreshed instead.
   */
  retranslate?(): void;
  /** Scrolls to and marks what a link pointed at (a notification clicked in the tray app); after a refresh. */
  reveal?(target: Target): void;
}

/**
 * What a link into the dashboard points at: `#view=logs&at=<ms>&kind=<notice kind>&dep=<dep>` (the tray
 * app opens its window there when a native notification is clicked).
 */
export interface Target {
  at: number | null;
  kind: string | null;
  dep: string | null;
  /** An incident to open (`&incident=<id>`: a card's link to the incident touching it). */
  incident: number | null;
}

export function targetOf(params: URLSearchParams): Target | null {
  const at = Number(params.get('at'));
  const target: Target = {
    at: params.has('at') && Number.isFinite(at) ? at : null,
    kind: params.get('kind'),
    dep: params.get('dep'),
    incident: incidentOf(params.get('incident')),
  };
  return target.at === null && target.kind === null && target.dep === null && target.incident === null ? null : target;
}

function incidentOf(value: string | null): number | null {
  const id = Number(value);
  return value !== null && Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** Marks `element` as the target and brings it into view. */
export function markTarget(element: Element | null | undefined): void {
  if (!element) return;
  element.classList.add('target');
  element.scrollIntoView({ block: 'center' });
}
