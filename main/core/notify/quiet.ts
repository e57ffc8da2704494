/**
 * Quiet hours and maintenance windows: when BreakerBar keeps still. Pure: the
 * time is what the caller passes in, and a window's wall time is read in its own
 * time zone (the system's when it names none).
 *
 * - Quiet hours hold every notification below critical (critical ones too unless
 *   `alerts.quietHoursAllowCritical`); the watchdog acts as usual.
 * - Maintenance (started by hand, or a recurring window) holds every notification
 *   and every automatic restart: someone is working on the gateway.
 * Nothing held is lost from history: the notifier records it as suppressed.
 */
import { type Notice, routingSeverity } from './notice.js';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface RecurringWindow {
  /** Days the window starts on. */
  days: readonly Weekday[];
  /** `HH:MM`, 24-hour clock. */
  from: string;
  /** `HH:MM`; earlier than `from` ends the next day; equal to `from` lasts 24 hours. */
  to: string;
  /** IANA name; null = the system's time zone. */
  timeZone: string | null;
}

/** A maintenance window started by hand (`breakerbar maintenance start`). */
export interface ManualMaintenance {
  startedAt: number;
  /** Epoch ms; null = until stopped. */
  until: number | null;
  reason: string;
}

/** What holds notifications now (the API's `status.quiet`). */
export interface QuietState {
  kind: 'maintenance' | 'quiet_hours';
  /** Epoch ms; null = until stopped by hand. */
  until: number | null;
  reason: string;
}

export interface QuietSettings {
  quietHours: readonly RecurringWindow[];
  maintenance: readonly RecurringWindow[];
  manual: ManualMaintenance | null;
}

const MINUTE_MS = 60_000;
const DAY_MIN = 1440;
/** Intl's short English weekday names, Sunday first, as WEEKDAYS indexes. */
const INTL_DAY: Record<string, number> = { Mon: 0, Tue: 1, Wed: 2, Thu: 3, Fri: 4, Sat: 5, Sun: 6 };

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string | null): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let format = formats.get(key);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timeZone ?? undefined,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(key, format);
  }
  return format;
}

/** The weekday (index into WEEKDAYS) and minute of the day at `ts` in a time zone. */
export function localTime(ts: number, timeZone: string | null): { day: number; minute: number } {
  let day = 0;
  let hour = 0;
  let minute = 0;
  for (const part of formatFor(timeZone).formatToParts(ts)) {
    if (part.type === 'weekday') day = INTL_DAY[part.value] ?? 0;
    else if (part.type === 'hour') hour = Number(part.value) % 24;
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return { day, minute: hour * 60 + minute };
}

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
}

/**
 * When the window in force at `now` ends, or null when `now` is outside it. Computed in wall minutes:
 * across a daylight-saving change the end is off by the hour the clocks moved.
 */
export function windowEnd(window: RecurringWindow, now: number): number | null {
  const { day, minute } = localTime(now, window.timeZone);
  const from = minutesOf(window.from);
  const to = minutesOf(window.to);
  const on = (d: number) => window.days.includes(WEEKDAYS[(d + 7) % 7] as Weekday);
  // Minute arithmetic starts from the beginning of the current minute.
  const base = now - (now % MINUTE_MS);
  const after = (minutes: number) => base + minutes * MINUTE_MS;
  if (from === to)
    return on(day) && minute >= from
      ? after(DAY_MIN - minute + to)
      : on(day - 1) && minute < to
        ? after(to - minute)
        : null;
  if (from < to) return on(day) && minute >= from && minute < to ? after(to - minute) : null;
  if (on(day) && minute >= from) return after(DAY_MIN - minute + to);
  if (on(day - 1) && minute < to) return after(to - minute);
  return null;
}

/** When the windows in force at `now` end, following windows that continue one another; null when none is. */
export function windowsEnd(windows: readonly RecurringWindow[], now: number): number | null {
  let end: number | null = null;
  let at = now;
  // A week of back-to-back windows is the longest chain that can end; past that the quiet never ends.
  for (let hop = 0; hop < 8 * Math.max(1, windows.length); hop += 1) {
    let next: number | null = null;
    for (const window of windows) {
      const until = windowEnd(window, at);
      if (until !== null && until > at && (next === null || until > next)) next = until;
    }
    if (next === null) return end;
    end = next;
    at = next;
  }
  return end;
}

function describe(windows: readonly RecurringWindow[], now: number): string {
  const inForce = windows.filter((w) => windowEnd(w, now) !== null);
  return inForce.map((w) => `${w.from}–${w.to}${w.timeZone ? ` ${w.timeZone}` : ''}`).join(', ');
}

/** What holds notifications at `now`: maintenance (by hand first, then recurring), then quiet hours; or nothing. */
export function quietAt(settings: QuietSettings, now: number): QuietState | null {
  const manual = settings.manual;
  if (manual !== null && (manual.until === null || manual.until > now)) {
    return { kind: 'maintenance', until: manual.until, reason: manual.reason };
  }
  const maintenanceEnd = windowsEnd(settings.maintenance, now);
  if (maintenanceEnd !== null) {
    return {
      kind: 'maintenance',
      until: maintenanceEnd,
      reason: `recurring maintenance window ${describe(settings.maintenance, now)}`,
    };
  }
  const quietEnd = windowsEnd(settings.quietHours, now);
  if (quietEnd !== null) {
    return { kind: 'quiet_hours', until: quietEnd, reason: `quiet hours ${describe(settings.quietHours, now)}` };
  }
  return null;
}

/**
 * Why a notice must not go out now, or null when it may. Maintenance holds everything; quiet hours hold
 * what is below critical (a recovery counts at the severity of the alarm it closes), and critical too
 * unless `allowCritical`.
 */
export function suppressionReason(
  state: QuietState | null,
  notice: Pick<Notice, 'kind' | 'severity' | 'closes'>,
  allowCritical: boolean,
): string | null {
  if (state === null) return null;
  if (state.kind === 'maintenance') return `suppressed: maintenance (${state.reason})`;
  if (allowCritical && routingSeverity(notice) === 'critical') return null;
  return `suppressed: ${state.reason}`;
}
