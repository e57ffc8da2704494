/**
 * What one line of the OpenClaw gateway's JSON log means to BreakerBar (format:
 * shared docs, "Gateway JSON log"). Pure: bytes in, a typed signal out; no I/O,
 * no clock, so the live source and `scan` agree on every line.
 *
 * A line is one tslog object. Its positional arguments are `"0"` (the logger's
 * bindings, a JSON string holding `{"subsystem":…}`), then the message text, or
 * an object of structured fields followed by the text. Only five messages in three
 * subsystems matter; everything else is `ignored`. The fields of a signal are read
 * by name, from the structured fields or from the `key=value` pairs of the console
 * text, so words in other lines (a user asking about "rate limits") never become
 * a signal, and a signal carries ids, reasons and numbers, never message content.
 */
import type { GatewaySignal, SignalKind } from '../calls/events.js';
import { dependencyNameProblem } from './dependency-name.js';
import { Fields } from './gateway-log-fields.js';
import { BUILDERS } from './gateway-log-signals.js';
import { MALFORMED, skimJson } from './json-skim.js';
import { parseKeyValues } from './key-value-pairs.js';
import { hasElided, isObject, type JsonObject, lineTime, type TslogLine, tslogParts } from './tslog-line.js';

export type GatewayLogRecord =
  | { kind: 'signal'; signal: GatewaySignal }
  /** A line about one upstream request: the gateway's `[model-fetch]` lines and `embedded_run_agent_end`. */
  | { kind: 'attempt'; line: AttemptLine }
  /** Valid JSON that is not a line BreakerBar reads (other subsystems or messages, non-objects). */
  | { kind: 'ignored' }
  /** Not JSON, truncated, or a signal line without a usable time. */
  | { kind: 'malformed' };

/**
 * One log line about one upstream request. OpenClaw writes, per request, a
 * `provider-transport-fetch` line (`[model-fetch] response … status=429` for an
 * HTTP answer — non-2xx only at the default level since 2026.9 — or `[model-fetch]
 * error … causeCode=ECONNRESET` for a transport failure) and, for a failed attempt
 * of an embedded run, an `agent/embedded` object `embedded_run_agent_end` with the
 * error text and OpenClaw's reason. Lines of one attempt share the tslog `spanId`
 * (2026.9; in 2026.7 one span can hold several attempts); `traceId` is the run.
 * `gateway-attempts.ts` assembles them into calls.
 */
export interface AttemptLine {
  /**
   * `fetch_start`: a request sent (2026.7 prints it); `fetch_failed`: a non-2xx answer or a transport
   * error; `fetch_ok`: a 2xx answer; `run_end`: a failed attempt's end.
   */
  kind: 'fetch_start' | 'fetch_failed' | 'fetch_ok' | 'run_end';
  /** `<file key>@<byte offset>`: unique, and the same on a re-read. */
  key: string;
  ts: number;
  traceId: string | null;
  spanId: string | null;
  runId: string | null;
  provider: string | null;
  model: string | null;
  api: string | null;
  status: number | null;
  /** The transport's or provider's code (`ECONNRESET`, `UND_ERR_SOCKET`), never `undefined`. */
  errorCode: string | null;
  /** Error text: `[model-fetch] error … message=…`, or the attempt's raw provider error. */
  errorText: string | null;
  /** OpenClaw's own reason for the failure (`rate_limit`, `timeout`, …). */
  failoverReason: string | null;
}

/**
 * Strings longer than this are only measured on the first pass: most of a busy
 * gateway's log is message text of lines we ignore. Lines that matter and hold a
 * longer string (a lane error quoting a whole error page) are parsed again in full.
 */
const MAX_STRING_BYTES = 1024;

const IGNORED: GatewayLogRecord = { kind: 'ignored' };
const MALFORMED_RECORD: GatewayLogRecord = { kind: 'malformed' };

