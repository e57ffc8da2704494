/**
 * What BreakerBar did during a rehearsal, as a timeline: the core's breaker transitions, watchdog decisions,
 * restarts, incidents and notices as it emits them, next to the scenario's own events (phases, gateway states,
 * clock steps), each in scenario seconds and with the wall milliseconds it was recorded at (for latencies).
 * The expectations are judged on this timeline alone.
 */
import type { BreakerService } from '../core/breaker/service.js';
import type { IncidentService } from '../core/incidents/service.js';
import type { GatewaySide } from '../core/watchdog/gateway-side.js';
import type { RehearsalClock } from './rehearsal-clock.js';
import type { TimelineEvent } from './types.js';

export class TimelineRecorder {
  readonly timeline: TimelineEvent[] = [];
  /** When each event was recorded: wall milliseconds since the start. */
  readonly wallTimes = new WeakMap<TimelineEvent, number>();
  /** Breaker transitions and notices so far (for progress). */
  transitions = 0;
  notices = 0;
  private readonly restartIds = new Set<number>();
  private readonly restartResults = new Map<number, string>();

  constructor(private readonly clock: RehearsalClock) {}

  push(event: TimelineEvent): void {
    this.wallTimes.set(event, this.clock.elapsedMs());
    this.timeline.push(event);
  }

  /** Restarts so far (dry runs not counted). */
  restarts(): number {
    return this.timeline.filter((e) => e.type === 'restart').length;
  }

  /** Records what the started core does from now on. */
  listen(breakers: BreakerService, side: GatewaySide, incidents: IncidentService | null): void {
    const { clock } = this;
    const now = () => clock.now();
    const push = (event: TimelineEvent) => this.push(event);
    breakers.on('transition', (tr) => {
      this.transitions++;
      push({ t: now(), type: 'transition', dep: tr.dep, from: tr.from, to: tr.to, reason: tr.reason });
    });
    side.watchdog.on('decision', (d) => {
      if ((d.kind === 'quiet' || d.kind === 'healthy') && d.alerts.length === 0) return;
      push({
        t: now(),
        type: 'decision',
        decision: d.kind,
        source: d.source,
        dep: d.dep,
        reason: d.reason,
        alerts: d.alerts.map((a) => a.kind),
      });
    });
    side.watchdog.on('restart', (row) => {
      const seen = this.restartIds.has(row.id);
      this.restartIds.add(row.id);
      const fields = { id: row.id, trigger: row.trigger, evidence: row.evidence, reason: row.reason };
      if (row.result === 'dry_run') {
        if (!seen) push({ t: now(), type: 'dry_run', ...fields });
        return;
      }
      if (!seen) push({ t: now(), type: 'restart', ...fields });
      if (this.restartResults.get(row.id) !== row.result && row.result !== 'running') {
        this.restartResults.set(row.id, row.result);
        push({ t: now(), type: 'restart_result', id: row.id, result: row.result, detail: row.detail });
      }
    });
    /** What the timeline last said of each incident: an update shows only when it changes what it is about. */
    const said = new Map<number, string>();
    for (const change of ['opened', 'updated', 'closed'] as const) {
      incidents?.on(change, (incident) => {
        const about = `${incident.severity}|${incident.causes.join(',')}|${incident.deps.join(',')}`;
        if (change === 'updated' && said.get(incident.id) === about) return;
        said.set(incident.id, about);
        push({
          t: now(),
          type: 'incident',
          id: incident.id,
          change,
          severity: incident.severity,
          causes: [...incident.causes],
          deps: [...incident.deps],
          summary: incident.summary,
          openedAtSec: clock.scenarioSecOf(incident.openedAt),
          closedAtSec: incident.closedAt === null ? null : clock.scenarioSecOf(incident.closedAt),
        });
      });
    }
    side.notifier.on('notice', (n) => {
      this.notices++;
      push({
        t: now(),
        type: 'notice',
        notice: n.kind,
        dep: n.dep,
        title: n.title,
        severity: n.severity,
        count: n.count,
      });
    });
  }
}
