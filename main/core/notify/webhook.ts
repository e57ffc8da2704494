/**
 * Webhook delivery: one POST with a timeout, retried with exponential backoff
 * on what may heal (network errors, timeouts, 408, 429, 5xx) and not on what
 * will not (other 4xx, a service saying the message was refused). Error strings
 * are shown and stored, so they never carry the URL's path or query.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { backoffStep } from '../runtime/backoff.js';
import type { WebhookSettings, WebhookType } from './config.js';
import { fetchSameHost, redirectRefusal } from './same-host-fetch.js';
import { redactUrl, type WebhookRequest } from './webhook-format.js';

export interface SendOptions {
  /** Aborts the delivery, including a backoff sleep in progress. */
  signal?: AbortSignal;
  /** For Retry-After given as an HTTP date. */
  clock?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** 0..1; jitter spreads retries from many senders. */
  random?: () => number;
  /** First backoff; doubles each retry. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A longer Retry-After is shortened to this (a server asking for an hour should not hold a notice for an hour). */
  maxRetryAfterMs?: number;
}

export interface SendResult {
  ok: boolean;
  attempts: number;
  status: number | null;
  error: string | null;
}

/** Enough of an answer to find an error code; the rest is dropped unread. */
const MAX_ANSWER_BYTES = 16 * 1024;
const MAX_ERROR_DETAIL = 200;

type Attempt =
  | { result: 'ok'; status: number }
  | { result: 'retry'; status: number | null; error: string; retryAfterMs: number | null }
  | { result: 'fail'; status: number | null; error: string };

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> => delay(ms, undefined, { signal });

export async function sendWebhook(
  config: WebhookSettings,
  request: WebhookRequest,
  options: SendOptions = {},
): Promise<SendResult> {
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const baseDelayMs = options.baseDelayMs ?? 1000;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const maxAttempts = 1 + Math.max(0, Math.floor(Number.isFinite(config.retries) ? config.retries : 0));
  const target = redactUrl(request.url);

  let attempts = 0;
  let last: Attempt = { result: 'fail', status: null, error: 'not attempted' };
  while (attempts < maxAttempts) {
    if (options.signal?.aborted) {
      last = { result: 'fail', status: last.status, error: 'aborted' };
      break;
    }
    attempts += 1;
    last = await attempt(config, request, options);
    if (last.result !== 'retry' || attempts >= maxAttempts) break;
    const backoff = backoffStep(attempts, { initialMs: baseDelayMs, maxMs: maxDelayMs }) * (1 + 0.25 * random());
    try {
      await sleep(Math.round(last.retryAfterMs ?? backoff), options.signal);
    } catch {
      last = { result: 'fail', status: last.status, error: `${last.error}; aborted before retrying` };
      break;
    }
  }
  if (last.result === 'ok') return { ok: true, attempts, status: last.status, error: null };
  const tries = attempts > 1 ? ` (after ${attempts} attempts)` : '';
  return { ok: false, attempts, status: last.status, error: `${target}: ${last.error}${tries}` };
}

async function attempt(config: WebhookSettings, request: WebhookRequest, options: SendOptions): Promise<Attempt> {
  const timeout = AbortSignal.timeout(Math.max(1, config.timeoutMs));
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const secrets = [config.secret, config.chatId];
  let status: number | null = null;
  try {
    const response = await fetchSameHost(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal,
    });
    status = response.status;
    const answer = await readLimited(response);
    const redirected = redirectRefusal(response, request.url);
    if (redirected !== null) return { result: 'fail', status, error: redirected };
    if (status >= 200 && status < 300) {
      const refused = serviceError(config.type, answer);
      if (refused === null) return { result: 'ok', status };
      return { result: 'fail', status, error: scrub(refused, request.url, secrets) };
    }
    const detail = errorDetail(answer);
    const error = `HTTP ${status}${detail ? `: ${scrub(detail, request.url, secrets)}` : ''}`;
    if (status === 429 || status === 408 || status >= 500) {
      const clock = options.clock ?? Date.now;
      const cap = options.maxRetryAfterMs ?? 60_000;
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), clock(), answer);
      return {
        result: 'retry',
        status,
        error,
        retryAfterMs: retryAfterMs === null ? null : Math.min(retryAfterMs, cap),
      };
    }
    return { result: 'fail', status, error };
  } catch (err) {
    if (options.signal?.aborted) return { result: 'fail', status, error: 'aborted' };
    if (timeout.aborted) {
      return { result: 'retry', status, error: `timed out after ${config.timeoutMs / 1000} s`, retryAfterMs: null };
    }
    return { result: 'retry', status, error: scrub(describeError(err), request.url, secrets), retryAfterMs: null };
  }
}

