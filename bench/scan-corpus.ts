/**
 * Generates a realistic OpenClaw state directory for the scan benchmark:
 * `<dir>/agents/<agentId>/sessions/<uuid>.jsonl`, compact JSON exactly as
 * OpenClaw writes it, and one session in ten re-serialised with a space after
 * every `:` and `,` and inside brackets (as a transcript passed through another
 * tool comes back): still one record per line, but no longer byte-identical to
 * OpenClaw's own output, so a reader cannot rely on exact byte patterns.
 *
 * Shape (per 540 MB: about 800 sessions and 96,000 calls, the size of a few
 * months of a busy installation): sessions log-uniform between 4 KB and 4.5 MB,
 * answers of a few KB with long thinking and tool output now and then.
 *
 * What matters for a fair benchmark: most bytes sit in long message text
 * (assistant text, thinking, tool output) with escapes and non-ASCII, the
 * metadata that decides a call's outcome is small, tool output and user text
 * mention "429" and "rate limit" without being calls, and a few lines are
 * malformed. Deterministic for a given seed (except that timestamps are placed
 * in the three days before "now").
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '../main/simulator/records.js';
import { CcusageExpectation, type CcusageTotals } from './scan-ccusage.js';

export interface CorpusStats {
  files: number;
  bytes: number;
  lines: number;
  /** well-formed assistant messages (= model calls) */
  assistant: number;
  byStopReason: Record<string, number>;
  /** lines that are not one JSON value (truncated writes, garbage) */
  malformed: number;
  /** sums over the well-formed assistant messages, for readers that report tokens */
  tokens: { input: number; output: number; cacheRead: number; total: number };
  /** sessions written with spaces after `:` and `,` */
  spacedFiles: number;
  /** What ccusage's OpenClaw report must total for this corpus (its own counting rules). */
  ccusage: CcusageTotals;
}

/** JSON with a space after every `:` and `,` and inside brackets; strings are untouched (a raw newline cannot occur in one). */
function spacedJson(value: unknown): string {
  return JSON.stringify(value, null, 1).replace(/\n */g, ' ');
}

interface Dep {
  provider: string;
  model: string;
  api: string;
  errors: ErrorShape[];
}

interface ErrorShape {
  errorMessage: string;
  errorCode?: string;
  errorStatus?: number;
}

const GENERIC_ERRORS: ErrorShape[] = [
  { errorMessage: '503 Service Unavailable', errorStatus: 503 },
  { errorMessage: 'Connection error.' },
  { errorMessage: 'list index out of range' },
];

const DEPS: Dep[] = [
  {
    provider: 'zhipu',
    model: 'glm-5.1',
    api: 'openai-completions',
    errors: [
      { errorMessage: '429 该模型当前访问量过大，请您稍后再试', errorCode: '1305' },
      { errorMessage: '429 该模型当前访问量过大，请您稍后再试' },
      { errorMessage: '429 该模型当前访问量过大，请您稍后再试', errorCode: '1305', errorStatus: 429 },
    ],
  },
  {
    provider: 'deepseek',
    model: 'deepseek-v4-pro',
    api: 'openai-completions',
    errors: [{ errorMessage: 'Rate limit exceeded. Please try again later.', errorStatus: 429 }],
  },
  {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    api: 'anthropic-messages',
    errors: [
      {
        errorMessage:
          '429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (3f2c9a1e-5b7d-4c8e-9f10-2a3b4c5d6e7f) of 30,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later."},"request_id":"req_011CTx8qK3vYh2mN5pQ7rS9u"}',
        errorStatus: 429,
      },
      { errorMessage: '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' },
    ],
  },
  {
    provider: 'openai',
    model: 'gpt-5.5',
    api: 'openai-responses',
    errors: [
      { errorMessage: 'Rate limit exceeded. Please try again later.' },
      { errorMessage: 'You have hit your ChatGPT usage limit (team plan). Try again in ~406 min.' },
    ],
  },
];

const AGENTS = ['main', 'coder', 'research', 'ops'];

