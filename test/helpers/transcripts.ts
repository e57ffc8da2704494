/**
 * Realistic OpenClaw JSONL transcripts for tests (format: shared docs, "Legacy
 * JSONL transcripts"), with a ledger of every model call written and the outcome
 * it must be classified as.
 *
 * Sessions look like real ones: a header, user turns, assistant turns that call
 * tools, tool results, compactions and failed calls (zhipu's `429 该模型当前访问量过大`
 * with code 1305 among them). On purpose, user text, tool results, tool-call
 * arguments and compaction summaries talk about 429s, rate limits and timeouts:
 * none of that is a call, and the ledger never counts it.
 *
 * Deterministic for a given seed; times are whatever the caller passes.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { emptyOutcomeCounts, type Outcome } from '../../main/core/calls/classify.js';
import { type CallSummary, TurnTally } from '../../main/core/calls/summary.js';
import { seededRandom } from '../../main/simulator/records.js';

/** One model call written to a transcript, as BreakerBar must store it. */
export interface WrittenCall {
  agentId: string;
  sessionId: string;
  entryId: string;
  /** The entry's own (ISO) time, epoch ms: the event time BreakerBar must use. */
  ts: number;
  dep: string;
  outcome: Outcome;
  totalTokens: number;
}

export interface GeneratedSession {
  agentId: string;
  sessionId: string;
  /** Complete JSONL lines, without newlines. */
  lines: string[];
  calls: WrittenCall[];
  /** Lines that are not a usable record (truncated writes). */
  malformed: number;
}

export interface SessionOptions {
  agentId: string;
  sessionId: string;
  /** Time of the header; entries follow a few seconds apart. */
  start: number;
  /** User turns; each produces one to three assistant calls. */
  turns: number;
  seed?: number;
  /** Time between entries (default 2 s). */
  stepMs?: number;
  /** Append one truncated (malformed) assistant line at the end. */
  truncatedTail?: boolean;
  /** Share of user turns answered by a failed call (default 0.35); 0 gives a session of successful calls. */
  failureRate?: number;
}

interface Failure {
  outcome: Outcome;
  stopReason: 'error' | 'aborted';
  errorMessage: string;
  errorCode?: string;
  errorStatus?: number;
}

interface Dependency {
  provider: string;
  model: string;
  api: string;
  /** How this provider says "rate limited". */
  rateLimit: Failure;
}

const DEPS: readonly Dependency[] = [
  {
    provider: 'zhipu',
    model: 'glm-5.1',
    api: 'openai-completions',
    rateLimit: {
      outcome: 'rate_limited',
      stopReason: 'error',
      errorMessage: '429 该模型当前访问量过大，请您稍后再试',
      errorCode: '1305',
    },
  },
  {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    api: 'anthropic-messages',
    rateLimit: {
      outcome: 'rate_limited',
      stopReason: 'error',
      errorMessage:
        '429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}',
    },
  },
  {
    provider: 'deepseek',
    model: 'deepseek-v4-pro',
    api: 'openai-completions',
    rateLimit: {
      outcome: 'rate_limited',
      stopReason: 'error',
      errorMessage: 'Rate limit exceeded. Please try again later.',
      errorStatus: 429,
    },
  },
];

/** Failures any provider may report, each with the outcome the classifier's rules give it. */
export const FAILURES: readonly Failure[] = [
  { outcome: 'overloaded', stopReason: 'error', errorMessage: 'Overloaded', errorStatus: 529 },
  { outcome: 'server_error', stopReason: 'error', errorMessage: '503 Service Unavailable', errorStatus: 503 },
  { outcome: 'timeout', stopReason: 'error', errorMessage: 'Request timed out.' },
  { outcome: 'connection_reset', stopReason: 'error', errorMessage: 'read ECONNRESET' },
  { outcome: 'auth', stopReason: 'error', errorMessage: '401 Invalid API key provided', errorStatus: 401 },
  { outcome: 'billing', stopReason: 'error', errorMessage: 'Your credit balance is too low to access the API.' },
  {
    outcome: 'context_overflow',
    stopReason: 'error',
    errorMessage: "This model's maximum context length is 131072 tokens.",
  },
  { outcome: 'other_error', stopReason: 'error', errorMessage: 'list index out of range' },
  { outcome: 'aborted', stopReason: 'aborted', errorMessage: 'Request was aborted' },
];

