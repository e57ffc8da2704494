/**
 * Turns the fields of one assistant message into an outcome. Pure: no I/O, no
 * clock, so every source (JSONL, SQLite, replays of the seed watchdog) agrees
 * on what a record means. The rules are tables so that each row is reviewed and
 * tested on its own; order matters, the first matching row wins.
 */

import { OUTCOMES, type Outcome } from '../../words/outcomes.js';
import { storableInteger } from '../store/whole-numbers.js';

export { OUTCOMES, type Outcome };

export type Phase = 'complete' | 'before_output' | 'mid_stream';

/** The fields of an assistant message the classifier reads (values as found in the record, untrusted). */
export interface AssistantFacts {
  stopReason: unknown;
  errorMessage: unknown;
  errorCode: unknown;
  errorStatus: unknown;
  errorRetryAfterMs: unknown;
  /** True when any output (non-empty text, thinking or a tool call, or usage.output > 0) reached the client before the call ended. */
  outputDelivered: boolean;
  /**
   * The `phase` of the record's `diagnostics` (e.g. `provider_transport_failure`:
   * `before_message_stream_start`, `after_message_stream_start`), a string or an
   * array of them. Where it names a phase it decides `phase`; absent or
   * unrecognised, `outputDelivered` does.
   */
  diagnosticsPhase?: unknown;
}

export interface Classification {
  outcome: Outcome;
  phase: Phase;
  httpStatus: number | null;
  errorCode: string | null;
  retryAfterMs: number | null;
}

/**
 * Only this much of the error text is examined. Providers and proxies sometimes
 * return whole HTML pages (or megabytes of JSON) as the error body; the signal
 * is always near the start, and scanning the rest would cost time on every
 * failed call during exactly the storms BreakerBar exists to watch.
 */
const TEXT_LIMIT = 8 * 1024;
const OK_STOP_REASONS: ReadonlySet<unknown> = new Set(['stop', 'toolUse', 'length']);

interface AbortRule {
  outcome: Outcome;
  /** Matched against the error text, case-insensitive. */
  patterns: readonly RegExp[];
  /** A code that CODE_RULES files under one of these outcomes also selects the row. */
  codeOutcomes: readonly Outcome[];
  note: string;
}

/**
 * Rule 1b: `stopReason: "aborted"` is `aborted` (the client ended the call),
 * unless a row here says who ended it and why. Statuses and rate-limit words on
 * an aborted call stay `aborted`.
 */
const ABORT_RULES: readonly AbortRule[] = [
  {
    outcome: 'timeout',
    patterns: [/timed[ _-]?out/i, /timeout/i, /deadline[ _-]?exceeded/i],
    codeOutcomes: ['timeout'],
    note: 'OpenClaw aborts a silent call itself ("LLM idle timeout (30s): no response from model"); AbortSignal.timeout says "aborted due to timeout"',
  },
];

interface StatusRule {
  outcome: Outcome;
  statuses: readonly number[];
  /** Lower-case; record codes are compared case-insensitively. */
  codes: readonly string[];
  note: string;
}

/**
 * Rule 2: the structured status, trusted over the free text. The status is
 * `errorStatus` when the record has a valid one, else the status the error
 * text starts with ("429 Rate limit reached…", "503 The service…"): OpenClaw
 * 2026.9 writes no `errorStatus`, only that leading number. The codes here are
 * statuses in their own right (zhipu and Google send them in place of a 429),
 * so they sit in the rows, before CODE_RULES.
 */
const STATUS_RULES: readonly StatusRule[] = [
  {
    outcome: 'rate_limited',
    statuses: [429],
    codes: ['1305', 'resource_exhausted'],
    note: 'HTTP 429; zhipu code 1305; Google RESOURCE_EXHAUSTED',
  },
  { outcome: 'overloaded', statuses: [529], codes: [], note: 'Anthropic overloaded' },
  { outcome: 'auth', statuses: [401, 403], codes: [], note: 'bad or forbidden credentials' },
  { outcome: 'billing', statuses: [402], codes: [], note: 'payment required' },
  { outcome: 'timeout', statuses: [408, 504], codes: [], note: 'request / gateway timeout' },
  {
    outcome: 'server_error',
    // Every 5xx; 504 and 529 never reach this row because earlier rows win.
    statuses: Array.from({ length: 100 }, (_, i) => 500 + i),
    codes: [],
    note: 'any other 5xx',
  },
];

