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
import { classifyErrorText, type Outcome, outcomeForReason, type Phase } from '../classify.js';
import type { CallEvent, GatewaySignal, SignalKind, TokenUsage, TurnEvent } from '../events.js';
import { storableInteger } from '../whole-numbers.js';
import { dependencyNameProblem, nameProblem } from './dependency-name.js';
import { Elided, MALFORMED, type Skimmed, skimJson } from './json-skim.js';

export type GatewayLogRecord =
  | { kind: 'signal'; signal: GatewaySignal }
  /** A line about one upstream request: the gateway's `[model-fetch]` lines and `embedded_run_agent_end`. */
  | { kind: 'attempt'; line: AttemptLine }
  /** Valid JSON that is not a line BreakerBar reads (other subsystems or messages, non-objects). */
  | { kind: 'ignored' }
  /** Not JSON, truncated, or a signal line without a usable time. */
  | { kind: 'malformed' };

type JsonObject = { [key: string]: Skimmed };
type Scalar = string | number | boolean;

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

/** The parts of a tslog line a signal is read from. */
interface TslogLine {
  subsystem: string;
  text: string | Elided | null;
  fields: JsonObject | null;
}

/**
 * Strings longer than this are only measured on the first pass: most of a busy
 * gateway's log is message text of lines we ignore. Lines that matter and hold a
 * longer string (a lane error quoting a whole error page) are parsed again in full.
 */
const MAX_STRING_BYTES = 1024;
/** Lane error text kept as `detail`. */
const DETAIL_MAX = 300;
/** Ids, reasons and dependency names are short; a longer value is cut so a garbled line cannot bloat the store. */
const VALUE_MAX = 200;

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

/**
 * The subsystem, message text and structured fields of a tslog line, or null when
 * it names no subsystem. Positional arguments are read in order: the bindings
 * (when `"0"` holds them), then the first object is the fields and the first
 * string the text; the top-level `message` is a fallback for the text.
 */
function tslogParts(root: JsonObject): TslogLine | null {
  const args = positionalArgs(root);
  let subsystem = typeof args[0] === 'string' ? bindingsSubsystem(args[0]) : null;
  if (subsystem !== null) args.shift();
  else subsystem = metaSubsystem(root._meta);
  if (subsystem === null) return null;
  let text: string | Elided | null = null;
  let fields: JsonObject | null = null;
  for (const arg of args) {
    if (text === null && (typeof arg === 'string' || arg instanceof Elided)) text = arg;
    else if (fields === null && isObject(arg)) fields = arg;
  }
  if (text === null && (typeof root.message === 'string' || root.message instanceof Elided)) text = root.message;
  return { subsystem, text, fields };
}

function positionalArgs(root: JsonObject): Skimmed[] {
  const args: Skimmed[] = [];
  for (let i = 0; Object.hasOwn(root, String(i)); i++) args.push(root[String(i)] as Skimmed);
  return args;
}

function hasElided(line: TslogLine): boolean {
  if (line.text instanceof Elided) return true;
  return line.fields !== null && Object.values(line.fields).some((value) => value instanceof Elided);
}

/**
 * The same few bindings strings repeat on every line; remembering what they hold
 * saves a JSON.parse per line. Bounded, because a hostile log could vary them.
 */
const bindingsCache = new Map<string, string | null>();
const BINDINGS_CACHE_MAX = 256;

/** `{"subsystem":"diagnostic"}` → `diagnostic`; anything else → null. */
function bindingsSubsystem(raw: string): string | null {
  if (!raw.startsWith('{')) return null;
  const cached = bindingsCache.get(raw);
  if (cached !== undefined) return cached;
  let subsystem: string | null = null;
  try {
    const parsed: unknown = JSON.parse(raw);
    const value = typeof parsed === 'object' && parsed !== null ? (parsed as { subsystem?: unknown }).subsystem : null;
    subsystem = typeof value === 'string' && value !== '' ? value : null;
  } catch {
    subsystem = null;
  }
  if (bindingsCache.size >= BINDINGS_CACHE_MAX) bindingsCache.clear();
  bindingsCache.set(raw, subsystem);
  return subsystem;
}

