/**
 * The health rules: what the probes and the gateway's stalled sessions say, and when they are evidence for
 * a restart. Every automatic restart rests on one kind of evidence, named in its decision; these are three
 * of them (the fourth, the storm, is storm-rule.ts):
 * - dead: `healthFailuresBeforeRestart` dead probes in a row, spanning at least
 *   `deadAfterMs` (OpenClaw's own in-process restart refuses connections for
 *   4–9 s, up to 30 s on a loaded machine; that is not a death). A probe BreakerBar could not run on time is
 *   `unknown` and counts for nothing.
 * - unloaded: the same dead probes while the service manager says the
 *   gateway's service is not loaded or its respawn is parked.
 * - hung: probes answer, but sessions are reported stalled by the gateway and
 *   no upstream attempt has been made for `hungAfterMs`.
 *
 * An answer that is not an OpenClaw gateway is a configuration error, never a
 * dead gateway. Divergence (probes green while a breaker has been open or
 * throttled for `divergenceMs`) is alarmed once per episode.
 */

import { type DecisionReason, decisionReasonLine } from '../../words/decision-reasons.js';
import { decodeProbeDetail, type ProbeDetail } from '../../words/probe-details.js';
import { type Alert, type Decision, decision } from './policy-decisions.js';
import type { BreakerInput, CheckInput, ProbeInput } from './policy-inputs.js';
import type { PolicyContext } from './policy-state.js';
import { noticeProcessStart, recoverySeen, restarting } from './recovery-tracking.js';
import { blockedHold, orderRestart, restartGate } from './restart-gate.js';

/** One health probe result: the dead and unloaded rules, and what it says about a restart being verified. */
export function judgeProbe(p: PolicyContext, now: number, result: ProbeInput): Decision {
  if (result.class === 'unknown') {
    // BreakerBar's own event loop was too late to judge: neither a failure nor a success.
    return decision('probe', 'unknown', { code: 'probe', probe: probed(result) });
  }
  if (result.class === 'not_openclaw') {
    resetDead(p);
    p.s.lastProbeGreen = null;
    return blockedHold(p, 'probe', { code: 'not-openclaw', probe: probed(result) }, 'not_openclaw', {
      cause: 'not_openclaw',
      detail: result.detail,
    });
  }
  const alerts: Alert[] = [];
  const green = !result.dead && result.class === 'ok';
  p.s.lastProbeGreen = green;
  p.s.gatewayBusy = !result.dead && !green ? result.class : null;
  const restartedItself = noticeProcessStart(p, now, result);
  recoverySeen(p, now, green, result.startup);
  if (green) {
    p.s.seenHealthy = true;
    resetDead(p);
    if (p.s.down) {
      p.s.down = false;
      alerts.push({ kind: 'gateway_up', dep: null, message: 'The gateway answers its health probes again.' });
    }
    if (restartedItself) return { ...restartedItself, alerts };
    return decision('probe', 'healthy', { code: 'probe', probe: probed(result) }, null, null, alerts);
  }
  if (!result.dead) {
    // starting / draining: alive and busy; never a reason to restart, and not a failure streak either.
    resetDead(p);
    return restartedItself ?? decision('probe', 'starting', { code: 'probe', probe: probed(result) });
  }
  p.s.healthFailures += 1;
  p.s.deadSince ??= now;
  const deadFor = now - p.s.deadSince;
  const streak = (disabled: boolean): DecisionReason => ({
    code: 'dead-streak',
    probe: probed(result),
    count: p.s.healthFailures,
    needed: p.settings.healthFailuresBeforeRestart,
    forMs: deadFor,
    afterMs: p.settings.deadAfterMs,
    disabled,
  });
  if (p.s.healthFailures < p.settings.healthFailuresBeforeRestart || deadFor < p.settings.deadAfterMs)
    return decision('probe', 'dead', streak(false));
  // Down during a restart in flight is expected, not news: the restart's own notices say it.
  if (!p.s.down && !restarting(p) && p.s.seenHealthy) {
    p.s.down = true;
    alerts.push({
      kind: 'gateway_down',
      dep: null,
      detail: result.detail,
      message: `The gateway is down: ${result.detail}.`,
    });
  }
  if (!p.settings.enabled) return decision('probe', 'disabled', streak(true), null, null, alerts);
  const gate = restartGate(p, now, 'health');
  if (gate) return { ...gate, source: 'probe', alerts: [...alerts, ...gate.alerts] };
  const service = p.s.strategy?.service;
  const unloaded = service === 'unloaded' || service === 'parked';
  resetDead(p);
  const why: DecisionReason = unloaded
    ? { code: 'unloaded', probe: probed(result), parked: service === 'parked' }
    : { code: 'dead', probe: probed(result), forMs: deadFor };
  const order = orderRestart(p, now, 'probe', {
    trigger: 'health',
    evidence: unloaded ? 'unloaded' : 'dead',
    reason: decisionReasonLine(why),
    why,
    deps: [],
    probeClass: result.class,
    facts: unloaded
      ? { evidence: 'unloaded', detail: result.detail, parked: service === 'parked' }
      : { evidence: 'dead', forMs: deadFor, detail: result.detail },
  });
  return { ...order, alerts: [...alerts, ...order.alerts] };
}