/** Units that make a number a quantity ("512 tokens", "429 ms"), not a status. */
const UNIT = String.raw`\s*(?:%|(?:tokens?|chars?|characters|bytes|words|ms|s|secs?|seconds?|mins?|minutes?)\b)`;

/**
 * A status number standing alone in text. Error text is full of numbers that
 * are not statuses: request ids (`req_4290ab`), longer numbers (`14290`),
 * decimals (`1.429`), thousands (`1,429`) and quantities (`512 tokens`), so
 * the number must not touch a letter, digit or underscore, must not be part of
 * a decimal, and must not be followed by a unit.
 */
function statusInText(numbers: string): RegExp {
  return new RegExp(String.raw`(?<!\w|\d[.,])(?:${numbers})(?!\w|[.,]\d)(?!${UNIT})`, 'i');
}

interface CodeRule {
  outcome: Outcome;
  /** Lower-case, compared with the trimmed, lower-cased `errorCode`. */
  codes: readonly string[];
  /** For codes only partly known, such as undici's, cut short by some writers. */
  patterns?: readonly RegExp[];
  /** The row does not apply when the error text matches this; the text rules decide instead. */
  unless?: RegExp;
  note: string;
}

/**
 * Rule 2b: `errorCode`, the provider's code or the transport's, after the
 * structured status (a 429 with `insufficient_quota` is rate_limited, a 402
 * with it billing) and before the free text.
 */
const CODE_RULES: readonly CodeRule[] = [
  {
    outcome: 'connection_reset',
    codes: ['econnreset', 'epipe', 'econnaborted', 'und_err_socket', 'und_err_closed'],
    note: 'the connection dropped (Node socket codes; undici "other side closed")',
  },
  {
    outcome: 'timeout',
    codes: ['etimedout', 'esockettimedout'],
    // UND_ERR_CONNECT_TIMEOUT, UND_ERR_HEADERS_TIMEOUT, UND_ERR_BODY_TIMEOUT, also cut short ("UND_ERR_BODY_TIMEOUT…").
    patterns: [/^und_err_.*timeout/i],
    note: 'the call took too long (Node and undici timeout codes)',
  },
  {
    outcome: 'rate_limited',
    codes: ['rate_limit_exceeded', 'rate_limit_error'],
    note: 'OpenAI rate_limit_exceeded, Anthropic rate_limit_error',
  },
  { outcome: 'overloaded', codes: ['overloaded', 'overloaded_error'], note: 'provider-wide capacity problem' },
  { outcome: 'server_error', codes: ['service_unavailable'], note: 'the provider is down (OpenAI-style 503 code)' },
  {
    outcome: 'billing',
    codes: ['insufficient_quota'],
    // OpenAI sends this code with a 429: where the text quotes that 429, the
    // text's 429 row decides (rate_limited), as the status rule would.
    unless: statusInText('429'),
    note: 'out of quota or credits; with a 429 it is a rate limit',
  },
  { outcome: 'auth', codes: ['invalid_api_key'], note: 'rejected credentials' },
  { outcome: 'context_overflow', codes: ['context_length_exceeded'], note: 'prompt larger than the model accepts' },
];

interface TextRule {
  outcome: Outcome;
  patterns: readonly RegExp[];
  note: string;
}