/** Which message of which subsystem is which signal; the message head is the text before the first colon. */
const RULES: ReadonlyArray<{ subsystem: string; heads: readonly string[]; kind: SignalKind }> = [
  { subsystem: 'model-fallback/decision', heads: ['model fallback decision'], kind: 'fallback_decision' },
  { subsystem: 'agent/embedded', heads: ['embedded run failover decision'], kind: 'failover_decision' },
  { subsystem: 'agent/embedded', heads: ['embedded run timeout'], kind: 'run_timeout' },
  { subsystem: 'diagnostic', heads: ['lane task error'], kind: 'lane_error' },
  { subsystem: 'diagnostic', heads: ['stalled session', 'stuck session'], kind: 'stall' },
  // Written as the gateway begins an in-process restart (2026.9: SIGUSR2, 2026.7: SIGUSR1); its port refuses
  // connections for a few seconds after.
  {
    subsystem: 'gateway',
    heads: ['received SIGUSR2; restarting', 'received SIGUSR1; restarting'],
    kind: 'gateway_restart',
  },
];
const FETCH_SUBSYSTEM = 'provider-transport-fetch';
const FETCH_PREFIX = '[model-fetch] ';
const SUBSYSTEMS: ReadonlySet<string> = new Set([...RULES.map((rule) => rule.subsystem), FETCH_SUBSYSTEM]);

/**
 * The attempt a line reports, `IGNORED`/`MALFORMED_RECORD` for a transport line
 * that reports none, or undefined when the line is not about attempts at all.
 */
function attemptLine(root: JsonObject, line: TslogLine, text: string, key: string): GatewayLogRecord | undefined {
  const fetch = line.subsystem === FETCH_SUBSYSTEM;
  const end = line.subsystem === 'agent/embedded' && line.fields?.event === 'embedded_run_agent_end';
  if (!fetch && !end) return undefined;
  const ts = lineTime(root);
  if (ts === null) return MALFORMED_RECORD;
  const base = {
    key,
    ts,
    traceId: typeof root.traceId === 'string' ? root.traceId : null,
    spanId: typeof root.spanId === 'string' ? root.spanId : null,
  };
  if (fetch) {
    const fetchLine = fetchAttempt(text);
    return fetchLine === null ? IGNORED : attempt({ ...base, ...fetchLine });
  }
  const f = new Fields(new Map(), line.fields);
  // Only failed attempts end in this event at the default level; a success is the transcript's to count.
  if (line.fields?.isError !== true) return IGNORED;
  return attempt({
    ...base,
    kind: 'run_end',
    runId: f.str('runId'),
    provider: f.str('provider'),
    model: f.str('model'),
    api: null,
    status: null,
    errorCode: null,
    // The provider's own words (`429 …; Retry-After: 2 seconds`); `error` is OpenClaw's rewording for the user.
    errorText: f.text('rawErrorPreview') ?? f.text('error'),
    failoverReason: f.str('failoverReason') ?? f.str('providerRuntimeFailureKind'),
  });
}

/** An attempt whose provider or model name is damaged (see dependency-name.ts) is a malformed line. */
function attempt(line: AttemptLine): GatewayLogRecord {
  return dependencyNameProblem(line.provider, line.model) === null ? { kind: 'attempt', line } : MALFORMED_RECORD;
}

/** `[model-fetch] response provider=P api=A model=M status=429 …` or `[model-fetch] error … message=…`. */
function fetchAttempt(text: string): Omit<AttemptLine, 'key' | 'ts' | 'traceId' | 'spanId'> | null {
  const rest = text.slice(FETCH_PREFIX.length);
  const verb = rest.slice(0, rest.indexOf(' '));
  if (verb !== 'response' && verb !== 'error' && verb !== 'start') return null;
  // `message=` is last and unquoted: everything after it is the error text.
  const messageAt = verb === 'error' ? rest.indexOf(' message=') : -1;
  const pairs = parseKeyValues(messageAt < 0 ? rest : rest.slice(0, messageAt));
  const f = new Fields(pairs, null);
  const status = f.httpStatus('status');
  if (verb === 'response' && status === null) return null;
  const kind =
    verb === 'start'
      ? 'fetch_start'
      : verb === 'response' && status !== null && status < 300
        ? 'fetch_ok'
        : 'fetch_failed';
  // Transport codes are upper-case constants (`ECONNRESET`, `UND_ERR_SOCKET`); 2026.7 also prints
  // `code=undefined` and `code=number`, which are not codes.
  const code =
    [f.str('causeCode'), f.str('code')].find((value) => value !== null && /^[A-Z][A-Z0-9_]*$/.test(value)) ?? null;
  return {
    kind,
    runId: null,
    provider: f.str('provider'),
    model: f.str('model'),
    api: f.str('api'),
    status,
    errorCode: code,
    errorText: messageAt < 0 ? null : rest.slice(messageAt + ' message='.length).trim() || null,
    failoverReason: null,
  };
}

