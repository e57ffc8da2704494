/**
 * The headline: one sentence that answers "what is wrong, what is BreakerBar
 * doing about it, until when", from the status alone. The dashboard, the tray
 * (tooltip and menu) and `breakerbar status` all open with it, so it is decided
 * here once, as messages, and each surface words it in its reader's language:
 *
 *   429 storm on zhipu/glm-5.1 and anthropic/claude-sonnet-4-5 since 14:02
 *     · fallback deepseek/deepseek-v4-pro answering · restart deferred: Retry-After ends 14:05
 *
 * What is wrong comes first, most severe first (the gateway before a dependency,
 * a quota before a storm it explains); then what the watchdog is doing, or why
 * it is not acting; then anything that mutes it (maintenance, quiet hours).
 */

import type { Message, Translator } from '../words/messages/index.js';
import type { ApiBreaker, ApiStatus } from './types.js';

export type HeadlineTone = 'ok' | 'warning' | 'critical';

export interface Headline {
  tone: HeadlineTone;
  /** What is wrong (or "All well"), then what is being done: joined with " · ". */
  parts: Message[];
}

/** Words a headline in one language. */
export function headlineText(headline: Headline, t: Translator): string {
  return headline.parts.map((part) => t.say(part)).join(' · ');
}

/** A breaker's reason says a provider rate-limited it (the engine's words: "rate_limited", "429", "Retry-After"). */
function rateLimited(breaker: ApiBreaker): boolean {
  return breaker.retryAfterUntil !== null || /rate.?limit|429|retry-after/i.test(breaker.reason);
}

function earliest(values: number[]): number {
  return values.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
}

interface Problem {
  tone: Exclude<HeadlineTone, 'ok'>;
  message: Message;
}