/** Rule 3: the error text, case-insensitive. `[ _-]?` accepts both prose and constant spellings. */
const TEXT_RULES: readonly TextRule[] = [
  {
    outcome: 'context_overflow',
    patterns: [/context[ _-]?length/i, /context[ _-]?window/i, /maximum context/i],
    note: 'prompt larger than the model accepts; first, because such errors often mention tokens',
  },
  { outcome: 'rate_limited', patterns: [statusInText('429')], note: 'HTTP 429 quoted in the text' },
  {
    outcome: 'rate_limited',
    patterns: [
      /rate[ _-]?limit/i,
      /too[ _-]?many[ _-]?requests/i,
      /resource[ _-]?exhausted/i,
      /quota[ _-]?exceeded/i,
      /throttl/i,
      /usage[ _-]?limit/i,
      /tokens[ _-]?per[ _-]?min/i,
    ],
    note: 'rate-limit wording across providers (OpenAI, Anthropic, Google, ChatGPT plans)',
  },
  { outcome: 'rate_limited', patterns: [/访问量过大/], note: 'zhipu GLM: "traffic too high"' },
  {
    outcome: 'overloaded',
    // 529 is included so text and rule 2 agree on what that status means.
    patterns: [/overloaded/i, /high[ _-]?demand/i, statusInText('529')],
    note: 'provider-wide capacity problem, not this caller',
  },
  { outcome: 'billing', patterns: [statusInText('402')], note: 'HTTP 402 quoted in the text' },
  {
    outcome: 'billing',
    patterns: [/insufficient[ _-]?credits?/i, /credit[ _-]?balance/i],
    note: 'out of credits',
  },
  { outcome: 'auth', patterns: [statusInText('401|403')], note: 'HTTP 401/403 quoted in the text' },
  {
    outcome: 'auth',
    patterns: [/invalid[ _-]?(?:x-)?api[ _-]?key/i, /unauthori[sz]ed/i],
    note: 'rejected credentials',
  },
  {
    outcome: 'timeout',
    patterns: [/timed[ _-]?out/i, /timeout/i, /ETIMEDOUT/i, /deadline[ _-]?exceeded/i],
    note: 'the call took too long',
  },
  {
    outcome: 'connection_reset',
    patterns: [/ECONNRESET/i, /socket hang up/i, /connection[ _-]?reset/i, /\bEPIPE\b/i],
    note: 'the connection dropped',
  },
  {
    outcome: 'connection_reset',
    patterns: [/^\s*connection error\.?\s*$/i, /^\s*terminated\.?\s*$/i],
    note: 'the whole message: the OpenAI SDK\'s "Connection error." (no response), undici\'s "terminated" (stream cut mid-way)',
  },
  { outcome: 'server_error', patterns: [statusInText(String.raw`5\d\d`)], note: 'any 5xx quoted in the text' },
  {
    outcome: 'server_error',
    patterns: [
      /internal[ _-]?server[ _-]?error/i,
      /bad[ _-]?gateway/i,
      /service[ _-]?unavailable/i,
      /upstream[ _-]?error/i,
    ],
    note: 'server-side failure wording',
  },
];

interface PhaseRule {
  phase: Exclude<Phase, 'complete'>;
  pattern: RegExp;
  note: string;
}

/** `diagnostics[].phase`, first matching row; a value no row matches leaves the decision to `outputDelivered`. */
const PHASE_RULES: readonly PhaseRule[] = [
  {
    phase: 'before_output',
    pattern: /before/i,
    note: '`before_message_stream_start`: the call failed before its first event reached the client',
  },
  {
    phase: 'mid_stream',
    pattern: /after|mid|during|stream/i,
    note: '`after_message_stream_start`, `mid_stream`, `during_stream`, any other phase in the stream: it had started',
  },
];

export function classify(facts: AssistantFacts): Classification {
  const errorCode = codeString(facts.errorCode);
  const fullText = typeof facts.errorMessage === 'string' ? facts.errorMessage : '';
  const text = fullText.slice(0, TEXT_LIMIT);
  // `errorStatus` first when the record has a valid one; else the status the text starts with.
  const status = validStatus(facts.errorStatus) ?? leadingStatus(text);
  const outcome = outcomeOf(facts.stopReason, status, errorCode?.trim().toLowerCase() ?? null, text);
  if (outcome === 'ok') {
    return { outcome, phase: 'complete', httpStatus: null, errorCode, retryAfterMs: null };
  }
  return {
    outcome,
    phase: diagnosedPhase(facts.diagnosticsPhase) ?? (facts.outputDelivered ? 'mid_stream' : 'before_output'),
    httpStatus: status,
    errorCode,
    retryAfterMs: validRetryMs(facts.errorRetryAfterMs) ?? parseRetryAfterText(fullText),
  };
}

