/**
 * Assembling upstream attempts from gateway log lines: a failed `[model-fetch]`
 * line and the `embedded_run_agent_end` of the same span make one call (2026.9),
 * several attempts on one span each make their own (2026.7), a run-end after a 2xx
 * (or with no fetch line) is a mid-stream failure, a bare status takes the outcome
 * its trace last gave, and held lines are released by their run-end, the next
 * attempt on the span, the hold running out, or `flush`. The lines are modelled on
 * real ones from openclaw@2026.9.6 and 2026.7.1, and read end to end by the parser.
 */
import { describe, expect, it } from 'vitest';
import type { CallEvent } from '../../../main/core/calls/events.js';
import { AttemptAssembler } from '../../../main/core/sources/gateway-attempts.js';
import { type AttemptLine, readGatewayLogLine } from '../../../main/core/sources/gateway-log-record.js';

const FILE = '64769:1234:9f86d081884c7d65';
const OTHER_FILE = '64769:5678:0123456789abcdef';
const T = Date.parse('2026-12-01T14:42:21.358+00:00');
const TRACE = 'f68a0c3e9b1d4f7a8e6c5b4a3d2e1f09';
const SPAN = 'dff580b86c8bf778';
const RUN = 'f3f30537-5b1e-4c55-9d0e-2a8c1b7e4d10';
const RATE_LIMIT_TEXT = '429 Rate limit reached for requests. Please try again in 2s.; Retry-After: 1 seconds';

/** A `[model-fetch]` line: a non-2xx answer unless `status` says 2xx; an error when `errorText` is given. */
function fetchLine(offset: number, over: Partial<AttemptLine> = {}): AttemptLine {
  const status = over.status === undefined ? 429 : over.status;
  return {
    kind: status !== null && status < 300 ? 'fetch_ok' : 'fetch_failed',
    key: `${FILE}@${offset}`,
    ts: T,
    traceId: TRACE,
    spanId: SPAN,
    runId: null,
    provider: 'mock',
    model: 'alpha',
    api: 'openai-completions',
    status,
    errorCode: null,
    errorText: null,
    failoverReason: null,
    ...over,
  };
}

/** An `embedded_run_agent_end` with `isError: true`. */
function runEnd(offset: number, over: Partial<AttemptLine> = {}): AttemptLine {
  return {
    kind: 'run_end',
    key: `${FILE}@${offset}`,
    ts: T + 10,
    traceId: TRACE,
    spanId: SPAN,
    runId: RUN,
    provider: 'mock',
    model: 'alpha',
    api: null,
    status: null,
    errorCode: null,
    errorText: RATE_LIMIT_TEXT,
    failoverReason: 'rate_limit',
    ...over,
  };
}

/** The call an attempt must become: the given fields, the rest as every gateway-log attempt has them. */
function expected(over: Partial<CallEvent> & Pick<CallEvent, 'key' | 'ts' | 'outcome'>): CallEvent {
  return {
    source: 'gatewaylog',
    agentId: 'unknown',
    sessionId: 'unknown',
    dep: 'mock/alpha',
    provider: 'mock',
    model: 'alpha',
    api: 'openai-completions',
    stopReason: null,
    phase: 'before_output',
    httpStatus: null,
    errorCode: null,
    retryAfterMs: null,
    credential: null,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0 },
    role: 'attempt',
    runId: null,
    ...over,
  };
}

