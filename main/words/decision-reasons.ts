/**
 * Why the watchdog decided what it did, carried and stored as a code and its
 * facts (never as a sentence), and worded only when read: in the reader's
 * language for the dashboard (`wordDecisionReason`), and in the policy's terse
 * English for the log, `breakerbar status` and the rehearsal report
 * (`decisionReasonLine`, the very line the policy wrote before it had codes).
 *
 * The store keeps a reason as the JSON of its code and facts in the `reason`
 * column it always had (no migration). Rows written before hold the English
 * line: `decodeDecisionReason` reads those as `{ code: 'text' }`, shown as they
 * were stored (their forms are too many and too free to read back cheaply),
 * except a line that is only a probe's detail, which is worded as one.
 *
 * A decision that quotes a probe carries the probe's own code and facts, so the
 * reader gets the probe worded in their language too.
 */
import { formatters } from './i18n.js';
import type { Translator } from './messages/index.js';
import { legacyProbeDetail, type ProbeDetail, probeDetailLine, wordProbeDetail } from './probe-details.js';
import { decodeCoded, encodeCoded } from './stored-codes.js';

/** What the gateway side says when the gateway's log announces a restart of its own. */
export const GATEWAY_LOG_RESTARTING = 'the gateway log says it is restarting itself (SIGUSR2)';

/** Why automatic restarts cannot run (as policy-decisions.ts's BlockedFacts, less the not-OpenClaw case). */
export type BlockedCause =
  | { cause: 'never_healthy'; problem: string | null }
  | { cause: 'unchecked' }
  | { cause: 'not_runnable'; problem: string | null }
  /** `said`: the owner rule's own English reason; `who`: the owner's evidence. */
  | { cause: 'owner'; rule: 'stopped_itself' | 'external_supervisor' | 'app_bundled'; who: string; said: string };

type Stalled = { sessions: number; deps: string[]; quietMs: number };

export type DecisionReason =
  /** The probe's finding is the whole reason (healthy, starting, unknown). */
  | { code: 'probe'; probe: ProbeDetail }
  | { code: 'not-openclaw'; probe: ProbeDetail }
  /** A dead probe of a streak not yet long enough (or the watchdog is disabled). */
  | {
      code: 'dead-streak';
      probe: ProbeDetail;
      count: number;
      needed: number;
      forMs: number;
      afterMs: number;
      disabled: boolean;
    }
  | { code: 'dead'; probe: ProbeDetail; forMs: number }
  | { code: 'unloaded'; probe: ProbeDetail; parked: boolean }
  | ({ code: 'stalled'; hungAfterMs: number } & Stalled)
  | ({ code: 'stalled-disabled' } & Stalled)
  | ({ code: 'hung' } & Stalled)
  | { code: 'divergence'; stuck: Array<{ dep: string; state: string; forMs: number }> }
  | { code: 'no-storm'; reset: boolean }
  | { code: 'storm-disabled'; total: number }
  | { code: 'storm-counting'; deps: Array<{ dep: string; count: number }>; check: number; threshold: number }
  /** A quiet check while `dep` waits out a Retry-After or OpenClaw's cooldown: the count is held. */
  | {
      code: 'storm-held';
      dep: string;
      by: 'retry_after' | 'cooldown';
      leftMs: number;
      count: number;
      threshold: number;
    }
  /** A quiet check just after `dep`'s Retry-After ended: its retry is due. */
  | { code: 'retry-due'; dep: string; agoMs: number; count: number; threshold: number }
  | { code: 'fallbacks'; deps: Array<{ dep: string; fallbacks: string[] }> }
  | { code: 'storm-waited'; deps: string[]; forMs: number }
  | { code: 'storm'; deps: string[]; forMs: number; upstream: 'held_longest' | 'over' | 'none'; heldMs: number }
  | {
      code: 'deferred';
      deps: string[];
      dep: string;
      cause: 'retry_after' | 'cooldown';
      askedMs: number;
      heldMs: number;
    }
  /**
   * `another`: said by the gate of a pause in force; `note`: what the user said when pausing (null: nothing,
   * absent: the policy's own account, before the runner adds the user's).
   */
  | { code: 'paused'; forMs: number | null; another: boolean; note?: string | null }
  | { code: 'maintenance'; note: string }
  /** `sinceMs`: how long it has run, when the user asked. */
  | { code: 'in-flight'; trigger: string; sinceMs: number | null }
  /** `manual`: the user asked for a restart while it was pending. */
  | { code: 'pending'; agoMs: number; manual: boolean }
  | { code: 'busy'; state: string }
  | { code: 'recovering'; self: boolean; agoMs: number; graceMs: number }
  | { code: 'budget'; restarts: number; max: number; nextInMs: number }
  | { code: 'spacing'; sinceMs: number; nth: number; spacingMs: number }
  | ({ code: 'blocked' } & BlockedCause)
  | { code: 'dry-run'; order: DecisionReason }
  | { code: 'pause-ended' }
  | { code: 'budget-refilled' }
  | { code: 'resumed' }
  | { code: 'recovered'; self: boolean; afterMs: number }
  | { code: 'not-recovered'; how: 'own' | 'pending' | 'restart'; graceMs: number }
  | { code: 'restarted-itself'; uptimeMs: number }
  /** The gateway announced a restart (`said`: how it was learnt); `stands`: what the policy makes of it. */
  | { code: 'gateway-restarting'; said: string; stands: 'counted' | 'running' | 'waiting' }
  /** The user's restart; `note`: what they said, null for none. */
  | { code: 'manual'; note: string | null }
  /** A row stored before reasons were codes, or any line from elsewhere: shown as it is. */
  | { code: 'text'; text: string };

