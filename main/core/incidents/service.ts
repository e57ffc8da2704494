/**
 * Incidents as the daemon keeps them: the rules (rules.ts) run every few
 * seconds over what the breakers, the gateway's probes, the watchdog, the
 * sources, OpenClaw's cooldowns and the quota windows say; what happens while
 * one is open is written to its timeline (store.ts). Announces `opened`,
 * `updated` and `closed` with the incident's summary, for whoever tells a human.
 *
 * An incident open when the daemon stops stays open in the store and is
 * resumed at the next start: it closes there once its causes are gone.
 */
import { EventEmitter } from 'node:events';
import { isLiveTransition } from '../breaker/service.js';
import type { BreakerState, Transition } from '../breaker/types.js';
import type { CallEvent } from '../calls/events.js';
import type { ProbeResult } from '../gateway/probe.js';
import type { Logger } from '../runtime/log.js';
import type { SourceStatus } from '../sources/source.js';
import type { QuotaWindow } from '../spend/types.js';
import type { NotificationRow, RestartRow } from '../store/gateway-history.js';
import { reportWriteFailure, type WriteFailures } from '../store/room.js';
import type { Decision } from '../watchdog/policy-decisions.js';
import type { WatchdogStatus } from '../watchdog/watchdog-status.js';
import type { IncidentSettings } from './config.js';
import {
  conditionsOf,
  EMPTY_TRACKER,
  type IncidentChange,
  type IncidentWorld,
  type Stall,
  step,
  type TrackerState,
} from './rules.js';
import type { IncidentStore } from './store.js';
import type { IncidentDetail, IncidentList, IncidentSummary, IncidentsStatus } from './types.js';

/** How often the rules look at the world. */
const EVALUATE_MS = 5_000;
/** Weeks of recovery the status reports (this one and the three before). */
const MTTR_WEEKS = 4;
/** Watchdog decisions that say nothing happened: not worth a line in a timeline. */
const QUIET_DECISIONS = new Set(['quiet', 'healthy']);

export interface IncidentServiceEvents {
  opened: [IncidentSummary];
  updated: [IncidentSummary];
  closed: [IncidentSummary];
}

/** Where the service looks (each read at every evaluation). */
export interface IncidentInputs {
  breakers(): Array<{
    dep: string;
    state: BreakerState;
    reason: string;
    since: number;
    stalled: Stall | null;
  }>;
  /** Sessions stalled on no known dependency (stuck in their first call), or null. */
  stalledWithoutDependency?(): Stall | null;
  /** The last health probe (null: none yet, or this instance does not probe). */
  lastProbe(): ProbeResult | null;
  watchdog(): WatchdogStatus | null;
  sources(): SourceStatus[];
  /** Whether OpenClaw still keeps the dependency in a cooldown (a loop announced for it holds while it does). */
  inCooldown(dep: string, now: number): boolean;
  /** Provider quota windows (empty when none are known). */
  quota(): QuotaWindow[];
}

export interface IncidentServiceOptions {
  store: IncidentStore;
  inputs: IncidentInputs;
  settings: IncidentSettings;
  clock: () => number;
  log: Logger;
  /** Told when an incident closes (the duration histogram). */
  onClosed?: (incident: IncidentSummary) => void;
  evaluateMs?: number;
  /** Told of every write that failed for lack of room. */
  writes?: WriteFailures;
}

/** The time of the timeline row of failed calls at `ts`: its minute, but never before the incident opened. */
function minuteRow(ts: number, openedAt: number): number {
  return Math.max(Math.floor(ts / 60_000) * 60_000, openedAt);
}

function transitionText(t: Transition): string {
  return `breaker ${t.dep}: ${t.from} → ${t.to} (${t.reason})`;
}