describe('2026.9: a failed answer and its run-end on the same span', () => {
  it('are one call: the fetch line’s key, time and status, the run-end’s text and run id', () => {
    const assembler = new AttemptAssembler();
    expect(assembler.push(fetchLine(4096), 4096)).toEqual([]);
    expect(assembler.holding).toBe(1);
    expect(assembler.push(runEnd(4700), 4700)).toEqual([
      expected({
        key: `gatewaylog/${FILE}@4096`,
        ts: T,
        outcome: 'rate_limited',
        httpStatus: 429,
        // The Retry-After header OpenClaw appends wins over the body's "try again in 2s".
        retryAfterMs: 1000,
        runId: RUN,
      }),
    ]);
    expect(assembler.holding).toBe(0);
    expect(assembler.flush()).toEqual([]);
    expect(assembler.hasAttempts(TRACE)).toBe(true);
    expect(assembler.hasAttempts('another-trace')).toBe(false);
  });

  it('a run-end arriving after the hold ran out does not count the attempt twice', () => {
    const assembler = new AttemptAssembler(2000);
    expect(assembler.push(fetchLine(100), 100)).toEqual([]);
    const late = runEnd(200, { ts: T + 2000 });
    expect(assembler.push(late, 200)).toEqual([
      // Released by the hold, before the run-end: the status alone says rate_limited.
      expected({ key: `gatewaylog/${FILE}@100`, ts: T, outcome: 'rate_limited', httpStatus: 429 }),
    ]);
    expect(assembler.flush()).toEqual([]);
  });

  it('a run-end on another span does not describe the held answer', () => {
    const assembler = new AttemptAssembler();
    assembler.push(fetchLine(100), 100);
    const elsewhere = runEnd(200, { spanId: 'aaaaaaaaaaaaaaaa' });
    expect(assembler.push(elsewhere, 200)).toEqual([
      expected({
        key: `gatewaylog/${FILE}@200`,
        ts: T + 10,
        api: null,
        outcome: 'rate_limited',
        phase: 'mid_stream',
        httpStatus: 429,
        retryAfterMs: 1000,
        runId: RUN,
      }),
    ]);
    expect(assembler.holding).toBe(1);
  });
});

