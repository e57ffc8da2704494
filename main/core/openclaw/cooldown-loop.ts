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
import { type Translator, translator } from '../../words/messages/index.js';
import type { NoticeInput } from '../notify/notice.js';
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

  constructor(
    private readonly settings: CooldownLoopSettings = DEFAULT_LOOP_SETTINGS,
    /** The words of the notices (the daemon's language). */
    private readonly t: Translator = translator('en'),
  ) {}

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
    const t = this.t;
    const profile = profileLabel(cooldown.profile);
    const why = cooldown.reason;
    const length = cooldown.until - track.since;
    const ends = t.t('notices.cooldown.ends', {
      kind: cooldown.kind,
      until: cooldown.until,
      leftMs: cooldown.until - now,
    });
    const tail = [t.t('notices.cooldown.restart'), t.t('notices.cooldown.advice', { reason: cooldown.reason })];
    // Chinese runs sentences together; English separates them with a space.
    const sentences = (parts: string[]) => parts.join(t.language === 'zh-CN' ? '' : ' ');
    const severity = cooldown.kind === 'disabled' ? { severity: 'critical' as const } : {};
    if (track.entries.length >= reentries) {
      const counts = track.entries.map((entry) => entry.count).filter((count): count is number => count !== null);
      const loop = t.t('notices.cooldownLoop.body', {
        profile,
        why,
        kind: cooldown.kind,
        entries: track.entries.length,
        spanMs: now - (track.entries[0]?.at ?? now),
        counts,
      });
      return {
        kind: 'openclaw_cooldown_loop',
        dep: cooldown.dep,
        title: t.t('notices.cooldownLoop.title', { dep: cooldown.dep }),
        body: sentences([loop, t.t('notices.cooldown.loopTail', { ends }), ...tail]),
        ts: now,
        ...severity,
      };
    }
    if (length >= longMs) {
      return {
        kind: 'openclaw_cooldown_loop',
        dep: cooldown.dep,
        title: t.t('notices.cooldownLong.title', { dep: cooldown.dep, kind: cooldown.kind, lengthMs: length }),
        body: sentences([
          t.t('notices.cooldownLong.body', { profile, why }),
          t.t('notices.cooldown.longTail', { ends, why }),
          ...tail,
        ]),
        ts: now,
        ...severity,
      };
    }
    return null;
  }
}

function keyOf(profile: string, kind: CooldownKind, dep: string): string {
  return `${profile}\u0000${kind}\u0000${dep}`;
}

function profileOfKey(key: string): string {
  return key.slice(0, key.indexOf('\u0000'));
}
