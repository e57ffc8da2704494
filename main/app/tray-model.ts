/**
 * What the tray shows, decided without Electron: the overall state (which icon),
 * the tooltip's one line and the menu as plain data. `tray.ts` only turns this
 * into a `Menu` and maps each item's action to a click handler, so every rule
 * here is tested in milliseconds with a fixed clock.
 *
 * The tooltip and the menu's first line are the headline (main/api/headline.ts):
 * what is wrong, what BreakerBar is doing about it, until when. Every word comes
 * from the catalogue (area `tray`) in the app's language.
 *
 * States: healthy; degraded = a breaker half-open or throttled, a
 * restart deferred or running, the watchdog paused or in dry run; down = the
 * gateway dead, a breaker open, the restart budget exhausted, or no core to ask.
 * A dependency OpenClaw itself holds in cooldown (every auth profile of its
 * provider out) is degraded too: OpenClaw will not call it until then.
 */

import { headline, headlineText } from '../api/headline.js';
import type { ApiBreaker, ApiStatus } from '../api/types.js';
import { type Translator, translator } from '../words/messages/index.js';

export type HealthState = 'healthy' | 'degraded' | 'down';
/** The tray's state: a health state, or `connecting` while no core has answered yet. */
export type TrayState = HealthState | 'connecting';

/** Where the app's core stands, as the supervisor reports it. */
export type CoreView =
  | { phase: 'connecting'; detail: string }
  | { phase: 'connected'; mode: 'attached' | 'embedded'; url: string; pid: number | null }
  | { phase: 'unreachable'; detail: string; retryAt: number | null };

export type TrayAction =
  | 'restart'
  | 'pause-15m'
  | 'pause-1h'
  | 'pause-until-resumed'
  | 'resume'
  | 'open-dashboard'
  | 'open-logs'
  | 'open-metrics'
  | 'toggle-launch-at-login'
  | 'toggle-confirm-restart'
  | 'quit';

/** Seconds each pause item asks for (`null`: until resumed). */
export const PAUSE_SECONDS: Record<'pause-15m' | 'pause-1h' | 'pause-until-resumed', number | null> = {
  'pause-15m': 15 * 60,
  'pause-1h': 60 * 60,
  'pause-until-resumed': null,
};

export type MenuItemModel =
  /** A line of information (shown disabled). */
  | { type: 'text'; id: string; label: string }
  | { type: 'separator' }
  | { type: 'action'; id: TrayAction; label: string; enabled: boolean }
  | { type: 'checkbox'; id: TrayAction; label: string; checked: boolean; enabled: boolean }
  | { type: 'submenu'; id: string; label: string; enabled: boolean; items: MenuItemModel[] };

export interface TrayInput {
  core: CoreView;
  /** The latest status from the core (kept while reconnecting, so the menu does not go blank). */
  status: ApiStatus | null;
  /** Ask before restarting the gateway (a persisted preference). */
  confirmRestart: boolean;
  /** Launch at login: null when this platform offers no way to set it. */
  launchAtLogin: boolean | null;
  now: number;
  /** The app's language (English when not given). */
  translator?: Translator;
}

export interface TrayModel {
  state: TrayState;
  /** The headline, cut to TOOLTIP_MAX; without a status, where the core stands. */
  tooltip: string;
  /** Why the state is not healthy, most severe first (the tooltip shows the first). */
  reasons: string[];
  menu: MenuItemModel[];
}

/** Windows cuts tray tooltips at 127 characters; the others are not much kinder. */
export const TOOLTIP_MAX = 127;
/** A menu line longer than this is cut: menus are read at a glance (the dashboard says it all). */
export const MENU_LINE_MAX = 120;
/** More dependency lines than this and the menu stops being a glance; the dashboard has them all. */
export const MAX_DEPENDENCY_LINES = 10;

export interface Assessment {
  state: HealthState;
  /** Reasons for `down` first, then those for `degraded`. */
  reasons: string[];
}

const EN = translator('en');

