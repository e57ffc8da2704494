/**
 * A cooldown that does not end is a problem of its own: OpenClaw keeps
 * putting a profile back in cooldown (each probe after a window fails again,
 * and 2026.9 doubles a rate-limit window each time, up to a day), or it has
 * disabled the profile for hours (billing, a revoked key). Neither heals by
 * waiting a few minutes, and a gateway restart cannot lift either: the state
 * is persisted. This detector says so once per episode.
 *
 * A loop is either
 * - re-entry: the same profile enters a window for the same dependency
 *   `reentries` times within `windowMs`, with no successful call of the
 *   profile since the first of them (OpenClaw records one as `lastUsed`); or
 * - a long window: one window that runs `longMs` or more.
 *
 * An entry is a new deadline that starts after the previous one for that key
 * had ended (OpenClaw keeps a window in force rather than restarting it, so a
 * deadline that moves while still in force is not a new entry). Each key
 * alerts once; it is re-armed when the key has been out of cooldown with no
 * entry in the last `windowMs`, or after a success.
 *
 * Pure: time is only the `now` the caller passes.
 */
import type { NoticeInput } from '../notify/notifier.js';
import {
  activeCooldowns,
  type CooldownKind,
  type CooldownSnapshot,
  type OpenClawCooldown,
  profileLabel,
} from './cooldown-state.js';

export interface CooldownLoopSettings {
  /** Entries into a window that make a loop (default 3). */
  reentries: number;
  /** …within this span (default 30 min). */
  windowMs: number;
  /** A single window at least this long is a loop by itself (default 1 h). */
  longMs: number;
}

export const DEFAULT_LOOP_SETTINGS: CooldownLoopSettings = {
  reentries: 3,
  windowMs: 30 * 60_000,
  longMs: 60 * 60_000,
};

interface Entry {
  /** When the failure that opened the window happened (OpenClaw's `lastFailureAt`, else when it was seen). */
  at: number;
  /** OpenClaw's failure count for the window's reason (or its error count) at that entry. */
  count: number | null;
}

interface Track {
  /** Entries within the last `windowMs` with no success after them. */
  entries: Entry[];
  /** The deadline last seen for this key (in force or not); 0 before the first. */
  until: number;
  /** When the window last seen began. */
  since: number;
  /** When this key last alerted; null: armed. */
  alertedAt: number | null;
}

export class CooldownLoopDetector {
  private readonly tracks = new Map<string, Track>();

  constructor(private readonly settings: CooldownLoopSettings = DEFAULT_LOOP_SETTINGS) {}

  /** One look at the state; returns the notices to send now (at most one per key and episode). */
  observe(snapshot: CooldownSnapshot, now: number): NoticeInput[] {
    const notices: NoticeInput[] = [];
    const lastUsed = new Map(snapshot.usage.map((record) => [record.profile, record.lastUsed]));
    const seen = new Set<string>();
    for (const cooldown of activeCooldowns(snapshot, now)) {
      const key = keyOf(cooldown.profile, cooldown.kind, cooldown.dep);
      seen.add(key);
      let track = this.tracks.get(key);
      if (!track) {
        track = { entries: [], until: 0, since: now, alertedAt: null };
        this.tracks.set(key, track);
      }
      const at = Math.min(cooldown.lastFailureAt ?? now, now);
      // A new deadline after the previous window had ended (by the time of this failure) is a new entry;
      // one that moves while the window is in force is the same window, kept or extended by OpenClaw.
      if (track.until === 0 || (cooldown.until !== track.until && track.until <= at)) {
        track.entries.push({ at, count: cooldown.failures ?? cooldown.errorCount });
        track.since = at;
      }
      track.until = cooldown.until;
      this.prune(track, now, lastUsed.get(cooldown.profile) ?? null);
      if (track.alertedAt !== null) continue;
      const notice = this.loopNotice(cooldown, track, now);
      if (notice) {
        track.alertedAt = now;
        notices.push(notice);
      }
    }
    for (const [key, track] of this.tracks) {
      if (seen.has(key)) continue;
      this.prune(track, now, lastUsed.get(profileOfKey(key)) ?? null);
      // Out of cooldown with no entry left in the window: forgotten, so the next loop alerts again.
      if (track.entries.length === 0) this.tracks.delete(key);
    }
    return notices;
  }

