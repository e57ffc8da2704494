/**
 * What a gateway-log signal stands for beyond itself: a fallback decision as the
 * call it reports (for agents whose transcripts cannot be read), a lane error as a
 * turn OpenClaw refused itself, and the agent a session key names.
 */
import { type Outcome, outcomeForReason, type Phase } from '../calls/classify.js';
import type { CallEvent, GatewaySignal, TokenUsage, TurnEvent } from '../calls/events.js';
import { cutCodePoints, VALUE_MAX } from './gateway-log-fields.js';

/** `agent:<id>:…` → `<id>`; null for any other session key. */
export function agentIdOfSessionKey(sessionKey: string | null): string | null {
  const match = sessionKey === null ? null : /^agent:([^:]+):/.exec(sessionKey);
  return match?.[1] ?? null;
}

const NO_USAGE: TokenUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0 };

/**
 * A fallback decision as the call it reports, for when no transcript of the agent
 * is readable: a failed candidate is a failed call of that dependency (OpenClaw's
 * reason mapped onto the outcomes), a successful one an `ok` call so breakers can
 * close again. Other decisions (skipped, probed candidates) are not calls.
 */
export function fallbackAsCall(signal: GatewaySignal, agentId: string): CallEvent | null {
  if (signal.kind !== 'fallback_decision' || signal.candidateDep === null) return null;
  const verdict = callVerdict(signal);
  if (verdict === null) return null;
  const slash = signal.candidateDep.indexOf('/');
  const provider = slash > 0 ? signal.candidateDep.slice(0, slash) : 'unknown';
  const model = slash > 0 ? signal.candidateDep.slice(slash + 1) : signal.candidateDep;
  return {
    key: `gatewaylog/${signal.key}`,
    ts: signal.ts,
    source: 'gatewaylog',
    agentId: agentIdOfSessionKey(signal.sessionKey) ?? agentId,
    sessionId: signal.sessionId ?? 'unknown',
    dep: `${provider}/${model}`,
    provider,
    model,
    api: null,
    stopReason: null,
    outcome: verdict.outcome,
    phase: verdict.phase,
    httpStatus: verdict.outcome === 'ok' ? null : signal.httpStatus,
    errorCode: null,
    retryAfterMs: null,
    credential: null,
    usage: { ...NO_USAGE },
  };
}

function callVerdict(signal: GatewaySignal): { outcome: Outcome; phase: Phase } | null {
  if (signal.decision === 'candidate_succeeded') return { outcome: 'ok', phase: 'complete' };
  if (signal.decision !== 'candidate_failed') return null;
  const outcome = outcomeForReason(signal.reason);
  // A failed candidate is never a success, whatever its reason says.
  return { outcome: outcome === 'ok' ? 'other_error' : outcome, phase: 'before_output' };
}

/**
 * OpenClaw refusing a turn itself, before any request: a key disabled after an
 * auth or billing failure (~1 min after a 401, ~10 min after a 402), every profile
 * in cooldown. Its words, as its lane errors print them.
 */
const LOCAL_REFUSAL = [
  /temporarily disabled/i,
  /\bin cooldown\b/i,
  /cooldown (?:active|in effect)/i,
  /no available auth profile/i,
  /all (?:auth )?profiles? (?:are )?(?:unavailable|in cooldown)/i,
];

/**
 * A turn OpenClaw refused itself, from its lane error: one per run, on the
 * session's lane (`session:agent:<id>:…`; the `main` lane repeats it). Never an
 * upstream call: nothing reached the provider.
 */
export function refusedTurn(signal: GatewaySignal): TurnEvent | null {
  if (signal.kind !== 'lane_error' || signal.detail === null || !signal.lane?.startsWith('session:')) return null;
  if (!LOCAL_REFUSAL.some((pattern) => pattern.test(signal.detail as string))) return null;
  const sessionKey = signal.lane.slice('session:'.length);
  const provider = /provider "([^"]+)"/.exec(signal.detail)?.[1] ?? 'unknown';
  return {
    key: `gatewaylog/${signal.key}`,
    ts: signal.ts,
    source: 'gatewaylog',
    agentId: agentIdOfSessionKey(sessionKey) ?? 'unknown',
    sessionId: signal.sessionId ?? sessionKey.split(':').at(-1) ?? sessionKey,
    runId: signal.runId,
    dep: cutCodePoints(provider, VALUE_MAX),
    outcome: 'refused',
    reason: signal.detail,
  };
}
