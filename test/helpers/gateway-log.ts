/**
 * Realistic lines of the OpenClaw gateway's JSON log for tests (format: shared
 * docs, "Gateway JSON log"), each with what the parser must make of it.
 *
 * Lines are tslog objects as the gateway writes them: bindings in `"0"`, the
 * message text in `"1"`, or structured fields in `"1"` and the text in `"2"`,
 * `_meta` with the UTC date and level, `time` with the local offset. Every signal
 * comes in both forms (structured fields and console text). Beside them are lines
 * of every other shape: other subsystems, other messages of the same subsystems,
 * and user text that talks about rate limits and fallback decisions, which must
 * never become a signal.
 *
 * Deterministic for a given seed; times are whatever the caller passes.
 */
import { appendFileSync } from 'node:fs';
import type { GatewaySignal, SignalKind } from '../../main/core/calls/events.js';
import { isoWithOffset, type TslogOptions, tslogLine } from '../../main/simulator/gateway-log-lines.js';
import { seededRandom } from '../../main/simulator/records.js';

// The tslog line writer ships with the rehearsal (it writes gateway logs too): one implementation, used here.
export { isoWithOffset, type TslogOptions, tslogLine };

/** Structured fields (`"1"` an object, text in `"2"`) or console text with `key=value` pairs. */
export type Form = 'fields' | 'text';
export const FORMS: readonly Form[] = ['fields', 'text'];

/** A signal as the parser must produce it, without its key (which depends on where the line sits). */
export type ExpectedSignal = Omit<GatewaySignal, 'key'>;

export interface LogLine {
  /** One JSON line, without the newline. */
  line: string;
  /** The signal it must become, or null for a well-formed line that is not one (ignored, counted as unknown). */
  signal: ExpectedSignal | null;
}

/** A full expected signal: the given fields, everything else null. */
export function expectSignal(kind: SignalKind, ts: number, fields: Partial<ExpectedSignal> = {}): ExpectedSignal {
  return {
    ts,
    kind,
    sessionId: null,
    sessionKey: null,
    runId: null,
    dep: null,
    candidateDep: null,
    decision: null,
    reason: null,
    httpStatus: null,
    finalOutcome: null,
    lane: null,
    durationMs: null,
    classification: null,
    detail: null,
    ...fields,
  };
}

const split = (dep: string) => {
  const slash = dep.indexOf('/');
  return { provider: dep.slice(0, slash), model: dep.slice(slash + 1) };
};

export interface FallbackOptions {
  decision: 'candidate_failed' | 'candidate_succeeded' | 'skip_candidate' | 'probe_cooldown_candidate';
  requested: string;
  candidate: string;
  reason: string | null;
  /** HTTP status of the failed attempt, when there was one. */
  httpCode?: number;
  /** `fallbackStepFinalOutcome` (structured form only). */
  final?: 'next_fallback' | 'succeeded' | 'chain_exhausted';
  next?: string;
  sessionKey?: string;
  sessionId?: string;
}

/** `model-fallback/decision`: `model fallback decision`. */
export function fallbackDecision(ts: number, form: Form, o: FallbackOptions): LogLine {
  const ids = { sessionKey: o.sessionKey ?? null, sessionId: o.sessionId ?? null };
  const expected = expectSignal('fallback_decision', ts, {
    ...ids,
    dep: o.requested,
    candidateDep: o.candidate,
    decision: o.decision,
    reason: o.reason,
    httpStatus: o.httpCode ?? null,
    finalOutcome: form === 'fields' ? (o.final ?? null) : null,
  });
  if (form === 'text') {
    const pairs = [
      `decision=${o.decision}`,
      `requested=${o.requested}`,
      `candidate=${o.candidate}`,
      o.reason === null ? null : `reason=${o.reason}`,
      o.httpCode === undefined ? null : `status=${o.httpCode}`,
      o.next === undefined ? null : `next=${o.next}`,
      o.sessionKey === undefined ? null : `sessionKey=${o.sessionKey}`,
      o.sessionId === undefined ? null : `sessionId=${o.sessionId}`,
    ].filter((pair) => pair !== null);
    const text = `model fallback decision: ${pairs.join(' ')}`;
    return { line: tslogLine({ subsystem: 'model-fallback/decision', ts, text, level: 'WARN' }), signal: expected };
  }
  const requested = split(o.requested);
  const candidate = split(o.candidate);
  const fields = {
    event: 'model_fallback_decision',
    decision: o.decision,
    requestedProvider: requested.provider,
    requestedModel: requested.model,
    candidateProvider: candidate.provider,
    candidateModel: candidate.model,
    attempt: 2,
    total: 3,
    reason: o.reason ?? undefined,
    status: o.httpCode,
    httpCode: o.httpCode,
    fallbackStepFinalOutcome: o.final,
    ...(o.next === undefined ? {} : { nextCandidate: o.next }),
    sessionKey: o.sessionKey,
    sessionId: o.sessionId,
  };
  const line = tslogLine({ subsystem: 'model-fallback/decision', ts, text: 'model fallback decision', fields });
  return { line, signal: expected };
}