/** Text that mentions failures without being one: must never be counted. */
export const MENTIONS = {
  user: 'The bot keeps failing with 429 该模型当前访问量过大 and "rate limit exceeded", sometimes a timeout (ETIMEDOUT). errorCode 1305?',
  toolOutput:
    'HTTP/1.1 429 Too Many Requests\nRetry-After: 30\n{"stopReason":"error","errorMessage":"429 rate limit","errorCode":"1305"}\nupstream timeout after 600000ms',
  toolArguments: { command: 'grep -rn "429\\|rate limit\\|timed out" ~/.openclaw/logs/gateway.err.log', timeout: 429 },
  compaction:
    'The user investigated repeated 429 rate limit errors (errorCode 1305) and a gateway timeout; the assistant suggested a fallback model.',
};

const iso = (ms: number) => new Date(ms).toISOString();

function usage(input: number, output: number) {
  const cacheRead = Math.floor(input / 3);
  return {
    input,
    output,
    cacheRead,
    cacheWrite: 0,
    totalTokens: input + output + cacheRead,
    cost: {
      input: input * 1e-6,
      output: output * 4e-6,
      cacheRead: 0,
      cacheWrite: 0,
      total: input * 1e-6 + output * 4e-6,
    },
  };
}

const ZERO_USAGE = usage(0, 0);

export function sessionHeader(sessionId: string, time: number, cwd = '/home/user/project'): string {
  return JSON.stringify({ type: 'session', version: 3, id: sessionId, timestamp: iso(time), cwd });
}

