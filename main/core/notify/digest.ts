/**
 * The digest: notices that inform but need no action are held per channel and
 * sent as one message per period, so a chat room or a phone is not a log.
 * Alerts never wait: what is critical (a recovery counts at the severity of the
 * alarm it closes) and what is in the `alerts` group go out at once. Pure: time
 * is what the caller passes in.
 */
import type { Translator } from '../../words/messages/index.js';
import type { NotificationSettings } from './config.js';
import type { NoticeInput } from './notice.js';
import { ALERT_KINDS, maxSeverity, type Notice, type NoticeKind, routingSeverity, severityRank } from './notice.js';
import { localTime } from './quiet.js';

/**
 * The `notifications.digest` keys (config.ts): `everyMs`, the period aligned to the clock (an hour: on the
 * hour) unless `at` (`HH:MM`) sends once a day instead; `timeZone` of `at` (null or absent: the system's).
 */
export type DigestSettings = NotificationSettings['digest'] & { timeZone?: string | null };

/** Whether a notice goes out at once even when a digest gathers the rest. */
export function isImmediate(notice: Pick<Notice, 'kind' | 'severity' | 'closes'>): boolean {
  return routingSeverity(notice) === 'critical' || ALERT_KINDS.includes(notice.kind) || notice.kind === 'digest';
}

const MINUTE_MS = 60_000;

/** When the digest period running at `now` ends (strictly after `now`). */
export function nextDigestAt(settings: DigestSettings, now: number): number {
  if (settings.at !== null) {
    const [h, m] = settings.at.split(':');
    const target = Number(h) * 60 + Number(m);
    const { minute } = localTime(now, settings.timeZone ?? null);
    let ahead = target - minute;
    if (ahead <= 0) ahead += 1440;
    return now - (now % MINUTE_MS) + ahead * MINUTE_MS;
  }
  const period = Math.max(1000, settings.everyMs);
  return (Math.floor(now / period) + 1) * period;
}

export interface DigestBatch {
  channel: string;
  /** When the first notice was held. */
  from: number;
  notices: Notice[];
}

interface Pending {
  from: number;
  dueAt: number;
  notices: Notice[];
}

/** Notices held per channel until their period ends. */
export class Digest {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly settings: DigestSettings) {}

  hold(channel: string, notice: Notice, now: number): void {
    let batch = this.pending.get(channel);
    if (batch === undefined) {
      batch = { from: now, dueAt: nextDigestAt(this.settings, now), notices: [] };
      this.pending.set(channel, batch);
    }
    batch.notices.push(notice);
  }

  /** The batches whose period has ended, taken out of the digest. */
  due(now: number): DigestBatch[] {
    const out: DigestBatch[] = [];
    for (const [channel, batch] of this.pending) {
      if (now < batch.dueAt) continue;
      this.pending.delete(channel);
      out.push({ channel, from: batch.from, notices: batch.notices });
    }
    return out;
  }

  /** Notices held for one channel, or for all. */
  held(channel?: string): number {
    let total = 0;
    for (const [name, batch] of this.pending)
      if (channel === undefined || name === channel) total += batch.notices.length;
    return total;
  }
}

/**
 * One message for a batch: how many notices of each kind (with the latest title of each) and the
 * headline of the period, the loudest and, among equals, the latest notice.
 */
export function digestNotice(batch: DigestBatch, now: number, t: Translator): NoticeInput {
  const byKind = new Map<NoticeKind, { count: number; latest: Notice }>();
  let top: Notice | null = null;
  let severity = batch.notices[0]?.severity ?? 'info';
  let total = 0;
  for (const notice of batch.notices) {
    total += notice.count;
    severity = maxSeverity(severity, notice.severity);
    const entry = byKind.get(notice.kind);
    if (entry === undefined) byKind.set(notice.kind, { count: notice.count, latest: notice });
    else {
      entry.count += notice.count;
      if (notice.ts >= entry.latest.ts) entry.latest = notice;
    }
    if (
      top === null ||
      severityRank(notice.severity) > severityRank(top.severity) ||
      (notice.severity === top.severity && notice.ts >= top.ts)
    ) {
      top = notice;
    }
  }
  const lines = [...byKind.values()]
    .sort((a, b) => b.count - a.count)
    .map(({ count, latest }) => t.t('alerts.digestLine', { count, title: latest.title }));
  return {
    kind: 'digest',
    dep: null,
    severity,
    ts: now,
    title: t.t('alerts.digestTitle', { count: total, spanMs: Math.max(0, now - batch.from) }),
    body: [t.t('alerts.digestHeadline', { title: top?.title ?? '' }), ...lines].join('\n'),
  };
}
