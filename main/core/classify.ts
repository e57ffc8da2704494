/**
 * Turns the fields of one assistant message into an outcome. Pure: no I/O, no
 * clock, so every source (JSONL, SQLite, replays of the seed watchdog) agrees
 * on what a record means. The rules are tables so that each row is reviewed and
 * tested on its own; order matters, the first matching row wins.
 */

export const OUTCOMES = [
  'ok',
  'rate_limited',
  'overloaded',
  'server_error',
  'timeout',
  'connection_reset',
  'aborted',
  'auth',
  'billing',
  'context_overflow',
  'other_error',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

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

interface StatusRule {
  outcome: Outcome;
  statuses: readonly number[];
  /** Lower-case; record codes are compared case-insensitively. */
  codes: readonly string[];
  note: string;
}

/** Rule 2: structured `errorStatus` / `errorCode`, trusted over the free text. */
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

/**
 * A status number standing alone in text. Error text is full of numbers that
 * are not statuses: request ids (`req_4290ab`), longer numbers (`14290`),
 * decimals (`1.429`), thousands (`1,429`) and quantities (`512 tokens`), so
 * the number must not touch a letter, digit or underscore, must not be part of
 * a decimal, and must not be followed by a unit.
 */
function statusInText(numbers: string): RegExp {
  const unit = String.raw`\s*(?:%|(?:tokens?|chars?|characters|bytes|words|ms|s|secs?|seconds?|mins?|minutes?)\b)`;
  return new RegExp(String.raw`(?<!\w|\d[.,])(?:${numbers})(?!\w|[.,]\d)(?!${unit})`, 'i');
}

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

export function classify(facts: AssistantFacts): Classification {
  const status = validStatus(facts.errorStatus);
  const errorCode = codeString(facts.errorCode);
  const text = typeof facts.errorMessage === 'string' ? facts.errorMessage.slice(0, TEXT_LIMIT) : '';
  const outcome = outcomeOf(facts.stopReason, status, errorCode, text);
  if (outcome === 'ok') {
    return { outcome, phase: 'complete', httpStatus: null, errorCode, retryAfterMs: null };
  }
  return {
    outcome,
    phase: facts.outputDelivered ? 'mid_stream' : 'before_output',
    httpStatus: status ?? leadingStatus(text),
    errorCode,
    retryAfterMs: validRetryMs(facts.errorRetryAfterMs) ?? parseRetryAfterText(text),
  };
}

function outcomeOf(stopReason: unknown, status: number | null, code: string | null, text: string): Outcome {
  if (OK_STOP_REASONS.has(stopReason)) return 'ok';
  if (stopReason === 'aborted') return 'aborted';
  const lowerCode = code?.trim().toLowerCase() ?? null;
  for (const rule of STATUS_RULES) {
    if (status !== null && rule.statuses.includes(status)) return rule.outcome;
    if (lowerCode !== null && rule.codes.includes(lowerCode)) return rule.outcome;
  }
  for (const rule of TEXT_RULES) {
    if (rule.patterns.some((p) => p.test(text))) return rule.outcome;
  }
  return 'other_error';
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

/** Many providers put the status first ("429 该模型…", "503 Service Unavailable"); only error statuses count. */
function leadingStatus(text: string): number | null {
  const m = /^\s*([45]\d\d)(?!\w|[.,]\d)/.exec(text);
  return m?.[1] === undefined ? null : Number(m[1]);
}

function validRetryMs(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/**
 * A retry hint's keyword, then the number that follows it. HTTP-date forms of
 * Retry-After are ignored: turning them into a delay needs a clock.
 */
const RETRY_HINT =
  /\b(retry[-_ ]?after[-_ ]?ms|retry[-_ ]?after|retry[-_ ]?delay|try again (?:in|after)|retry in)\b["'\s:=]*(?:~|≈|about\s|approximately\s)?\s*(?=\d)/i;

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

/** Parses a retry hint out of error text: "Retry-After: 120", "retry after 30s", "try again in ~406 min", "try again in 1.5 seconds", "retry in 250ms" ... Returns ms or null. */
export function parseRetryAfterText(text: string): number | null {
  const head = text.slice(0, TEXT_LIMIT);
  const hint = RETRY_HINT.exec(head);
  if (hint === null) return null;
  // A bare number is in seconds, as in the Retry-After header, except for the
  // `retry-after-ms` header that says otherwise.
  const bareUnitMs = /ms$/i.test(hint[1] ?? '') ? 1 : 1000;
  DURATION_PIECE.lastIndex = hint.index + hint[0].length;
  let total: number | null = null;
  for (let piece = DURATION_PIECE.exec(head); piece !== null; piece = DURATION_PIECE.exec(head)) {
    const value = Number(piece[1]);
    const unit = piece[2];
    if (unit === undefined) {
      total ??= value * bareUnitMs;
      break;
    }
    total = (total ?? 0) + value * unitMs(unit);
  }
  return total === null ? null : Math.round(total);
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
 * OpenClaw's own failure reasons (fallback and failover decisions in the gateway
 * log, `error_category` in its metrics) mapped onto BreakerBar's outcomes, for
 * when those are all BreakerBar can see. First matching row wins; anything
 * unknown is `other_error`, never guessed into a breaker-tripping outcome.
 */
const REASON_TABLE: ReadonlyArray<{ outcome: Outcome; reasons: readonly string[] }> = [
  { outcome: 'ok', reasons: ['ok', 'success', 'succeeded', 'none'] },
  {
    outcome: 'rate_limited',
    reasons: ['rate_limit', 'rate_limited', 'ratelimit', 'quota', 'quota_exceeded', 'throttled'],
  },
  { outcome: 'overloaded', reasons: ['overloaded', 'high_demand'] },
  {
    outcome: 'server_error',
    reasons: ['server_error', 'upstream_error', 'internal_error', 'bad_gateway', 'unavailable'],
  },
  { outcome: 'timeout', reasons: ['timeout', 'timed_out', 'deadline_exceeded', 'timeouterror'] },
  {
    outcome: 'connection_reset',
    reasons: ['network', 'connection', 'connection_reset', 'connection_closed', 'econnreset', 'socket'],
  },
  // `streamabandoned`: the consumer stopped reading before the stream ended, a client-side end.
  { outcome: 'aborted', reasons: ['aborted', 'abort', 'aborterror', 'streamabandoned', 'cancelled', 'canceled'] },
  { outcome: 'auth', reasons: ['auth', 'auth_permanent', 'unauthorized', 'forbidden'] },
  { outcome: 'billing', reasons: ['billing', 'insufficient_credits', 'payment_required'] },
  { outcome: 'context_overflow', reasons: ['context_overflow', 'context_length', 'context_window'] },
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
