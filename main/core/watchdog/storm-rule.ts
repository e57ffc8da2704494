/**
 * The storm rule: when new rate-limited calls amount to a 429 storm, and whether a storm restarts the
 * gateway or is waited out.
 *
 * The storm evidence, only when `restartOnStorm` (off by default): new rate_limited
 * calls in `threshold` consecutive checks, no fallback answering, and every
 * Retry-After and OpenClaw cooldown in force for the affected dependencies
 * over (a restart cannot lift a provider's limit, and OpenClaw's cooldowns
 * survive restarts). While one holds, the storm is shown with its end and
 * alerted once; each Retry-After holds at most `maxDeferralMs` from when it
 * was first seen, and a new one holds again. Off, the storm is judged and
 * waited out: measured on OpenClaw 2026.9.6, its runs retry through a storm
 * by themselves (at the provider's Retry-After, then on its own backoff) and
 * end ok once the provider answers, while a `--safe` restart only takes
 * effect once they have drained, that is after the storm, and then takes the
 * gateway down just as the agents come back. A storm that leaves the gateway
 * stalled is restarted as hung (health-rules.ts).
 */

import { type DecisionReason, decisionReasonLine } from '../../words/decision-reasons.js';
import { type Decision, decision, type RestartFacts } from './policy-decisions.js';
import type { CheckInput } from './policy-inputs.js';
import { alertOnce, type PolicyContext } from './policy-state.js';
import { orderRestart, restartGate } from './restart-gate.js';

/** Retry-After deadlines this close are the same ask (see `askSeenAt`). */
const SAME_ASK_MS = 1000;
/** After a storm's Retry-After ends, how long its retry may take to reach the store (see `retryDue`). */
const RETRY_DUE_GRACE_MS = 15_000;

/**
 * A check without new rate-limited calls while a dependency of the storm being counted is still held by
 * its Retry-After or OpenClaw's cooldown: the gateway is waiting as it was asked to, so the quiet is no
 * sign that the storm is over. Resetting the count then would hide every storm whose Retry-After is
 * longer than the check interval (a provider asking for 120 s against 60 s checks), and with it every
 * restart it needs once the hold is over. The count is held instead; a storm already judged is judged
 * again on the dependencies it stood on (the hold may have reached its longest allowed time meanwhile).
 * Null when nothing holds a dependency of the storm.
 */
export function waitingOut(p: PolicyContext, now: number, deps: CheckInput['deps']): Decision | null {
  const storm = p.s.rateLimited;
  if (storm === null || p.s.consecutiveChecks === 0) return null;
  const counted = new Set(storm.deps.map((d) => d.dep));
  const held = deps.filter(
    (d) => counted.has(d.dep) && ((d.retryAfterUntil ?? 0) > now || (d.cooldownUntil ?? 0) > now),
  );
  const first = held[0];
  if (!p.settings.enabled) return null;
  if (first === undefined) return retryDue(p, now, counted);
  if (p.s.consecutiveChecks >= p.settings.threshold) return judgeStorm(p, now, held);
  const until = Math.max(first.retryAfterUntil ?? 0, first.cooldownUntil ?? 0);
  const by = (first.retryAfterUntil ?? 0) >= (first.cooldownUntil ?? 0) ? 'retry_after' : 'cooldown';
  return decision(
    'check',
    'counting',
    {
      code: 'storm-held',
      dep: first.dep,
      by,
      leftMs: until - now,
      count: p.s.consecutiveChecks,
      threshold: p.settings.threshold,
    },
    first.dep,
  );
}

/**
 * A quiet check just after a Retry-After of the storm ended: OpenClaw retries at the deadline plus a little
 * (its own pacing), and the retry's 429 reaches the store a moment later, so a check falling in between has
 * not seen it yet. The count is held, never judged: the storm may also have ended. Null once
 * `RETRY_DUE_GRACE_MS` has passed since every such deadline.
 */
function retryDue(p: PolicyContext, now: number, counted: ReadonlySet<string>): Decision | null {
  const due = p.s.asks.find((a) => counted.has(a.dep) && a.until <= now && now - a.until < RETRY_DUE_GRACE_MS);
  if (due === undefined) return null;
  const { consecutiveChecks: count } = p.s;
  const { threshold } = p.settings;
  return decision(
    'check',
    'counting',
    { code: 'retry-due', dep: due.dep, agoMs: now - due.until, count, threshold },
    due.dep,
  );
}

/**
 * The storm has lasted `threshold` checks: a fallback answering, storm restarts off, an upstream hold, the
 * gates, or a restart.
 */