export type DecisionReasonCode = DecisionReason['code'];

export const DECISION_REASON_CODES: readonly DecisionReasonCode[] = [
  'probe',
  'not-openclaw',
  'dead-streak',
  'dead',
  'unloaded',
  'stalled',
  'stalled-disabled',
  'hung',
  'divergence',
  'no-storm',
  'storm-disabled',
  'storm-counting',
  'storm-held',
  'retry-due',
  'fallbacks',
  'storm-waited',
  'storm',
  'deferred',
  'paused',
  'maintenance',
  'in-flight',
  'pending',
  'busy',
  'recovering',
  'budget',
  'spacing',
  'blocked',
  'dry-run',
  'pause-ended',
  'budget-refilled',
  'resumed',
  'recovered',
  'not-recovered',
  'restarted-itself',
  'gateway-restarting',
  'manual',
  'text',
];

/** How a reason is kept in the store's `reason` column: its code and facts as JSON (a legacy line stays a line). */
export function encodeDecisionReason(reason: DecisionReason): string {
  return encodeCoded(reason);
}

/** A stored `reason` column as the policy's English line (for logs, reports and tools that read the store). */
export function storedDecisionReasonLine(stored: string): string {
  return decisionReasonLine(decodeDecisionReason(stored));
}

/** A stored `reason` column read back: a coded reason, or the English line an older BreakerBar stored. */
export function decodeDecisionReason(stored: string): DecisionReason {
  return decodeCoded<DecisionReason>(stored, DECISION_REASON_CODES);
}

/** The policy's line states times rounded to whole units, as it always has. */
const EN = formatters('en');
const s = (ms: number) => EN.duration(ms);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function stalledLine(x: Stalled): string {
  return `${plural(x.sessions, 'session')} stalled (${x.deps.join(', ') || 'no dependency named'}) and no upstream attempt for ${s(x.quietMs)}`;
}

function heldLine(count: number, threshold: number): string {
  return `count held at ${count} of ${threshold}`;
}

const HOLD_WHY = "a restart cannot lift a provider's limit, and OpenClaw keeps its cooldowns across restarts";

function blockedLine(b: BlockedCause): string {
  switch (b.cause) {
    case 'owner':
      return b.said;
    case 'never_healthy':
      return `BreakerBar has not seen this gateway healthy since it started, so its failures may be BreakerBar's own wrong address or a gateway that was never installed${b.problem ? `; and ${b.problem}` : ''}. Run \`breakerbar doctor\``;
    case 'unchecked':
      return 'the restart strategy has not been checked yet';
    case 'not_runnable':
      return b.problem ?? 'no way to restart the gateway here';
  }
}

