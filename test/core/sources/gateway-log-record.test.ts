/**
 * Reading one gateway log line: every signal in both its structured and its
 * console form, quoted values, age units, and everything else ignored or
 * malformed. A signal holds exactly the fields listed for its kind, never
 * message content.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GatewaySignal } from '../../../main/core/calls/events.js';
import { type GatewayLogRecord, readGatewayLogLine } from '../../../main/core/sources/gateway-log-record.js';
import { ageMs } from '../../../main/core/sources/gateway-log-signals.js';
import { agentIdOfSessionKey, fallbackAsCall } from '../../../main/core/sources/gateway-signal-calls.js';
import { parseKeyValues } from '../../../main/core/sources/key-value-pairs.js';
import {
  type ExpectedSignal,
  expectSignal,
  FORMS,
  failoverDecision,
  fallbackDecision,
  LANE_ERRORS,
  type LogLine,
  laneError,
  malformedLines,
  runTimeout,
  stalledSession,
  stuckSession,
  tslogLine,
  USER_TEXT,
  unknownLines,
} from '../../helpers/gateway-log.js';

const TS = Date.parse('2026-11-29T23:59:58.250Z');
const KEY = '64769:1234:9f86d081884c7d65@4096';

function read(line: string, key = KEY): GatewayLogRecord {
  const buf = Buffer.from(line);
  return readGatewayLogLine(buf, 0, buf.length, key);
}

function signalOf(line: string): GatewaySignal {
  const record = read(line);
  if (record.kind !== 'signal') throw new Error(`expected a signal, got ${record.kind}: ${line}`);
  return record.signal;
}

function expectParsed(entry: LogLine): void {
  expect(read(entry.line)).toEqual({ kind: 'signal', signal: { key: KEY, ...(entry.signal as ExpectedSignal) } });
}

describe.each(FORMS)('signals in the %s form', (form) => {
  it('model fallback decision: candidate_failed with requested and candidate dependency, reason, status, final outcome', () => {
    const entry = fallbackDecision(TS, form, {
      decision: 'candidate_failed',
      requested: 'zhipu/glm-5.1',
      candidate: 'zhipu/glm-5.1',
      reason: 'rate_limit',
      httpCode: 429,
      final: 'next_fallback',
      next: 'deepseek/deepseek-v4-pro',
      sessionKey: 'agent:main:telegram:direct:1001',
      sessionId: '0b6c5d2e-1111-4aaa-8bbb-000000000001',
    });
    expectParsed(entry);
    expect(signalOf(entry.line)).toMatchObject({ httpStatus: 429, dep: 'zhipu/glm-5.1' });
  });

  it('model fallback decision: candidate_succeeded and skip_candidate', () => {
    expectParsed(
      fallbackDecision(TS, form, {
        decision: 'candidate_succeeded',
        requested: 'zhipu/glm-5.1',
        candidate: 'deepseek/deepseek-v4-pro',
        reason: null,
        final: 'succeeded',
      }),
    );
    expectParsed(
      fallbackDecision(TS, form, {
        decision: 'skip_candidate',
        requested: 'zhipu/glm-5.1',
        candidate: 'anthropic/claude-sonnet-4-5',
        reason: 'billing',
      }),
    );
  });

  it('embedded run failover decision, with and without a next dependency', () => {
    expectParsed(
      failoverDecision(TS, form, {
        runId: 'run-8f2a',
        decision: 'surface_error',
        reason: 'timeout',
        from: 'openai-codex/gpt-5.5',
      }),
    );
    expectParsed(
      failoverDecision(TS, form, {
        runId: 'run-8f2b',
        decision: 'fallback_model',
        reason: 'rate_limit',
        from: 'zhipu/glm-5.1',
        to: 'deepseek/deepseek-v4-pro',
        sessionId: 's-2',
      }),
    );
  });

  it('embedded run timeout', () => {
    const entry = runTimeout(TS, form, { runId: 'run-9', sessionId: 's-9', timeoutMs: 600_000 });
    expectParsed(entry);
    expect(signalOf(entry.line).durationMs).toBe(600_000);
  });

  it.each(LANE_ERRORS)('lane task error: $error', ({ error, reason }) => {
    const entry = laneError(TS, form, { lane: 'main', durationMs: 65_602, error });
    expectParsed(entry);
    expect(signalOf(entry.line)).toMatchObject({ lane: 'main', durationMs: 65_602, reason, detail: error });
  });

  it('stalled session', () => {
    expectParsed(
      stalledSession(TS, form, {
        sessionId: 's-3',
        sessionKey: 'agent:ops:cron:nightly',
        state: 'processing',
        age: '216s',
        ageMs: 216_000,
        reason: 'active_work_without_progress',
        classification: 'stalled_agent_run',
      }),
    );
  });

  it('stuck session (older wording): the state stands in for the classification', () => {
    const entry = stuckSession(TS, form, { sessionId: 's-4', state: 'processing', age: '4m', ageMs: 240_000 });
    expectParsed(entry);
    expect(signalOf(entry.line)).toMatchObject({ kind: 'stall', classification: 'processing', durationMs: 240_000 });
  });
});

describe('console values', () => {
  it('reads quoted values with escapes and unicode, bare values, and skips words that are not pairs', () => {
    const pairs = parseKeyValues(
      ' lane=main error="FailoverError: ⚠️ API \\"rate\\" limit\\nreached. 访问量过大" path=C:\\tmp … empty="" last=x=y',
    );
    expect(Object.fromEntries(pairs)).toEqual({
      lane: 'main',
      error: 'FailoverError: ⚠️ API "rate" limit\nreached. 访问量过大',
      path: 'C:\\tmp',
      empty: '',
      last: 'x=y',
    });
  });

  it('keeps the first of repeated names, and survives an unterminated quote or a non-JSON escape', () => {
    expect(Object.fromEntries(parseKeyValues('a=1 a=2 b="open to the end'))).toEqual({ a: '1', b: 'open to the end' });
    expect(parseKeyValues('q="it\\\'s"').get('q')).toBe("it's");
  });

  it('keeps at most 300 characters of lane error text, never splitting an emoji', () => {
    const error = `FailoverError: ${'x'.repeat(284)}🚦 API rate limit reached. ${'y'.repeat(5000)}`;
    const signal = signalOf(laneError(TS, 'text', { lane: 'main', durationMs: 1, error }).line);
    expect(signal.detail).toBe(error.slice(0, 299));
    expect(signal.reason).toBe('rate_limit');
    // A long structured error is read in full (it is longer than the skim limit) and cut the same way.
    const structured = signalOf(laneError(TS, 'fields', { lane: 'main', durationMs: 1, error }).line);
    expect(structured).toEqual(signal);
  });

  it.each([
    ['216s', 216_000],
    ['4m', 240_000],
    ['1.5m', 90_000],
    ['850ms', 850],
    ['2h', 7_200_000],
    ['45', 45_000],
    ['soon', null],
    [null, null],
  ])('age %s is %s ms', (age, ms) => {
    expect(ageMs(age)).toBe(ms);
  });

  it('reads each age unit in a stall line', () => {
    for (const [age, ms] of [
      ['90s', 90_000],
      ['12m', 720_000],
      ['500ms', 500],
    ] as const) {
      const text = `stuck session: sessionId=s state=processing age=${age} queueDepth=1`;
      expect(signalOf(tslogLine({ subsystem: 'diagnostic', ts: TS, text })).durationMs).toBe(ms);
    }
  });
});

describe('time and subsystem', () => {
  const text = 'embedded run timeout: runId=r sessionId=s timeoutMs=1000';

  it('takes the time with its offset from `time`, else from `_meta.date`', () => {
    const line = tslogLine({ subsystem: 'agent/embedded', ts: TS, text, offsetMinutes: -300 });
    expect(line).toContain('"time":"2026-11-29T18:59:58.250-05:00"');
    expect(signalOf(line).ts).toBe(TS);
    const withoutTime = JSON.parse(line) as Record<string, unknown>;
    delete withoutTime.time;
    expect(signalOf(JSON.stringify(withoutTime)).ts).toBe(TS);
  });

  it('takes the subsystem from `_meta.name` when `"0"` holds no bindings', () => {
    const line = JSON.stringify({
      0: text,
      _meta: { name: '{"subsystem":"agent/embedded"}', date: new Date(TS).toISOString() },
    });
    expect(signalOf(line)).toMatchObject({ kind: 'run_timeout', runId: 'r', durationMs: 1000 });
  });

  it('uses the same bytes range of a larger buffer, and the key it is given', () => {
    const line = tslogLine({ subsystem: 'agent/embedded', ts: TS, text });
    const buf = Buffer.from(`garbage\n${line}\nmore`);
    const record = readGatewayLogLine(buf, 8, 8 + Buffer.byteLength(line), 'file@8');
    expect(record).toMatchObject({ kind: 'signal', signal: { key: 'file@8', runId: 'r' } });
  });
});

describe('lines that are not signals', () => {
  it.each(unknownLines(TS).map((entry) => [entry.line.slice(0, 90), entry.line]))('ignores %s', (_, line) => {
    expect(read(line)).toEqual({ kind: 'ignored' });
  });

  it.each(malformedLines(TS).map((line) => [line.slice(0, 90), line]))('%s is malformed', (_, line) => {
    expect(read(line)).toEqual({ kind: 'malformed' });
  });

  it('treats a line with invalid JSON escapes or raw control characters as malformed', () => {
    expect(read('{"0":"{\\"subsystem\\":\\"diagnostic\\"}","1":"lane task error: \\q"}')).toEqual({
      kind: 'malformed',
    });
    expect(read('{"0":"x\u0001"}')).toEqual({ kind: 'malformed' });
  });

  it('never puts message content into a signal', () => {
    // A user's words next to a real signal in the same structured line: only the listed fields are read.
    const line = tslogLine({
      subsystem: 'diagnostic',
      ts: TS,
      text: 'stalled session',
      fields: {
        sessionId: 's-5',
        state: 'processing',
        ageMs: 1000,
        lastMessage: USER_TEXT,
        prompt: USER_TEXT,
      },
    });
    const signal = signalOf(line);
    expect(signal).toEqual({
      key: KEY,
      ...expectSignal('stall', TS, { sessionId: 's-5', durationMs: 1000, classification: 'processing' }),
    });
    expect(JSON.stringify(signal)).not.toMatch(/why do I|rate limit/);
    for (const entry of unknownLines(TS)) expect(read(entry.line).kind).toBe('ignored');
  });
});

describe('fallbackAsCall', () => {
  const failed = (reason: string | null, httpStatus: number | null = null): GatewaySignal => ({
    key: KEY,
    ...expectSignal('fallback_decision', TS, {
      dep: 'zhipu/glm-5.1',
      candidateDep: 'deepseek/deepseek-v4-pro',
      decision: 'candidate_failed',
      reason,
      httpStatus,
      sessionKey: 'agent:ops:telegram:direct:7',
      sessionId: 's-7',
    }),
  });

  it('makes a failed candidate a failed call of the candidate dependency, reason mapped onto the outcome', () => {
    expect(fallbackAsCall(failed('rate_limit', 429), 'main')).toEqual({
      key: `gatewaylog/${KEY}`,
      ts: TS,
      source: 'gatewaylog',
      agentId: 'ops',
      sessionId: 's-7',
      dep: 'deepseek/deepseek-v4-pro',
      provider: 'deepseek',
      model: 'deepseek-v4-pro',
      api: null,
      stopReason: null,
      outcome: 'rate_limited',
      phase: 'before_output',
      httpStatus: 429,
      errorCode: null,
      retryAfterMs: null,
      credential: null,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0 },
    });
    expect(fallbackAsCall(failed('overloaded'), 'main')?.outcome).toBe('overloaded');
    expect(fallbackAsCall(failed('timeout'), 'main')?.outcome).toBe('timeout');
    expect(fallbackAsCall(failed('model_not_found'), 'main')?.outcome).toBe('other_error');
    expect(fallbackAsCall(failed(null), 'main')?.outcome).toBe('other_error');
    // A failed candidate is never a success, whatever the reason says.
    expect(fallbackAsCall(failed('ok'), 'main')?.outcome).toBe('other_error');
  });

  it('makes a successful candidate an ok call, and uses the default agent and session when the line names none', () => {
    const signal = { ...failed(null), decision: 'candidate_succeeded', sessionKey: null, sessionId: null };
    expect(fallbackAsCall(signal, 'main')).toMatchObject({
      outcome: 'ok',
      phase: 'complete',
      httpStatus: null,
      agentId: 'main',
      sessionId: 'unknown',
    });
  });

  it('makes no call of other decisions or other signals', () => {
    expect(fallbackAsCall({ ...failed('rate_limit'), decision: 'skip_candidate' }, 'main')).toBeNull();
    expect(fallbackAsCall({ ...failed('rate_limit'), decision: 'probe_cooldown_candidate' }, 'main')).toBeNull();
    expect(fallbackAsCall({ ...failed('rate_limit'), candidateDep: null }, 'main')).toBeNull();
    expect(fallbackAsCall({ ...failed('rate_limit'), kind: 'failover_decision' }, 'main')).toBeNull();
  });

  it('reads the agent from a session key', () => {
    expect(agentIdOfSessionKey('agent:main:telegram:direct:1')).toBe('main');
    expect(agentIdOfSessionKey('global')).toBeNull();
    expect(agentIdOfSessionKey(null)).toBeNull();
  });
});

describe("the gateway's own in-process restart", () => {
  /** As OpenClaw 2026.9.6 writes it when `openclaw gateway restart` signals a gateway no service manager runs. */
  const line = (message: string, subsystem = 'gateway') =>
    JSON.stringify({
      '0': JSON.stringify({ subsystem }),
      '1': message,
      _meta: {
        runtime: 'node',
        date: '2026-11-29T23:59:58.250Z',
        logLevelId: 3,
        logLevelName: 'INFO',
        name: JSON.stringify({ subsystem }),
        parentNames: ['openclaw'],
      },
      time: '2026-11-29T23:59:58.250+00:00',
      message,
    });

  it('"received SIGUSR2; restarting" is a gateway_restart signal at the line\'s time', () => {
    const record = read(line('received SIGUSR2; restarting'));
    expect(record).toMatchObject({ kind: 'signal', signal: { kind: 'gateway_restart', ts: TS, key: KEY } });
  });

  it('the lines around it, and a plain stop, are not', () => {
    for (const [message, subsystem] of [
      ['received SIGTERM; shutting down', 'gateway'],
      ['gateway ready', 'gateway'],
      ['admission closed: restart (SIGUSR2: gateway.restart)', 'gateway/admission'],
      ['received SIGUSR2; restarting', 'gateway/shutdown'],
    ] as const) {
      expect(read(line(message, subsystem)).kind).toBe('ignored');
    }
  });
});

describe('in-process restarts captured from the real gateway', () => {
  it.each(['2026.9.6', '2026.7.1'])('OpenClaw %s: exactly one gateway_restart signal per restart', (version) => {
    const text = readFileSync(
      join(__dirname, '..', '..', 'fixtures', `openclaw-${version}`, 'restart', 'in-process-restart.log'),
      'utf8',
    );
    const kinds = text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l, i) => read(l, `restart.log@${i}`))
      .flatMap((r) => (r.kind === 'signal' ? [r.signal.kind] : []));
    expect(kinds).toEqual(['gateway_restart']);
  });
});
