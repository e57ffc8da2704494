/**
 * Upstream attempts from the gateway log: the lines of one request (a
 * `[model-fetch]` answer or transport error, then, for an embedded run, its
 * `embedded_run_agent_end`) assembled into one call. Fed lines in file order;
 * no I/O and no clock of its own (time is the lines' own, or what the caller
 * passes to `flush`), so the live source and `scan` assemble alike.
 *
 * Joining: the run-end of a failed attempt follows its fetch line on the same
 * span, usually within milliseconds, and brings what the fetch line lacks (the
 * provider's error text with its `Retry-After`, OpenClaw's reason). A fetch
 * failure is therefore held until its run-end arrives, another line arrives on
 * the same span (2026.7 reuses one span for a run's retries), a line of the same
 * run comes `holdMs` later, or the caller's clock says `holdMs` passed. A run-end
 * with no held failure before it on its span is an attempt of its own: the
 * request was answered 2xx (not printed at the default level since 2026.9) and
 * then failed, a stream cut mid-way.
 *
 * Some attempts carry a status and no text (2026.7's compaction retries log
 * `status=400` only): they take the outcome the same run last gave the same
 * dependency and status, which OpenClaw's own run-end named.
 */
import { type Classification, classify, outcomeForReason } from '../calls/classify.js';
import type { CallEvent } from '../calls/events.js';
import type { AttemptLine } from './gateway-log-record.js';

export interface HeldAttempt {
  line: AttemptLine;
  /** Byte offset of the line in its file: the cursor must not pass a held line. */
  offset: number;
}

/** The agent put on attempts until the run's transcript record names it (the store adopts it then). */
export const UNKNOWN_AGENT = 'unknown';

const NO_USAGE = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0 } as const;

const ABORTED_BY_GATEWAY = /\boperation was aborted\b/i;

/** Remembered spans and runs: enough for thousands of concurrent runs; the oldest are forgotten first. */
const MAX_REMEMBERED = 10_000;

export class AttemptAssembler {
  private readonly held = new Map<string, HeldAttempt>();
  /** The kind of the latest fetch line per span. */
  private readonly spans = new Map<string, AttemptLine['kind']>();
  /** Per run (trace): outcome by `dep|status`, and its run id. */
  private readonly traces = new Map<string, { runId: string | null; verdicts: Map<string, Classification> }>();

  constructor(private readonly holdMs = 2000) {}

  /** One line, in file order; returns the attempts that are now complete. */
  push(line: AttemptLine, offset: number): CallEvent[] {
    // Only the run's own lines tell that its held attempt will get no run-end: other runs' lines
    // come at any pace (a busy gateway writes a run-end up to seconds after its fetch line).
    const done = this.flush(line.ts - this.holdMs, line.traceId);
    const trace = line.traceId === null ? null : this.trace(line.traceId);
    if (trace && line.runId !== null) trace.runId = line.runId;
    const spanKey = line.spanId === null ? null : `${line.traceId}/${line.spanId}`;
    if (line.kind === 'run_end') {
      const held = spanKey === null ? undefined : this.held.get(spanKey);
      if (held) {
        this.held.delete(spanKey as string);
        this.remember(spanKey as string, 'fetch_failed');
        done.push(this.emit(mergeLines(held.line, line)));
      } else {
        const before = spanKey === null ? undefined : this.spans.get(spanKey);
        // After a 2xx answer (or none printed, 2026.9) the failure came mid-stream; after a bare
        // `start`, before any answer. After a failed fetch already emitted (its hold ran out), the
        // request is counted: the run-end adds nothing.
        if (before !== 'fetch_failed') done.push(this.emit(line, before !== 'fetch_start'));
      }
      return done;
    }
    if (spanKey !== null) {
      const previous = this.held.get(spanKey);
      if (previous) {
        this.held.delete(spanKey);
        done.push(this.emit(previous.line));
      }
      this.remember(spanKey, line.kind);
    }
    if (line.kind === 'fetch_failed') {
      if (spanKey === null) done.push(this.emit(line));
      else this.held.set(spanKey, { line, offset });
    }
    return done;
  }

