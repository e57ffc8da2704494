/**
 * What one OpenClaw transcript record means to BreakerBar. JSONL lines and the
 * `event_json` of SQLite transcripts carry the same object, so both sources
 * decode it here, and only here.
 *
 * Only assistant messages are calls; their fields are read by exact path, so
 * words like "429" in user text, tool results, tool-call arguments or
 * compaction summaries can never be mistaken for an outcome.
 */
import { createHash } from 'node:crypto';
import { classify, isSeedRateLimit } from '../calls/classify.js';
import type { CallEvent, SourceKind, TokenUsage } from '../calls/events.js';
import type { Logger } from '../runtime/log.js';
import { storableInteger } from '../store/whole-numbers.js';
import { dependencyNameProblem } from './dependency-name.js';
import { Elided, MALFORMED, RAW, Raw, Shape, type Skimmed, type SkimOptions, skimJson } from './json-skim.js';
import type { QuoteBits } from './quote-bitmap.js';
import { fallbackRecordKey, recordKey } from './record-key.js';

export interface RecordContext {
  source: SourceKind;
  agentId: string;
  sessionId: string;
  /** When the record itself carries no time: the time its container stored (SQLite `created_at`). */
  fallbackTs?: number;
}

export type TranscriptRecord =
  | { kind: 'header'; sessionId: string | null }
  /**
   * `repaired`: the fields whose value could not be stored as written (a fraction where a whole number belongs,
   * rounded; a number past 2^53, dropped), when any.
   */
  | { kind: 'call'; call: CallEvent; seedRateLimit: boolean; repaired?: string[] }
  | { kind: 'other' }
  /**
   * Valid JSON that cannot be used: not an object, a call without a usable time, or a call whose provider or
   * model name is damaged (`reason` says which).
   */
  | { kind: 'malformed'; reason?: string };

type JsonObject = { [key: string]: Skimmed };

/**
 * Strings up to 512 bytes are decoded (every field BreakerBar reads is shorter;
 * measured, decoding short strings in bulk is cheaper than measuring them one
 * by one); longer ones (message text, thinking, tool output) are only measured,
 * except the error text, which the classifier reads.
 */
const SKIM_OPTIONS: SkimOptions = {
  maxStringBytes: 512,
  keepKeys: new Set(['errorMessage']),
  shape: recordShape(),
  quotes: null,
};

/**
 * The fields interpretRecord reads, the only ones built (the rest of a line is
 * checked, not allocated: tool-call arguments, signatures, ids, user text).
 * Keep it in step with interpretRecord and the helpers below it.
 */
/** A content block: what outputDelivered reads. */
const CONTENT_SHAPE = new Shape(
  new Map([
    ['type', null],
    ['text', null],
    ['thinking', null],
  ]),
);

function recordShape(): Shape {
  const all = null;
  const map = (names: string[], nested: Array<[string, Shape | null]>) =>
    new Map<string, Shape | null>([...names.map((name): [string, null] => [name, all]), ...nested]);
  const keys = (names: string[], ...nested: Array<[string, Shape | null]>): Shape => new Shape(map(names, nested));
  // Only assistant messages are calls: past another role, the rest of a line is only checked.
  const assistant = { key: 'role', value: 'assistant' };
  const message = new Shape(
    map(
      [
        'role',
        'api',
        'provider',
        'model',
        'stopReason',
        'errorMessage',
        'errorCode',
        'errorStatus',
        'errorRetryAfterMs',
        'diagnostics',
        '__openclaw',
        'responseId',
        'authProfileId',
        'timestamp',
      ],
      [
        // Built only when the usage cannot say output was delivered (see outputDelivered).
        ['content', RAW],
        ['usage', keys(['input', 'output', 'cacheRead', 'cacheWrite', 'totalTokens'], ['cost', keys(['total'])])],
      ],
    ),
    assistant,
  );
  return keys(['type', 'id', 'timestamp', 'authProfileId'], ['message', message]);
}

/**
 * Parses and interprets one line (or `event_json` value) held in `buf[start, end)`;
 * `quotes`, when it covers the line, spares the parser its search for string ends.
 */
export function readRecord(
  buf: Buffer,
  start: number,
  end: number,
  context: RecordContext,
  quotes: QuoteBits | null = null,
): TranscriptRecord {
  SKIM_OPTIONS.quotes = quotes;
  const value = skimJson(buf, start, end, SKIM_OPTIONS);
  if (value === MALFORMED) return { kind: 'malformed' };
  return interpretRecord(value, context);
}