/** The overall state of a running core's status. */
export function assess(status: ApiStatus, now: number, t: Translator = EN): Assessment {
  const down: string[] = [];
  const degraded: string[] = [];
  const gateway = status.gateway;
  const last = gateway?.last ?? null;
  if (gateway && last) {
    if (last.dead) {
      const forMs = gateway.downSince === null ? null : now - gateway.downSince;
      down.push(t.t('tray.reason.gatewayDown', { cls: last.class, forMs }));
    } else if (!last.ok) {
      degraded.push(
        last.class === 'starting' || last.class === 'draining'
          ? t.t('tray.reason.gatewayBusy', { cls: last.class })
          : t.t('tray.reason.gatewayAnswers', { cls: last.class }),
      );
    }
  }
  for (const breaker of sortBreakers(status.breakers)) {
    if (breaker.state === 'open') down.push(t.t('tray.reason.breaker', { dep: breaker.dep, state: breaker.state }));
    else if (breaker.state !== 'closed')
      degraded.push(t.t('tray.reason.breaker', { dep: breaker.dep, state: breaker.state }));
  }
  for (const breaker of sortBreakers(status.breakers)) {
    const cooldown = breaker.openclawCooldown;
    if (cooldown && cooldown.until > now)
      degraded.push(t.t('tray.reason.cooldown', { dep: breaker.dep, words: openclawCooldownWords(cooldown, now, t) }));
  }
  const w = status.watchdog;
  if (w) {
    if (w.enabled && !w.dryRun && w.budgetRemaining <= 0) {
      down.push(t.t('tray.reason.budget', { max: w.maxRestartsPerHour }));
    }
    if (w.restartInFlight || w.recovering) degraded.push(t.t('tray.reason.restarting'));
    if (w.deferral) degraded.push(t.t('tray.reason.deferred', { dep: w.deferral.dep, cause: w.deferral.cause }));
    if (w.paused) degraded.push(t.t('tray.reason.paused'));
    if (w.enabled && w.dryRun) degraded.push(t.t('tray.reason.dryRun'));
    if (w.diverging) degraded.push(t.t('tray.reason.diverging'));
    if (w.enabled && ((w.strategy.problem !== null && w.strategy.argv === null) || w.verified?.runnable === false)) {
      degraded.push(t.t('tray.reason.noStrategy'));
    } else if (w.enabled && !w.seenHealthy) {
      degraded.push(t.t('tray.reason.neverHealthy'));
    }
  }
  for (const source of status.sources) {
    if (source.lastError !== null) degraded.push(t.t('tray.reason.source', { source: source.kind }));
  }
  const state: HealthState = down.length > 0 ? 'down' : degraded.length > 0 ? 'degraded' : 'healthy';
  return { state, reasons: [...down, ...degraded] };
}

const BREAKER_RANK: Record<ApiBreaker['state'], number> = { open: 0, throttled: 1, half_open: 2, closed: 3 };

/** Worst first, then by name: the lines that matter are the ones a short menu keeps. */
export function sortBreakers(breakers: readonly ApiBreaker[]): ApiBreaker[] {
  return [...breakers].sort((a, b) => BREAKER_RANK[a.state] - BREAKER_RANK[b.state] || a.dep.localeCompare(b.dep));
}

export function trayModel(input: TrayInput): TrayModel {
  const { core, status, now } = input;
  const t = input.translator ?? EN;
  let state: TrayState;
  let reasons: string[];
  let tooltip: string;
  if (core.phase === 'connected' && status) {
    const assessment = assess(status, now, t);
    state = assessment.state;
    reasons = assessment.reasons;
    tooltip = headlineLine(status, now, assessment, t);
  } else if (core.phase === 'unreachable') {
    state = 'down';
    reasons = [t.t('tray.reason.coreUnreachable', { detail: core.detail })];
    tooltip = t.t('tray.tooltip.core', { text: reasons[0] ?? '' });
  } else {
    state = 'connecting';
    reasons = [];
    tooltip = t.t('tray.tooltip.core', {
      text: core.phase === 'connecting' ? core.detail : t.t('tray.tooltip.connecting'),
    });
  }
  return { state, reasons, tooltip: clip(tooltip, TOOLTIP_MAX), menu: menuModel(input, t) };
}

/**
 * The headline, as the tooltip and the menu's first line say it. The headline weighs what is wrong with the
 * gateway and its dependencies; the tray's icon also dims for the watchdog's own state (paused, dry run, a
 * restart running). When the headline finds nothing wrong but the icon is not healthy, the first reason
 * follows it, so the words never contradict the icon.
 */
export function headlineLine(status: ApiStatus, now: number, assessment: Assessment, t: Translator = EN): string {
  const h = headline(status, now);
  const text = headlineText(h, t);
  const reason = assessment.reasons[0];
  return h.tone === 'ok' && assessment.state !== 'healthy' && reason ? `${text} · ${reason}` : text;
}

/** How long the gateway has been up: its own uptime from /readyz when it reports one, else since probes turned ok. */
export function gatewayUptime(status: ApiStatus, now: number): number | null {
  const gateway = status.gateway;
  const last = gateway?.last;
  if (!gateway || !last?.ok) return null;
  if (last.ready?.uptimeMs != null) return last.ready.uptimeMs + Math.max(0, now - last.ts);
  return gateway.upSince === null ? null : now - gateway.upSince;
}