  /** Keys followed now (memory use: keys out of cooldown and quiet for `windowMs` are dropped). */
  tracked(): number {
    return this.tracks.size;
  }

  /** Drops entries older than the window and entries a success came after (the loop was broken then). */
  private prune(track: Track, now: number, lastUsed: number | null): void {
    const horizon = now - this.settings.windowMs;
    track.entries = track.entries.filter((entry) => entry.at >= horizon && (lastUsed === null || entry.at > lastUsed));
    if (track.alertedAt !== null && lastUsed !== null && lastUsed > track.alertedAt) track.alertedAt = null;
  }

  private loopNotice(cooldown: OpenClawCooldown, track: Track, now: number): NoticeInput | null {
    const { reentries, longMs } = this.settings;
    const who = profileLabel(cooldown.profile);
    const why = cooldown.reason ?? 'no reason recorded';
    const length = cooldown.until - track.since;
    const ends = `${KIND_WORDS[cooldown.kind]} until ${new Date(cooldown.until).toISOString()} (${span(cooldown.until - now)} from now)`;
    const restart = 'A gateway restart does not lift it: OpenClaw keeps this state on disk.';
    const advice =
      ADVICE[cooldown.reason ?? ''] ?? 'Check the provider account and key; `openclaw models status` lists it.';
    const severity = cooldown.kind === 'disabled' ? { severity: 'critical' as const } : {};
    if (track.entries.length >= reentries) {
      const counts = track.entries.map((entry) => entry.count).filter((count): count is number => count !== null);
      const escalation = counts.length > 1 ? ` (failure count ${counts.join(' → ')})` : '';
      return {
        kind: 'openclaw_cooldown_loop',
        dep: cooldown.dep,
        title: `OpenClaw keeps ${cooldown.dep} in cooldown`,
        body:
          `Profile ${who} went back into OpenClaw's ${why} ${cooldown.kind} ${track.entries.length} times in ` +
          `${span(now - (track.entries[0]?.at ?? now))}${escalation}, with no successful call in between; ` +
          `it is ${ends}. ${restart} ${advice}`,
        ts: now,
        ...severity,
      };
    }
    if (length >= longMs) {
      return {
        kind: 'openclaw_cooldown_loop',
        dep: cooldown.dep,
        title: `OpenClaw ${cooldown.kind === 'disabled' ? 'disabled' : 'holds back'} ${cooldown.dep} for ${span(length)}`,
        body: `Profile ${who} is ${ends}, for ${why}: OpenClaw will not use it before then. ${restart} ${advice}`,
        ts: now,
        ...severity,
      };
    }
    return null;
  }
}

const KIND_WORDS: Record<CooldownKind, string> = {
  cooldown: 'in cooldown',
  disabled: 'disabled',
  blocked: 'blocked by its subscription limit',
};

/** What a human can do, by OpenClaw's failure reason. */
const ADVICE: Record<string, string> = {
  billing: 'Check the provider account: credits, plan or payment method.',
  auth: 'Check the API key or sign-in of that profile.',
  auth_permanent: 'The key or account looks revoked: replace the credential.',
  rate_limit: 'The provider keeps rate-limiting it: lower the load, raise the quota, or move agents to another model.',
  overloaded: 'The provider keeps answering overloaded: move agents to another model for now.',
  model_not_found: 'The provider does not know this model: check the model id in openclaw.json.',
};

function keyOf(profile: string, kind: CooldownKind, dep: string): string {
  return `${profile}\u0000${kind}\u0000${dep}`;
}

function profileOfKey(key: string): string {
  return key.slice(0, key.indexOf('\u0000'));
}

/** `45 s`, `12 min`, `3 h 20 min`, `2 d 4 h`. */
export function span(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}