/** Builds one session's lines and its call ledger. */
export function generateSession(options: SessionOptions): GeneratedSession {
  const { agentId, sessionId } = options;
  const random = seededRandom(options.seed ?? 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const step = options.stepMs ?? 2000;
  let time = options.start;
  let serial = 0;
  let parentId: string | null = null;
  const lines: string[] = [sessionHeader(sessionId, time)];
  const calls: WrittenCall[] = [];
  const dep = pick(DEPS);

  /** Appends an entry and returns its id. */
  const entry = (fields: Record<string, unknown>): string => {
    time += step;
    const id = `${sessionId.slice(0, 8)}-${(++serial).toString(16).padStart(4, '0')}`;
    lines.push(JSON.stringify({ type: 'message', id, parentId, timestamp: iso(time), ...fields }));
    parentId = id;
    return id;
  };
  const user = (text: string) =>
    entry({ message: { role: 'user', content: [{ type: 'text', text }], timestamp: time + step } });
  const assistant = (message: Record<string, unknown>, outcome: Outcome, totalTokens: number) => {
    const entryId = entry({
      message: {
        role: 'assistant',
        api: dep.api,
        provider: dep.provider,
        model: dep.model,
        // The message's own time is when the call started: a little before the entry's.
        timestamp: time + step - 1500,
        ...message,
      },
    });
    calls.push({ agentId, sessionId, entryId, ts: time, dep: `${dep.provider}/${dep.model}`, outcome, totalTokens });
  };

  lines.push(
    JSON.stringify({
      type: 'model_change',
      id: `${sessionId.slice(0, 8)}-mc`,
      parentId: null,
      timestamp: iso(time),
      provider: dep.provider,
      modelId: dep.model,
    }),
  );
  for (let turn = 0; turn < options.turns; turn++) {
    user(turn % 3 === 0 ? MENTIONS.user : `Please refactor module ${turn} and run the tests.`);
    if (random() < (options.failureRate ?? 0.35)) {
      // Most failures in a storm are the provider's rate limit.
      const failure = random() < 0.5 ? dep.rateLimit : pick(FAILURES);
      assistant(
        {
          content: [],
          usage: ZERO_USAGE,
          stopReason: failure.stopReason,
          errorMessage: failure.errorMessage,
          ...(failure.errorCode === undefined ? {} : { errorCode: failure.errorCode }),
          ...(failure.errorStatus === undefined ? {} : { errorStatus: failure.errorStatus }),
        },
        failure.outcome,
        0,
      );
      continue;
    }
    const toolCallId = `call_${turn}_${Math.floor(random() * 1e6)}`;
    const first = usage(1000 + Math.floor(random() * 5000), 50 + Math.floor(random() * 400));
    assistant(
      {
        content: [
          { type: 'thinking', thinking: 'The user mentioned 429 errors; check the gateway log first.' },
          { type: 'text', text: 'Let me look for rate limit errors (429) in the log.' },
          { type: 'toolCall', id: toolCallId, name: 'bash', arguments: MENTIONS.toolArguments },
        ],
        usage: first,
        stopReason: 'toolUse',
      },
      'ok',
      first.totalTokens,
    );
    entry({
      message: {
        role: 'toolResult',
        toolCallId,
        toolName: 'bash',
        content: [{ type: 'text', text: MENTIONS.toolOutput }],
        isError: turn % 2 === 0,
        timestamp: time + step,
      },
    });
    const second = usage(2000 + Math.floor(random() * 5000), 100 + Math.floor(random() * 900));
    assistant(
      {
        content: [
          { type: 'text', text: `Found ${turn + 3} lines with "429 Too Many Requests"; the timeout is unrelated.` },
        ],
        usage: second,
        stopReason: random() < 0.1 ? 'length' : 'stop',
      },
      'ok',
      second.totalTokens,
    );
    if (turn % 4 === 3) {
      time += step;
      lines.push(
        JSON.stringify({
          type: 'compaction',
          id: `${sessionId.slice(0, 8)}-c${turn}`,
          parentId,
          timestamp: iso(time),
          summary: MENTIONS.compaction,
          firstKeptEntryId: parentId,
          tokensBefore: 180000,
        }),
      );
    }
  }
  let malformed = 0;
  if (options.truncatedTail) {
    // A write cut short: the line ends, but its JSON does not.
    lines.push(
      '{"type":"message","id":"cut","message":{"role":"assistant","stopReason":"error","errorMessage":"429 该模型',
    );
    malformed++;
  }
  return { agentId, sessionId, lines, calls, malformed };
}

/** `<stateDir>/agents/<agentId>/sessions`, created. */
export function sessionsDir(stateDir: string, agentId: string): string {
  const dir = join(stateDir, 'agents', agentId, 'sessions');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes a session as `<sessionId>.jsonl` (or `fileName`) and returns the path. */
export function writeSession(stateDir: string, session: GeneratedSession, fileName?: string): string {
  const path = join(sessionsDir(stateDir, session.agentId), fileName ?? `${session.sessionId}.jsonl`);
  writeFileSync(path, jsonl(session.lines));
  return path;
}

/** Appends lines to a transcript, one write per line as OpenClaw does. */
export function appendLines(path: string, lines: readonly string[]): void {
  for (const line of lines) appendFileSync(path, `${line}\n`);
}

export function jsonl(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join('');
}

export interface StateDirOptions {
  agents: readonly string[];
  sessionsPerAgent: number;
  turns: number;
  start: number;
  seed?: number;
}

/** Generates and writes sessions for several agents; returns them all. */
export function writeStateDir(stateDir: string, options: StateDirOptions): GeneratedSession[] {
  const sessions: GeneratedSession[] = [];
  let seed = options.seed ?? 7;
  for (const agentId of options.agents) {
    for (let i = 0; i < options.sessionsPerAgent; i++) {
      seed++;
      const session = generateSession({
        agentId,
        sessionId: sessionUuid(seed),
        start: options.start + i * 3_600_000,
        turns: options.turns,
        seed,
        truncatedTail: i === 0,
      });
      writeSession(stateDir, session);
      sessions.push(session);
    }
  }
  return sessions;
}

/** A deterministic UUID-shaped session id. */
export function sessionUuid(seed: number): string {
  const random = seededRandom(seed * 7919);
  const hex = (n: number) =>
    Array.from({ length: n }, () =>
      Math.floor(random() * 16)
        .toString(16)
        .toLowerCase(),
    ).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
}

export function allCalls(sessions: readonly GeneratedSession[]): WrittenCall[] {
  return sessions.flatMap((session) => session.calls);
}

export function lineCount(sessions: readonly GeneratedSession[]): number {
  return sessions.reduce((sum, session) => sum + session.lines.length, 0);
}

/** What `Store#summary()` must report for these calls. */
export function expectedSummary(calls: readonly WrittenCall[]): CallSummary {
  const outcomes = emptyOutcomeCounts();
  const byDependency: Record<string, Record<Outcome, number>> = {};
  let tokens = 0;
  for (const call of calls) {
    outcomes[call.outcome]++;
    const perDep = byDependency[call.dep] ?? emptyOutcomeCounts();
    perDep[call.outcome]++;
    byDependency[call.dep] = perDep;
    tokens += call.totalTokens;
  }
  const sorted: Record<string, Record<Outcome, number>> = {};
  for (const dep of Object.keys(byDependency).sort()) sorted[dep] = byDependency[dep] as Record<Outcome, number>;
  // Without a gateway log every record is both a call and a turn.
  const turns = new TurnTally();
  for (const call of calls) turns.add(call.dep, call.outcome, call.totalTokens);
  return { calls: calls.length, outcomes, byDependency: sorted, tokens, turns: turns.summary() };
}

/**
 * Polls `condition` until it holds; fails with `what` (text, or a function that gathers what went on) after
 * `timeoutMs`. Polls every `intervalMs`: more than the 10 ms default where each look is itself costly (a
 * process, a query). Never asserts speed, only outcomes.
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what: string | (() => string | Promise<string>) = 'condition',
  intervalMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      const detail = typeof what === 'string' ? what : await what();
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${detail}`);
    }
    await sleep(intervalMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