function menuModel(input: TrayInput, t: Translator): MenuItemModel[] {
  const { core, status, now } = input;
  const items: MenuItemModel[] = [];
  const connected = core.phase === 'connected';
  // The headline opens the menu, whole where the tooltip may be cut.
  if (connected && status) {
    const line = headlineLine(status, now, assess(status, now, t), t);
    items.push({ type: 'text', id: 'headline', label: clip(line, MENU_LINE_MAX) });
  }
  if (core.phase === 'connecting') {
    items.push({ type: 'text', id: 'core', label: t.t('tray.core.detail', { detail: core.detail }) });
  } else if (core.phase === 'unreachable') {
    items.push({ type: 'text', id: 'core', label: clip(t.t('tray.core.unreachable', { detail: core.detail }), 100) });
    if (core.retryAt !== null) {
      items.push({ type: 'text', id: 'core-retry', label: t.t('tray.core.retry', { at: core.retryAt, now }) });
    }
  }
  if (status) {
    if (connected) items.push({ type: 'separator' });
    items.push({ type: 'text', id: 'gateway', label: gatewayLine(status, now, t) });
    const watchdog = watchdogLine(status, now, t);
    if (watchdog) items.push({ type: 'text', id: 'watchdog', label: watchdog });
    items.push({ type: 'separator' });
    items.push(...dependencyLines(status, now, t));
    const restart = lastRestartLine(status, now, t);
    if (restart) items.push({ type: 'separator' }, { type: 'text', id: 'last-restart', label: restart });
  }
  if (core.phase === 'connected') {
    items.push({
      type: 'text',
      id: 'core',
      label: core.mode === 'embedded' ? t.t('tray.core.embedded') : t.t('tray.core.daemon', { pid: core.pid }),
    });
  }
  items.push({ type: 'separator' });

  const w = connected ? (status?.watchdog ?? null) : null;
  const inFlight = w?.restartInFlight ?? null;
  items.push({
    type: 'action',
    id: 'restart',
    label: inFlight
      ? t.t('tray.action.restarting')
      : input.confirmRestart
        ? t.t('tray.action.restartConfirm')
        : t.t('tray.action.restart'),
    enabled: w !== null && inFlight === null,
  });
  if (w?.paused) {
    items.push({ type: 'action', id: 'resume', label: t.t('tray.action.resume'), enabled: true });
  } else {
    items.push({
      type: 'submenu',
      id: 'pause',
      label: t.t('tray.action.pause'),
      enabled: w?.enabled === true,
      items: [
        { type: 'action', id: 'pause-15m', label: t.t('tray.action.pause15m'), enabled: true },
        { type: 'action', id: 'pause-1h', label: t.t('tray.action.pause1h'), enabled: true },
        { type: 'action', id: 'pause-until-resumed', label: t.t('tray.action.pauseUntilResumed'), enabled: true },
      ],
    });
  }
  items.push({ type: 'separator' });
  items.push({ type: 'action', id: 'open-dashboard', label: t.t('tray.action.openDashboard'), enabled: true });
  items.push({ type: 'action', id: 'open-logs', label: t.t('tray.action.openLogs'), enabled: true });
  items.push({ type: 'action', id: 'open-metrics', label: t.t('tray.action.openMetrics'), enabled: connected });
  items.push({ type: 'separator' });
  items.push({
    type: 'checkbox',
    id: 'toggle-launch-at-login',
    label: t.t('tray.action.launchAtLogin'),
    checked: input.launchAtLogin === true,
    enabled: input.launchAtLogin !== null,
  });
  items.push({
    type: 'checkbox',
    id: 'toggle-confirm-restart',
    label: t.t('tray.action.confirmRestart'),
    checked: input.confirmRestart,
    enabled: true,
  });
  items.push({ type: 'separator' });
  items.push({ type: 'action', id: 'quit', label: t.t('tray.action.quit'), enabled: true });
  return tidy(items);
}

/** No separator first, last, or next to another. */
export function tidy(items: MenuItemModel[]): MenuItemModel[] {
  const out: MenuItemModel[] = [];
  for (const item of items) {
    if (item.type === 'separator' && (out.length === 0 || out[out.length - 1]?.type === 'separator')) continue;
    out.push(item);
  }
  while (out[out.length - 1]?.type === 'separator') out.pop();
  return out;
}