/** Parses and interprets the line held in `buf[start, end)`; `key` identifies it (`<file key>@<byte offset>`). */
export function readGatewayLogLine(buf: Buffer, start: number, end: number, key: string): GatewayLogRecord {
  const value = skimJson(buf, start, end, { maxStringBytes: MAX_STRING_BYTES });
  if (value === MALFORMED) return MALFORMED_RECORD;
  if (!isObject(value)) return IGNORED;
  let line = tslogParts(value);
  if (line === null || !SUBSYSTEMS.has(line.subsystem)) return IGNORED;
  if (line.subsystem === FETCH_SUBSYSTEM && typeof line.text === 'string' && !line.text.startsWith(FETCH_PREFIX)) {
    // Other transport lines (connection pool, proxy) are not about one request.
    return IGNORED;
  }
  if (hasElided(line)) {
    // Rare: a line that matters with a long string. Parse it again, decoding everything.
    const full = skimJson(buf, start, end, { maxStringBytes: Number.MAX_SAFE_INTEGER });
    line = full !== MALFORMED && isObject(full) ? tslogParts(full) : null;
    if (line === null) return IGNORED;
  }
  return interpretGatewayLine(value, line, key);
}

function interpretGatewayLine(root: JsonObject, line: TslogLine, key: string): GatewayLogRecord {
  const text = typeof line.text === 'string' ? line.text : '';
  const attempt = attemptLine(root, line, text, key);
  if (attempt !== undefined) return attempt;
  const colon = text.indexOf(':');
  const head = (colon < 0 ? text : text.slice(0, colon)).trim();
  const kind = signalKindOf(line.subsystem, head, line.fields);
  if (kind === null) return IGNORED;
  const ts = lineTime(root);
  if (ts === null) return MALFORMED_RECORD;
  const fields = new Fields(colon < 0 ? new Map() : parseKeyValues(text.slice(colon + 1)), line.fields);
  const signal = BUILDERS[kind](baseSignal(kind, key, ts, fields), fields);
  if (typeof root.traceId === 'string') signal.traceId = root.traceId;
  return { kind: 'signal', signal };
}

/** The signal a line's subsystem and message head (or its structured event) name, or null for none. */
function signalKindOf(subsystem: string, head: string, fields: JsonObject | null): SignalKind | null {
  for (const rule of RULES) {
    if (rule.subsystem === subsystem && rule.heads.includes(head)) return rule.kind;
  }
  // The structured form names its event even if the text were to change wording.
  if (subsystem === 'model-fallback/decision' && fields?.event === 'model_fallback_decision') {
    return 'fallback_decision';
  }
  if (subsystem === 'agent/embedded' && fields?.event === 'embedded_run_failover_decision') return 'failover_decision';
  return null;
}

/** Ids every signal keeps when the line names them. */
function baseSignal(kind: SignalKind, key: string, ts: number, fields: Fields): GatewaySignal {
  return {
    key,
    ts,
    kind,
    sessionId: fields.str('sessionId'),
    sessionKey: fields.str('sessionKey'),
    runId: fields.str('runId'),
    dep: null,
    candidateDep: null,
    decision: null,
    reason: null,
    httpStatus: null,
    finalOutcome: null,
    lane: fields.str('lane'),
    durationMs: null,
    classification: null,
    detail: null,
  };
}