export class IncidentService extends EventEmitter<IncidentServiceEvents> {
  private tracker: TrackerState = EMPTY_TRACKER;
  private openId: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Breakers whose move out of closed was live (not history read during a backfill), and when it was. */
  private readonly liveOut = new Map<string, number>();
  /** Dependencies OpenClaw was announced to keep in a cooldown loop (until the cooldown ends). */
  private readonly loops = new Set<string>();
  private lastProbeClass: string | null = null;
  /** Something was stored that may change the open incident's counters. */
  private dirty = false;
  /** The summary last announced, to announce `updated` only on a change. */
  private announced = '';
  /** The open incident's last decision entry (its id and text), so a repeated decision is noted once. */
  private lastDecisionNoted = '';
  /** While an evaluation is being stored: what it will tell once stored (see `evaluate`). */
  private toAnnounce: Array<() => void> | null = null;

  constructor(private readonly options: IncidentServiceOptions) {
    super();
  }

  /** Resumes an incident left open by the previous run, then evaluates on a timer. */
  start(): void {
    const { store, clock, inputs } = this.options;
    const now = clock();
    const open = store.openIncidents();
    const resumed = open[open.length - 1];
    // Only one incident is ever open; any other left open (a crash between two writes) is over.
    for (const stale of open.slice(0, -1)) this.finish(stale.id, stale, now);
    for (const breaker of inputs.breakers()) {
      if (breaker.state === 'closed') continue;
      if (isLiveTransition({ ts: breaker.since }, now) || resumed?.deps.includes(breaker.dep)) {
        this.liveOut.set(breaker.dep, breaker.since);
      }
    }
    if (resumed) {
      this.openId = resumed.id;
      this.tracker = {
        seen: {},
        open: {
          openedAt: resumed.openedAt,
          severity: resumed.severity,
          causes: resumed.causes,
          deps: resumed.deps,
          holding: [],
          clearSince: null,
        },
      };
      this.announced = JSON.stringify(resumed);
      this.options.log.info('incident resumed', { id: resumed.id, summary: resumed.summary });
    }
    this.timer = setInterval(() => this.evaluate(), this.options.evaluateMs ?? EVALUATE_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * One look at the world: opens, joins, closes, refreshes the counters. Never throws. All or nothing: what a
   * look changes is stored in one transaction and told only once stored; a look that cannot be stored (a full
   * disk) is taken again at the next evaluation, so an incident and its alert come late, never half or never.
   */
  evaluate(): void {
    const before = this.tracker;
    const { openId, dirty } = this;
    const told: Array<() => void> = [];
    this.toAnnounce = told;
    try {
      const now = this.options.clock();
      const world = this.world(now);
      const restarting = world.watchdog?.restarting ?? false;
      const result = step(before, conditionsOf(world), now, this.options.settings, restarting);
      this.tracker = result.state;
      this.options.store.atomically(() => {
        for (const change of result.changes) this.apply(change, now, before);
        if (this.openId !== null && this.dirty) this.refresh(now);
      });
    } catch (error) {
      this.tracker = before;
      this.openId = openId;
      this.dirty = dirty;
      told.length = 0;
      if (!this.options.writes?.failed(error, 'an incident')) {
        this.options.log.warn('incident evaluation failed; will retry', { error: (error as Error).message });
      }
    } finally {
      this.toAnnounce = null;
    }
    for (const tell of told) tell();
  }

  /** Tells `tell` now, or once the evaluation under way is stored. */
  private announce(tell: () => void): void {
    if (this.toAnnounce) this.toAnnounce.push(tell);
    else tell();
  }

  private world(now: number): IncidentWorld {
    const { inputs } = this.options;
    const probe = inputs.lastProbe();
    const watchdog = inputs.watchdog();
    for (const dep of [...this.loops]) if (!inputs.inCooldown(dep, now)) this.loops.delete(dep);
    return {
      breakers: inputs.breakers().map((breaker) => ({
        dep: breaker.dep,
        state: breaker.state,
        reason: breaker.reason,
        live: this.liveOut.has(breaker.dep),
        outSince: this.liveOut.get(breaker.dep) ?? null,
        stalled: breaker.stalled,
      })),
      stalledWithoutDependency: inputs.stalledWithoutDependency?.() ?? null,
      gateway: probe ? { dead: probe.dead, detail: probe.detail } : null,
      watchdog: watchdog
        ? {
            enabled: watchdog.enabled,
            budgetRemaining: watchdog.budgetRemaining,
            maxRestartsPerHour: watchdog.maxRestartsPerHour,
            restarting: watchdog.restartInFlight !== null || watchdog.recovering !== null,
          }
        : null,
      sources: inputs.sources().map((source) => ({ kind: source.kind, lastError: source.lastError })),
      cooldownLoops: [...this.loops],
      quota: inputs.quota(),
    };
  }

  private apply(change: IncidentChange, now: number, before: TrackerState): void {
    const { store, log } = this.options;
    const open = this.tracker.open;
    if (change.kind === 'open' && open) {
      const id = store.open(change.at, open.severity, open.causes, open.deps);
      this.openId = id;
      const causes = change.conditions.map((c) => c.text);
      store.addEvent(id, { ts: change.at, kind: 'opened', dep: null, text: `incident opened: ${causes.join('; ')}` });
      for (const condition of change.conditions) {
        store.addEvent(id, { ts: change.at, kind: 'cause', dep: condition.dep, text: condition.text });
      }
      // What happened between the first sign of trouble and now was stored before the incident existed.
      for (const t of store.transitions(change.at, now)) {
        store.addEvent(id, { ts: t.ts, kind: 'transition', dep: t.dep, text: transitionText(t) });
      }
      for (const row of store.failedCallsPerMinute(change.at, now)) {
        store.addFailedCalls(id, row.dep, minuteRow(row.ts, change.at), row.n, row.rateLimited);
      }
      this.refresh(now, 'opened');
      this.announce(() =>
        log.warn('incident opened', { id, causes: open.causes.join(', '), deps: open.deps.join(', ') }),
      );
      return;
    }
    const id = this.openId;
    if (id === null) return;
    if (change.kind === 'join') {
      store.addEvent(id, { ts: change.at, kind: 'cause', dep: change.condition.dep, text: change.condition.text });
      this.dirty = true;
      return;
    }
    if (change.kind === 'close') {
      const was = before.open;
      if (!was) return;
      const summary = this.finish(id, was, change.at);
      this.openId = null;
      if (summary) {
        this.announce(() => {
          log.info('incident closed', {
            id,
            summary: summary.summary,
            minutes: Math.round((change.at - was.openedAt) / 60_000),
          });
          this.options.onClosed?.(summary);
          this.emit('closed', summary);
        });
      }
    }
  }

  /** Closes an incident at `closedAt` with its final counters; returns it as stored. */
  private finish(
    id: number,
    incident: Pick<IncidentSummary, 'openedAt' | 'severity' | 'causes' | 'deps'>,
    closedAt: number,
  ): IncidentSummary | null {
    const { store } = this.options;
    const end = Math.max(closedAt, incident.openedAt);
    store.update(id, {
      severity: incident.severity,
      causes: incident.causes,
      counts: store.counts(incident.openedAt, end, incident.deps),
      closedAt: end,
    });
    store.addEvent(id, { ts: end, kind: 'closed', dep: null, text: 'incident closed: no cause holds any more' });
    return store.get(id);
  }

  /** Recounts the open incident from the stored history; announces it when it changed. */
  private refresh(now: number, event: 'opened' | 'updated' = 'updated'): void {
    const open = this.tracker.open;
    const id = this.openId;
    if (!open || id === null) return;
    const { store } = this.options;
    this.dirty = false;
    store.update(id, {
      severity: open.severity,
      causes: open.causes,
      counts: store.counts(open.openedAt, Math.max(now, open.openedAt), open.deps),
    });
    const summary = store.get(id);
    if (!summary) return;
    const text = JSON.stringify(summary);
    if (event === 'updated' && text === this.announced) return;
    this.announce(() => {
      this.announced = text;
      this.emit(event, summary);
    });
  }

  // What the monitor hands on as it happens.

  /** A breaker transition: live moves out of closed count; each is a timeline entry of the open incident. */
  transition(transition: Transition): void {
    const now = this.options.clock();
    if (!isLiveTransition(transition, now)) return;
    // Open, half-open and throttled are all "out": the breaker left closed at its first move.
    if (transition.to === 'closed') this.liveOut.delete(transition.dep);
    else if (!this.liveOut.has(transition.dep)) this.liveOut.set(transition.dep, transition.ts);
    this.note('transition', transition.dep, transitionText(transition), transition.ts);
  }

  /** Calls just stored: the failed ones of the open incident are counted per dependency and minute. */
  calls(calls: readonly CallEvent[]): void {
    const id = this.openId;
    const open = this.tracker.open;
    if (id === null || !open) return;
    const buckets = new Map<string, { dep: string; ts: number; n: number; rateLimited: number }>();
    for (const call of calls) {
      if (call.outcome === 'ok' || call.ts < open.openedAt) continue;
      const minute = minuteRow(call.ts, open.openedAt);
      const key = `${call.dep}\u0000${minute}`;
      const bucket = buckets.get(key) ?? { dep: call.dep, ts: minute, n: 0, rateLimited: 0 };
      bucket.n++;
      if (call.outcome === 'rate_limited') bucket.rateLimited++;
      buckets.set(key, bucket);
    }
    if (buckets.size === 0) return;
    this.guard(() => {
      for (const b of buckets.values()) this.options.store.addFailedCalls(id, b.dep, b.ts, b.n, b.rateLimited);
    });
    this.dirty = true;
  }

  /** A health probe: only a change of class is a timeline entry. */
  probe(result: ProbeResult): void {
    if (result.class === this.lastProbeClass) return;
    const previous = this.lastProbeClass;
    this.lastProbeClass = result.class;
    if (previous === null && result.ok) return;
    this.note('probe', null, `gateway probe ${previous ?? 'none'} → ${result.class}: ${result.detail}`, result.ts);
  }

  /** A watchdog decision (those that say nothing happened are left out). */
  decision(decision: Decision & { ts: number }): void {
    if (QUIET_DECISIONS.has(decision.kind)) return;
    const text = `watchdog ${decision.kind}: ${decision.reason}`;
    // The same decision again (a blocked watchdog says why at every check) adds nothing to the timeline.
    if (this.openId !== null && this.lastDecisionNoted === `${this.openId}\u0000${text}`) return;
    if (this.openId !== null) this.lastDecisionNoted = `${this.openId}\u0000${text}`;
    this.note('decision', decision.dep, text, decision.ts);
  }

  /** A restart row as it starts and as it ends. */
  restart(row: RestartRow): void {
    const evidence = row.evidence ? `, ${row.evidence}` : '';
    this.note('restart', null, `gateway restart (${row.trigger}${evidence}): ${row.result}`, this.options.clock());
    this.dirty = true;
  }

  /** A notification sent (or that failed to send). */
  delivered(row: NotificationRow): void {
    const how = row.ok ? 'sent' : `failed (${row.error ?? 'unknown error'})`;
    this.note('notification', row.dep, `notification ${how} via ${row.channel}: ${row.title}`, row.ts);
    this.dirty = true;
  }

  /** OpenClaw keeps `dep` in a cooldown that does not end: a cause until the cooldown is over. */
  cooldownLoop(dep: string): void {
    this.loops.add(dep);
  }

  private note(
    kind: 'transition' | 'probe' | 'decision' | 'restart' | 'notification',
    dep: string | null,
    text: string,
    ts: number,
  ): void {
    const id = this.openId;
    if (id === null) return;
    this.guard(() => this.options.store.addEvent(id, { ts, kind, dep, text }));
  }

  /** A store write that fails is logged; the daemon goes on. */
  private guard(write: () => void): void {
    try {
      write();
    } catch (error) {
      reportWriteFailure(this.options.writes, this.options.log, 'an incident event', error);
    }
  }

  // What the API, the CLI and the status read.

  status(): IncidentsStatus {
    const { store, clock } = this.options;
    return {
      open: store.openIncidents(),
      lastClosed: store.lastClosed(),
      mttrByWeek: store.mttrByWeek(clock(), MTTR_WEEKS),
    };
  }

  list(limit: number, since: number | null): IncidentList {
    return this.options.store.list(limit, since);
  }

  detail(id: number): IncidentDetail | null {
    return this.options.store.detail(id);
  }

  /** Incidents open now (0 or 1). */
  openCount(): number {
    return this.openId === null ? 0 : 1;
  }
}