export function interpretRecord(value: Skimmed, context: RecordContext): TranscriptRecord {
  if (!isObject(value)) return { kind: 'malformed' };
  if (value.type === 'session') return { kind: 'header', sessionId: text(value.id) };
  const message = value.message;
  if (!isObject(message) || message.role !== 'assistant') return { kind: 'other' };
  if (value.type !== undefined && value.type !== 'message') return { kind: 'other' };

  const repairs: string[] = [];
  const ts = eventTime(value, message, repairs) ?? storableTime(context.fallbackTs) ?? null;
  if (ts === null) return { kind: 'malformed' };
  const usage = tokenUsage(message.usage, repairs);
  const retryAfter = message.errorRetryAfterMs;
  if (typeof retryAfter === 'number' && retryAfter >= 0 && !Number.isSafeInteger(retryAfter)) {
    repairs.push('errorRetryAfterMs');
  }
  const facts = {
    stopReason: message.stopReason,
    errorMessage: message.errorMessage,
    errorCode: message.errorCode,
    errorStatus: message.errorStatus,
    errorRetryAfterMs: message.errorRetryAfterMs,
    outputDelivered: outputDelivered(message.content, usage),
    diagnosticsPhase: diagnosticsPhases(message.diagnostics),
  };
  const verdict = classify(facts);
  const provider = text(message.provider) ?? 'unknown';
  const model = text(message.model) ?? 'unknown';
  const damaged = dependencyNameProblem(provider, model);
  if (damaged !== null) return { kind: 'malformed', reason: damaged };
  const call: CallEvent = {
    key: callKey(value, message, context, ts),
    ts,
    source: context.source,
    agentId: context.agentId,
    sessionId: context.sessionId,
    dep: `${provider}/${model}`,
    provider,
    model,
    api: text(message.api),
    stopReason: text(message.stopReason),
    ...verdict,
    credential: credentialOf(text(message.authProfileId) ?? text(value.authProfileId)),
    usage,
    role: 'record',
    runId: runIdOf(message),
    upstream: !isGapFill(message, verdict.outcome, usage),
  };
  const seedRateLimit = isSeedRateLimit(facts);
  return repairs.length === 0
    ? { kind: 'call', call, seedRateLimit }
    : { kind: 'call', call, seedRateLimit, repaired: repairs };
}

/** Calls stored with a field repaired (see `TranscriptRecord`), and the fields of the last such call. */
export interface RepairCounts {
  repaired?: number;
  repairedFields?: string[];
}

/** One call stored with `fields` repaired. */
export function countRepair(counts: RepairCounts, fields: string[]): void {
  counts.repaired = (counts.repaired ?? 0) + 1;
  counts.repairedFields = fields;
}

/**
 * Logs the first repair of each field a source meets (`logged` remembers them), so that an odd writer is named
 * once and the rest only counted.
 */
export function logRepairs(
  counts: RepairCounts,
  logged: Set<string>,
  log: Logger,
  where: Record<string, string>,
): void {
  const fields = counts.repairedFields ?? [];
  if (fields.every((field) => logged.has(field))) return;
  for (const field of fields) logged.add(field);
  log.warn(
    'transcript values that cannot be stored as written: rounded or dropped, the calls kept (counted as repaired; further ones only counted)',
    {
      ...where,
      fields: fields.join(', '),
    },
  );
}

/** The call's key (record-key.ts): a record without an entry id or a creation time falls back to its session. */
function callKey(entry: JsonObject, message: JsonObject, context: RecordContext, ts: number): string {
  const entryId = text(entry.id);
  const created = typeof message.timestamp === 'number' ? message.timestamp : text(message.timestamp);
  if (entryId && created !== null) return recordKey(context.agentId, entryId, created);
  return fallbackRecordKey(context.agentId, context.sessionId, entryId, ts);
}

/**
 * A reply OpenClaw wrote into the transcript itself: when an embedded run ends
 * without an assistant message (2026.7: a context overflow it gave up on), the
 * agent command appends the reply text as `api: "cli"` with the run's usage —
 * none — and no provider response id. A CLI-backed provider's real answers also
 * say `api: "cli"`, but carry usage or an id. A turn the user saw, not a request.
 */
function isGapFill(message: JsonObject, outcome: string, usage: TokenUsage): boolean {
  return (
    outcome === 'ok' &&
    message.api === 'cli' &&
    text(message.responseId) === null &&
    usage.totalTokens === 0 &&
    usage.input === 0 &&
    usage.output === 0
  );
}