export interface FailoverOptions {
  runId: string;
  decision: string;
  reason: string;
  from: string;
  to?: string;
  sessionId?: string;
}

/** `agent/embedded`: `embedded run failover decision`. */
export function failoverDecision(ts: number, form: Form, o: FailoverOptions): LogLine {
  const expected = expectSignal('failover_decision', ts, {
    runId: o.runId,
    sessionId: o.sessionId ?? null,
    dep: o.from,
    candidateDep: o.to ?? null,
    decision: o.decision,
    reason: o.reason,
  });
  const base = { subsystem: 'agent/embedded', ts, level: 'WARN' as const };
  if (form === 'text') {
    const text =
      `embedded run failover decision: runId=${o.runId} stage=assistant decision=${o.decision} reason=${o.reason} ` +
      `from=${o.from}${o.to ? ` to=${o.to}` : ''}${o.sessionId ? ` sessionId=${o.sessionId}` : ''} profile=sha256:9f86d081 …`;
    return { line: tslogLine({ ...base, text }), signal: expected };
  }
  const from = split(o.from);
  const to = o.to === undefined ? null : split(o.to);
  const fields = {
    runId: o.runId,
    sessionId: o.sessionId,
    stage: 'assistant',
    decision: o.decision,
    reason: o.reason,
    fromProvider: from.provider,
    fromModel: from.model,
    toProvider: to?.provider,
    toModel: to?.model,
  };
  return { line: tslogLine({ ...base, text: 'embedded run failover decision', fields }), signal: expected };
}

/** `agent/embedded`: `embedded run timeout`. */
export function runTimeout(
  ts: number,
  form: Form,
  o: { runId: string; sessionId: string; timeoutMs: number },
): LogLine {
  const expected = expectSignal('run_timeout', ts, {
    runId: o.runId,
    sessionId: o.sessionId,
    durationMs: o.timeoutMs,
  });
  const base = { subsystem: 'agent/embedded', ts, level: 'WARN' as const };
  if (form === 'text') {
    const text = `embedded run timeout: runId=${o.runId} sessionId=${o.sessionId} timeoutMs=${o.timeoutMs}`;
    return { line: tslogLine({ ...base, text }), signal: expected };
  }
  const fields = { runId: o.runId, sessionId: o.sessionId, timeoutMs: o.timeoutMs };
  return { line: tslogLine({ ...base, text: 'embedded run timeout', fields }), signal: expected };
}

/** Lane errors as OpenClaw words them, with the reason BreakerBar must see in each. */
export const LANE_ERRORS: ReadonlyArray<{ error: string; reason: string | null }> = [
  { error: 'FailoverError: ⚠️ API rate limit reached. Please try again later.', reason: 'rate_limit' },
  { error: 'FailoverError: 429 该模型当前访问量过大，请您稍后再试', reason: 'rate_limit' },
  { error: 'FailoverError: LLM request timed out.', reason: null },
  { error: 'Error: tool "exec" failed: "npm test" exited with code 1', reason: null },
];

/** `diagnostic`: `lane task error`. */
export function laneError(ts: number, form: Form, o: { lane: string; durationMs: number; error: string }): LogLine {
  const rule = LANE_ERRORS.find((e) => e.error === o.error);
  const expected = expectSignal('lane_error', ts, {
    lane: o.lane,
    durationMs: o.durationMs,
    detail: o.error.slice(0, 300),
    reason: rule ? rule.reason : null,
  });
  const base = { subsystem: 'diagnostic', ts, level: 'ERROR' as const };
  if (form === 'text') {
    const text = `lane task error: lane=${o.lane} durationMs=${o.durationMs} error=${JSON.stringify(o.error)}`;
    return { line: tslogLine({ ...base, text }), signal: expected };
  }
  const fields = { lane: o.lane, durationMs: o.durationMs, error: o.error };
  return { line: tslogLine({ ...base, text: 'lane task error', fields }), signal: expected };
}

export interface StallOptions {
  sessionId: string;
  sessionKey: string;
  state: string;
  /** As printed (`216s`, `4m`) and in ms. */
  age: string;
  ageMs: number;
  reason: string;
  classification: string;
}