describe('2026.7: one span holds several attempts, 2xx answers are printed', () => {
  const S7 = { traceId: '0c1d2e3f405162738495a6b7c8d9eaf1', spanId: '1a2b3c4d5e6f7081' };

  it('429, 429, 200 on one span: two rate_limited calls', () => {
    const assembler = new AttemptAssembler();
    expect(assembler.push(fetchLine(10, { ...S7, status: 429 }), 10)).toEqual([]);
    expect(assembler.push(fetchLine(20, { ...S7, ts: T + 300, status: 429 }), 20)).toEqual([
      expected({ key: `gatewaylog/${FILE}@10`, ts: T, outcome: 'rate_limited', httpStatus: 429 }),
    ]);
    expect(assembler.push(fetchLine(30, { ...S7, ts: T + 600, status: 200 }), 30)).toEqual([
      expected({ key: `gatewaylog/${FILE}@20`, ts: T + 300, outcome: 'rate_limited', httpStatus: 429 }),
    ]);
    expect(assembler.holding).toBe(0);
    expect(assembler.flush()).toEqual([]);
  });

  it('a transport error, then a 200 and a run-end saying "terminated": connection_reset, then a mid-stream connection_reset', () => {
    const assembler = new AttemptAssembler();
    const reset = fetchLine(10, { ...S7, status: null, errorCode: 'ECONNRESET', errorText: 'fetch failed' });
    expect(assembler.push(reset, 10)).toEqual([]);
    expect(assembler.push(fetchLine(20, { ...S7, ts: T + 400, status: 200 }), 20)).toEqual([
      expected({ key: `gatewaylog/${FILE}@10`, ts: T, outcome: 'connection_reset', errorCode: 'ECONNRESET' }),
    ]);
    const cut = runEnd(30, { ...S7, ts: T + 900, errorText: 'terminated', failoverReason: 'timeout' });
    expect(assembler.push(cut, 30)).toEqual([
      expected({
        key: `gatewaylog/${FILE}@30`,
        ts: T + 900,
        api: null,
        // The text wins over OpenClaw's reason.
        outcome: 'connection_reset',
        phase: 'mid_stream',
        runId: RUN,
      }),
    ]);
    expect(assembler.flush()).toEqual([]);
  });

  it('an idle timeout with no run-end: a timeout once its own run has moved on past the hold, not before', () => {
    const assembler = new AttemptAssembler(2000);
    const idle = fetchLine(10, {
      ...S7,
      model: 'hang',
      status: null,
      errorText: 'LLM idle timeout (10s): no response from model',
    });
    expect(assembler.push(idle, 10)).toEqual([]);
    // Another run's lines, however much later, say nothing about this one: a busy gateway writes run-ends late.
    const other = { traceId: 'ffff0000ffff0000ffff0000ffff0000', spanId: 'ffff0000ffff0000' };
    expect(assembler.push(fetchLine(20, { ...other, ts: T + 60_000, status: 200 }), 20)).toEqual([]);
    // A line of the same run 1999 ms later: still held.
    const sameRun = { traceId: S7.traceId, spanId: 'eeee0000eeee0000' };
    expect(assembler.push(fetchLine(30, { ...sameRun, ts: T + 1999, status: 200 }), 30)).toEqual([]);
    expect(assembler.heldFrom(FILE)).toBe(10);
    // 2000 ms later: released.
    expect(assembler.push(fetchLine(40, { ...sameRun, ts: T + 2000, status: 200 }), 40)).toEqual([
      expected({ key: `gatewaylog/${FILE}@10`, ts: T, dep: 'mock/hang', model: 'hang', outcome: 'timeout' }),
    ]);
    expect(assembler.heldFrom(FILE)).toBeNull();
  });

  it('flush(before) releases only lines at or before `before`', () => {
    const assembler = new AttemptAssembler(2000);
    const idle = fetchLine(10, { ...S7, status: null, errorText: 'LLM idle timeout (10s): no response from model' });
    assembler.push(idle, 10);
    expect(assembler.flush(T - 1)).toEqual([]);
    expect(assembler.holding).toBe(1);
    expect(assembler.flush(T)).toEqual([expected({ key: `gatewaylog/${FILE}@10`, ts: T, outcome: 'timeout' })]);
    expect(assembler.holding).toBe(0);
  });

  it('a 400 with context-length text, then a bare 400 of the same trace: both context_overflow', () => {
    const assembler = new AttemptAssembler();
    const text = "400 This model's maximum context length is 65536 tokens. However, you requested 70112 tokens.";
    expect(assembler.push(fetchLine(10, { ...S7, status: 400 }), 10)).toEqual([]);
    const end = runEnd(20, { ...S7, ts: T + 12, errorText: text, failoverReason: 'context_overflow' });
    expect(assembler.push(end, 20)).toEqual([
      expected({ key: `gatewaylog/${FILE}@10`, ts: T, outcome: 'context_overflow', httpStatus: 400, runId: RUN }),
    ]);
    // The compaction retry, on a new span of the same run: status only, no run-end.
    const bare = fetchLine(30, { traceId: S7.traceId, spanId: '9f8e7d6c5b4a3928', ts: T + 5000, status: 400 });
    expect(assembler.push(bare, 30)).toEqual([]);
    expect(assembler.flush()).toEqual([
      expected({
        key: `gatewaylog/${FILE}@30`,
        ts: T + 5000,
        outcome: 'context_overflow',
        httpStatus: 400,
        runId: RUN,
      }),
    ]);
  });

  it('the bare 400 on the same span as the first (2026.7 reuses it) is context_overflow too', () => {
    const assembler = new AttemptAssembler();
    assembler.push(fetchLine(10, { ...S7, status: 400 }), 10);
    const end = runEnd(20, { ...S7, ts: T + 12, errorText: 'context length exceeded', failoverReason: null });
    expect(assembler.push(end, 20).map((call) => call.outcome)).toEqual(['context_overflow']);
    expect(assembler.push(fetchLine(30, { ...S7, ts: T + 900, status: 400 }), 30)).toEqual([]);
    expect(assembler.heldFrom(FILE)).toBe(30);
    expect(assembler.flush()).toEqual([
      expected({ key: `gatewaylog/${FILE}@30`, ts: T + 900, outcome: 'context_overflow', httpStatus: 400, runId: RUN }),
    ]);
  });

  it('a bare 400 in another trace does not take that outcome', () => {
    const assembler = new AttemptAssembler();
    assembler.push(fetchLine(10, { ...S7, status: 400 }), 10);
    assembler.push(runEnd(20, { ...S7, ts: T + 12, errorText: 'context length exceeded', failoverReason: null }), 20);
    const elsewhere = fetchLine(30, { traceId: 'abcdefabcdefabcdefabcdefabcdefab', ts: T + 50, status: 400 });
    assembler.push(elsewhere, 30);
    expect(assembler.flush()).toEqual([
      expected({
        key: `gatewaylog/${FILE}@30`,
        ts: T + 50,
        outcome: 'other_error',
        httpStatus: 400,
      }),
    ]);
  });

  it('a bare status of another dependency in the same trace does not take it either', () => {
    const assembler = new AttemptAssembler();
    assembler.push(fetchLine(10, { ...S7, status: 400 }), 10);
    assembler.push(runEnd(20, { ...S7, ts: T + 12, errorText: 'context length exceeded', failoverReason: null }), 20);
    assembler.push(fetchLine(30, { ...S7, spanId: '0000111122223333', model: 'beta', ts: T + 50, status: 400 }), 30);
    expect(assembler.flush().map((call) => [call.dep, call.outcome])).toEqual([['mock/beta', 'other_error']]);
  });
});

