/**
 * The words BreakerBar uses to tell a human what happened, in one place: the
 * watchdog's alerts and restarts, breaker transitions, budget crossings. The
 * policy hands over facts (kinds, dependencies, counts, durations); this module
 * words them with the daemon's translator (area `notices` of the catalogue).
 * The channels only format and deliver.
 */

import type { Translator } from '../../words/messages/index.js';
import type { Transition } from '../breaker/types.js';
import type { RestartTrigger } from '../gateway/control.js';
import type { NoticeInput } from '../notify/notice.js';
import type { Alert, AlertFacts, Evidence, RestartFacts } from './policy-decisions.js';

/** The title and body of an alert, from its facts. */
export function noticeText(facts: AlertFacts, dep: string | null, t: Translator): { title: string; body: string } {
  switch (facts.kind) {
    case 'restart_deferred':
      return {
        title:
          facts.cause === 'cooldown'
            ? t.t('notices.restartDeferred.cooldown.title', { dep })
            : t.t('notices.restartDeferred.retryAfter.title', { dep }),
        body: t.t('notices.restartDeferred.body', facts),
      };
    case 'restart_budget_exhausted':
      return { title: t.t('notices.budgetExhausted.title'), body: t.t('notices.budgetExhausted.body', facts) };
    case 'gateway_down':
      return { title: t.t('notices.gatewayDown.title'), body: t.t('notices.gatewayDown.body', facts) };
    case 'gateway_up':
      return { title: t.t('notices.gatewayUp.title'), body: t.t('notices.gatewayUp.body') };
    case 'divergence':
      return { title: t.t('notices.divergence.title'), body: t.t('notices.divergence.body', facts) };
    case 'fallback_answering':
      return {
        title: t.t('notices.fallbackAnswering.title', { dep }),
        body: t.t('notices.fallbackAnswering.body', facts),
      };
    case 'restart_would_run':
      return {
        title: t.t('notices.wouldRun.title'),
        body: t.t('notices.wouldRun.body', { why: whyText(facts.order, t) }),
      };
    case 'watchdog_blocked':
      return { title: t.t('notices.blocked.title'), body: t.t('notices.blocked.body', facts.blocked) };
  }
}

/** Why a restart was ordered, as one clause (no final stop). */
export function whyText(facts: RestartFacts, t: Translator): string {
  switch (facts.evidence) {
    case 'storm':
      return t.t('notices.why.storm', facts);
    case 'dead':
      return t.t('notices.why.dead', facts);
    case 'unloaded':
      return t.t('notices.why.unloaded', facts);
    case 'hung':
      return t.t('notices.why.hung', facts);
    case 'manual':
      return t.t('notices.why.manual', facts);
  }
}

export function alertNotice(alert: Alert, ts: number, t: Translator): NoticeInput {
  return { kind: alert.kind, dep: alert.dep, ...noticeText(alert, alert.dep, t), ts };
}

/**
 * A restart begins. `facts` is null for an order that carries none (made outside the policy): its English
 * `reason` is all there is to say then.
 */
export function restartStartedNotice(
  evidence: Evidence,
  why: RestartFacts | string,
  command: string | null,
  ts: number,
  t: Translator,
): NoticeInput {
  const clause = typeof why === 'string' ? why : whyText(why, t);
  return {
    kind: 'restart_started',
    dep: null,
    title: t.t('notices.restartStarted.title', { evidence }),
    body: t.t('notices.restartStarted.body', { why: clause, command }),
    ts,
  };
}

/** The restart command failed; `message` is the command's own report (exit code, output). */
export function restartFailedNotice(trigger: RestartTrigger, message: string, ts: number, t: Translator): NoticeInput {
  return {
    kind: 'restart_failed',
    dep: null,
    title: t.t('notices.restartFailed.title', { trigger }),
    body: t.t('notices.restartFailed.body', { message }),
    ts,
  };
}

/** The restart ran, but the gateway did not start within its grace. */
export function notRecoveredNotice(
  trigger: RestartTrigger,
  grace: { graceMs: number; pending: boolean },
  ts: number,
  t: Translator,
): NoticeInput {
  return {
    kind: 'restart_failed',
    dep: null,
    title: t.t('notices.restartFailed.title', { trigger }),
    body: t.t('notices.notRecovered.body', grace),
    ts,
  };
}

export function restartSucceededNotice(
  trigger: RestartTrigger,
  recoveryMs: number,
  ts: number,
  t: Translator,
): NoticeInput {
  return {
    kind: 'restart_succeeded',
    dep: null,
    title: t.t('notices.restartSucceeded.title', { trigger }),
    body: t.t('notices.restartSucceeded.body', { recoveryMs }),
    ts,
  };
}

/**
 * Breaker transitions worth a human's attention: open, throttled, and back to closed. The transition's
 * reason is the breaker engine's own (English) account of the numbers; the title says what happened.
 */
export function transitionNotice(transition: Transition, ts: number, t: Translator): NoticeInput | null {
  const { dep, to, reason } = transition;
  if (to === 'open')
    return {
      kind: 'breaker_opened',
      dep,
      title: t.t('notices.breakerOpened.title', { dep }),
      body: t.t('notices.breakerOpened.body', { reason }),
      ts,
    };
  if (to === 'throttled') {
    return {
      kind: 'breaker_throttled',
      dep,
      title: t.t('notices.breakerThrottled.title', { dep }),
      body: t.t('notices.breakerThrottled.body', { reason }),
      ts,
    };
  }
  if (to === 'closed' && transition.from !== 'closed') {
    return {
      kind: 'breaker_closed',
      dep,
      title: t.t('notices.breakerClosed.title', { dep }),
      body: t.t('notices.breakerClosed.body', { reason }),
      ts,
    };
  }
  return null;
}

/**
 * What a token budget notice says about the crossing. The breakers' token rates carry it (and more); the notice
 * asks only for this, so that the wording depends on no API type.
 */
export interface TokenBudgetCrossing {
  agentId: string;
  dep: string;
  tokensPerMinute: number;
  budget: number | null;
}

export function budgetNotice(rate: TokenBudgetCrossing, ts: number, t: Translator): NoticeInput {
  return {
    kind: 'token_budget',
    dep: rate.dep,
    title: t.t('notices.tokenBudget.title', { agent: rate.agentId, dep: rate.dep }),
    body: t.t('notices.tokenBudget.body', { tokens: rate.tokensPerMinute, budget: rate.budget ?? null }),
    ts,
  };
}
