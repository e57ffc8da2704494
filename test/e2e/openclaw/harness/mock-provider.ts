/**
 * A model provider for the real gateway to call: OpenAI chat completions on
 * 127.0.0.1, streaming (SSE) when asked, with every answer an upstream can
 * give — ok (short or ~4 KB), 429 with Retry-After, 529, 503, 500, 401, 402
 * (OpenAI's quota wording, which OpenClaw files as a rate limit, or plain
 * "insufficient credits", which it files as billing), 400 context length, a
 * TCP reset, a hang, a stream cut mid-way.
 *
 * What each request gets is chosen per model: a script of answers consumed in
 * order, then the model's steady answer. A model can also be held: its requests
 * wait, unanswered, until the test releases them (a run kept in flight for as
 * long as the test needs, then let go). Every request is logged with the
 * answer it got: that log is the ground truth the suite holds BreakerBar to.
 *
 * Kept to erasable TypeScript so the exploration script can run it on Node 24
 * directly, as well as under vitest.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export const ANSWERS = [
  'ok',
  'ok_long',
  'rate_limit',
  'overloaded',
  'unavailable',
  'server_error',
  'unauthorized',
  'payment_required',
  'no_credits',
  'context_length',
  'reset',
  'hang',
  'cut',
] as const;
export type Answer = (typeof ANSWERS)[number];

/** The status class an answer is, as a provider's own counters would file it. */
export const ANSWER_CLASS: Record<Answer, string> = {
  ok: 'ok',
  ok_long: 'ok',
  rate_limit: 'rate_limited',
  overloaded: 'overloaded',
  unavailable: 'server_error',
  server_error: 'server_error',
  unauthorized: 'auth',
  payment_required: 'billing',
  no_credits: 'billing',
  context_length: 'context_overflow',
  reset: 'connection_reset',
  hang: 'timeout',
  cut: 'connection_reset',
};

export interface ProviderRequest {
  /** Arrival time, epoch ms. */
  at: number;
  /** The provider id the gateway called this mock as (from `baseUrlFor`). */
  provider: string;
  model: string;
  answer: Answer;
  stream: boolean;
}

export interface MockProvider {
  /** The base URL to configure for provider `id`: one mock serves several providers, told apart by path. */
  baseUrlFor(id: string): string;
  readonly requests: readonly ProviderRequest[];
  /** Answers for the next requests of `model`, in order; then its steady answer. */
  script(model: string, answers: readonly Answer[]): void;
  /** The answer every request of `model` gets once its script is used up (default: the model's name when it is an answer, else `ok`). */
  steady(model: string, answer: Answer): void;
  /** Keeps every new request of `model` open and unanswered until `release(model)`. */
  hold(model: string): void;
  /**
   * Stops holding `model` and answers its held requests (script, then steady answer).
   * A held request the gateway gave up on meanwhile is logged as `hang`: it never got an answer.
   */
  release(model: string): void;
  /** How many requests of `model` are held right now (the gateway still waiting on them). */
  heldCount(model: string): number;
  /** Seconds sent in Retry-After with 429 and 503 answers; null sends none (the provider asks for no wait). */
  retryAfterSeconds: number | null;
  close(): Promise<void>;
}

const ERRORS: Partial<Record<Answer, { status: number; type: string; code: string; message: string }>> = {
  rate_limit: {
    status: 429,
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    message: 'Rate limit reached for requests. Please try again in 2s.',
  },
  overloaded: { status: 529, type: 'overloaded_error', code: 'overloaded', message: 'Overloaded' },
  unavailable: {
    status: 503,
    type: 'server_error',
    code: 'service_unavailable',
    message: 'The service is temporarily unavailable.',
  },
  server_error: { status: 500, type: 'server_error', code: '500', message: 'The server had an error.' },
  unauthorized: {
    status: 401,
    type: 'invalid_request_error',
    code: 'invalid_api_key',
    message: 'Incorrect API key provided.',
  },
  payment_required: {
    status: 402,
    type: 'insufficient_quota',
    code: 'insufficient_quota',
    message: 'You exceeded your current quota, please check your plan and billing details.',
  },
  no_credits: {
    status: 402,
    type: 'insufficient_credits',
    code: 'insufficient_credits',
    message: 'Insufficient credits: your credit balance is too low to use this model.',
  },
  context_length: {
    status: 400,
    type: 'invalid_request_error',
    code: 'context_length_exceeded',
    message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.",
  },
};

const LONG_TEXT = 'The quick brown fox jumps over the lazy dog while the storm passes. '.repeat(64);