/** The English line of a reason, for the log, `breakerbar status`, the rehearsal report and the alerts' messages. */
export function decisionReasonLine(r: DecisionReason): string {
  switch (r.code) {
    case 'probe':
      return probeDetailLine(r.probe);
    case 'not-openclaw':
      return `the gateway address answers, but not as an OpenClaw gateway (${probeDetailLine(r.probe)}); check gatewayUrl. Nothing is restarted for it`;
    case 'dead-streak': {
      // Past the count, only the time is still to come: "dead probe 5 (2 needed)", never "5 of 2".
      const count =
        r.count <= r.needed ? `dead probe ${r.count} of ${r.needed}` : `dead probe ${r.count} (${r.needed} needed)`;
      return `${probeDetailLine(r.probe)} (${count}, for ${s(r.forMs)} of ${s(r.afterMs)})${r.disabled ? '; watchdog disabled' : ''}`;
    }
    case 'dead':
      return `gateway dead for ${s(r.forMs)}: ${probeDetailLine(r.probe)}`;
    case 'unloaded':
      return `gateway dead (${probeDetailLine(r.probe)}) and its service is ${r.parked ? 'parked: the service manager stopped respawning it' : 'not loaded'}`;
    case 'stalled':
      return `${stalledLine(r)} (hung after ${s(r.hungAfterMs)})`;
    case 'stalled-disabled':
      return `${stalledLine(r)}; watchdog disabled`;
    case 'hung':
      return `gateway hung: it answers its probes, but ${stalledLine(r)}`;
    case 'divergence':
      return `Health probes are green while ${r.stuck.map((b) => `${b.dep} has been ${b.state} for ${s(b.forMs)}`).join(', ')}: health checks alone are lying.`;
    case 'no-storm':
      return r.reset ? 'no new rate-limited calls: count reset' : 'no new rate-limited calls';
    case 'storm-disabled':
      return `${r.total} new rate-limited calls; watchdog disabled`;
    case 'storm-counting': {
      const total = r.deps.reduce((sum, d) => sum + d.count, 0);
      return `${plural(total, 'new rate-limited call')} (${r.deps.map((d) => `${d.dep} ${d.count}`).join(', ')}), check ${r.check} of ${r.threshold}`;
    }
    case 'storm-held':
      return `no new rate-limited calls while ${r.dep} waits out ${r.by === 'retry_after' ? 'its Retry-After' : "OpenClaw's cooldown"} (${s(r.leftMs)} left): ${heldLine(r.count, r.threshold)}`;
    case 'retry-due':
      return `no new rate-limited calls yet, but the retry of ${r.dep} is due (its Retry-After ended ${s(r.agoMs)} ago): ${r.count >= r.threshold ? 'the storm stays judged' : heldLine(r.count, r.threshold)}`;
    case 'fallbacks':
      return `rate limited, but fallbacks are answering (${r.deps.map((d) => `${d.dep} → ${d.fallbacks.join(', ')}`).join('; ')}); not restarting`;
    case 'storm-waited':
      return `429 storm on ${r.deps.join(', ')} for ${s(r.forMs)}, no fallback answering: waited out, not restarted (watchdog.stormRestart is off: OpenClaw retries its runs through a storm, and a restart cannot lift a provider's limit)`;
    case 'storm': {
      const upstream =
        r.upstream === 'held_longest'
          ? `held the longest allowed (${s(r.heldMs)}) for Retry-After or cooldown`
          : r.upstream === 'over'
            ? 'Retry-After and cooldowns over'
            : 'no Retry-After or cooldown in force';
      return `429 storm on ${r.deps.join(', ')} for ${s(r.forMs)}, ${upstream}, no fallback answering: restarting`;
    }
    case 'deferred': {
      const what =
        r.cause === 'retry_after'
          ? `${r.dep} asked to retry after ${s(r.askedMs)}`
          : `OpenClaw holds ${r.dep} in cooldown for another ${s(r.heldMs)}`;
      return `429 storm on ${r.deps.join(', ')}: ${what}; restart held ${s(r.heldMs)} (${HOLD_WHY})`;
    }
    case 'paused': {
      const how = r.forMs === null ? 'until resumed' : `for ${r.another ? 'another ' : ''}${s(r.forMs)}`;
      return `watchdog paused ${how}${r.note === undefined ? '' : ` (${r.note ?? 'paused by the user'})`}`;
    }
    case 'maintenance':
      return `maintenance window (${r.note}): no automatic restart`;
    case 'in-flight':
      return `a ${r.trigger} restart is already running${r.sinceMs === null ? '' : ` (since ${s(r.sinceMs)})`}`;
    case 'pending':
      return r.manual
        ? `the gateway has a restart pending since ${s(r.agoMs)} ago (OpenClaw is draining work first)`
        : `OpenClaw accepted a restart ${s(r.agoMs)} ago and will do it once work has drained; not issuing another`;
    case 'busy':
      return `the gateway reports ${r.state}; never restarted while it is`;
    case 'recovering':
      return `${r.self ? 'the gateway restarted itself' : 'restarted'} ${s(r.agoMs)} ago; waiting for started (grace ${s(r.graceMs)})`;
    case 'budget':
      return `restart budget spent: ${r.restarts} restarts in the last hour (max ${r.max}); next in ${s(r.nextInMs)} or when you act`;
    case 'spacing':
      return `last restart ${s(r.sinceMs)} ago; restart ${r.nth} this hour waits ${s(r.spacingMs)} after it`;
    case 'blocked':
      return `not restarting: ${blockedLine(r)}`;
    case 'dry-run':
      return `dry run: would restart (${decisionReasonLine(r.order)})`;
    case 'pause-ended':
      return 'pause ended; watchdog active again';
    case 'budget-refilled':
      return 'restart budget refilled';
    case 'resumed':
      return 'watchdog resumed; restart budget reset';
    case 'recovered':
      return `gateway started and answers its probes ${s(r.afterMs)} after ${r.self ? 'its own restart' : 'the restart'}`;
    case 'not-recovered':
      return r.how === 'own'
        ? `the gateway's own restart did not finish within ${s(r.graceMs)}`
        : r.how === 'pending'
          ? `OpenClaw accepted the restart but had not done it ${s(r.graceMs)} later`
          : `the gateway did not report started within ${s(r.graceMs)} of the restart`;
    case 'restarted-itself':
      return `the gateway restarted by itself ${s(r.uptimeMs)} ago (its uptime went back); not counted as an outage`;
    case 'gateway-restarting': {
      const stands =
        r.stands === 'counted'
          ? 'counted toward the restart in progress'
          : r.stands === 'running'
            ? 'the restart command is still running'
            : 'waiting for it to start';
      return `${r.said}; ${stands}`;
    }
    case 'manual':
      return r.note ?? 'restart requested by the user';
    case 'text':
      return r.text;
  }
}

