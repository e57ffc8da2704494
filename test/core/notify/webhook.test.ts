/**
 * Delivery against a real HTTP receiver on loopback: retries, timeouts,
 * Retry-After, services that refuse with HTTP 200, and no secrets in errors.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { inMs } from '../../../main/core/config/durations.js';
import { defaultsOf } from '../../../main/core/config/schema.js';
import {
  type WebhookConfig,
  type WebhookSettings,
  type WebhookType,
  webhookConfig,
} from '../../../main/core/notify/config.js';
import { parseRetryAfter, scrub, sendWebhook } from '../../../main/core/notify/webhook.js';
import type { WebhookRequest } from '../../../main/core/notify/webhook-format.js';
import { type Answer, type Receiver, type Responder, startReceiver } from './receiver.js';

const SECRET_PATH = '/hook/T0123/SUPERSECRETTOKEN';
const receivers: Receiver[] = [];

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(respond?: Responder): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

/** A webhook as deliveries take it from a config file: the schema's defaults, then these. */
function config(type: WebhookType, url: string, extra: Partial<WebhookConfig> = {}): WebhookSettings {
  const written: WebhookConfig = { ...defaultsOf(webhookConfig), type, url, events: ['*'], timeoutSec: 5, retries: 2 };
  return inMs(webhookConfig, { ...written, ...extra });
}

function request(url: string): WebhookRequest {
  return { url, headers: { 'Content-Type': 'application/json', 'X-Test': 'yes' }, body: '{"hello":"world"}' };
}

/** A sleep that records what it was asked and returns at once. */
function fakeSleep() {
  const calls: number[] = [];
  return { calls, sleep: async (ms: number) => void calls.push(ms) };
}

const answers =
  (...list: Answer[]): Responder =>
  (_req, n) =>
    list[Math.min(n, list.length) - 1] ?? { status: 200 };