/** `diagnostic`: `stalled session`. */
export function stalledSession(ts: number, form: Form, o: StallOptions): LogLine {
  const expected = expectSignal('stall', ts, {
    sessionId: o.sessionId,
    sessionKey: o.sessionKey,
    durationMs: o.ageMs,
    classification: o.classification,
    reason: o.reason,
  });
  const base = { subsystem: 'diagnostic', ts, level: 'WARN' as const };
  if (form === 'text') {
    const text =
      `stalled session: sessionId=${o.sessionId} sessionKey=${o.sessionKey} state=${o.state} age=${o.age} ` +
      `queueDepth=1 reason=${o.reason} classification=${o.classification} lastProgress=${o.age} …`;
    return { line: tslogLine({ ...base, text }), signal: expected };
  }
  const fields = {
    sessionId: o.sessionId,
    sessionKey: o.sessionKey,
    state: o.state,
    ageMs: o.ageMs,
    queueDepth: 1,
    reason: o.reason,
    classification: o.classification,
  };
  return { line: tslogLine({ ...base, text: 'stalled session', fields }), signal: expected };
}

/** `diagnostic`: the older `stuck session` (no classification: the state stands in for it). */
export function stuckSession(
  ts: number,
  form: Form,
  o: { sessionId: string; state: string; age: string; ageMs: number },
): LogLine {
  const expected = expectSignal('stall', ts, { sessionId: o.sessionId, durationMs: o.ageMs, classification: o.state });
  const base = { subsystem: 'diagnostic', ts, level: 'WARN' as const };
  if (form === 'text') {
    const text = `stuck session: sessionId=${o.sessionId} state=${o.state} age=${o.age} queueDepth=2`;
    return { line: tslogLine({ ...base, text }), signal: expected };
  }
  const fields = { sessionId: o.sessionId, state: o.state, ageMs: o.ageMs, queueDepth: 2 };
  return { line: tslogLine({ ...base, text: 'stuck session', fields }), signal: expected };
}

/** `gateway`: an in-process restart beginning (the message has no fields in either form). */
export function gatewayRestart(ts: number): LogLine {
  return {
    line: tslogLine({ subsystem: 'gateway', ts, level: 'INFO', text: 'received SIGUSR2; restarting' }),
    signal: expectSignal('gateway_restart', ts),
  };
}

/** What a user wrote, quoted by a channel's log line: it talks about everything BreakerBar reads. */
export const USER_TEXT =
  'why do I keep getting "API rate limit reached"? the log said model fallback decision: decision=candidate_failed ' +
  'reason=rate_limit and lane task error: lane=main error="429" and stalled session age=216s';

/** Well-formed lines that are not signals, one of each shape. */
export function unknownLines(ts: number): LogLine[] {
  const ignored = (line: string): LogLine => ({ line, signal: null });
  return [
    ignored(tslogLine({ subsystem: 'gateway/ws', ts, text: 'webchat connected', fields: { connId: 'c-17' } })),
    ignored(
      tslogLine({
        subsystem: 'gateway/channels/telegram',
        ts,
        text: `inbound message: chatId=42 text=${JSON.stringify(USER_TEXT)}`,
      }),
    ),
    ignored(tslogLine({ subsystem: 'gateway/channels/telegram', ts, text: USER_TEXT })),
    ignored(
      tslogLine({
        subsystem: 'model-fallback/decision',
        ts,
        text: 'model fallback chain: primary=zhipu/glm-5.1 fallbacks=2',
      }),
    ),
    ignored(
      tslogLine({
        subsystem: 'agent/embedded',
        ts,
        text: 'embedded run start: runId=r-1 sessionId=s-1 provider=zhipu model=glm-5.1',
      }),
    ),
    ignored(
      tslogLine({ subsystem: 'agent/embedded', ts, text: `embedded run prompt: text=${JSON.stringify(USER_TEXT)}` }),
    ),
    ignored(
      tslogLine({
        subsystem: 'diagnostic',
        ts,
        text: 'session state: sessionId=s-1 prev=idle new=processing reason="run started"',
      }),
    ),
    ignored(tslogLine({ subsystem: null, ts, text: 'Gateway listening on ws://127.0.0.1:18789' })),
    ignored('[1,2,3]'),
    ignored('"lane task error: lane=main error=\\"rate limit\\""'),
    ignored('42'),
    ignored('{}'),
  ];
}

/** Lines that are not usable: not JSON, cut short, or a signal without a time. */
export function malformedLines(ts: number): string[] {
  const whole = laneError(ts, 'text', { lane: 'main', durationMs: 1200, error: LANE_ERRORS[0]?.error ?? '' }).line;
  return [
    whole.slice(0, Math.floor(whole.length / 2)),
    'Gateway listening on ws://127.0.0.1:18789',
    `${whole}}`,
    tslogLine({
      subsystem: 'diagnostic',
      ts,
      text: 'stuck session: sessionId=s-9 state=processing age=30s',
      withoutTime: true,
    }),
  ];
}