/** What is wrong, most severe first. */
function problems(status: ApiStatus, now: number): Problem[] {
  const found: Problem[] = [];
  const gateway = status.gateway;
  const last = gateway?.last ?? null;
  const w = status.watchdog;
  if (last?.dead) {
    found.push(
      w?.verified?.service === 'unloaded'
        ? { tone: 'critical', message: { key: 'headline.gatewayUnloaded' } }
        : {
            tone: 'critical',
            message: { key: 'headline.gatewayDown', params: { since: gateway?.downSince ?? null, now } },
          },
    );
  } else if (last && !last.ok) {
    if (last.class === 'not_openclaw') found.push({ tone: 'critical', message: { key: 'headline.notOpenClaw' } });
    else if (last.class === 'starting' || last.class === 'draining')
      found.push({ tone: 'warning', message: { key: 'headline.gatewayStarting', params: { state: last.class } } });
    else if (last.class !== 'unknown')
      found.push({ tone: 'warning', message: { key: 'headline.gatewayAnswers', params: { answer: last.class } } });
  }

  const stalled = status.breakers.filter((b) => b.stalled !== null);
  if (!last?.dead && stalled.length > 0) {
    const sessions = stalled.reduce((sum, b) => sum + (b.stalled?.sessions ?? 0), 0);
    const since = earliest(stalled.map((b) => b.stalled?.stuckSince ?? now));
    found.push({ tone: 'warning', message: { key: 'headline.gatewayHung', params: { sessions, since, now } } });
  }

  // A 429 at an exhausted quota window is the quota, not a storm: say when it resets.
  const exhausted = status.quota.filter((q) => q.exhausted);
  const quotaProviders = new Set(exhausted.map((q) => q.provider));
  for (const q of exhausted) {
    found.push({
      tone: 'warning',
      message: {
        key: 'headline.quotaExhausted',
        params: { provider: q.provider, window: q.window, until: q.resetsAt, now },
      },
    });
  }
  const provider = (dep: string) => dep.split('/')[0] ?? dep;
  const out = status.breakers.filter((b) => b.state === 'open' || b.state === 'throttled');
  // An outage dates from when its breaker left closed, not from its latest round of trials (which would move
  // "since" forward at every one); a breaker trying again is "recovering", not also part of the storm.
  const outSince = (b: ApiBreaker) => b.outSince ?? b.since;
  const trying = new Set(status.breakers.filter((b) => b.state === 'half_open').map((b) => b.dep));
  const limitedDeps = new Map<string, number>();
  for (const b of out) if (rateLimited(b)) limitedDeps.set(b.dep, outSince(b));
  for (const d of w?.rateLimited?.deps ?? []) {
    if (!limitedDeps.has(d.dep) && !trying.has(d.dep)) limitedDeps.set(d.dep, w?.rateLimited?.since ?? now);
  }
  const storm = [...limitedDeps].filter(([dep]) => !quotaProviders.has(provider(dep)));
  const stormCounts =
    storm.length > 0 && (out.some((b) => rateLimited(b)) || (w?.consecutiveChecks ?? 0) > 0 || w?.storm);
  if (stormCounts) {
    const since = Math.min(earliest(storm.map(([, ts]) => ts)), w?.storm?.since ?? Number.POSITIVE_INFINITY);
    found.push({
      tone: 'warning',
      message: { key: 'headline.storm', params: { deps: storm.map(([dep]) => dep).sort(), since, now } },
    });
  }
  const failing = out.filter((b) => !limitedDeps.has(b.dep));
  if (failing.length > 0) {
    found.push({
      tone: 'warning',
      message: {
        key: 'headline.failing',
        params: { deps: failing.map((b) => b.dep).sort(), since: earliest(failing.map(outSince)), now },
      },
    });
  }
  const halfOpen = status.breakers.filter((b) => b.state === 'half_open');
  if (halfOpen.length > 0)
    found.push({
      tone: 'warning',
      message: { key: 'headline.recovering', params: { deps: halfOpen.map((b) => b.dep).sort() } },
    });

  const held = status.breakers.filter((b) => b.openclawCooldown !== null && b.openclawCooldown.until > now);
  if (held.length > 0) {
    const first = held.reduce((a, b) => ((a.openclawCooldown?.until ?? 0) <= (b.openclawCooldown?.until ?? 0) ? a : b));
    found.push({
      tone: 'warning',
      message: {
        key: 'headline.cooldown',
        params: {
          deps: held.map((b) => b.dep).sort(),
          until: first.openclawCooldown?.until ?? now,
          reason: first.openclawCooldown?.reason ?? null,
          now,
        },
      },
    });
  }
  const store = status.store;
  if (store && !store.ok)
    found.push({
      tone: 'critical',
      message:
        store.problem === 'full'
          ? { key: 'headline.storeFull', params: { since: store.since ?? now, now } }
          : { key: 'headline.storeLost', params: { problem: store.problem ?? 'replaced' } },
    });
  if (w?.enabled && !w.dryRun && w.budgetRemaining <= 0)
    found.push({ tone: 'critical', message: { key: 'headline.budgetSpent', params: { max: w.maxRestartsPerHour } } });
  for (const source of status.sources) {
    if (source.lastError !== null)
      found.push({
        tone: 'warning',
        message: { key: 'headline.sourceError', params: { source: source.kind, error: source.lastError } },
      });
  }
  const open = status.incidents?.open ?? [];
  if (found.length === 0 && open.length > 0) {
    found.push({
      tone: open.some((i) => i.severity === 'critical') ? 'critical' : 'warning',
      message: { key: 'headline.incidentOpen', params: { since: earliest(open.map((i) => i.openedAt)), now } },
    });
  }
  return found;
}

/*
 * Messages are joined with push and concat, not array literals with spreads: an array literal of several
 * Message elements makes the compiler reduce the whole union of the catalogue's keys, which is too big (TS2590).
 */
function plus(said: Message[], next: Message): Message[] {
  said.push(next);
  return said;
}

function lead(first: Message, rest: Message[]): Message[] {
  return [first].concat(rest);
}