/** Why the watchdog decided what it did, in the reader's language. */
export function wordDecisionReason(r: DecisionReason, t: Translator): string {
  const probe = (d: ProbeDetail) => wordProbeDetail(d, t);
  switch (r.code) {
    case 'probe':
      return probe(r.probe);
    case 'not-openclaw':
      return t.t('decision.notOpenClaw', { probe: probe(r.probe) });
    case 'dead-streak':
      return t.t('decision.deadStreak', { ...r, probe: probe(r.probe) });
    case 'dead':
      return t.t('decision.dead', { forMs: r.forMs, probe: probe(r.probe) });
    case 'unloaded':
      return t.t('decision.unloaded', { parked: r.parked, probe: probe(r.probe) });
    case 'stalled':
      return t.t('decision.stalled', r);
    case 'stalled-disabled':
      return t.t('decision.stalledDisabled', r);
    case 'hung':
      return t.t('decision.hung', r);
    case 'divergence':
      return t.t('decision.divergence', {
        stuck: r.stuck.map((b) => ({ ...b, state: stateWord(b.state, t) })),
      });
    case 'no-storm':
      return t.t(r.reset ? 'decision.noStormReset' : 'decision.noStorm');
    case 'storm-disabled':
      return t.t('decision.stormDisabled', r);
    case 'storm-counting':
      return t.t('decision.stormCounting', r);
    case 'storm-held':
      return t.t('decision.stormHeld', r);
    case 'retry-due':
      return t.t('decision.retryDue', r);
    case 'fallbacks':
      return t.t('decision.fallbacks', r);
    case 'storm-waited':
      return t.t('decision.stormWaited', r);
    case 'storm':
      return t.t('decision.storm', r);
    case 'deferred':
      return t.t('decision.deferred', r);
    case 'paused':
      return t.t('decision.paused', {
        forMs: r.forMs,
        another: r.another,
        note: r.note === undefined ? null : (r.note ?? t.t('decision.pausedByUser')),
      });
    case 'maintenance':
      return t.t('decision.maintenance', r);
    case 'in-flight':
      return t.t('decision.inFlight', { trigger: triggerWord(r.trigger, t), sinceMs: r.sinceMs });
    case 'pending':
      return t.t('decision.pending', r);
    case 'busy':
      return t.t('decision.busy', r);
    case 'recovering':
      return t.t('decision.recovering', r);
    case 'budget':
      return t.t('decision.budget', r);
    case 'spacing':
      return t.t('decision.spacing', r);
    case 'blocked':
      return t.t('decision.blocked', r);
    case 'dry-run':
      return t.t('decision.dryRun', { order: wordDecisionReason(r.order, t) });
    case 'pause-ended':
      return t.t('decision.pauseEnded');
    case 'budget-refilled':
      return t.t('decision.budgetRefilled');
    case 'resumed':
      return t.t('decision.resumed');
    case 'recovered':
      return t.t('decision.recovered', r);
    case 'not-recovered':
      return t.t('decision.notRecovered', r);
    case 'restarted-itself':
      return t.t('decision.restartedItself', r);
    case 'gateway-restarting':
      return t.t('decision.gatewayRestarting', {
        said: r.said === GATEWAY_LOG_RESTARTING ? t.t('decision.gatewayLogRestarting') : r.said,
        stands: r.stands,
      });
    case 'manual':
      return r.note ?? t.t('decision.manualDefault');
    case 'text': {
      // A row stored before reasons were codes: a probe's detail alone (healthy, starting) reads as one.
      const probed = legacyProbeDetail(r.text);
      return probed === null ? r.text : probe(probed);
    }
  }
}

function stateWord(state: string, t: Translator): string {
  return state === 'open' || state === 'throttled' ? t.t(`common.state.${state}`) : state;
}

function triggerWord(trigger: string, t: Translator): string {
  return trigger === 'manual' || trigger === 'health' || trigger === 'storm'
    ? t.t(`decision.trigger.${trigger}`)
    : trigger;
}
