/**
 * Times as the tray menu says them: "42 s", "3 min", "1 h 5 min", "2 d 3 h";
 * relative to now as "3 min ago" or "in 42 s". A menu is read at a glance, so
 * every duration has at most two units.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export function durationWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / SECOND));
  if (s < 90) return `${s} s`;
  const m = Math.round(ms / MINUTE);
  if (m < 90) return `${m} min`;
  const totalMinutes = Math.floor(ms / MINUTE);
  if (ms < DAY) {
    const h = Math.floor(totalMinutes / 60);
    const rest = totalMinutes % 60;
    return rest === 0 ? `${h} h` : `${h} h ${rest} min`;
  }
  const d = Math.floor(ms / DAY);
  const h = Math.floor((ms % DAY) / HOUR);
  return h === 0 ? `${d} d` : `${d} d ${h} h`;
}

/** "3 min ago", "in 42 s"; within a second of now, "just now". */
export function relativeWords(ts: number, now: number): string {
  const delta = ts - now;
  if (Math.abs(delta) < SECOND) return 'just now';
  return delta > 0 ? `in ${durationWords(delta)}` : `${durationWords(-delta)} ago`;
}

/** A wall-clock time for "paused until 14:05": the user's locale, hours and minutes. */
export function clockWords(ts: number, now: number, locale?: string): string {
  const date = new Date(ts);
  const time = date.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' });
  if (ts - now < DAY && new Date(now).getDate() === date.getDate()) return time;
  return `${date.toLocaleDateString(locale, { weekday: 'short' })} ${time}`;
}