/** `_meta.name` holds the bindings too (or, for a plain logger, just its name). */
function metaSubsystem(meta: Skimmed | undefined): string | null {
  if (!isObject(meta) || typeof meta.name !== 'string' || meta.name === '') return null;
  return meta.name.startsWith('{') ? bindingsSubsystem(meta.name) : meta.name;
}

/** The line's own time: `time` (ISO with offset), else `_meta.date`. */
function lineTime(root: JsonObject): number | null {
  const meta = isObject(root._meta) ? root._meta : {};
  for (const value of [root.time, meta.date]) {
    const ts = typeof value === 'string' ? Date.parse(value) : typeof value === 'number' ? value : Number.NaN;
    if (Number.isFinite(ts)) return ts;
  }
  return null;
}

/**
 * The `key=value` pairs of a console message (`decision=candidate_failed
 * error="FailoverError: ⚠️ …"`). Quoted values may hold spaces and JSON-style
 * escapes; words that are not pairs (`…`) are skipped; the first pair of a name wins.
 */
export function parseKeyValues(text: string): Map<string, string> {
  const pairs = new Map<string, string>();
  const key = /([A-Za-z_][\w.-]*)=/y;
  let i = 0;
  while (i < text.length) {
    i = skipSpace(text, i);
    key.lastIndex = i;
    const match = key.exec(text);
    if (match === null) {
      i = nextSpace(text, i);
      continue;
    }
    const value = text[key.lastIndex] === '"' ? quotedValue(text, key.lastIndex) : bareValue(text, key.lastIndex);
    const name = match[1] as string;
    if (!pairs.has(name)) pairs.set(name, value.value);
    i = value.next;
  }
  return pairs;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i] as string)) i++;
  return i;
}

function nextSpace(text: string, i: number): number {
  while (i < text.length && !/\s/.test(text[i] as string)) i++;
  return i;
}

function bareValue(text: string, start: number): { value: string; next: number } {
  const end = nextSpace(text, start);
  return { value: text.slice(start, end), next: end };
}

/**
 * A value in double quotes starting at `open`; an unterminated one runs to the end
 * of the text. OpenClaw does not escape quotes inside a value (`error="Inline API key
 * for provider "mockauth" is temporarily disabled…"`), so a quote closes the value
 * only where the text ends or the next pair begins.
 */
function quotedValue(text: string, open: number): { value: string; next: number } {
  let i = open + 1;
  while (i < text.length && !(text[i] === '"' && closesValue(text, i + 1))) i += text[i] === '\\' ? 2 : 1;
  const raw = text.slice(open + 1, Math.min(i, text.length));
  return { value: unescapeValue(raw), next: i + 1 };
}

const NEXT_PAIR = /\s+[A-Za-z_][\w.-]*=/y;

function closesValue(text: string, after: number): boolean {
  if (after >= text.length) return true;
  NEXT_PAIR.lastIndex = after;
  return NEXT_PAIR.test(text);
}

function unescapeValue(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    // Not JSON's escapes (a raw tab, `\'`): keep the escaped characters themselves.
    return raw.replace(/\\(.)/gs, '$1');
  }
}

/** A signal's fields by name: structured fields first, then the console text's pairs. */
class Fields {
  constructor(
    private readonly pairs: Map<string, string>,
    private readonly object: JsonObject | null,
  ) {}

  private raw(name: string): Scalar | null {
    if (this.object !== null && Object.hasOwn(this.object, name)) {
      const value = this.object[name];
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
    }
    return this.pairs.get(name) ?? null;
  }

  /** The whole text of a field (error text), or null when absent or empty. */
  text(name: string): string | null {
    const value = this.raw(name);
    if (value === null) return null;
    const text = String(value).trim();
    return text === '' ? null : text;
  }

  /** A short field (id, reason, dependency), capped. */
  str(name: string): string | null {
    const text = this.text(name);
    return text === null ? null : cutCodePoints(text, VALUE_MAX);
  }

  num(name: string): number | null {
    const value = this.raw(name);
    if (typeof value === 'number') return Number.isFinite(value) ? value : null;
    return typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : null;
  }