export function judgeStorm(p: PolicyContext, now: number, affected: CheckInput['deps']): Decision {
  const top = affected[0]?.dep ?? null;
  const stormMs = now - (p.s.stormSince ?? now);
  // A storm the gateway's fallbacks are absorbing is not a stalled gateway.
  if (affected.every((d) => d.workingFallbacks.length > 0)) {
    resetStorm(p);
    const detail = affected.map((d) => `${d.dep} → ${d.workingFallbacks.join(', ')}`).join('; ');
    const deps = affected.map((d) => ({ dep: d.dep, fallbacks: d.workingFallbacks }));
    return decision('check', 'fallback_answering', { code: 'fallbacks', deps }, top, null, [
      {
        kind: 'fallback_answering',
        dep: top,
        deps,
        message: `Rate limited, fallbacks answering: ${detail}. No restart.`,
      },
    ]);
  }
  if (!p.settings.restartOnStorm) {
    // The count stays: the storm is judged once, then each check says it goes on (no recount, no reset).
    return decision(
      'check',
      'storm_waited',
      { code: 'storm-waited', deps: affected.map((d) => d.dep), forMs: stormMs },
      top,
    );
  }
  const hold = upstreamHold(p, now, affected);
  if (hold) return hold;
  const gate = restartGate(p, now, 'storm');
  if (gate) return { ...gate, source: 'check', dep: top };

  const stillHeld = affected.some((d) => (d.retryAfterUntil ?? 0) > now || (d.cooldownUntil ?? 0) > now);
  const facts: RestartFacts = {
    evidence: 'storm',
    deps: affected.map((d) => d.dep),
    forMs: stormMs,
    upstream: stillHeld ? 'held_longest' : p.s.deferral !== null ? 'over' : 'none',
    heldMs: p.settings.maxDeferralMs,
  };
  const why: DecisionReason = {
    code: 'storm',
    deps: facts.deps,
    forMs: facts.forMs,
    upstream: facts.upstream,
    heldMs: facts.heldMs,
  };
  resetStorm(p);
  return orderRestart(p, now, 'check', {
    trigger: 'storm',
    evidence: 'storm',
    reason: decisionReasonLine(why),
    why,
    deps: affected.map((d) => d.dep),
    probeClass: null,
    facts,
  });
}

/**
 * Holds a storm restart while a Retry-After or an OpenClaw cooldown is in force for an affected dependency.
 * One Retry-After holds at most `maxDeferralMs` from when it was first seen (a provider may ask for anything),
 * and each new one holds again: a provider that keeps asking is being waited out by OpenClaw, whose turns
 * wait instead of failing, so a restart cannot shorten the storm and would cost the turns waiting in it.
 * OpenClaw's cooldown holds as long as it lasts: it is OpenClaw's own state, which a restart keeps, and a
 * long one is alerted on by itself. Alerted once per storm.
 */
function upstreamHold(p: PolicyContext, now: number, affected: CheckInput['deps']): Decision | null {
  const since = p.s.deferral?.since ?? now;
  let binding: { dep: string; until: number; asked: number; cause: 'retry_after' | 'cooldown' } | null = null;
  for (const d of affected) {
    const retryAfter =
      d.retryAfterUntil === null
        ? null
        : Math.min(d.retryAfterUntil, askSeenAt(p, d.dep, d.retryAfterUntil, now) + p.settings.maxDeferralMs);
    for (const [until, asked, cause] of [
      [retryAfter, d.retryAfterUntil, 'retry_after'],
      [d.cooldownUntil ?? null, d.cooldownUntil ?? null, 'cooldown'],
    ] as const) {
      if (until !== null && asked !== null && until > now && (binding === null || until > binding.until))
        binding = { dep: d.dep, until, asked, cause };
    }
  }
  if (binding === null) return null;
  p.s.deferral = { since, until: binding.until, dep: binding.dep, cause: binding.cause };
  const why: DecisionReason = {
    code: 'deferred',
    deps: affected.map((d) => d.dep),
    dep: binding.dep,
    cause: binding.cause,
    askedMs: binding.asked - now,
    heldMs: binding.until - now,
  };
  const reason = decisionReasonLine(why);
  const alerts = alertOnce(p, 'deferralAlerted', {
    kind: 'restart_deferred',
    dep: binding.dep,
    deps: affected.map((d) => d.dep),
    cause: binding.cause,
    askedMs: binding.asked - now,
    heldMs: binding.until - now,
    message: reason,
  });
  return decision('check', 'deferred', why, binding.dep, null, alerts);
}

/**
 * When the dependency's Retry-After deadline `until` was first seen (now, if it is a new one). Deadlines
 * within `SAME_ASK_MS` of each other are one ask: the watchdog converts each wall-clock deadline to the steady
 * clock anew, which moves it by a few milliseconds.
 */
export function askSeenAt(p: PolicyContext, dep: string, until: number, now: number): number {
  const known = p.s.asks.find((a) => a.dep === dep);
  if (known && Math.abs(known.until - until) < SAME_ASK_MS) return known.seenAt;
  p.s.asks = [...p.s.asks.filter((a) => a.dep !== dep), { dep, until, seenAt: now }];
  return now;
}

/** Forgets the storm being counted, with its hold and the Retry-After asks it saw. */
export function resetStorm(p: PolicyContext): void {
  p.s.consecutiveChecks = 0;
  p.s.stormSince = null;
  p.s.deferral = null;
  p.s.asks = [];
  p.s.deferralAlerted = false;
}
