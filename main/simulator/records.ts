/**
 * Real OpenClaw transcript records, built the way the gateway writes them.
 * The rehearsal's simulated workload writes these, and so do the tests and
 * benchmarks: one builder, so every part of BreakerBar is exercised on the same
 * shapes (docs/openclaw-sources.md describes them; test/fixtures/ holds records captured from the real gateway).
 */
import type { Outcome } from '../core/calls/classify.js';

/** A deterministic PRNG (mulberry32), so generated workloads are reproducible from a seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FailureSample {
  stopReason: 'error' | 'aborted';
  errorMessage: string;
  errorCode?: string;
  errorStatus?: number;
  errorRetryAfterMs?: number;
}

/** For every failed outcome, error texts as real providers send them (each classifies to its outcome). */
export const FAILURE_SAMPLES: Record<Exclude<Outcome, 'ok'>, readonly FailureSample[]> = {
  rate_limited: [
    { stopReason: 'error', errorMessage: '429 该模型当前访问量过大，请您稍后再试', errorCode: '1305' },
    {
      stopReason: 'error',
      errorMessage:
        '429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your rate limit."}}',
      errorStatus: 429,
      errorRetryAfterMs: 120000,
    },
    { stopReason: 'error', errorMessage: 'Rate limit exceeded. Please try again later.' },
    { stopReason: 'error', errorMessage: 'You have hit your ChatGPT usage limit (team plan). Try again in ~406 min.' },
  ],
  overloaded: [
    {
      stopReason: 'error',
      errorMessage: '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    },
    { stopReason: 'error', errorMessage: 'The model is experiencing high demand. Please retry.' },
  ],
  server_error: [
    { stopReason: 'error', errorMessage: '503 Service Unavailable', errorStatus: 503 },
    { stopReason: 'error', errorMessage: '502 Bad Gateway' },
    { stopReason: 'error', errorMessage: 'Internal server error' },
  ],
  timeout: [
    { stopReason: 'error', errorMessage: 'Request timed out.' },
    { stopReason: 'error', errorMessage: 'upstream deadline exceeded', errorStatus: 504 },
  ],
  connection_reset: [
    { stopReason: 'error', errorMessage: 'socket hang up' },
    { stopReason: 'error', errorMessage: 'read ECONNRESET' },
  ],
  aborted: [{ stopReason: 'aborted', errorMessage: 'Request was aborted' }],
  auth: [{ stopReason: 'error', errorMessage: '401 Invalid API key provided', errorStatus: 401 }],
  billing: [{ stopReason: 'error', errorMessage: 'Your credit balance is too low to access the API.' }],
  context_overflow: [{ stopReason: 'error', errorMessage: "This model's maximum context length is 128000 tokens." }],
  other_error: [{ stopReason: 'error', errorMessage: 'list index out of range' }],
};

const iso = (ts: number) => new Date(ts).toISOString();

export function sessionHeader(sessionId: string, ts: number, cwd = '/Users/dev/project'): string {
  return JSON.stringify({ type: 'session', version: 3, id: sessionId, timestamp: iso(ts), cwd });
}

export function userMessage(id: string, parentId: string | null, ts: number, text: string): string {
  return JSON.stringify({
    type: 'message',
    id,
    parentId,
    timestamp: iso(ts),
    message: { role: 'user', content: [{ type: 'text', text }], timestamp: ts },
  });
}

export interface AssistantSpec {
  id: string;
  parentId: string | null;
  ts: number;
  provider: string;
  model: string;
  outcome: Outcome;
  /** Text the model produced (ok calls, or output delivered before a mid-stream failure). */
  text?: string;
  /** A tool call instead of (or after) text; its arguments are arbitrary JSON. */
  toolCall?: { id: string; name: string; arguments: Record<string, unknown> };
  /** Which sample of the outcome's failures to use (default 0). */
  sample?: number;
  totalTokens?: number;
}

export function assistantMessage(spec: AssistantSpec): string {
  const content: unknown[] = [];
  if (spec.text) content.push({ type: 'text', text: spec.text });
  if (spec.toolCall) content.push({ type: 'toolCall', ...spec.toolCall });
  const total = spec.totalTokens ?? 0;
  const output = spec.text ? Math.ceil(spec.text.length / 4) : 0;
  const message: Record<string, unknown> = {
    role: 'assistant',
    content,
    api: spec.provider === 'anthropic' ? 'anthropic-messages' : 'openai-completions',
    provider: spec.provider,
    model: spec.model,
    usage: {
      input: Math.max(0, total - output),
      output: Math.min(output, total),
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: total,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: total * 2e-6 },
    },
    timestamp: spec.ts,
  };
  if (spec.outcome === 'ok') {
    message.stopReason = spec.toolCall ? 'toolUse' : 'stop';
  } else {
    const samples = FAILURE_SAMPLES[spec.outcome];
    Object.assign(message, samples[(spec.sample ?? 0) % samples.length]);
  }
  return JSON.stringify({ type: 'message', id: spec.id, parentId: spec.parentId, timestamp: iso(spec.ts), message });
}

export function toolResult(id: string, parentId: string | null, ts: number, toolCallId: string, text: string): string {
  return JSON.stringify({
    type: 'message',
    id,
    parentId,
    timestamp: iso(ts),
    message: {
      role: 'toolResult',
      toolCallId,
      toolName: 'exec',
      content: [{ type: 'text', text }],
      isError: false,
      timestamp: ts,
    },
  });
}

export function compaction(id: string, parentId: string | null, ts: number, summary: string): string {
  return JSON.stringify({
    type: 'compaction',
    id,
    parentId,
    timestamp: iso(ts),
    summary,
    firstKeptEntryId: parentId,
    tokensBefore: 90000,
  });
}
