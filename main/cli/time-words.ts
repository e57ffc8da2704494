/** Times for humans in CLI output: "3 min ago", "1 h 5 min". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
}

export function when(ts: number, now: number): string {
  return ts > now ? `in ${duration(ts - now)}` : `${duration(now - ts)} ago`;
}