/**
 * Slack, Telegram, DingTalk and Feishu answer HTTP 200 when they refuse a
 * message and put the reason in the body; those are failures too.
 */
export function serviceError(type: WebhookType, answer: string): string | null {
  const json = parseObject(answer);
  switch (type) {
    case 'slack': {
      // Incoming webhooks answer the text "ok"; workflow webhooks answer {"ok":true}.
      if (json !== null)
        return json.ok === false ? `slack refused the message: ${text(json.error) ?? 'ok=false'}` : null;
      const trimmed = answer.trim();
      return trimmed === '' || trimmed === 'ok' ? null : `slack refused the message: ${trimmed}`;
    }
    case 'telegram':
      if (json?.ok === false) {
        return `telegram refused the message: ${text(json.description) ?? `error ${text(json.error_code) ?? 'unknown'}`}`;
      }
      return null;
    case 'dingtalk':
      if (typeof json?.errcode === 'number' && json.errcode !== 0) {
        return `dingtalk refused the message: errcode ${json.errcode}${text(json.errmsg) ? ` (${text(json.errmsg)})` : ''}`;
      }
      return null;
    case 'feishu': {
      const code = typeof json?.code === 'number' ? json.code : json?.StatusCode;
      if (typeof code === 'number' && code !== 0) {
        const msg = text(json?.msg) ?? text(json?.StatusMessage);
        return `feishu refused the message: code ${code}${msg ? ` (${msg})` : ''}`;
      }
      return null;
    }
    default:
      return null;
  }
}

/** Retry-After in seconds or as an HTTP date; Telegram also puts it in parameters.retry_after. */
export function parseRetryAfter(header: string | null, now: number, answer = ''): number | null {
  if (header !== null) {
    const value = header.trim();
    if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const parameters = parseObject(answer)?.parameters;
  if (typeof parameters === 'object' && parameters !== null) {
    const seconds = (parameters as Record<string, unknown>).retry_after;
    if (typeof seconds === 'number' && seconds >= 0) return seconds * 1000;
  }
  return null;
}

async function readLimited(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_ANSWER_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    // Frees the connection when the answer is longer than we care to read.
    reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}

/** The reason a service gives in an error answer, or a short plain-text answer. */
function errorDetail(answer: string): string | null {
  const json = parseObject(answer);
  if (json !== null) {
    for (const field of ['description', 'errmsg', 'msg', 'message', 'error']) {
      const value = text(json[field]);
      if (value) return value;
    }
    return null;
  }
  const trimmed = answer.trim();
  // A long body is an HTML error page: noise, and it may echo the request path.
  return trimmed !== '' && trimmed.length <= MAX_ERROR_DETAIL && !trimmed.startsWith('<') ? trimmed : null;
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // fetch wraps the useful part (ECONNREFUSED, ENOTFOUND, a TLS error) in `cause`.
  const cause = err.cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return `${err.message}: ${cause.message}${code && !cause.message.includes(code) ? ` (${code})` : ''}`;
  }
  return err.message;
}

/**
 * Removes anything secret-looking a server or error may echo back: the URL's
 * path segments and query values, the secret, the chat id.
 */
export function scrub(message: string, url: string, secrets: Array<string | null> = []): string {
  const needles = new Set<string>([url]);
  try {
    const parsed = new URL(url);
    needles.add(`${parsed.pathname}${parsed.search}`);
    for (const segment of parsed.pathname.split('/')) {
      needles.add(segment);
      try {
        needles.add(decodeURIComponent(segment));
      } catch {
        // A malformed escape: the raw segment is already covered.
      }
    }
    for (const [, value] of parsed.searchParams) needles.add(value);
  } catch {
    // Not a URL: only the whole string and the secrets are removed.
  }
  for (const secret of secrets) if (secret) needles.add(secret);
  let out = message;
  // Longest first, so a path is replaced whole before its segments; short ones (`bot`, `v2`) are harmless words.
  for (const needle of [...needles].filter((n) => n.length >= 6).sort((a, b) => b.length - a.length)) {
    out = out.split(needle).join('…');
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a line break in a stored error would forge log lines.
  out = out.replace(/[\x00-\x1f\x7f]+/g, ' ').trim();
  return out.length > MAX_ERROR_DETAIL ? `${out.slice(0, MAX_ERROR_DETAIL - 1)}…` : out;
}

function parseObject(answer: string): Record<string, unknown> | null {
  const trimmed = answer.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function text(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return null;
}