  /** `provider/model`: from `<prefix>Provider` and `<prefix>Model`, else the `<prefix>` pair itself. */
  dep(prefix: string): string | null {
    const provider = this.str(`${prefix}Provider`);
    const model = this.str(`${prefix}Model`);
    const dep =
      provider !== null && model !== null
        ? `${provider}/${model}`
        : (this.str(prefix) ?? (model?.includes('/') ? model : null));
    // A damaged name is no dependency (see dependency-name.ts): the decision names none.
    return dep !== null && nameProblem(dep) !== null ? null : dep;
  }

  /** `provider/model` from plain `provider` and `model` fields. */
  providerModel(): string | null {
    const provider = this.str('provider');
    const model = this.str('model');
    if (dependencyNameProblem(provider, model) !== null) return null;
    return provider !== null && model !== null ? `${provider}/${model}` : null;
  }

  /** The first of `names` that holds a real HTTP status. */
  httpStatus(...names: string[]): number | null {
    for (const name of names) {
      const value = this.num(name);
      if (value !== null && Number.isInteger(value) && value >= 100 && value <= 599) return value;
    }
    return null;
  }
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

type Builder = (base: GatewaySignal, fields: Fields) => GatewaySignal;

const BUILDERS: Record<SignalKind, Builder> = {
  fallback_decision: (base, f) => ({
    ...base,
    dep: f.dep('requested'),
    candidateDep: f.dep('candidate'),
    decision: f.str('decision'),
    reason: f.str('reason'),
    httpStatus: f.httpStatus('httpCode', 'status', 'httpStatus'),
    finalOutcome: f.str('fallbackStepFinalOutcome') ?? f.str('finalOutcome'),
  }),
  failover_decision: (base, f) => ({
    ...base,
    // 2026.9 writes structured `sourceProvider`/`sourceModel` and `provider`/`model`; older
    // console text `from=` / `to=`.
    dep: f.dep('source') ?? f.dep('from'),
    candidateDep: f.dep('to') ?? f.dep('next') ?? f.providerModel(),
    decision: f.str('decision'),
    reason: f.str('failoverReason') ?? f.str('reason'),
    httpStatus: f.httpStatus('httpCode', 'status', 'httpStatus'),
  }),
  run_timeout: (base, f) => ({ ...base, durationMs: milliseconds(f.num('timeoutMs')) }),
  lane_error: laneError,
  stall: (base, f) => ({
    ...base,
    durationMs: milliseconds(f.num('ageMs')) ?? ageMs(f.str('age')),
    classification: f.str('classification') ?? f.str('state'),
    reason: f.str('reason'),
  }),
  gateway_restart: (base) => base,
};

/**
 * A lane task error keeps the start of its error text (an error string, not
 * conversation content) and, when the text says rate limit, OpenClaw's reason
 * `rate_limit`, judged by the same classifier as transcript errors.
 */
function laneError(base: GatewaySignal, f: Fields): GatewaySignal {
  const error = f.text('error');
  const verdict = error === null ? null : classifyErrorText(error);
  return {
    ...base,
    durationMs: milliseconds(f.num('durationMs')),
    detail: error === null ? null : cutCodePoints(error, DETAIL_MAX),
    reason: f.str('reason') ?? (verdict?.outcome === 'rate_limited' ? 'rate_limit' : null),
    httpStatus: f.httpStatus('httpCode', 'status', 'httpStatus') ?? verdict?.httpStatus ?? null,
  };
}

/** A non-negative whole number of milliseconds (the store's column is an integer). */
function milliseconds(value: number | null): number | null {
  return value !== null && Number.isFinite(value) && value >= 0 ? storableInteger(value) : null;
}

const AGE = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;
const AGE_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `216s`, `4m`, `850ms`, `2h`; a bare number is in seconds, the unit OpenClaw prints ages in. */
export function ageMs(age: string | null): number | null {
  const match = age === null ? null : AGE.exec(age.trim());
  if (!match) return null;
  return milliseconds(Number(match[1]) * (AGE_UNIT_MS[match[2] ?? 's'] as number));
}

/** At most `max` characters, never splitting a surrogate pair (an emoji in an error text). */
function cutCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

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

function isObject(value: Skimmed | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Elided);
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