const DEPS = ['zhipu/glm-5.1', 'deepseek/deepseek-v4-pro', 'anthropic/claude-sonnet-4-5', 'openai-codex/gpt-5.5'];
const REASONS: ReadonlyArray<{ reason: string; httpCode?: number }> = [
  { reason: 'rate_limit', httpCode: 429 },
  { reason: 'overloaded', httpCode: 529 },
  { reason: 'timeout' },
  { reason: 'billing', httpCode: 402 },
  { reason: 'auth', httpCode: 401 },
];

export interface GenerateOptions {
  start: number;
  count: number;
  seed?: number;
  /** Time between lines (default 1 s). */
  stepMs?: number;
  /** Session keys name this agent (default `main`). */
  agentId?: string;
}

/** `count` lines, a mix of every signal in both forms and of unknown lines, times `stepMs` apart. */
export function generateGatewayLog(options: GenerateOptions): LogLine[] {
  const next = seededRandom(options.seed ?? 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const agent = options.agentId ?? 'main';
  const lines: LogLine[] = [];
  for (let i = 0; i < options.count; i++) {
    const ts = options.start + i * (options.stepMs ?? 1000);
    const form = pick(FORMS);
    const n = `${options.seed ?? 1}-${i}`;
    const sessionKey = `agent:${agent}:telegram:direct:${1000 + (i % 7)}`;
    const makers: Array<() => LogLine> = [
      () => {
        const failure = pick(REASONS);
        const decision = pick([
          'candidate_failed',
          'candidate_failed',
          'candidate_succeeded',
          'skip_candidate',
        ] as const);
        const failed = decision === 'candidate_failed';
        return fallbackDecision(ts, form, {
          decision,
          requested: DEPS[0] as string,
          candidate: pick(DEPS),
          reason: decision === 'candidate_succeeded' ? null : failure.reason,
          ...(failed && failure.httpCode ? { httpCode: failure.httpCode } : {}),
          final: failed ? 'next_fallback' : 'succeeded',
          next: DEPS[1] as string,
          sessionKey,
          sessionId: `s-${n}`,
        });
      },
      () =>
        failoverDecision(ts, form, {
          runId: `r-${n}`,
          decision: pick(['surface_error', 'fallback_model']),
          reason: pick(REASONS).reason,
          from: pick(DEPS),
          ...(next() < 0.5 ? { to: DEPS[1] as string } : {}),
        }),
      () => runTimeout(ts, form, { runId: `r-${n}`, sessionId: `s-${n}`, timeoutMs: 600_000 }),
      () =>
        laneError(ts, form, {
          lane: pick(['main', 'cron', 'subagent']),
          durationMs: 65_602,
          error: pick(LANE_ERRORS).error,
        }),
      () =>
        stalledSession(ts, form, {
          sessionId: `s-${n}`,
          sessionKey,
          state: 'processing',
          age: '216s',
          ageMs: 216_000,
          reason: 'active_work_without_progress',
          classification: 'stalled_agent_run',
        }),
      () => stuckSession(ts, form, { sessionId: `s-${n}`, state: 'processing', age: '4m', ageMs: 240_000 }),
      () => gatewayRestart(ts),
      () => pick(unknownLines(ts)),
      () => pick(unknownLines(ts)),
    ];
    lines.push(pick(makers)());
  }
  return lines;
}

/** The lines as file content, each ending in a newline. */
export function logText(lines: ReadonlyArray<LogLine | string>): string {
  return lines.map((l) => `${typeof l === 'string' ? l : l.line}\n`).join('');
}

export function appendLog(path: string, lines: ReadonlyArray<LogLine | string>): void {
  appendFileSync(path, logText(lines));
}

export function signalsOf(lines: readonly LogLine[]): ExpectedSignal[] {
  return lines.flatMap((l) => (l.signal ? [l.signal] : []));
}

export function countByKind(lines: readonly LogLine[]): Record<SignalKind, number> {
  const counts: Record<SignalKind, number> = {
    fallback_decision: 0,
    failover_decision: 0,
    lane_error: 0,
    stall: 0,
    run_timeout: 0,
    gateway_restart: 0,
  };
  for (const signal of signalsOf(lines)) counts[signal.kind]++;
  return counts;
}

/** Fallback decisions by reason (`unknown` when the line gives none), as the source reports them. */
export function fallbackByReason(lines: readonly LogLine[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const s of signalsOf(lines)) {
    if (s.kind === 'fallback_decision') counts.set(s.reason ?? 'unknown', (counts.get(s.reason ?? 'unknown') ?? 0) + 1);
  }
  return Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Daily file name the gateway writes on `day` (`YYYY-MM-DD`). */
export function logName(day: string, profile: string | null = null): string {
  return profile === null ? `openclaw-${day}.log` : `openclaw-${profile}-${day}.log`;
}
