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
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

export type Severity = 'info' | 'warning' | 'critical';

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
}

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
