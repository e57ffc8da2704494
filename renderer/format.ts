/**
 * Numbers and times for humans: "3 min ago", "in 45 s", "3 restarts in the
 * last hour". Pure functions of their arguments (the caller passes "now"), so
 * they are tested without a browser and the 1 s ticker re-renders them cheaply.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "1 restart", "3 restarts"; `plural` for irregular words. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${integer(n)} ${n === 1 ? singular : plural}`;
}

/** 12345 → "12,345" (grouped as the user's locale does). */
export function integer(n: number): string {
  return Math.round(n).toLocaleString(undefined, { maximumFractionDigits: 0 });
}

/** 0.625 → "63 %"; small shares keep a decimal so 0.4 % does not read as 0 %. */
export function percent(share: number): string {
  const value = share * 100;
  if (value > 0 && value < 10) return `${value.toFixed(1)} %`;
  return `${Math.round(value)} %`;
}

/**
 * A length of time, two units at most: "850 ms", "12 s", "3 min 20 s", "2 h 5 min", "3 days 4 h".
 * Rounds down, so a countdown never claims more time than is left.
 */
export function duration(ms: number): string {
  const abs = Math.max(0, ms);
  if (abs < SECOND) return `${Math.round(abs)} ms`;
  if (abs < MINUTE) return `${Math.floor(abs / SECOND)} s`;
  if (abs < HOUR) {
    const min = Math.floor(abs / MINUTE);
    const s = Math.floor((abs % MINUTE) / SECOND);
    return s === 0 || min >= 10 ? `${min} min` : `${min} min ${s} s`;
  }
  if (abs < DAY) {
    const h = Math.floor(abs / HOUR);
    const min = Math.floor((abs % HOUR) / MINUTE);
    return min === 0 ? `${h} h` : `${h} h ${min} min`;
  }
  const days = Math.floor(abs / DAY);
  const h = Math.floor((abs % DAY) / HOUR);
  return h === 0 ? count(days, 'day') : `${count(days, 'day')} ${h} h`;
}

/** "just now", "40 s ago", "3 min ago", "in 2 min": one unit, for times seen at a glance. */
export function relativeTime(ts: number, now: number): string {
  const delta = ts - now;
  const abs = Math.abs(delta);
  if (abs < 5 * SECOND) return 'just now';
  const text =
    abs < MINUTE
      ? `${Math.floor(abs / SECOND)} s`
      : abs < HOUR
        ? `${Math.floor(abs / MINUTE)} min`
        : abs < DAY
          ? `${Math.floor(abs / HOUR)} h`
          : count(Math.floor(abs / DAY), 'day');
  return delta < 0 ? `${text} ago` : `in ${text}`;
}

/** Time left until `until`: "in 1 min 5 s", or "now" once reached. */
export function countdown(until: number, now: number): string {
  return until <= now ? 'now' : `in ${duration(until - now)}`;
}

/** Time left until `until` as a remainder: "4 min left", or "over" once reached. */
export function timeLeft(until: number, now: number): string {
  return until <= now ? 'over' : `${duration(until - now)} left`;
}

/** Local wall-clock time; with the date once it is not today ("Mar 3, 14:05"). */
export function clockTime(ts: number, now: number): string {
  const date = new Date(ts);
  const sameDay = new Date(now).toDateString() === date.toDateString();
  return sameDay
    ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : date.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** "3 restarts in the last hour", "no restarts in the last hour". */
export function inLast(n: number, singular: string, span: string): string {
  return `${n === 0 ? `no ${singular}s` : count(n, singular)} in the last ${span}`;
}

/** Breaker states as people say them. */
export function stateLabel(state: string): string {
  return state.replace(/_/g, '-');
}

/** Tokens per minute, short: 950, 12.5k, 3.2M. */
export function compact(n: number): string {
  if (Math.abs(n) < 1000) return integer(n);
  if (Math.abs(n) < 1_000_000) return `${trim(n / 1000)}k`;
  return `${trim(n / 1_000_000)}M`;
}

function trim(value: number): string {
  return value >= 100 ? String(Math.round(value)) : value.toFixed(1).replace(/\.0$/, '');
}
