/**
 * Incidents as the API, the CLI, the dashboard and the headline see them: one
 * record from the moment something needs a human's eye until it is over.
 */
import type { Severity } from '../notify/notice.js';

/** What opened an incident (an open incident can gather more than one cause). */
export const INCIDENT_CAUSES = [
  /** A breaker left `closed` and stayed out longer than the grace (a 429 storm, a provider failing). */
  'breaker',
  /** The gateway did not answer its health probes. */
  'gateway_dead',
  /** The gateway answered but its sessions were stuck. */
  'gateway_hung',
  /** The watchdog spent its restart budget. */
  'restart_budget',
  /** A source could not read what the gateway writes. */
  'source_error',
  /** OpenClaw kept a dependency in a cooldown that does not end. */
  'cooldown_loop',
  /** A provider's quota window is exhausted. */
  'quota',
] as const;
export type IncidentCause = (typeof INCIDENT_CAUSES)[number];

export interface IncidentSummary {
  id: number;
  openedAt: number;
  /** Null while open. */
  closedAt: number | null;
  /** The loudest severity it reached. */
  severity: Severity;
  causes: IncidentCause[];
  /** Dependencies (`provider/model`) and agents touched, sorted. */
  deps: string[];
  agents: string[];
  /** Turns users saw fail or refused while it was open. */
  turnsLost: number;
  /** Calls that failed while it was open, and of them rate-limited. */
  failedCalls: number;
  rateLimitedCalls: number;
  /** Restarts BreakerBar ran (or a person asked for) while it was open. */
  restarts: number;
  /** Notifications sent about it. */
  notifications: number;
  /** One line, English, for logs and the CLI's table (the dashboard words it from the fields). */
  summary: string;
}

/** One entry of an incident's timeline. */
export interface IncidentEvent {
  ts: number;
  kind: 'opened' | 'closed' | 'call' | 'transition' | 'probe' | 'decision' | 'restart' | 'notification' | 'cause';
  dep: string | null;
  /** What happened, in English (stored as it was said). */
  text: string;
  /** Failed calls (`call`: one entry per dependency and minute) and how many of them were rate limited. */
  count?: number;
  rateLimited?: number;
}

export interface IncidentDetail extends IncidentSummary {
  timeline: IncidentEvent[];
}

/** Mean time to recovery of one calendar week (Monday 00:00 local time). */
export interface WeekRecovery {
  weekStart: number;
  incidents: number;
  /** Mean duration of the week's closed incidents; null when none closed. */
  mttrMs: number | null;
}

/** `status.incidents`: what is open, when the last one ended, recovery by week. */
export interface IncidentsStatus {
  open: IncidentSummary[];
  lastClosed: IncidentSummary | null;
  mttrByWeek: WeekRecovery[];
}

/** `GET /api/incidents?limit=N&since=MS`: newest first. `GET /api/incidents/<id>` answers an IncidentDetail. */
export interface IncidentList {
  incidents: IncidentSummary[];
}
