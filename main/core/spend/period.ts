/**
 * Where a day, a week and a month begin and end in the user's time zone. Pure: the zone is a function from
 * an instant to its UTC offset, so tests inject a fixed zone and the daemon passes the system's.
 */

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Minutes east of UTC in force at an instant (UTC+8 → 480). */
export type ZoneOffset = (at: number) => number;

/** The system's time zone (daylight saving included). */
export const systemZone: ZoneOffset = (at) => -new Date(at).getTimezoneOffset();

/** A zone with a fixed offset (tests, UTC). */
export const fixedZone =
  (minutes: number): ZoneOffset =>
  () =>
    minutes;

export type BudgetPeriod = 'day' | 'week' | 'month';

/**
 * The instant a local wall-clock reading (as if it were UTC) falls on. The offset that applies at the
 * result may differ from the one at `hint` across a daylight-saving change: one correction settles it.
 */
function fromLocal(localMs: number, zone: ZoneOffset, hint: number): number {
  const guess = localMs - zone(hint) * MINUTE_MS;
  return localMs - zone(guess) * MINUTE_MS;
}

const local = (now: number, zone: ZoneOffset) => now + zone(now) * MINUTE_MS;

/** Local midnight at or before `now`. */
export function startOfDay(now: number, zone: ZoneOffset): number {
  const wall = local(now, zone);
  return fromLocal(Math.floor(wall / DAY_MS) * DAY_MS, zone, now);
}

/** Local midnight of the Monday at or before `now` (weeks begin on Monday, as ISO 8601 has it). */
export function startOfWeek(now: number, zone: ZoneOffset): number {
  const dayStart = Math.floor(local(now, zone) / DAY_MS) * DAY_MS;
  const weekday = (new Date(dayStart).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return fromLocal(dayStart - weekday * DAY_MS, zone, now);
}

/** Local midnight of the first day of the month of `now`. */
export function startOfMonth(now: number, zone: ZoneOffset): number {
  const wall = new Date(local(now, zone));
  return fromLocal(Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), 1), zone, now);
}

/** The calendar period holding `now`: [from, to). */
export function periodAt(period: BudgetPeriod, now: number, zone: ZoneOffset): { from: number; to: number } {
  const wall = new Date(local(now, zone));
  if (period === 'day') {
    const from = startOfDay(now, zone);
    const next = Math.floor(local(now, zone) / DAY_MS) * DAY_MS + DAY_MS;
    return { from, to: fromLocal(next, zone, now) };
  }
  if (period === 'week') {
    const from = startOfWeek(now, zone);
    const next = Math.floor(local(from, zone) / DAY_MS) * DAY_MS + 7 * DAY_MS;
    return { from, to: fromLocal(next, zone, now) };
  }
  const next = Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth() + 1, 1);
  return { from: startOfMonth(now, zone), to: fromLocal(next, zone, now) };
}