/** A failure known only by its text and, maybe, its code (a gateway-log line): classified as a failed call (stopReason "error") with no output. */
export function classifyErrorText(text: string, errorCode?: string | null): Classification {
  return classify({
    stopReason: 'error',
    errorMessage: text,
    errorCode: errorCode ?? null,
    errorStatus: null,
    errorRetryAfterMs: null,
    outputDelivered: false,
  });
}

function outcomeOf(stopReason: unknown, status: number | null, lowerCode: string | null, text: string): Outcome {
  if (OK_STOP_REASONS.has(stopReason)) return 'ok';
  if (stopReason === 'aborted') {
    const fromCode = codeOutcome(lowerCode, text);
    for (const rule of ABORT_RULES) {
      if (rule.patterns.some((p) => p.test(text))) return rule.outcome;
      if (fromCode !== null && rule.codeOutcomes.includes(fromCode)) return rule.outcome;
    }
    return 'aborted';
  }
  for (const rule of STATUS_RULES) {
    if (status !== null && rule.statuses.includes(status)) return rule.outcome;
    if (lowerCode !== null && rule.codes.includes(lowerCode)) return rule.outcome;
  }
  const fromCode = codeOutcome(lowerCode, text);
  if (fromCode !== null) return fromCode;
  for (const rule of TEXT_RULES) {
    if (rule.patterns.some((p) => p.test(text))) return rule.outcome;
  }
  return 'other_error';
}

/** What CODE_RULES make of a (lower-case) code, null when no row applies. */
function codeOutcome(lowerCode: string | null, text: string): Outcome | null {
  if (lowerCode === null) return null;
  for (const rule of CODE_RULES) {
    const hit = rule.codes.includes(lowerCode) || (rule.patterns?.some((p) => p.test(lowerCode)) ?? false);
    if (hit && !(rule.unless?.test(text) ?? false)) return rule.outcome;
  }
  return null;
}

/** The outcome STATUS_RULES give a status by itself, null when no row names it. */
function statusOutcome(status: number | null): Outcome | null {
  if (status === null) return null;
  return STATUS_RULES.find((rule) => rule.statuses.includes(status))?.outcome ?? null;
}

/** The phase named by `diagnostics[].phase` (one value or several; any mid-stream one wins), null when none is recognised. */
function diagnosedPhase(value: unknown): Phase | null {
  const values = Array.isArray(value) ? value.slice(0, 16) : [value];
  let found: Phase | null = null;
  for (const v of values) {
    if (typeof v !== 'string') continue;
    const phase = PHASE_RULES.find((rule) => rule.pattern.test(v.slice(0, 200)))?.phase;
    if (phase === 'mid_stream') return phase;
    found = phase ?? found;
  }
  return found;
}

/** An HTTP status as a number or numeric string, when it is a real status (100–599). */
function validStatus(value: unknown): number | null {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 100 && n <= 599 ? n : null;
}

