/**
 * What BreakerBar tells a human about: one event, already worded. Channels
 * (desktop, webhooks) only format and deliver; they never decide wording.
 */
export const NOTICE_KINDS = [
  'restart_started',
  'restart_succeeded',
  'restart_failed',
  'restart_deferred',
  'restart_budget_exhausted',
  'breaker_opened',
  'breaker_throttled',
  'breaker_closed',
  'gateway_down',
  'gateway_up',
  'divergence',
  'token_budget',
  'fallback_answering',
  'restart_would_run',
  'watchdog_blocked',
  'openclaw_cooldown_loop',
  'spend_budget',
  'incident_opened',
  'incident_escalated',
  'incident_resolved',
  'digest',
  'store_full',
  'store_room',
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface Notice {
  kind: NoticeKind;
  /** Dependency (e.g. 'zhipu/glm-5.1') or null for gateway-wide events. */
  dep: string | null;
  /** Short, e.g. 'Gateway restarted after a 429 storm'. */
  title: string;
  /** One or two sentences for a human. */
  body: string;
  severity: Severity;
  /** Epoch ms. */
  ts: number;
  /** How many events of this kind+dep were folded into this one (1 = just this one). */
  count: number;
  /**
   * A recovery notice: the severity of the alert it closes. It is routed at that severity, so an
   * all-clear reaches every channel that got the alarm even when the channel filters out `info`.
   */
  closes?: Severity;
}

/** A notice as its producers hand it to the notifier: how many it stands for and its severity may be left out. */
export type NoticeInput = Omit<Notice, 'count' | 'severity'> & Partial<Pick<Notice, 'count' | 'severity'>>;

/**
 * Critical means someone should act now: the gateway is down or BreakerBar can
 * no longer heal it (a failed restart, an exhausted restart budget). Warning is
 * degraded-but-handled: a breaker shedding one dependency, a restart that is
 * happening or postponed, numbers that disagree. Info is recovery.
 */
const SEVERITY: Record<NoticeKind, Severity> = {
  restart_started: 'warning',
  restart_succeeded: 'info',
  restart_failed: 'critical',
  restart_deferred: 'warning',
  restart_budget_exhausted: 'critical',
  breaker_opened: 'warning',
  breaker_throttled: 'warning',
  breaker_closed: 'info',
  gateway_down: 'critical',
  gateway_up: 'info',
  divergence: 'warning',
  token_budget: 'warning',
  // A storm the fallbacks absorb: handled, but the primary is still down.
  fallback_answering: 'warning',
  // Dry run: what the watchdog would have done.
  restart_would_run: 'warning',
  // The watchdog cannot heal the gateway until someone fixes what it found.
  watchdog_blocked: 'critical',
  // OpenClaw will not use a dependency for long, and waiting or restarting will not change it (critical when disabled).
  openclaw_cooldown_loop: 'warning',
  // A spend budget's alert share crossed (the notice itself is critical once the whole limit is used).
  spend_budget: 'warning',
  // An incident is as loud as the worst it reached; its notices carry that severity (warning until then).
  incident_opened: 'warning',
  incident_escalated: 'critical',
  incident_resolved: 'info',
  // A digest is as loud as the loudest notice it gathers (info until then).
  digest: 'info',
  // BreakerBar stores nothing new (no breaker, watchdog storm count or incident sees new calls) until space is freed.
  store_full: 'critical',
  store_room: 'info',
};

export function severityOf(kind: NoticeKind): Severity {
  return SEVERITY[kind];
}

export function isNoticeKind(value: string): value is NoticeKind {
  return (NOTICE_KINDS as readonly string[]).includes(value);
}

const RANK: Record<Severity, number> = { info: 0, warning: 1, critical: 2 };

/** The more severe of two severities (a summary is as loud as its loudest event). */
export function maxSeverity(a: Severity, b: Severity): Severity {
  return RANK[a] >= RANK[b] ? a : b;
}

export function severityRank(severity: Severity): number {
  return RANK[severity];
}

/**
 * What a webhook gets when its `events` is left at the default (`["alerts"]`): what needs a human.
 * An incident gathers a storm's breaker, restart and gateway notices into one alert and one
 * recovery, so those are not in it; what the watchdog cannot fix by itself is.
 */
export const ALERT_KINDS: readonly NoticeKind[] = [
  'incident_opened',
  'incident_escalated',
  'incident_resolved',
  'restart_failed',
  'restart_budget_exhausted',
  'watchdog_blocked',
  'store_full',
  'store_room',
];

/** Named groups allowed in a webhook's `events` besides single kinds. */
export const EVENT_GROUPS = ['*', 'alerts'] as const;

/** Whether a channel subscribed to `events` (kinds and groups) wants a notice of `kind`. */
export function eventsWant(events: readonly string[], kind: NoticeKind): boolean {
  if (events.includes('*') || events.includes(kind)) return true;
  return events.includes('alerts') && ALERT_KINDS.includes(kind);
}

/** Recovery kinds and the alert kind each one closes. */
const CLOSES: Partial<Record<NoticeKind, NoticeKind>> = {
  restart_succeeded: 'restart_started',
  breaker_closed: 'breaker_opened',
  gateway_up: 'gateway_down',
  store_room: 'store_full',
};

/** The severity a notice is routed at: its own, or for a recovery that of what it closes. */
export function routingSeverity(notice: Pick<Notice, 'kind' | 'severity' | 'closes'>): Severity {
  if (notice.closes !== undefined) return maxSeverity(notice.severity, notice.closes);
  const closed = CLOSES[notice.kind];
  return closed === undefined ? notice.severity : maxSeverity(notice.severity, severityOf(closed));
}