// Text pool: paragraphs combined into long texts. Quotes, backslashes, newlines
// and non-ASCII (Chinese, accents, emoji) make the JSON carry escapes and UTF-8.
const PROSE = [
  'I looked at the failing test and the problem is in how the tailer handles a partial last line: it commits the offset before the newline arrives, so a restart skips the rest of the record.',
  'Here is the plan:\n1. Reproduce with a file that ends mid-line.\n2. Hold the partial bytes until "\\n" is seen.\n3. Commit offsets in the same transaction as the events.',
  'The config says "backfillDays": 7, which means records older than a week are skipped on first start; set it to 0 if you only care about what happens from now on.',
  '```ts\nexport function parse(line: string): Entry | null {\n  try {\n    return JSON.parse(line) as Entry;\n  } catch {\n    return null; // "truncated" or garbage\n  }\n}\n```',
  '我已经检查了网关日志，发现在高峰时段上游模型经常返回错误。建议把重试间隔调长一些，并且在熔断器打开之后暂停新的请求。',
  '这个函数的作用是读取会话文件并统计每个模型的调用次数。注意：文件可能在读取过程中被删除或者轮转。',
  "Les résultats sont cohérents avec la mesure précédente ; la différence reste inférieure à 2 % — voilà pourquoi je n'ai rien changé.",
  'Done ✅ — all 42 tests pass. The benchmark shows 🚀 a solid improvement over the previous run.',
  '| provider | calls | errors |\n|---|---:|---:|\n| zhipu | 1204 | 37 |\n| anthropic | 877 | 4 |\n| openai | 305 | 0 |',
  'Path on Windows: C:\\Users\\dev\\.openclaw\\agents\\main\\sessions — remember to escape the backslashes in JSON config files.',
  'The user asked: "can you make the retry respect Retry-After?" Yes: the header value is in seconds, or an HTTP date; we take the larger of that and our own backoff.',
  'Summary of the refactor: moved the classification table into its own module, added a test per row, and removed the duplicated regexes from the CLI.',
  'Thinking about edge cases: an empty file, a file with only a header, a header without a trailing newline, and a line of 5 MB that arrives in many small writes.',
  'Let me check the disk usage first.\n\n$ du -sh ~/.openclaw\n2.3G\t/home/dev/.openclaw\n\nThat is mostly old session transcripts.',
];

const TOOL_OUTPUT = [
  '2026-05-14T09:12:44.120Z [gateway] upstream zhipu/glm-5.1 responded 429 Too Many Requests (rate limit), retrying in 2000 ms',
  'HTTP/1.1 429 Too Many Requests\r\nRetry-After: 30\r\nContent-Type: application/json\r\n\r\n{"error":{"code":"1305","message":"rate limit exceeded"}}',
  'src/retry.ts:18:  // rate limit: back off exponentially, honour Retry-After\nsrc/retry.ts:42:  if (status === 429 || status === 503) {\nsrc/retry.ts:57:    throw new Error("rate limit exceeded after " + attempts + " attempts");',
  'total 48\ndrwxr-xr-x  5 dev staff   160 May 14 09:10 .\n-rw-r--r--  1 dev staff 14290 May 14 09:10 sessions.json\n-rw-r--r--  1 dev staff  4290 May 14 09:11 a1b2.jsonl',
  '{"level":"warn","msg":"provider rate limited","provider":"anthropic","status":429,"retryAfterMs":30000}\n{"level":"info","msg":"breaker half-open","dep":"anthropic/claude-sonnet-4-5"}',
  'npm test\n\n> vitest run\n\n ✓ test/classify.test.ts (38 tests) 12ms\n ✓ test/tailer.test.ts (21 tests) 840ms\n\n Test Files  2 passed (2)\n      Tests  59 passed (59)',
  'Traceback (most recent call last):\n  File "agent.py", line 88, in <module>\n    pick = choices[idx]\nIndexError: list index out of range',
  '    "stopReason": "error",\n    "errorMessage": "429 该模型当前访问量过大，请您稍后再试",\n    "errorCode": "1305"',
];

const USER_TEXT = [
  'Why do I keep getting 429 errors from glm-5.1 in the afternoon? Is it a rate limit on my key?',
  'please fix the flaky test in the tailer and run the whole suite',
  '帮我看看为什么网关又卡住了，日志里全是 429',
  'Summarize what changed since yesterday and open a PR.',
  'Can you check the rate limit headers the Anthropic API sends back?',
  'ok, ship it',
];

const THINKING_LEVELS = ['off', 'low', 'medium', 'high'];

/** Writes the corpus; resolves with exact expected counts for the benchmark to check against. */
/** Every JSONL transcript under `dir` (none when it is missing), sorted: the files a corpus is made of. */
export function listTranscripts(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTranscripts(path));
    else if (entry.name.endsWith('.jsonl')) out.push(path);
  }
  return out.sort();
}

