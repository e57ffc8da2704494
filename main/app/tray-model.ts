/**
 * What the tray shows, decided without Electron: the overall state (which icon),
 * the tooltip's one line and the menu as plain data. `tray.ts` only turns this
 * into a `Menu` and maps each item's action to a click handler, so every rule
 * here is tested in milliseconds with a fixed clock.
 *
 * States (issue #6): healthy; degraded = a breaker half-open or throttled, a
 * restart deferred or running, the watchdog paused or in dry run; down = the
 * gateway dead, a breaker open, the restart budget exhausted, or no core to ask.
 * A dependency OpenClaw itself holds in cooldown (every auth profile of its
 * provider out) is degraded too: OpenClaw will not call it until then.
 */
import type { ApiBreaker, ApiStatus } from '../core/server/api-types.js';
import { clockWords, durationWords, relativeWords } from './human-time.js';

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
}

export interface TrayModel {
  state: TrayState;
  tooltip: string;
  /** Why the state is not healthy, most severe first (the tooltip shows the first). */
  reasons: string[];
  menu: MenuItemModel[];
}

/** Windows cuts tray tooltips at 127 characters; the others are not much kinder. */
export const TOOLTIP_MAX = 127;
/** More dependency lines than this and the menu stops being a glance; the dashboard has them all. */
export const MAX_DEPENDENCY_LINES = 10;

export interface Assessment {
  state: HealthState;
  /** Reasons for `down` first, then those for `degraded`. */
  reasons: string[];
}