  /**
   * Emits every attempt held since before `before` (line time or the clock minus the
   * hold), of one run (trace) when `traceId` is given.
   */
  flush(before = Number.POSITIVE_INFINITY, traceId?: string | null): CallEvent[] {
    const done: CallEvent[] = [];
    for (const [span, held] of this.held) {
      if (held.line.ts > before || (traceId !== undefined && held.line.traceId !== traceId)) continue;
      this.held.delete(span);
      done.push(this.emit(held.line));
    }
    return done;
  }

  /** The smallest offset of a held line in the file with key `fileKey`, or null. */
  heldFrom(fileKey: string): number | null {
    let min: number | null = null;
    for (const held of this.held.values()) {
      if (!held.line.key.startsWith(`${fileKey}@`)) continue;
      if (min === null || held.offset < min) min = held.offset;
    }
    return min;
  }

  get holding(): number {
    return this.held.size;
  }

  /** True when a line of this run (trace) reported an attempt: its fallback decisions are not calls then. */
  hasAttempts(traceId: string | null | undefined): boolean {
    return typeof traceId === 'string' && this.traces.has(traceId);
  }

  private emit(line: AttemptLine, midStream = false): CallEvent {
    const trace = line.traceId === null ? null : this.trace(line.traceId);
    const provider = line.provider ?? 'unknown';
    const model = line.model ?? 'unknown';
    const dep = `${provider}/${model}`;
    const memoryKey = `${dep}|${line.status ?? ''}`;
    let verdict = verdictOf(line, midStream);
    const earlier = trace?.verdicts.get(memoryKey);
    if (line.errorText === null && line.failoverReason === null && earlier) verdict = { ...earlier };
    else trace?.verdicts.set(memoryKey, verdict);
    return {
      key: `gatewaylog/${line.key}`,
      ts: line.ts,
      source: 'gatewaylog',
      agentId: UNKNOWN_AGENT,
      sessionId: UNKNOWN_AGENT,
      dep,
      provider,
      model,
      api: line.api,
      stopReason: null,
      ...verdict,
      credential: null,
      usage: { ...NO_USAGE },
      role: 'attempt',
      runId: line.runId ?? trace?.runId ?? null,
    };
  }

  private trace(traceId: string) {
    let trace = this.traces.get(traceId);
    if (!trace) {
      trace = { runId: null, verdicts: new Map() };
      this.traces.set(traceId, trace);
      if (this.traces.size > MAX_REMEMBERED) this.traces.delete(this.traces.keys().next().value as string);
    }
    return trace;
  }

  private remember(span: string, kind: AttemptLine['kind']): void {
    this.spans.delete(span);
    this.spans.set(span, kind);
    if (this.spans.size > MAX_REMEMBERED) this.spans.delete(this.spans.keys().next().value as string);
  }
}

/** A fetch line and the run-end that describes the same request: the fetch's status and code, the run-end's words. */
function mergeLines(fetch: AttemptLine, end: AttemptLine): AttemptLine {
  return {
    ...fetch,
    runId: end.runId ?? fetch.runId,
    provider: fetch.provider ?? end.provider,
    model: fetch.model ?? end.model,
    errorText: end.errorText ?? fetch.errorText,
    failoverReason: end.failoverReason,
  };
}

/**
 * The outcome of one attempt: the status and the provider's text first (the same
 * classifier as transcript records, so a record and its attempt agree), OpenClaw's
 * reason only when those say nothing more specific.
 */
function verdictOf(line: AttemptLine, midStream: boolean): Classification {
  const verdict = classify({
    stopReason: 'error',
    errorMessage: line.errorText ?? '',
    errorCode: line.errorCode,
    errorStatus: line.status,
    errorRetryAfterMs: null,
    outputDelivered: midStream,
  });
  // A request the gateway gave up on (its idle timeout): 2026.7 prints the transport's
  // `AbortError` text; OpenClaw files "operation was aborted" under timeout, and so does BreakerBar.
  if (
    verdict.outcome === 'other_error' &&
    line.kind === 'fetch_failed' &&
    ABORTED_BY_GATEWAY.test(line.errorText ?? '')
  ) {
    return { ...verdict, outcome: 'timeout' };
  }
  if (verdict.outcome !== 'other_error' || line.failoverReason === null) return verdict;
  const byReason = outcomeForReason(line.failoverReason);
  return byReason === 'ok' ? verdict : { ...verdict, outcome: byReason };
}