describe('run-ends with no failed fetch line before them', () => {
  it('a run-end with no fetch line at all is its own call, mid-stream', () => {
    const assembler = new AttemptAssembler();
    const end = runEnd(10, {
      spanId: '5555666677778888',
      errorText: '503 The service is temporarily unavailable',
      failoverReason: 'timeout',
    });
    expect(assembler.push(end, 10)).toEqual([
      expected({
        key: `gatewaylog/${FILE}@10`,
        ts: T + 10,
        api: null,
        // The status in the text wins over OpenClaw's `timeout`.
        outcome: 'server_error',
        phase: 'mid_stream',
        httpStatus: 503,
        runId: RUN,
      }),
    ]);
    expect(assembler.holding).toBe(0);
  });

  it('a run-end without text takes OpenClaw’s reason', () => {
    const assembler = new AttemptAssembler();
    const end = runEnd(10, { spanId: null, errorText: null, failoverReason: 'overloaded' });
    expect(assembler.push(end, 10)).toEqual([
      expected({
        key: `gatewaylog/${FILE}@10`,
        ts: T + 10,
        api: null,
        outcome: 'overloaded',
        phase: 'mid_stream',
        runId: RUN,
      }),
    ]);
  });

  it('a line without span is emitted at once', () => {
    const assembler = new AttemptAssembler();
    expect(assembler.push(fetchLine(10, { spanId: null, status: 503 }), 10)).toEqual([
      expected({ key: `gatewaylog/${FILE}@10`, ts: T, outcome: 'server_error', httpStatus: 503 }),
    ]);
    expect(assembler.holding).toBe(0);
  });
});