export function generateCorpus(dir: string, targetBytes: number, seed = 1): Promise<CorpusStats> {
  const rnd = seededRandom(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const hex = (n: number) => {
    let s = '';
    for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(rnd() * 16)];
    return s;
  };
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`;
  const text = (pool: readonly string[], minChars: number, maxChars: number) => {
    const want = int(minChars, maxChars);
    const parts: string[] = [];
    let n = 0;
    while (n < want) {
      const p = pick(pool);
      parts.push(p);
      n += p.length + 2;
    }
    return parts.join('\n\n');
  };

  const stats: CorpusStats = {
    files: 0,
    bytes: 0,
    lines: 0,
    assistant: 0,
    byStopReason: {},
    malformed: 0,
    tokens: { input: 0, output: 0, cacheRead: 0, total: 0 },
    spacedFiles: 0,
    ccusage: new CcusageExpectation().totals(),
  };
  const ccusage = new CcusageExpectation();
  const now = Date.now();
  const threeDays = 3 * 24 * 3600 * 1000;

  while (stats.bytes < targetBytes) {
    const agentId = pick(AGENTS);
    const sessionsDir = join(dir, 'agents', agentId, 'sessions');
    mkdirSync(sessionsDir, { recursive: true });
    const sessionId = uuid();
    // log-uniform between 4 KB and 4.5 MB: many small sessions, a few large ones
    const planned = Math.min(Math.round(4096 * 1100 ** rnd()), Math.max(4096, targetBytes - stats.bytes));
    const fd = openSync(join(sessionsDir, `${sessionId}.jsonl`), 'w');
    const spaced = rnd() < 0.1;
    if (spaced) stats.spacedFiles++;
    const serialise = spaced ? spacedJson : JSON.stringify;

    // Buffered output: a few large writes instead of one per line.
    let pending: string[] = [];
    let pendingChars = 0;
    let fileChars = 0;
    const flush = () => {
      if (pending.length > 0) writeSync(fd, pending.join(''));
      pending = [];
      pendingChars = 0;
    };
    const emit = (line: string) => {
      pending.push(line, '\n');
      pendingChars += line.length + 1;
      fileChars += line.length + 1;
      stats.lines++;
      if (pendingChars >= 4 << 20) flush();
    };
    const emitRaw = (bytes: Buffer) => {
      flush();
      writeSync(fd, bytes);
      writeSync(fd, '\n');
      fileChars += bytes.length + 1;
      stats.lines++;
    };

    // Sessions start in the first half of the window; the step between entries
    // is sized so that even a 40 MB session (over-estimated at one entry per
    // 2 KB) ends before now: every timestamp lies within the last three days.
    let t = now - threeDays + Math.floor(rnd() * (threeDays / 2));
    const maxStep = Math.max(
      400,
      Math.min(90_000, Math.floor((2 * (now - 60_000 - t)) / Math.max(10, planned / 2048))),
    );
    let parentId: string | null = null;
    const entry = (type: string, rest: Record<string, unknown>) => {
      t = Math.min(t + int(200, maxStep), now - 1);
      const id = hex(8);
      const e = { type, id, parentId, timestamp: new Date(t).toISOString(), ...rest };
      parentId = id;
      return e;
    };

    emit(
      serialise({
        type: 'session',
        version: 3,
        id: sessionId,
        timestamp: new Date(t).toISOString(),
        cwd: `/Users/dev/projects/${agentId}`,
      }),
    );
    let dep = pick(DEPS);
    emit(serialise(entry('model_change', { provider: dep.provider, modelId: dep.model })));
    if (rnd() < 0.5) emit(serialise(entry('thinking_level_change', { thinkingLevel: pick(THINKING_LEVELS) })));

    const assistant = (stopReason: string, extra: Record<string, unknown>, content: unknown[], tokens: number) => {
      const input = Math.floor(tokens * 0.8);
      const output = tokens - input;
      const usage = {
        input,
        output,
        cacheRead: tokens > 0 ? int(0, 50_000) : 0,
        cacheWrite: 0,
        totalTokens: tokens,
        cost: {
          input: input * 3e-6,
          output: output * 1.5e-5,
          cacheRead: 0,
          cacheWrite: 0,
          total: input * 3e-6 + output * 1.5e-5,
        },
      };
      const message = {
        role: 'assistant',
        content,
        api: dep.api,
        provider: dep.provider,
        model: dep.model,
        usage,
        stopReason,
        ...extra,
        timestamp: t - int(500, 20_000), // the call started before its entry was written
      };
      emit(serialise(entry('message', { message })));
      ccusage.add({ sessionId, timestamp: message.timestamp, model: dep.model, usage });
      stats.assistant++;
      stats.tokens.input += input;
      stats.tokens.output += output;
      stats.tokens.cacheRead += usage.cacheRead;
      stats.tokens.total += tokens;
      stats.byStopReason[stopReason] = (stats.byStopReason[stopReason] ?? 0) + 1;
    };
    const failedCalls = () => {
      // errors come in bursts: a provider that starts refusing keeps refusing for a while
      const burst = int(1, 6);
      for (let i = 0; i < burst; i++) {
        const shape = rnd() < 0.6 ? pick(dep.errors) : pick(GENERIC_ERRORS);
        assistant('error', { ...shape }, [], 0);
      }
    };

    while (fileChars < planned) {
      emit(
        serialise(
          entry('message', {
            message: {
              role: 'user',
              content: [{ type: 'text', text: text(USER_TEXT, 20, rnd() < 0.1 ? 6000 : 300) }],
              timestamp: t,
            },
          }),
        ),
      );
      const steps = int(0, 8);
      for (let s = 0; s <= steps && fileChars < planned; s++) {
        if (rnd() < 0.06) failedCalls();
        if (rnd() < 0.015) {
          // aborted mid-stream: some text was delivered before the user hit stop
          assistant(
            'aborted',
            { errorMessage: 'Request was aborted' },
            [{ type: 'text', text: text(PROSE, 100, 3000) }],
            int(100, 3000),
          );
          break;
        }
        const content: unknown[] = [];
        if (rnd() < 0.6)
          content.push({ type: 'thinking', thinking: text(PROSE, 200, 3000), thinkingSignature: hex(64) });
        const last = s === steps;
        if (last || rnd() < 0.4) content.push({ type: 'text', text: text(PROSE, 400, 6000) });
        if (!last) {
          const callId = `call_${hex(24)}`;
          const name = pick(['exec', 'read', 'write', 'web_search']);
          content.push({
            type: 'toolCall',
            id: callId,
            name,
            arguments: { command: `grep -rn "rate limit\\|429" src/ | head -${int(10, 200)}`, timeout: 120 },
          });
          assistant('toolUse', {}, content, int(2000, 120_000));
          const output = text(TOOL_OUTPUT, 200, rnd() < 0.1 ? 20_000 : 2500);
          emit(
            serialise(
              entry('message', {
                message: {
                  role: 'toolResult',
                  toolCallId: callId,
                  toolName: name,
                  content: [{ type: 'text', text: output }],
                  isError: rnd() < 0.05,
                  timestamp: t,
                },
              }),
            ),
          );
        } else {
          assistant(rnd() < 0.03 ? 'length' : 'stop', {}, content, int(2000, 120_000));
        }
      }
      const r = rnd();
      if (r < 0.03) {
        emit(
          serialise(
            entry('compaction', {
              summary: `Earlier: user asked about 429 rate limit errors. ${text(PROSE, 1000, 6000)}`,
              firstKeptEntryId: hex(8),
              tokensBefore: int(80_000, 200_000),
            }),
          ),
        );
      } else if (r < 0.06) {
        dep = pick(DEPS);
        emit(serialise(entry('model_change', { provider: dep.provider, modelId: dep.model })));
      } else if (r < 0.07) {
        // Malformed lines: a write cut short by a crash, and plain garbage.
        const whole = serialise(
          entry('message', {
            message: { role: 'assistant', content: [], stopReason: 'error', errorMessage: '429 rate limit' },
          }),
        );
        emit(whole.slice(0, int(1, whole.length - 1)));
        stats.malformed++;
      } else if (r < 0.075) {
        emit('<html><head><title>502 Bad Gateway</title></head><body>429 rate limit</body></html>');
        stats.malformed++;
      } else if (r < 0.08) {
        // Invalid UTF-8 inside a tool result: well-formed JSON, must still parse and not count.
        const head = Buffer.from(
          serialise(
            entry('message', {
              message: {
                role: 'toolResult',
                toolCallId: 'x',
                toolName: 'read',
                content: [{ type: 'text', text: '@@' }],
                isError: false,
                timestamp: t,
              },
            }),
          ),
        );
        const at = head.indexOf('@@');
        head[at] = 0xff;
        head[at + 1] = 0xc3;
        emitRaw(head);
      }
    }
    flush();
    stats.bytes += fstatSync(fd).size;
    closeSync(fd);
    stats.files++;
  }
  stats.ccusage = ccusage.totals();
  // async by contract (callers await it), although the writes are synchronous:
  // large sync writes are the fastest way to produce hundreds of MB.
  return Promise.resolve(stats);
}