function codeString(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

const LEADING_STATUS = new RegExp(String.raw`^\s*([45]\d\d)(?!\w|[.,]\d)(?!${UNIT})`, 'i');

/** Many providers put the status first ("429 该模型…", "503 Service Unavailable"); only error statuses count, quantities ("500 tokens") do not. */
function leadingStatus(text: string): number | null {
  const m = LEADING_STATUS.exec(text);
  return m?.[1] === undefined ? null : Number(m[1]);
}

/** `errorRetryAfterMs` as the store keeps it: a whole number of ms (a fraction rounded, past 2^53 none). */
function validRetryMs(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? storableInteger(value) : null;
}

interface RetryHint {
  /** Ends where the number starts; group 1 is the keyword. */
  pattern: RegExp;
  /** Also look in the last TAIL_LIMIT characters of a text longer than TEXT_LIMIT. */
  tail: boolean;
  note: string;
}

/** How much of the end of a long text is searched for a header that OpenClaw appended. */
const TAIL_LIMIT = 256;

/**
 * Retry hints, first row that yields a number wins. HTTP-date forms of
 * Retry-After are ignored: turning them into a delay needs a clock.
 */
const RETRY_HINTS: readonly RetryHint[] = [
  {
    pattern: /\b(retry-after(?:-ms)?)[ \t]*:[ \t]*(?=\d)/i,
    tail: true,
    note: 'the Retry-After / retry-after-ms header (OpenClaw 2026.9 appends "; Retry-After: N seconds"): what the provider asks for, so it wins over hints in the body ("try again in 2s")',
  },
  {
    pattern:
      /\b(retry[-_ ]?after[-_ ]?ms|retry[-_ ]?after|retry[-_ ]?delay|try again (?:in|after)|retry in)\b["'\s:=]*(?:~|≈|about\s|approximately\s)?\s*(?=\d)/i,
    tail: false,
    note: 'hints in the error body: "retry after 30s", "try again in ~406 min", "retryDelay": "23s"',
  },
];

/** One `<number><unit>` piece; several in a row form Go-style durations such as "6m0s" or "1h 30m". */
const DURATION_PIECE =
  /\s*(\d+(?:\.\d+)?)(?!\d|\.\d)\s*(milliseconds?|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)?(?![a-z])/iy;

function unitMs(unit: string): number {
  const u = unit.toLowerCase();
  if (u.startsWith('ms') || u.startsWith('milli')) return 1;
  if (u.startsWith('s')) return 1000;
  if (u.startsWith('m')) return 60_000;
  return 3_600_000;
}

/**
 * Parses a retry hint out of error text: "Retry-After: 120", "Retry-After: 1 seconds",
 * "retry-after-ms: 250", "retry after 30s", "try again in ~406 min", "try again in
 * 1.5 seconds", "retry in 250ms" ... Returns ms or null.
 */
export function parseRetryAfterText(text: string): number | null {
  const head = text.slice(0, TEXT_LIMIT);
  const tail = text.length > TEXT_LIMIT ? text.slice(-TAIL_LIMIT) : null;
  for (const hint of RETRY_HINTS) {
    const ms =
      retryAfterIn(head, hint.pattern) ?? (hint.tail && tail !== null ? retryAfterIn(tail, hint.pattern) : null);
    if (ms !== null) return ms;
  }
  return null;
}

function retryAfterIn(text: string, pattern: RegExp): number | null {
  const hint = pattern.exec(text);
  if (hint === null) return null;
  // A bare number is in seconds, as in the Retry-After header, except for the
  // `retry-after-ms` header that says otherwise.
  const bareUnitMs = /ms$/i.test(hint[1] ?? '') ? 1 : 1000;
  DURATION_PIECE.lastIndex = hint.index + hint[0].length;
  let total: number | null = null;
  for (let piece = DURATION_PIECE.exec(text); piece !== null; piece = DURATION_PIECE.exec(text)) {
    const value = Number(piece[1]);
    const unit = piece[2];
    if (unit === undefined) {
      total ??= value * bareUnitMs;
      break;
    }
    total = (total ?? 0) + value * unitMs(unit);
  }
  return total === null ? null : storableInteger(total);
}

/** The seed cron watchdog's rule: stopReason == "error" and (errorMessage contains "429" or errorCode == "1305"). Used to replay the old watchdog. */
export function isSeedRateLimit(facts: Pick<AssistantFacts, 'stopReason' | 'errorMessage' | 'errorCode'>): boolean {
  if (facts.stopReason !== 'error') return false;
  const code = facts.errorCode;
  // Deliberately naive (a plain substring over the whole message): this
  // replays what the old script did, bugs included.
  const messageHit = typeof facts.errorMessage === 'string' && facts.errorMessage.includes('429');
  const codeHit = (typeof code === 'string' || typeof code === 'number') && String(code) === '1305';
  return messageHit || codeHit;
}

/** Empty counters for every outcome, zeros included, in OUTCOMES order (scan/history JSON uses it). */
export function emptyOutcomeCounts(): Record<Outcome, number> {
  const counts = {} as Record<Outcome, number>;
  for (const outcome of OUTCOMES) counts[outcome] = 0;
  return counts;
}

/**
 * OpenClaw's own failure reasons (`failoverReason` and `providerRuntimeFailureKind`
 * in the gateway log, fallback decisions, `error_category` in its metrics) mapped
 * onto BreakerBar's outcomes, for when those are all BreakerBar can see. First
 * matching row wins; anything unknown is `other_error`, never guessed into a
 * breaker-tripping outcome.
 */
const REASON_TABLE: ReadonlyArray<{ outcome: Outcome; reasons: readonly string[]; note: string }> = [
  { outcome: 'ok', reasons: ['ok', 'success', 'succeeded', 'none'], note: 'completed calls' },
  {
    outcome: 'rate_limited',
    reasons: ['rate_limit', 'rate_limited', 'ratelimit', 'quota', 'quota_exceeded', 'throttled'],
    // OpenClaw also files a 402 `insufficient_quota` under `rate_limit`; with the
    // raw error text at hand, classifyFailoverReason keeps it `billing`.
    note: 'rate limits and quotas',
  },
  { outcome: 'overloaded', reasons: ['overloaded', 'high_demand'], note: 'provider-wide capacity problem' },
  {
    outcome: 'server_error',
    reasons: ['server_error', 'upstream_error', 'internal_error', 'bad_gateway', 'unavailable'],
    note: 'provider-side failures',
  },
  {
    outcome: 'timeout',
    reasons: ['timeout', 'timed_out', 'deadline_exceeded', 'timeouterror'],
    // 2026.9.6 also says providerRuntimeFailureKind `timeout` for a 500 or 503
    // answered at once; the raw text's status corrects it (classifyFailoverReason).
    note: 'the call took too long',
  },
  {
    outcome: 'connection_reset',
    reasons: ['network', 'connection', 'connection_reset', 'connection_closed', 'econnreset', 'socket'],
    note: 'the connection dropped',
  },
  {
    outcome: 'aborted',
    reasons: ['aborted', 'abort', 'aborterror', 'streamabandoned', 'cancelled', 'canceled'],
    note: '`streamabandoned`: the consumer stopped reading before the stream ended, a client-side end',
  },
  {
    outcome: 'auth',
    reasons: ['auth', 'auth_permanent', 'auth_invalid_token', 'unauthorized', 'forbidden'],
    note: 'rejected credentials; `auth_invalid_token` is a providerRuntimeFailureKind',
  },
  {
    outcome: 'billing',
    reasons: ['billing', 'insufficient_credits', 'payment_required'],
    note: 'out of credits',
  },
  {
    outcome: 'context_overflow',
    reasons: ['context_overflow', 'context_length', 'context_window'],
    note: 'prompt larger than the model accepts',
  },
  {
    outcome: 'other_error',
    reasons: ['model_not_found', 'format', 'unclassified', 'unknown'],
    note: "failures that say nothing about the provider's health (listed so they are known, not guessed)",
  },
];

export function outcomeForReason(reason: string | null | undefined): Outcome {
  if (!reason) return 'other_error';
  const normalized = reason
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  for (const row of REASON_TABLE) if (row.reasons.includes(normalized)) return row.outcome;
  return 'other_error';
}

/**
 * An OpenClaw `failoverReason` / `providerRuntimeFailureKind`, with the raw
 * error text when the log line has it (`rawErrorPreview`).
 *
 * The HTTP status the raw text starts with wins over OpenClaw's reason, as it
 * does for the transcript record of the same call: OpenClaw files a 402
 * `insufficient_quota` under failoverReason `rate_limit`, but BreakerBar's
 * outcome for it stays `billing`; and 2026.9.6 calls a 500 or 503 answered at
 * once providerRuntimeFailureKind `timeout`, which stays `server_error`.
 * Without such a status the reason decides; a reason that says nothing
 * (`unclassified`, `unknown`, none) leaves it to the text.
 */
export function classifyFailoverReason(reason: string | null | undefined, text?: string | null): Outcome {
  const fromStatus = typeof text === 'string' ? statusOutcome(leadingStatus(text.slice(0, TEXT_LIMIT))) : null;
  if (fromStatus !== null) return fromStatus;
  const fromReason = outcomeForReason(reason);
  if (fromReason !== 'other_error' || typeof text !== 'string' || text === '') return fromReason;
  return classifyErrorText(text).outcome;
}
