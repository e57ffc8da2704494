/**
 * The words BreakerBar uses to tell a human what happened, in one place: the
 * watchdog's alerts and restarts, breaker transitions, budget crossings. The
 * channels only format and deliver.
 */
import type { Transition } from '../breaker/types.js';
import type { NoticeInput } from '../notify/notifier.js';
import type { TokenRate } from '../server/api-types.js';
import type { Alert, Evidence, RestartTrigger } from './policy.js';

const TRIGGER_WORDS: Record<RestartTrigger, string> = {
  storm: 'after a 429 storm',
  health: 'because it was dead or hung',
  manual: 'on request',
};

/** Why a restart starts, as its notice's title says it. */
const EVIDENCE_WORDS: Record<Evidence, string> = {
  storm: 'after a 429 storm',
  dead: 'because it stopped answering',
  unloaded: 'because its service was unloaded',
  hung: 'because it hangs: sessions stalled, no upstream call',
  manual: 'on request',
};

export function alertNotice(alert: Alert, ts: number): NoticeInput {
  const titles: Record<Alert['kind'], string> = {
    restart_deferred: alert.message.includes('OpenClaw holds')
      ? `Restart held: OpenClaw keeps ${alert.dep ?? 'a provider'} in cooldown`
      : `Restart deferred: ${alert.dep ?? 'upstream'} asked to retry later`,
    restart_budget_exhausted: 'Restart budget spent: the watchdog stopped restarting',
    gateway_down: 'OpenClaw gateway is down',
    gateway_up: 'OpenClaw gateway is back',
    divergence: 'Health checks green, but a provider is down',
    fallback_answering: `${alert.dep ?? 'A provider'} is rate limited; fallbacks are answering`,
    restart_would_run: 'Dry run: the watchdog would restart the gateway',
    watchdog_blocked: 'The watchdog will not restart the gateway',
  };
  return { kind: alert.kind, dep: alert.dep, title: titles[alert.kind], body: alert.message, ts };
}

export function restartStartedNotice(evidence: Evidence, reason: string, command: string, ts: number): NoticeInput {
  return {
    kind: 'restart_started',
    dep: null,
    title: `Restarting the OpenClaw gateway ${EVIDENCE_WORDS[evidence]}`,
    body: `${reason}. Running: ${command}.`,
    ts,
  };
}

export function restartFailedNotice(trigger: RestartTrigger, message: string, ts: number): NoticeInput {
  return {
    kind: 'restart_failed',
    dep: null,
    title: `Gateway restart ${TRIGGER_WORDS[trigger]} failed`,
    body: message,
    ts,
  };
}

export function restartSucceededNotice(trigger: RestartTrigger, message: string, ts: number): NoticeInput {
  return {
    kind: 'restart_succeeded',
    dep: null,
    title: `Gateway recovered after a restart ${TRIGGER_WORDS[trigger]}`,
    body: message,
    ts,
  };
}

/** Breaker transitions worth a human's attention: open, throttled, and back to closed. */
export function transitionNotice(transition: Transition, ts: number): NoticeInput | null {
  const { dep, to, reason } = transition;
  if (to === 'open') return { kind: 'breaker_opened', dep, title: `${dep} breaker opened`, body: `${reason}.`, ts };
  if (to === 'throttled') {
    return { kind: 'breaker_throttled', dep, title: `${dep} is throttled by its provider`, body: `${reason}.`, ts };
  }
  if (to === 'closed' && transition.from !== 'closed') {
    return { kind: 'breaker_closed', dep, title: `${dep} recovered`, body: `Breaker closed: ${reason}.`, ts };
  }
  return null;
}

export function budgetNotice(rate: TokenRate, ts: number): NoticeInput {
  return {
    kind: 'token_budget',
    dep: rate.dep,
    title: `Token budget crossed: ${rate.agentId} on ${rate.dep}`,
    body: `${rate.tokensPerMinute.toLocaleString('en-US')} tokens in the last minute (budget ${rate.budget?.toLocaleString('en-US') ?? '?'}).`,
    ts,
  };
}