/** The overall state of a running core's status. */
export function assess(status: ApiStatus, now: number): Assessment {
  const down: string[] = [];
  const degraded: string[] = [];
  const gateway = status.gateway;
  const last = gateway?.last ?? null;
  if (gateway && last) {
    if (last.dead) {
      const since = gateway.downSince === null ? '' : ` for ${durationWords(now - gateway.downSince)}`;
      down.push(`gateway down (${last.class})${since}`);
    } else if (!last.ok) {
      degraded.push(
        `gateway ${last.class === 'starting' || last.class === 'draining' ? last.class : `answers ${last.class}`}`,
      );
    }
  }
  for (const breaker of sortBreakers(status.breakers)) {
    if (breaker.state === 'open') down.push(`${breaker.dep} open`);
    else if (breaker.state === 'throttled') degraded.push(`${breaker.dep} throttled`);
    else if (breaker.state === 'half_open') degraded.push(`${breaker.dep} half-open`);
  }
  for (const breaker of sortBreakers(status.breakers)) {
    const cooldown = breaker.openclawCooldown;
    if (cooldown && cooldown.until > now) degraded.push(`${breaker.dep} ${openclawCooldownWords(cooldown, now)}`);
  }
  const w = status.watchdog;
  if (w) {
    if (w.enabled && !w.dryRun && w.budgetRemaining <= 0) {
      down.push(`restart budget exhausted (${w.maxRestartsPerHour} per hour)`);
    }
    if (w.restartInFlight || w.recovering) degraded.push('gateway restarting');
    if (w.deferral)
      degraded.push(
        `restart deferred for ${w.deferral.dep} (${w.deferral.cause === 'cooldown' ? 'OpenClaw cooldown' : 'Retry-After'})`,
      );
    if (w.paused) degraded.push('watchdog paused');
    if (w.enabled && w.dryRun) degraded.push('watchdog in dry run');
    if (w.diverging) degraded.push('probes green while a breaker stays open');
    if (w.enabled && ((w.strategy.problem !== null && w.strategy.argv === null) || w.verified?.runnable === false)) {
      degraded.push('no way to restart the gateway');
    } else if (w.enabled && !w.seenHealthy) {
      degraded.push('watchdog waiting to see the gateway healthy');
    }
  }
  for (const source of status.sources) {
    if (source.lastError !== null) degraded.push(`cannot read ${source.kind}`);
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
  let state: TrayState;
  let reasons: string[];
  let summary: string;
  if (core.phase === 'connected' && status) {
    const assessment = assess(status, now);
    state = assessment.state;
    reasons = assessment.reasons;
    summary = state === 'healthy' ? healthySummary(status, now) : `${stateWord(state)}: ${reasonSummary(reasons)}`;
  } else if (core.phase === 'unreachable') {
    state = 'down';
    reasons = [`core not reachable: ${core.detail}`];
    summary = `core not reachable: ${core.detail}`;
  } else {
    state = 'connecting';
    reasons = [];
    summary = core.phase === 'connecting' ? core.detail : 'connecting to the core…';
  }
  return { state, reasons, tooltip: clip(`BreakerBar: ${summary}`, TOOLTIP_MAX), menu: menuModel(input) };
}

function stateWord(state: HealthState): string {
  return state === 'down' ? 'down' : 'degraded';
}

function reasonSummary(reasons: string[]): string {
  const [first, ...rest] = reasons;
  return rest.length === 0 ? (first ?? '') : `${first} (+${rest.length} more)`;
}

function healthySummary(status: ApiStatus, now: number): string {
  const deps = status.breakers.length;
  const depWords =
    deps === 0 ? 'no dependencies seen yet' : `${deps} ${deps === 1 ? 'dependency' : 'dependencies'} closed`;
  const uptime = gatewayUptime(status, now);
  const gateway = status.gateway?.last ? `gateway up${uptime === null ? '' : ` ${durationWords(uptime)}`}, ` : '';
  return `all healthy — ${gateway}${depWords}`;
}

/** How long the gateway has been up: its own uptime from /readyz when it reports one, else since probes turned ok. */
export function gatewayUptime(status: ApiStatus, now: number): number | null {
  const gateway = status.gateway;
  const last = gateway?.last;
  if (!gateway || !last?.ok) return null;
  if (last.ready?.uptimeMs != null) return last.ready.uptimeMs + Math.max(0, now - last.ts);
  return gateway.upSince === null ? null : now - gateway.upSince;
}

function menuModel(input: TrayInput): MenuItemModel[] {
  const { core, status, now } = input;
  const items: MenuItemModel[] = [];
  const connected = core.phase === 'connected';
  if (core.phase === 'connecting') {
    items.push({ type: 'text', id: 'core', label: `Core: ${core.detail}` });
  } else if (core.phase === 'unreachable') {
    items.push({ type: 'text', id: 'core', label: clip(`Core not reachable: ${core.detail}`, 100) });
    if (core.retryAt !== null) {
      items.push({ type: 'text', id: 'core-retry', label: `Trying again ${relativeWords(core.retryAt, now)}` });
    }
  }
  if (status) {
    items.push({ type: 'text', id: 'gateway', label: gatewayLine(status, now) });
    const watchdog = watchdogLine(status, now);
    if (watchdog) items.push({ type: 'text', id: 'watchdog', label: watchdog });
    items.push({ type: 'separator' });
    items.push(...dependencyLines(status, now));
    const restart = lastRestartLine(status, now);
    if (restart) items.push({ type: 'separator' }, { type: 'text', id: 'last-restart', label: restart });
  }
  if (core.phase === 'connected') {
    items.push({
      type: 'text',
      id: 'core',
      label:
        core.mode === 'embedded'
          ? 'Core: running in this app'
          : `Core: BreakerBar daemon${core.pid === null ? '' : ` (pid ${core.pid})`}`,
    });
  }
  items.push({ type: 'separator' });

  const w = connected ? (status?.watchdog ?? null) : null;
  const inFlight = w?.restartInFlight ?? null;
  items.push({
    type: 'action',
    id: 'restart',
    label: inFlight ? 'Restarting Gateway…' : input.confirmRestart ? 'Restart Gateway…' : 'Restart Gateway',
    enabled: w !== null && inFlight === null,
  });
  if (w?.paused) {
    items.push({ type: 'action', id: 'resume', label: 'Resume Watchdog', enabled: true });
  } else {
    items.push({
      type: 'submenu',
      id: 'pause',
      label: 'Pause Watchdog',
      enabled: w?.enabled === true,
      items: [
        { type: 'action', id: 'pause-15m', label: 'For 15 Minutes', enabled: true },
        { type: 'action', id: 'pause-1h', label: 'For 1 Hour', enabled: true },
        { type: 'action', id: 'pause-until-resumed', label: 'Until Resumed', enabled: true },
      ],
    });
  }
  items.push({ type: 'separator' });
  items.push({ type: 'action', id: 'open-dashboard', label: 'Open Dashboard', enabled: true });
  items.push({ type: 'action', id: 'open-logs', label: 'Open Logs Folder', enabled: true });
  items.push({ type: 'action', id: 'open-metrics', label: 'Open Metrics in Browser', enabled: connected });
  items.push({ type: 'separator' });
  items.push({
    type: 'checkbox',
    id: 'toggle-launch-at-login',
    label: 'Launch at Login',
    checked: input.launchAtLogin === true,
    enabled: input.launchAtLogin !== null,
  });
  items.push({
    type: 'checkbox',
    id: 'toggle-confirm-restart',
    label: 'Ask Before Restarting',
    checked: input.confirmRestart,
    enabled: true,
  });
  items.push({ type: 'separator' });
  items.push({ type: 'action', id: 'quit', label: 'Quit BreakerBar', enabled: true });
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

export function gatewayLine(status: ApiStatus, now: number): string {
  const gateway = status.gateway;
  if (!gateway) return 'Gateway: not watched by this core';
  const last = gateway.last;
  if (!last) return 'Gateway: not probed yet';
  const probed = `probed ${relativeWords(last.ts, now)}`;
  if (last.ok) {
    const uptime = gatewayUptime(status, now);
    return `Gateway: up${uptime === null ? '' : ` ${durationWords(uptime)}`} · ${probed}`;
  }
  if (last.dead) {
    const since = gateway.downSince === null ? '' : ` for ${durationWords(now - gateway.downSince)}`;
    return `Gateway: down (${last.class})${since} · ${probed}`;
  }
  return `Gateway: ${last.class === 'starting' || last.class === 'draining' ? `${last.class}…` : `answers ${last.class}`} · ${probed}`;
}

export function watchdogLine(status: ApiStatus, now: number): string | null {
  const w = status.watchdog;
  if (!w) return null;
  if (w.restartInFlight) {
    return `Watchdog: restarting the gateway (${w.restartInFlight.trigger}) since ${relativeWords(w.restartInFlight.since, now)}`;
  }
  if (w.recovering) return `Watchdog: verifying recovery since ${relativeWords(w.recovering.since, now)}`;
  if (w.paused) {
    return w.pausedUntil === null
      ? 'Watchdog: paused until resumed'
      : `Watchdog: paused until ${clockWords(w.pausedUntil, now)} (${relativeWords(w.pausedUntil, now)})`;
  }
  if (!w.enabled) return 'Watchdog: watch only (restarts off)';
  if (w.deferral) {
    return `Watchdog: restart deferred for ${w.deferral.dep}, ${relativeWords(w.deferral.until, now)}`;
  }
  const budget = `${w.budgetRemaining}/${w.maxRestartsPerHour} restarts left this hour`;
  if (w.budgetRemaining <= 0) return `Watchdog: restart budget exhausted (${budget})`;
  return `Watchdog: ${w.dryRun ? 'dry run' : 'active'} · ${budget}`;
}

const STATE_WORDS: Record<ApiBreaker['state'], string> = {
  closed: 'closed',
  half_open: 'half-open',
  open: 'open',
  throttled: 'throttled',
};

/** One dependency: its state and, when open or throttled, when it will be tried again. */
export function dependencyLine(breaker: ApiBreaker, now: number): string {
  const parts = [STATE_WORDS[breaker.state]];
  if (breaker.forced) parts[0] = `${parts[0]} (forced)`;
  if (breaker.state === 'throttled' && breaker.retryAfterUntil !== null) {
    parts.push(
      breaker.retryAfterUntil > now
        ? `Retry-After ends ${relativeWords(breaker.retryAfterUntil, now)}`
        : 'Retry-After over, next call is a trial',
    );
  } else if (breaker.state === 'open' && !breaker.forced && breaker.openUntil !== null) {
    parts.push(
      breaker.openUntil > now ? `next probe ${relativeWords(breaker.openUntil, now)}` : 'next call is a trial',
    );
  } else if (breaker.state === 'half_open') {
    parts.push(`trying (${breaker.trialSuccesses} ok)`);
  }
  const cooldown = breaker.openclawCooldown;
  if (cooldown && cooldown.until > now) parts.push(openclawCooldownWords(cooldown, now));
  return `${breaker.dep}: ${parts.join(', ')}`;
}

/** "OpenClaw cooldown: 4 min left (rate_limit)"; "OpenClaw disabled: 2 h left (billing)". */
export function openclawCooldownWords(cooldown: NonNullable<ApiBreaker['openclawCooldown']>, now: number): string {
  return `OpenClaw ${cooldown.kind}: ${durationWords(cooldown.until - now)} left (${cooldown.reason ?? 'no reason given'})`;
}

function dependencyLines(status: ApiStatus, now: number): MenuItemModel[] {
  if (status.breakers.length === 0) return [{ type: 'text', id: 'deps-none', label: 'No dependencies seen yet' }];
  const sorted = sortBreakers(status.breakers);
  const shown = sorted.length > MAX_DEPENDENCY_LINES ? sorted.slice(0, MAX_DEPENDENCY_LINES - 1) : sorted;
  const lines: MenuItemModel[] = shown.map((b) => ({
    type: 'text',
    id: `dep:${b.dep}`,
    label: dependencyLine(b, now),
  }));
  if (shown.length < sorted.length) {
    const rest = sorted.slice(shown.length);
    const closed = rest.every((b) => b.state === 'closed');
    lines.push({
      type: 'text',
      id: 'deps-more',
      label: `…and ${rest.length} more${closed ? ', all closed' : ''} (Open Dashboard)`,
    });
  }
  return lines;
}

const RESULT_WORDS: Record<string, string> = {
  running: 'running',
  started: 'gateway started',
  recovered: 'recovered',
  not_recovered: 'did not recover',
  failed: 'failed',
  dry_run: 'dry run, not restarted',
};

export function lastRestartLine(status: ApiStatus, now: number): string | null {
  const r = status.watchdog?.lastRestart;
  if (!r) return null;
  const result = RESULT_WORDS[r.result] ?? r.result;
  const recovery = r.recoveryMs === null ? '' : ` in ${durationWords(r.recoveryMs)}`;
  return `Last restart ${relativeWords(r.ts, now)} (${r.trigger}: ${clip(r.reason, 60)}): ${result}${recovery}`;
}

function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