export function gatewayLine(status: ApiStatus, now: number, t: Translator = EN): string {
  const gateway = status.gateway;
  if (!gateway) return t.t('tray.gateway.notWatched');
  const last = gateway.last;
  if (!last) return t.t('tray.gateway.notProbed');
  const probed = t.t('tray.gateway.probed', { at: last.ts, now });
  let state: string;
  if (last.ok) state = t.t('tray.gateway.up', { uptimeMs: gatewayUptime(status, now) });
  else if (last.dead)
    state = t.t('tray.gateway.down', {
      cls: last.class,
      forMs: gateway.downSince === null ? null : now - gateway.downSince,
    });
  else if (last.class === 'starting' || last.class === 'draining')
    state = t.t('tray.gateway.busy', { cls: last.class });
  else state = t.t('tray.gateway.answers', { cls: last.class });
  return `${state} · ${probed}`;
}

export function watchdogLine(status: ApiStatus, now: number, t: Translator = EN): string | null {
  const w = status.watchdog;
  if (!w) return null;
  if (w.restartInFlight) {
    return t.t('tray.watchdog.restarting', { trigger: w.restartInFlight.trigger, since: w.restartInFlight.since, now });
  }
  if (w.recovering) return t.t('tray.watchdog.verifying', { since: w.recovering.since, now });
  if (w.paused) {
    return w.pausedUntil === null
      ? t.t('tray.watchdog.pausedUntilResumed')
      : t.t('tray.watchdog.pausedUntil', { until: w.pausedUntil, now });
  }
  if (!w.enabled) return t.t('tray.watchdog.watchOnly');
  if (w.deferral) return t.t('tray.watchdog.deferred', { dep: w.deferral.dep, until: w.deferral.until, now });
  const budget = { left: w.budgetRemaining, max: w.maxRestartsPerHour };
  if (w.budgetRemaining <= 0) return t.t('tray.watchdog.budgetExhausted', budget);
  return t.t('tray.watchdog.active', { dryRun: w.dryRun, ...budget });
}

/** One dependency: its state and, when open or throttled, when it will be tried again. */
export function dependencyLine(breaker: ApiBreaker, now: number, t: Translator = EN): string {
  const parts = [t.t('tray.dep.state', { state: breaker.state, forced: Boolean(breaker.forced) })];
  if (breaker.state === 'throttled' && breaker.retryAfterUntil !== null) {
    parts.push(
      breaker.retryAfterUntil > now
        ? t.t('tray.dep.retryAfterEnds', { until: breaker.retryAfterUntil, now })
        : t.t('tray.dep.retryAfterOver'),
    );
  } else if (breaker.state === 'open' && !breaker.forced && breaker.openUntil !== null) {
    parts.push(
      breaker.openUntil > now
        ? t.t('tray.dep.nextProbe', { until: breaker.openUntil, now })
        : t.t('tray.dep.nextCallTrial'),
    );
  } else if (breaker.state === 'half_open') {
    parts.push(t.t('tray.dep.trying', { ok: breaker.trialSuccesses }));
  }
  const cooldown = breaker.openclawCooldown;
  if (cooldown && cooldown.until > now) parts.push(openclawCooldownWords(cooldown, now, t));
  return t.t('tray.dep.line', { dep: breaker.dep, parts });
}

/** "OpenClaw cooldown: 4 min left (rate_limit)"; "OpenClaw disabled: 2 h left (billing)". */
export function openclawCooldownWords(
  cooldown: NonNullable<ApiBreaker['openclawCooldown']>,
  now: number,
  t: Translator = EN,
): string {
  return t.t('tray.dep.cooldown', { kind: cooldown.kind, leftMs: cooldown.until - now, reason: cooldown.reason });
}

function dependencyLines(status: ApiStatus, now: number, t: Translator): MenuItemModel[] {
  if (status.breakers.length === 0) return [{ type: 'text', id: 'deps-none', label: t.t('tray.deps.none') }];
  const sorted = sortBreakers(status.breakers);
  const shown = sorted.length > MAX_DEPENDENCY_LINES ? sorted.slice(0, MAX_DEPENDENCY_LINES - 1) : sorted;
  const lines: MenuItemModel[] = shown.map((b) => ({
    type: 'text',
    id: `dep:${b.dep}`,
    label: dependencyLine(b, now, t),
  }));
  if (shown.length < sorted.length) {
    const rest = sorted.slice(shown.length);
    lines.push({
      type: 'text',
      id: 'deps-more',
      label: t.t('tray.deps.more', { n: rest.length, allClosed: rest.every((b) => b.state === 'closed') }),
    });
  }
  return lines;
}

export function lastRestartLine(status: ApiStatus, now: number, t: Translator = EN): string | null {
  const r = status.watchdog?.lastRestart;
  if (!r) return null;
  return t.t('tray.lastRestart', {
    ts: r.ts,
    now,
    trigger: r.trigger,
    reason: clip(r.reason, 60),
    result: r.result,
    recoveryMs: r.recoveryMs,
  });
}

function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