/** Live, but sessions stalled and no upstream attempt for `hungAfterMs`: restart (its stuck runs will not drain). */
export function judgeHung(p: PolicyContext, now: number, stalled: CheckInput['stalled']): Decision | null {
  if (!stalled || stalled.sessions === 0 || p.s.lastProbeGreen !== true) return null;
  const quietFor = now - stalled.since;
  const what = { sessions: stalled.sessions, deps: stalled.deps, quietMs: quietFor };
  if (quietFor < p.settings.hungAfterMs)
    return decision('check', 'counting', { code: 'stalled', ...what, hungAfterMs: p.settings.hungAfterMs });
  if (!p.settings.enabled) return decision('check', 'disabled', { code: 'stalled-disabled', ...what });
  const why: DecisionReason = { code: 'hung', ...what };
  const gate = restartGate(p, now, 'health');
  if (gate) return { ...gate, source: 'check' };
  return orderRestart(p, now, 'check', {
    trigger: 'health',
    evidence: 'hung',
    reason: decisionReasonLine(why),
    why,
    deps: stalled.deps,
    probeClass: 'hung',
    facts: { evidence: 'hung', sessions: stalled.sessions, deps: stalled.deps, quietMs: quietFor },
  });
}

/** What a probe found, as code and facts: its own, or its English line read back (a result made elsewhere). */
function probed(result: ProbeInput): ProbeDetail {
  return result.found ?? decodeProbeDetail(result.detail);
}

/** Forgets the streak of dead probes. */
export function resetDead(p: PolicyContext): void {
  p.s.healthFailures = 0;
  p.s.deadSince = null;
}

/** Probes green while a breaker has been open or throttled for `divergenceMs`: alarmed once per episode. */
export function divergenceAlarm(p: PolicyContext, now: number, breakers: readonly BreakerInput[]): Decision[] {
  const stuck = breakers
    .filter((b) => (b.state === 'open' || b.state === 'throttled') && now - b.since >= p.settings.divergenceMs)
    .sort((a, b) => a.since - b.since);
  const oldest = stuck[0];
  if (p.s.lastProbeGreen === true && oldest) {
    p.s.divergenceSince ??= now;
    if (!p.s.divergenceAlerted) {
      p.s.divergenceAlerted = true;
      const why: DecisionReason = {
        code: 'divergence',
        stuck: stuck.map((b) => ({ dep: b.dep, state: b.state, forMs: now - b.since })),
      };
      const message = decisionReasonLine(why);
      return [
        decision('tick', 'divergence', why, oldest.dep, null, [
          {
            kind: 'divergence',
            dep: oldest.dep,
            stuck: stuck.map((b) => ({ dep: b.dep, state: b.state, forMs: now - b.since })),
            message,
          },
        ]),
      ];
    }
  } else {
    p.s.divergenceSince = null;
    p.s.divergenceAlerted = false;
  }
  return [];
}