/** What the watchdog is doing about it, or why it is not acting. */
function actions(status: ApiStatus, now: number, gatewayDead: boolean): Message[] {
  const w = status.watchdog;
  const said: Message[] = [];
  const fallbacks = [...new Set((w?.rateLimited?.deps ?? []).flatMap((d) => d.fallbacks))].sort();
  if (fallbacks.length > 0) said.push({ key: 'headline.fallbackAnswering', params: { deps: fallbacks } });
  if (!w) return said;
  if (!w.enabled) return plus(said, { key: 'headline.watchOnly' });
  if (w.paused) return plus(said, { key: 'headline.paused', params: { until: w.pausedUntil, now } });
  if (w.restartInFlight)
    return plus(said, { key: 'headline.restarting', params: { since: w.restartInFlight.since, now } });
  if (w.recovering) {
    const key = w.recovering.pending
      ? 'headline.restartPending'
      : w.recovering.trigger === 'gateway'
        ? 'headline.gatewayRestartingItself'
        : 'headline.verifyingRecovery';
    return plus(said, { key });
  }
  if (w.deferral) {
    const params = { until: w.deferral.until, now };
    said.push(
      w.deferral.cause === 'cooldown'
        ? { key: 'headline.deferredCooldown', params }
        : { key: 'headline.deferredRetryAfter', params },
    );
    return said;
  }
  const stormCounted = w.consecutiveChecks > 0 && fallbacks.length === 0;
  // With storm restarts off a storm is waited out: none of the restart gates below is about it.
  if (stormCounted && !w.stormRestart && !gatewayDead) return plus(said, { key: 'headline.stormWaited' });
  const stormy = stormCounted && w.stormRestart;
  // The owner's rule first: a gateway OpenClaw stopped itself may never have been seen healthy, and that is not why.
  const owner = w.verified?.ownerBlock;
  if ((gatewayDead || stormy) && owner)
    return plus(said, { key: 'headline.blockedByOwner', params: { rule: owner.rule, who: owner.who } });
  if ((gatewayDead || stormy) && !w.seenHealthy) return plus(said, { key: 'headline.blockedNeverHealthy' });
  if ((gatewayDead || stormy) && w.verified && !w.verified.runnable)
    return plus(said, { key: 'headline.blocked', params: { problem: w.verified.problem ?? '?' } });
  if (w.dryRun && (gatewayDead || stormy)) return plus(said, { key: 'headline.dryRun' });
  if (w.budgetRemaining <= 0) return said;
  if (gatewayDead && w.healthFailures < w.healthFailuresBeforeRestart)
    said.push({ key: 'headline.deadCounting', params: { left: w.healthFailuresBeforeRestart - w.healthFailures } });
  else if (stormy && w.consecutiveChecks < w.threshold)
    said.push({ key: 'headline.stormCounting', params: { left: w.threshold - w.consecutiveChecks } });
  return said;
}

export function headline(status: ApiStatus, now: number): Headline {
  const found = problems(status, now);
  const quiet: Message[] = [];
  if (status.quiet) {
    quiet.push({
      key: status.quiet.kind === 'maintenance' ? 'headline.maintenance' : 'headline.quietHours',
      params: { until: status.quiet.until, now },
    });
  }
  if (found.length > 0) {
    const tone = found.some((p) => p.tone === 'critical') ? 'critical' : 'warning';
    const dead = status.gateway?.last?.dead === true;
    const parts = found.map((p) => p.message).concat(actions(status, now, dead), quiet);
    return { tone, parts };
  }
  const callsSeen = status.sources.some((s) => s.calls > 0) || status.breakers.length > 0;
  if (status.gateway && status.gateway.last === null && !callsSeen)
    return { tone: 'ok', parts: lead({ key: 'headline.notProbed' }, quiet) };
  if (!callsSeen) return { tone: 'ok', parts: lead({ key: 'headline.firstRun' }, quiet) };
  const last = status.incidents?.lastClosed ?? null;
  const history: Message[] =
    status.incidents === null
      ? []
      : last?.closedAt != null
        ? [
            {
              key: 'headline.lastIncident',
              params: { closedAt: last.closedAt, now, lastedMs: last.closedAt - last.openedAt },
            },
          ]
        : [{ key: 'headline.noIncidents' }];
  return {
    tone: 'ok',
    parts: lead({ key: 'headline.allWell' }, [
      { key: 'headline.answering', params: { n: status.breakers.length } },
    ]).concat(history, quiet),
  };
}