describe('held lines', () => {
  it('heldFrom gives the smallest held offset of the file, and null once emitted', () => {
    const assembler = new AttemptAssembler();
    expect(assembler.heldFrom(FILE)).toBeNull();
    assembler.push(fetchLine(900, { spanId: 'aaaa000000000001' }), 900);
    assembler.push(fetchLine(1200, { spanId: 'aaaa000000000002', ts: T + 1 }), 1200);
    assembler.push(fetchLine(300, { key: `${OTHER_FILE}@300`, spanId: 'aaaa000000000003', ts: T + 2 }), 300);
    expect(assembler.heldFrom(FILE)).toBe(900);
    expect(assembler.heldFrom(OTHER_FILE)).toBe(300);
    expect(assembler.heldFrom('64769:1234')).toBeNull();

    assembler.push(runEnd(1300, { spanId: 'aaaa000000000001', ts: T + 3 }), 1300);
    expect(assembler.heldFrom(FILE)).toBe(1200);
    assembler.push(runEnd(1400, { spanId: 'aaaa000000000002', ts: T + 4 }), 1400);
    expect(assembler.heldFrom(FILE)).toBeNull();
    expect(assembler.heldFrom(OTHER_FILE)).toBe(300);
  });

  it('flush() emits everything held, in the order it was held', () => {
    const assembler = new AttemptAssembler();
    assembler.push(fetchLine(10, { spanId: 'bbbb000000000001', status: 429 }), 10);
    assembler.push(fetchLine(20, { spanId: 'bbbb000000000002', ts: T + 1, status: 529 }), 20);
    assembler.push(
      fetchLine(30, {
        spanId: 'bbbb000000000003',
        ts: T + 2,
        status: null,
        errorCode: 'UND_ERR_SOCKET',
        errorText: 'other side closed',
      }),
      30,
    );
    expect(assembler.holding).toBe(3);
    expect(assembler.flush()).toEqual([
      expected({ key: `gatewaylog/${FILE}@10`, ts: T, outcome: 'rate_limited', httpStatus: 429 }),
      expected({ key: `gatewaylog/${FILE}@20`, ts: T + 1, outcome: 'overloaded', httpStatus: 529 }),
      expected({ key: `gatewaylog/${FILE}@30`, ts: T + 2, outcome: 'connection_reset', errorCode: 'UND_ERR_SOCKET' }),
    ]);
    expect(assembler.holding).toBe(0);
    expect(assembler.heldFrom(FILE)).toBeNull();
    expect(assembler.flush()).toEqual([]);
  });
});

/* ---------- real lines, end to end through the parser ---------- */

const TIME = '2026-12-01T14:42:21.358+00:00';

function meta(subsystem: string, date: string) {
  return {
    runtime: 'node',
    runtimeVersion: 'v24.3.0',
    hostname: 'unknown',
    name: JSON.stringify({ subsystem }),
    parentNames: ['openclaw'],
    date,
    logLevelId: 3,
    logLevelName: 'INFO',
    path: { fullFilePath: 'file:///usr/lib/node_modules/openclaw/dist/subsystem-B3kQ1x9a.js:412:14' },
  };
}

/** A `provider-transport-fetch` line as tslog writes it. */
function fetchJson(text: string, time = TIME, span = SPAN): string {
  return JSON.stringify({
    '0': JSON.stringify({ subsystem: 'provider-transport-fetch' }),
    '1': text,
    _meta: meta('provider-transport-fetch', new Date(Date.parse(time)).toISOString()),
    time,
    traceId: TRACE,
    spanId: span,
  });
}

/** An `agent/embedded` `embedded_run_agent_end` line in its structured form. */
function agentEndJson(fields: Record<string, unknown>, time = '2026-12-01T14:42:21.368+00:00'): string {
  return JSON.stringify({
    '0': JSON.stringify({ subsystem: 'agent/embedded' }),
    '1': { event: 'embedded_run_agent_end', ...fields },
    '2': 'embedded run agent end',
    _meta: meta('agent/embedded', new Date(Date.parse(time)).toISOString()),
    time,
    traceId: TRACE,
    spanId: SPAN,
  });
}

function read(json: string, offset: number) {
  const buf = Buffer.from(json);
  return readGatewayLogLine(buf, 0, buf.length, `${FILE}@${offset}`);
}

function attemptOf(json: string, offset: number): AttemptLine {
  const record = read(json, offset);
  if (record.kind !== 'attempt') throw new Error(`expected an attempt, got ${record.kind}`);
  return record.line;
}

const RESPONSE_429 =
  '[model-fetch] response provider=mock api=openai-completions model=alpha status=429 elapsedMs=11 url=http://127.0.0.1:4010/v1/chat/completions';
const AGENT_END_429 = {
  runId: RUN,
  isError: true,
  error: '⚠️ API rate limit reached. Please try again later.',
  failoverReason: 'rate_limit',
  provider: 'mock',
  model: 'alpha',
  rawErrorPreview: RATE_LIMIT_TEXT,
};