/** `__openclaw.runId` (2026.9): the run that wrote the record, which the gateway log's lines name too. */
function runIdOf(message: JsonObject): string | null {
  const meta = message.__openclaw;
  return isObject(meta) ? text(meta.runId) : null;
}

/**
 * The entry's own ISO time (written when the call ended, so it places the outcome
 * in the right window), else the message's epoch-ms time (when it started).
 */
function eventTime(entry: JsonObject, message: JsonObject, repairs: string[]): number | null {
  if (typeof entry.timestamp === 'string') {
    const parsed = Date.parse(entry.timestamp);
    if (Number.isFinite(parsed)) return parsed;
  }
  if (typeof message.timestamp === 'number' && Number.isFinite(message.timestamp)) {
    const ts = storableInteger(message.timestamp);
    if (ts !== message.timestamp) repairs.push('timestamp');
    if (ts !== null) return ts;
  }
  if (typeof message.timestamp === 'string') {
    const parsed = Date.parse(message.timestamp);
    if (Number.isFinite(parsed)) return parsed;
  }
  return null;
}

/** The auth profile's fingerprint: enough to key a breaker per credential, nothing to identify anyone by. */
export function credentialOf(authProfileId: string | null): string | null {
  return authProfileId === null ? null : createHash('sha256').update(authProfileId).digest('hex').slice(0, 12);
}

/** A time from the record's container (SQLite `created_at`), if it is one the store can keep. */
function storableTime(value: number | undefined): number | null {
  return value === undefined || !Number.isFinite(value) ? null : storableInteger(value);
}

function tokenUsage(value: Skimmed | undefined, repairs: string[]): TokenUsage {
  const usage = isObject(value) ? value : {};
  const cost = isObject(usage.cost) ? usage.cost : {};
  return {
    input: count(usage.input, 'usage.input', repairs),
    output: count(usage.output, 'usage.output', repairs),
    cacheRead: count(usage.cacheRead, 'usage.cacheRead', repairs),
    cacheWrite: count(usage.cacheWrite, 'usage.cacheWrite', repairs),
    totalTokens: count(usage.totalTokens, 'usage.totalTokens', repairs),
    cost: typeof cost.total === 'number' && Number.isFinite(cost.total) ? cost.total : 0,
  };
}

/** `diagnostics[].phase` (or `.details.phase`): where a transport failure struck, when OpenClaw says. */
function diagnosticsPhases(value: Skimmed | undefined): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const phases: string[] = [];
  for (const entry of value) {
    if (!isObject(entry)) continue;
    const phase = entry.phase ?? (isObject(entry.details) ? entry.details.phase : undefined);
    if (typeof phase === 'string') phases.push(phase);
  }
  return phases.length > 0 ? phases : undefined;
}

/**
 * The text OpenClaw (2026.7) puts in a failed turn's content when the turn produced none: a model fallback's
 * failed candidate is recorded so, whatever the error (a 429 storm with a fallback configured writes one per
 * call). It says the opposite of delivered output; read as output it made every such failure mid-stream,
 * which the breakers never count, and with no gateway log to pair it with a storm went unseen by them.
 */
export const FAILED_TURN_PLACEHOLDER = '[assistant turn failed before producing content]';

/** Did anything reach the client before the call ended? Decides `mid_stream` against `before_output`. */
function outputDelivered(raw: Skimmed | undefined, usage: TokenUsage): boolean {
  if (usage.output > 0) return true;
  const content =
    raw instanceof Raw ? skimJson(raw.buf, raw.start, raw.end, { ...SKIM_OPTIONS, shape: CONTENT_SHAPE }) : raw;
  if (!Array.isArray(content)) return false;
  return content.some((block) => {
    if (!isObject(block)) return false;
    if (block.type === 'toolCall') return true;
    const body = block.type === 'text' ? block.text : block.type === 'thinking' ? block.thinking : undefined;
    if (block.type === 'text' && typeof body === 'string' && body.trim() === FAILED_TURN_PLACEHOLDER) return false;
    return body instanceof Elided || (typeof body === 'string' && body.length > 0);
  });
}

function isObject(value: Skimmed | undefined): value is JsonObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Elided) &&
    !(value instanceof Raw)
  );
}

function text(value: Skimmed | undefined): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A token count: a positive whole number, else 0; a fraction is rounded and one past 2^53 dropped (`repairs`). */
function count(value: Skimmed | undefined, field: string, repairs: string[]): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return 0;
  if (Number.isSafeInteger(value)) return value;
  repairs.push(field);
  return storableInteger(value) ?? 0;
}