export async function startMockProvider(): Promise<MockProvider> {
  const requests: ProviderRequest[] = [];
  const scripts = new Map<string, Answer[]>();
  const steadies = new Map<string, Answer>();
  const sockets = new Set<Socket>();
  const held = new Map<string, HeldRequest[]>();
  const state: { retryAfterSeconds: number | null } = { retryAfterSeconds: 1 };

  // A model named after an answer gives that answer unless told otherwise: `mock/rate_limit`.
  const next = (model: string): Answer =>
    scripts.get(model)?.shift() ?? steadies.get(model) ?? (isAnswer(model) ? model : 'ok');

  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      // Model listings and probes are not upstream calls; they are not logged.
      res.writeHead(req.url?.endsWith('/models') ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [] }));
      return;
    }
    readBody(req).then(
      (body) => {
        const model = typeof body.model === 'string' ? body.model : 'unknown';
        const answer = next(model);
        const provider = /^\/p\/([^/]+)\//.exec(req.url ?? '')?.[1] ?? 'unknown';
        const parked = held.get(model);
        if (parked) {
          parked.push({ req, res, model, provider, at: Date.now(), stream: body.stream === true });
          return;
        }
        requests.push({ at: Date.now(), provider, model, answer, stream: body.stream === true });
        respond(req, res, answer, model, body.stream === true, state.retryAfterSeconds);
      },
      () => res.destroy(),
    );
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrlFor: (id) => `http://127.0.0.1:${port}/p/${encodeURIComponent(id)}/v1`,
    requests,
    script: (model, answers) => scripts.set(model, [...(scripts.get(model) ?? []), ...answers]),
    steady: (model, answer) => steadies.set(model, answer),
    hold: (model) => {
      if (!held.has(model)) held.set(model, []);
    },
    release: (model) => {
      const parked = held.get(model) ?? [];
      held.delete(model);
      for (const request of parked) {
        const gone = request.req.socket.destroyed;
        const answer: Answer = gone ? 'hang' : next(model);
        const { provider, at, stream } = request;
        requests.push({ at, provider, model, answer, stream });
        if (!gone) respond(request.req, request.res, answer, model, stream, state.retryAfterSeconds);
      }
    },
    heldCount: (model) => (held.get(model) ?? []).filter((request) => !request.req.socket.destroyed).length,
    get retryAfterSeconds() {
      return state.retryAfterSeconds;
    },
    set retryAfterSeconds(value: number | null) {
      state.retryAfterSeconds = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

interface HeldRequest {
  req: IncomingMessage;
  res: ServerResponse;
  model: string;
  provider: string;
  at: number;
  stream: boolean;
}

export function isAnswer(value: string): value is Answer {
  return (ANSWERS as readonly string[]).includes(value);
}

function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      try {
        const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        resolve(typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {});
      } catch (error) {
        reject(error);
      }
    });
  });
}

function respond(
  req: IncomingMessage,
  res: ServerResponse,
  answer: Answer,
  model: string,
  stream: boolean,
  retryAfterSeconds: number | null,
): void {
  const error = ERRORS[answer];
  if (error !== undefined) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if ((error.status === 429 || error.status === 503) && retryAfterSeconds !== null)
      headers['retry-after'] = String(retryAfterSeconds);
    res.writeHead(error.status, headers);
    res.end(JSON.stringify({ error: { message: error.message, type: error.type, code: error.code } }));
    return;
  }
  if (answer === 'reset') {
    req.socket.resetAndDestroy();
    return;
  }
  if (answer === 'hang') return; // Never answered; the gateway's idle timeout gives up.
  const text = answer === 'ok_long' ? LONG_TEXT : 'Done.';
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion(model, text)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const pieces = text.match(/.{1,200}/gs) ?? [text];
  if (answer === 'cut') {
    res.write(sse(chunk(model, { role: 'assistant', content: 'Partial ' })));
    // Some output has reached the gateway; then the connection drops.
    setTimeout(() => req.socket.resetAndDestroy(), 50);
    return;
  }
  res.write(sse(chunk(model, { role: 'assistant', content: '' })));
  for (const piece of pieces) res.write(sse(chunk(model, { content: piece })));
  res.write(sse({ ...chunk(model, {}, 'stop'), usage: usage(text) }));
  res.end('data: [DONE]\n\n');
}

function sse(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

function chunk(model: string, delta: Record<string, unknown>, finish: string | null = null) {
  return {
    id: 'chatcmpl-mock',
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

function usage(text: string) {
  const completion = Math.ceil(text.length / 4);
  return { prompt_tokens: 120, completion_tokens: completion, total_tokens: 120 + completion };
}

function completion(model: string, text: string) {
  return {
    id: 'chatcmpl-mock',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: usage(text),
  };
}