describe('sendWebhook', () => {
  it('POSTs the request as given', async () => {
    const r = await receiver(() => ({ status: 200, body: 'ok' }));
    const url = `${r.base}${SECRET_PATH}?x=1`;
    const result = await sendWebhook(config('generic', url), request(url));
    expect(result).toEqual({ ok: true, attempts: 1, status: 200, error: null });
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]).toMatchObject({ method: 'POST', path: `${SECRET_PATH}?x=1`, body: '{"hello":"world"}' });
    expect(r.requests[0]?.headers['x-test']).toBe('yes');
  });

  it('never follows a redirect to another host: the body and its secrets stay where the user sent them', async () => {
    const elsewhere = await receiver();
    const other = `http://localhost:${new URL(elsewhere.base).port}/collect`;
    const r = await receiver(() => ({ status: 307, headers: { location: other } }));
    const url = `${r.base}${SECRET_PATH}`;
    const result = await sendWebhook(config('generic', url, { retries: 3 }), request(url));
    expect(result).toMatchObject({ ok: false, attempts: 1, status: 307 });
    expect(result.error).toContain(
      `HTTP 307 redirect to another host (localhost:${new URL(elsewhere.base).port}), not followed`,
    );
    expect(result.error).not.toContain('SUPERSECRETTOKEN');
    expect(elsewhere.requests).toEqual([]);
  });

  it('follows a 307 or 308 within the same host, with the same method and body', async () => {
    const r = await receiver(
      answers({ status: 308, headers: { location: '/moved/here' } }, { status: 200, body: 'ok' }),
    );
    const url = `${r.base}${SECRET_PATH}`;
    const result = await sendWebhook(config('generic', url), request(url));
    expect(result).toEqual({ ok: true, attempts: 1, status: 200, error: null });
    expect(r.requests.map((q) => [q.method, q.path, q.body])).toEqual([
      ['POST', SECRET_PATH, '{"hello":"world"}'],
      ['POST', '/moved/here', '{"hello":"world"}'],
    ]);
  });

  it('retries a 500 with exponential backoff, then succeeds', async () => {
    const r = await receiver(answers({ status: 500 }, { status: 503 }, { status: 204 }));
    const url = `${r.base}${SECRET_PATH}`;
    const { calls, sleep } = fakeSleep();
    const result = await sendWebhook(config('generic', url, { retries: 3 }), request(url), { sleep, random: () => 0 });
    expect(result).toEqual({ ok: true, attempts: 3, status: 204, error: null });
    expect(calls).toEqual([1000, 2000]);
    expect(r.requests).toHaveLength(3);
  });

  it('adds up to 25% jitter to the backoff', async () => {
    const r = await receiver(answers({ status: 500 }, { status: 200 }));
    const url = `${r.base}/x`;
    const { calls, sleep } = fakeSleep();
    await sendWebhook(config('generic', url), request(url), { sleep, random: () => 0.999, baseDelayMs: 400 });
    expect(calls[0]).toBeGreaterThan(490);
    expect(calls[0]).toBeLessThanOrEqual(500);
  });

  it('gives up after retries + 1 attempts; the error names the host, never the path', async () => {
    const r = await receiver(() => ({ status: 502, body: `Bad gateway for ${SECRET_PATH}` }));
    const url = `${r.base}${SECRET_PATH}`;
    const { sleep } = fakeSleep();
    const result = await sendWebhook(config('generic', url, { retries: 2 }), request(url), { sleep });
    expect(result.ok).toBe(false);
    expect(result.attempts).toBe(3);
    expect(result.status).toBe(502);
    expect(result.error).toContain(`${r.base}/…`);
    expect(result.error).toContain('HTTP 502');
    expect(result.error).toContain('after 3 attempts');
    expect(result.error).not.toContain('SUPERSECRETTOKEN');
    expect(r.requests).toHaveLength(3);
  });

  it('does not retry a 400, and reports the service reason', async () => {
    const r = await receiver(() => ({
      status: 400,
      body: '{"ok":false,"error_code":400,"description":"chat not found"}',
    }));
    const url = `${r.base}/bot123:ABCDEF/sendMessage`;
    const { calls, sleep } = fakeSleep();
    const result = await sendWebhook(config('telegram', url), request(url), { sleep });
    expect(result).toMatchObject({ ok: false, attempts: 1, status: 400 });
    expect(result.error).toBe(`${r.base}/…: HTTP 400: chat not found`);
    expect(calls).toEqual([]);
    expect(r.requests).toHaveLength(1);
  });

  it('respects Retry-After on a 429 (seconds), capped', async () => {
    const r = await receiver(
      answers(
        { status: 429, headers: { 'Retry-After': '7' } },
        { status: 429, headers: { 'Retry-After': '3600' } },
        {},
      ),
    );
    const url = `${r.base}/x`;
    const { calls, sleep } = fakeSleep();
    const result = await sendWebhook(config('generic', url, { retries: 2 }), request(url), {
      sleep,
      maxRetryAfterMs: 30_000,
    });
    expect(result.ok).toBe(true);
    expect(calls).toEqual([7000, 30_000]);
  });

  it('reads Retry-After as an HTTP date against the injected clock', async () => {
    const now = Date.UTC(2026, 0, 1, 10, 0, 0);
    const date = new Date(now + 12_000).toUTCString();
    const r = await receiver(answers({ status: 429, headers: { 'Retry-After': date } }, {}));
    const url = `${r.base}/x`;
    const { calls, sleep } = fakeSleep();
    await sendWebhook(config('generic', url), request(url), { sleep, clock: () => now });
    expect(calls).toEqual([12_000]);
  });

  it('a receiver that never answers times out (and is retried)', async () => {
    const r = await receiver(() => 'hang');
    const url = `${r.base}${SECRET_PATH}`;
    const { calls, sleep } = fakeSleep();
    const started = Date.now();
    const result = await sendWebhook(config('generic', url, { timeoutSec: 0.3, retries: 1 }), request(url), {
      sleep,
    });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result).toMatchObject({ ok: false, attempts: 2, status: null });
    expect(result.error).toBe(`${r.base}/…: timed out after 0.3 s (after 2 attempts)`);
    expect(calls).toHaveLength(1);
    expect(r.requests).toHaveLength(2);
  });

  it('retries a refused connection; the error says why without the path', async () => {
    const r = await receiver();
    const url = `${r.base}${SECRET_PATH}`;
    await r.close();
    const { sleep } = fakeSleep();
    const result = await sendWebhook(config('generic', url, { retries: 1 }), request(url), { sleep });
    expect(result).toMatchObject({ ok: false, attempts: 2, status: null });
    expect(result.error).toMatch(/ECONNREFUSED/);
    expect(result.error).not.toContain('SUPERSECRETTOKEN');
  });

  it('a server echoing the token-bearing path does not leak it into the error', async () => {
    const r = await receiver((req) => ({ status: 404, body: `Cannot POST ${req.path}` }));
    const url = `${r.base}/bot987654:AAHsecretToken/sendMessage?access_token=qwerty12345`;
    const result = await sendWebhook(config('telegram', url), request(url));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/HTTP 404: Cannot POST/);
    expect(result.error).not.toMatch(/AAHsecretToken|qwerty12345|987654/);
  });

  it('stops when aborted during a backoff sleep', async () => {
    const r = await receiver(() => ({ status: 500 }));
    const url = `${r.base}/x`;
    const controller = new AbortController();
    const sleep = (_ms: number, signal?: AbortSignal) =>
      new Promise<void>((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(new Error('aborted')));
        controller.abort();
      });
    const result = await sendWebhook(config('generic', url, { retries: 5 }), request(url), {
      sleep,
      signal: controller.signal,
    });
    expect(result.ok).toBe(false);
    expect(result.attempts).toBe(1);
    expect(result.error).toContain('aborted');
  });

  describe('services that refuse with HTTP 200', () => {
    const cases: Array<[WebhookType, string, boolean, RegExp | null]> = [
      ['slack', 'ok', true, null],
      ['slack', 'invalid_payload', false, /slack refused the message: invalid_payload/],
      ['slack', '{"ok":false,"error":"invalid_token"}', false, /invalid_token/],
      ['slack', '{"ok":true}', true, null],
      ['telegram', '{"ok":true,"result":{}}', true, null],
      ['telegram', '{"ok":false,"description":"Forbidden: bot was blocked"}', false, /bot was blocked/],
      ['dingtalk', '{"errcode":0,"errmsg":"ok"}', true, null],
      ['dingtalk', '{"errcode":310000,"errmsg":"sign not match"}', false, /errcode 310000 \(sign not match\)/],
      ['feishu', '{"code":0,"msg":"success","data":{}}', true, null],
      ['feishu', '{"StatusCode":0,"StatusMessage":"success"}', true, null],
      ['feishu', '{"code":19021,"msg":"sign match fail"}', false, /code 19021 \(sign match fail\)/],
      ['generic', '{"code":1}', true, null],
      ['discord', '', true, null],
    ];
    it.each(cases)('%s answering %s → ok=%s', async (type, body, ok, error) => {
      const r = await receiver(() => ({ status: 200, body }));
      const url = `${r.base}/x`;
      const { sleep } = fakeSleep();
      const result = await sendWebhook(config(type, url), request(url), { sleep });
      expect(result.ok).toBe(ok);
      // Refusals are final: retrying the same message gets the same answer.
      expect(result.attempts).toBe(1);
      if (error) expect(result.error).toMatch(error);
      else expect(result.error).toBeNull();
    });
  });
});

describe('parseRetryAfter / scrub', () => {
  it('reads seconds, dates and Telegram parameters', () => {
    expect(parseRetryAfter('3', 0)).toBe(3000);
    expect(parseRetryAfter('1.5', 0)).toBe(1500);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(parseRetryAfter(new Date(1000).toUTCString(), 4000)).toBe(0);
    expect(parseRetryAfter('soon', 0)).toBeNull();
    expect(parseRetryAfter(null, 0, '{"ok":false,"parameters":{"retry_after":9}}')).toBe(9000);
    expect(parseRetryAfter(null, 0, '')).toBeNull();
  });

  it('removes path segments, query values and secrets, and flattens line breaks', () => {
    const url = 'https://api.example.com/bot123456:TOKEN/sendMessage?key=abcdefgh';
    expect(scrub('bad bot123456:TOKEN and abcdefgh and s3cr3tvalue\nX: y', url, ['s3cr3tvalue', null])).toBe(
      'bad … and … and … X: y',
    );
    expect(scrub('x'.repeat(500), url)).toHaveLength(200);
  });
});
