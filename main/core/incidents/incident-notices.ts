/**
 * What the operator is told about an incident: one notice when it opens, one
 * when it becomes critical, one when it is resolved. These are the `alerts` a
 * default webhook receives: a 429 storm that opens one incident pings once and
 * gives the all-clear once, however many breakers, restarts and probes it took.
 * The words come from the catalogue (area `alerts`) in the daemon's language.
 */
import type { Message, Translator } from '../../words/messages/index.js';
import type { NoticeInput } from '../notify/notice.js';
import type { IncidentCause, IncidentSummary } from './types.js';

/** The phrase for each cause; a failing dependency that was rate-limited is a 429 storm. */
function causeMessage(cause: IncidentCause, incident: IncidentSummary): Message {
  const deps = incident.deps;
  switch (cause) {
    case 'breaker':
      return incident.rateLimitedCalls > 0
        ? { key: 'alerts.cause.storm', params: { deps } }
        : { key: 'alerts.cause.breaker', params: { deps } };
    case 'cooldown_loop':
      return { key: 'alerts.cause.cooldown_loop', params: { deps } };
    case 'quota':
      return { key: 'alerts.cause.quota', params: { deps } };
    case 'gateway_dead':
      return { key: 'alerts.cause.gateway_dead' };
    case 'gateway_hung':
      return { key: 'alerts.cause.gateway_hung' };
    case 'restart_budget':
      return { key: 'alerts.cause.restart_budget' };
    case 'source_error':
      return { key: 'alerts.cause.source_error' };
  }
}

/** What an incident is about, in one phrase ("429 storm on zhipu/glm-5.1 and gateway down"). */
export function incidentWhat(incident: IncidentSummary, t: Translator): string {
  const phrases = incident.causes.map((cause) => t.say(causeMessage(cause, incident)));
  if (phrases.length === 0) return t.say({ key: 'alerts.cause.breaker', params: { deps: incident.deps } });
  return t.list([...new Set(phrases)]);
}

function figures(incident: IncidentSummary) {
  return {
    failedCalls: incident.failedCalls,
    rateLimitedCalls: incident.rateLimitedCalls,
    turnsLost: incident.turnsLost,
    restarts: incident.restarts,
  };
}

/** The dependency a notice names: the incident's only one, else none (the text lists them). */
function depOf(incident: IncidentSummary): string | null {
  return incident.deps.length === 1 ? (incident.deps[0] ?? null) : null;
}

export function incidentOpenedNotice(incident: IncidentSummary, t: Translator, now: number): NoticeInput {
  return {
    kind: 'incident_opened',
    dep: depOf(incident),
    severity: incident.severity,
    ts: now,
    title: t.t('alerts.incidentOpenedTitle', { what: incidentWhat(incident, t) }),
    body: t.t('alerts.incidentOpenedBody', {
      openedAt: incident.openedAt,
      now,
      agents: incident.agents,
      ...figures(incident),
    }),
  };
}

export function incidentEscalatedNotice(incident: IncidentSummary, t: Translator, now: number): NoticeInput {
  return {
    kind: 'incident_escalated',
    dep: depOf(incident),
    severity: 'critical',
    ts: now,
    title: t.t('alerts.incidentEscalatedTitle', { what: incidentWhat(incident, t) }),
    body: t.t('alerts.incidentEscalatedBody', { openedAt: incident.openedAt, now, ...figures(incident) }),
  };
}

/** Info, but routed at the incident's severity: it goes wherever the alarm went. */
export function incidentResolvedNotice(incident: IncidentSummary, t: Translator, now: number): NoticeInput {
  const closedAt = incident.closedAt ?? now;
  return {
    kind: 'incident_resolved',
    dep: depOf(incident),
    severity: 'info',
    closes: incident.severity,
    ts: now,
    title: t.t('alerts.incidentResolvedTitle', {
      what: incidentWhat(incident, t),
      lastedMs: Math.max(0, closedAt - incident.openedAt),
    }),
    body: t.t('alerts.incidentResolvedBody', {
      openedAt: incident.openedAt,
      closedAt,
      now,
      ...figures(incident),
    }),
  };
}

type IncidentEvent = 'opened' | 'updated' | 'closed';

/** The part of the incident service this needs (an EventEmitter). */
export interface IncidentEvents {
  on(event: IncidentEvent, listener: (incident: IncidentSummary) => void): unknown;
  off(event: IncidentEvent, listener: (incident: IncidentSummary) => void): unknown;
}

/**
 * Sends the incident notices: opened, escalated (once, when it first becomes critical) and resolved.
 * An incident first seen as updated (BreakerBar restarted while it was open) was announced before:
 * only its escalation, if still to come, and its resolution are sent. Returns the unsubscribe function.
 */
export function wireIncidentNotices(
  service: IncidentEvents,
  notifier: { notify(notice: NoticeInput): void },
  t: Translator,
  clock: () => number,
): () => void {
  /** The severity announced so far, per open incident. */
  const announced = new Map<number, IncidentSummary['severity']>();
  const opened = (incident: IncidentSummary) => {
    announced.set(incident.id, incident.severity);
    notifier.notify(incidentOpenedNotice(incident, t, clock()));
  };
  const updated = (incident: IncidentSummary) => {
    const before = announced.get(incident.id);
    announced.set(incident.id, incident.severity);
    if (before === undefined || before === 'critical' || incident.severity !== 'critical') return;
    notifier.notify(incidentEscalatedNotice(incident, t, clock()));
  };
  const closed = (incident: IncidentSummary) => {
    announced.delete(incident.id);
    notifier.notify(incidentResolvedNotice(incident, t, clock()));
  };
  service.on('opened', opened);
  service.on('updated', updated);
  service.on('closed', closed);
  return () => {
    service.off('opened', opened);
    service.off('updated', updated);
    service.off('closed', closed);
  };
}