describe('real lines through readGatewayLogLine', () => {
  it('a [model-fetch] response with status 429 is a failed fetch line', () => {
    expect(read(fetchJson(RESPONSE_429), 4096)).toEqual({
      kind: 'attempt',
      line: {
        kind: 'fetch_failed',
        key: `${FILE}@4096`,
        ts: T,
        traceId: TRACE,
        spanId: SPAN,
        runId: null,
        provider: 'mock',
        model: 'alpha',
        api: 'openai-completions',
        status: 429,
        errorCode: null,
        errorText: null,
        failoverReason: null,
      },
    });
  });

  it('an embedded_run_agent_end with isError: true is a run-end line with the raw error text', () => {
    expect(read(agentEndJson(AGENT_END_429), 4700)).toEqual({
      kind: 'attempt',
      line: {
        kind: 'run_end',
        key: `${FILE}@4700`,
        ts: T + 10,
        traceId: TRACE,
        spanId: SPAN,
        runId: RUN,
        provider: 'mock',
        model: 'alpha',
        api: null,
        status: null,
        errorCode: null,
        errorText: RATE_LIMIT_TEXT,
        failoverReason: 'rate_limit',
      },
    });
  });

  it('a 200 answer is a fetch_ok line', () => {
    const line = attemptOf(
      fetchJson('[model-fetch] response provider=mock api=openai-completions model=alpha status=200 elapsedMs=5'),
      10,
    );
    expect(line).toMatchObject({ kind: 'fetch_ok', status: 200, errorText: null });
  });

  it('a transport error: code (never "undefined"), status none, the message to the end of the line', () => {
    const line = attemptOf(
      fetchJson(
        '[model-fetch] error provider=mock api=openai-completions model=alpha elapsedMs=30012 code=undefined causeCode=ECONNRESET message=fetch failed',
      ),
      10,
    );
    expect(line).toEqual({
      kind: 'fetch_failed',
      key: `${FILE}@10`,
      ts: T,
      traceId: TRACE,
      spanId: SPAN,
      runId: null,
      provider: 'mock',
      model: 'alpha',
      api: 'openai-completions',
      status: null,
      errorCode: 'ECONNRESET',
      errorText: 'fetch failed',
      failoverReason: null,
    });
  });

  it('an idle timeout error keeps its whole message', () => {
    const line = attemptOf(
      fetchJson(
        '[model-fetch] error provider=mock api=openai-completions model=hang elapsedMs=10004 message=LLM idle timeout (10s): no response from model',
      ),
      10,
    );
    expect(line).toMatchObject({
      kind: 'fetch_failed',
      model: 'hang',
      status: null,
      errorCode: null,
      errorText: 'LLM idle timeout (10s): no response from model',
    });
  });

  it('[model-fetch] start lines (2026.7) are read as the start of a request on their span', () => {
    const record = read(
      fetchJson(
        '[model-fetch] start provider=mock api=openai-completions model=alpha url=http://127.0.0.1:4010/v1/chat/completions',
      ),
      10,
    );
    expect(record).toMatchObject({ kind: 'attempt', line: { kind: 'fetch_start', provider: 'mock', model: 'alpha' } });
  });

  it('an embedded_run_agent_end with isError: false is ignored', () => {
    expect(read(agentEndJson({ runId: RUN, isError: false, provider: 'mock', model: 'alpha' }), 10)).toEqual({
      kind: 'ignored',
    });
  });

  it('the 2026.9.6 pair, parsed and assembled: one rate_limited call with the run id and Retry-After', () => {
    const assembler = new AttemptAssembler();
    const lines = [
      { json: fetchJson(RESPONSE_429), offset: 4096 },
      { json: agentEndJson(AGENT_END_429), offset: 4700 },
    ];
    const calls = lines.flatMap(({ json, offset }) => assembler.push(attemptOf(json, offset), offset));
    expect(calls).toEqual([
      expected({
        key: `gatewaylog/${FILE}@4096`,
        ts: T,
        outcome: 'rate_limited',
        httpStatus: 429,
        retryAfterMs: 1000,
        runId: RUN,
      }),
    ]);
    expect(assembler.flush()).toEqual([]);
  });
});
