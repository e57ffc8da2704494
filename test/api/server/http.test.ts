/**
 * Rule: the local API answers each route as the dashboard, the CLI and a
 * Prometheus scraper expect, against a real server on a random loopback port.
 * (The attacks are in security.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseHistoryQuery } from '../../../main/api/queries.js';
import { type ApiServer, type ApiServerOptions, startApiServer } from '../../../main/api/server/http.js';
import { createSseHub, type SseResponse } from '../../../main/api/server/sse.js';
import { FakeBackend, type RecordingLogger, recordingLogger } from '../../helpers/fake-backend.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const TOKEN = randomBytes(32).toString('hex');

interface Harness {
  server: ApiServer;
  backend: FakeBackend;
  log: RecordingLogger;
}

const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function start(overrides: Partial<ApiServerOptions> = {}): Promise<Harness> {
  const backend = new FakeBackend();
  const log = recordingLogger();
  const server = await startApiServer({
    backend,
    port: 0,
    token: TOKEN,
    log,
    version: '9.9.9',
    clock: () => NOW,
    ...overrides,
  });
  cleanups.push(() => server.close());
  return { server, backend, log };
}

function control(server: ApiServer, dep: string, body: unknown, token = TOKEN): Promise<Response> {
  return fetch(`${server.url}/api/breakers/${dep}/control`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('routes', () => {
  it('GET /healthz answers {"ok":true} with the security headers', async () => {
    const { server } = await start();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"ok":true}');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('x-breakerbar-version')).toBe('9.9.9');
  });

  it('HEAD is answered without a body', async () => {
    const { server } = await start();
    const res = await fetch(`${server.url}/healthz`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it('GET /metrics passes the backend body and content type through', async () => {
    const { server, backend } = await start();
    backend.metricsResult = {
      contentType: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
      body: 'breaker_state{dep="a/b"} 2\n# EOF\n',
    };
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(await res.text()).toBe('breaker_state{dep="a/b"} 2\n# EOF\n');
  });

  it('GET /api/status is the backend snapshot as JSON', async () => {
    const { server, backend } = await start();
    const res = await fetch(`${server.url}/api/status`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(backend.statusResult);
  });

  it('a backend failure on a read is a 500 without details, logged', async () => {
    const { server, backend, log } = await start();
    backend.status = () => {
      throw new Error('database is locked');
    };
    const res = await fetch(`${server.url}/api/status`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: 'internal error' });
    expect(log.lines.some((l) => l.level === 'error' && l.fields.error === 'database is locked')).toBe(true);
  });

  it('unknown paths are 404 JSON; a wrong method is 405 with allow', async () => {
    const { server } = await start();
    const missing = await fetch(`${server.url}/api/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'not found' });
    const wrong = await fetch(`${server.url}/api/status`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
    expect(((await wrong.json()) as { error: string }).error).toMatch(/DELETE/);
  });
});

describe('GET /api/spend', () => {
  it("answers the backend's spend report, to GET and HEAD only", async () => {
    const { server, backend } = await start();
    const res = await fetch(`${server.url}/api/spend`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(backend.spendResult);
    expect((await fetch(`${server.url}/api/spend`, { method: 'HEAD' })).status).toBe(200);
    const post = await fetch(`${server.url}/api/spend`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(post.status).toBe(405);
  });
});

describe('GET /api/history', () => {
  it('defaults to the last hour in 60 s steps', async () => {
    const { server, backend } = await start();
    const res = await fetch(`${server.url}/api/history`);
    expect(res.status).toBe(200);
    expect(backend.historyQueries).toEqual([{ from: NOW - 3_600_000, to: NOW, stepMs: 60_000 }]);
    expect(await res.json()).toMatchObject({ from: NOW - 3_600_000, to: NOW, stepMs: 60_000 });
  });

  it('takes ISO 8601 or epoch ms, a step in seconds and an encoded dep', async () => {
    const { server, backend } = await start();
    const query = 'dep=openai%2Fgpt-4o&from=2026-01-15T10:00:00Z&to=1768478400000&step=300';
    expect((await fetch(`${server.url}/api/history?${query}`)).status).toBe(200);
    expect(backend.historyQueries).toEqual([
      { dep: 'openai/gpt-4o', from: Date.UTC(2026, 0, 15, 10), to: Date.UTC(2026, 0, 15, 12), stepMs: 300_000 },
    ]);
  });

  it.each([
    ['step=0.5', 'step'],
    ['step=0', 'step'],
    ['step=-5', 'step'],
    ['step=abc', 'step'],
    ['from=0&to=100000000&step=1', 'step'],
    ['from=yesterday', 'from'],
    ['from=2026-01-15T10:00:00', 'from'],
    ['to=2026-13-45T99:00:00Z', 'to'],
    [`from=${NOW}&to=${NOW}`, 'from'],
    [`from=${NOW}&to=${NOW - 1}`, 'from'],
    ['steps=60', 'steps'],
    ['step=60&step=120', 'step'],
  ])('rejects %s with a 400 naming %s', async (query, param) => {
    const { server, backend, log } = await start();
    const res = await fetch(`${server.url}/api/history?${query}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; param: string };
    expect(body.param).toBe(param);
    expect(body.error).toContain(param);
    expect(backend.historyQueries).toEqual([]);
    expect(log.lines.some((l) => l.msg === 'api request rejected' && l.fields.status === 400)).toBe(true);
  });

  it('allows exactly 10,000 steps', () => {
    expect(parseHistoryQuery('from=0&to=10000000&step=1', NOW)).toMatchObject({ ok: true });
    expect(parseHistoryQuery('from=0&to=10001000&step=1', NOW)).toMatchObject({ ok: false, param: 'step' });
  });
});

describe('POST /api/breakers/<dep>/control', () => {
  it('applies the control and answers the transitions', async () => {
    const { server, backend, log } = await start();
    const res = await control(server, 'openai%2Fgpt-4o', { action: 'force_open', reason: 'maintenance' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({
      transitions: [
        { dep: 'openai/gpt-4o', from: 'closed', to: 'open', reason: 'operator: maintenance', ts: 1_700_000_000_000 },
      ],
    });
    expect(backend.controls).toEqual([{ dep: 'openai/gpt-4o', action: 'force_open', reason: 'maintenance' }]);
    expect(log.lines.some((l) => l.msg === 'breaker control applied' && l.fields.dep === 'openai/gpt-4o')).toBe(true);
  });

  it('takes a dep with a literal slash, and a credential fingerprint', async () => {
    const { server, backend } = await start();
    expect((await control(server, 'anthropic/claude/fp-1a2b', { action: 'reset', reason: 'ok again' })).status).toBe(
      200,
    );
    expect(backend.controls).toEqual([{ dep: 'anthropic/claude/fp-1a2b', action: 'reset', reason: 'ok again' }]);
  });

  it('a control the backend refuses is a 409 with its message', async () => {
    const { server, backend } = await start();
    backend.controlError = new Error('no breaker for nope/model');
    const res = await control(server, 'nope%2Fmodel', { action: 'force_closed', reason: 'test' });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: 'no breaker for nope/model' });
  });

  it.each([
    [{ action: 'explode', reason: 'x' }, 'action'],
    [{ reason: 'x' }, 'action'],
    [{ action: 'reset' }, 'reason'],
    [{ action: 'reset', reason: '   ' }, 'reason'],
    [{ action: 'reset', reason: 'x'.repeat(201) }, 'reason'],
    [{ action: 'reset', reason: 'line\nforged log entry' }, 'reason'],
    [{ action: 'reset', reason: 'x', extra: 1 }, 'extra'],
    [{ action: 'reset', reason: 'x', dep: 'other/dep' }, 'dep'],
    [['reset'], 'body'],
  ])('rejects the body %j with a 400 naming %s', async (body, param) => {
    const { server, backend } = await start();
    const res = await control(server, 'a%2Fb', body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { param: string }).param).toBe(param);
    expect(backend.controls).toEqual([]);
  });

  it('accepts a reason of exactly 200 characters', async () => {
    const { server, backend } = await start();
    expect((await control(server, 'a%2Fb', { action: 'reset', reason: 'é'.repeat(200) })).status).toBe(200);
    expect(backend.controls).toHaveLength(1);
  });

  it('rejects a body that is not JSON without echoing it', async () => {
    const { server, backend, log } = await start();
    const res = await fetch(`${server.url}/api/breakers/a%2Fb/control`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"action": SECRET-BODY',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'body is not valid JSON' });
    expect(backend.controls).toEqual([]);
    expect(log.text()).not.toContain('SECRET-BODY');
  });
});

/** Reads an event stream until `until` matches what arrived; returns the text and the response. */
function readStream(url: string, until: (text: string) => boolean): Promise<{ text: string; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = get(url, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (until(text)) {
          req.destroy();
          resolve({ text, res });
        }
      });
      res.on('end', () => resolve({ text, res }));
    });
    req.on('error', reject);
  });
}

describe('GET /api/events', () => {
  it('streams pushed events and heartbeats', async () => {
    const { server, backend } = await start({ sse: { heartbeatMs: 50 } });
    const transition = {
      dep: 'openai/gpt-4o',
      from: 'closed',
      to: 'open',
      reason: '5 consecutive failures',
      ts: 1,
    } as const;
    let pushed = false;
    const { text, res } = await readStream(`${server.url}/api/events`, (t) => {
      // Push once the stream is open (its first bytes arrived), as a real change would arrive.
      if (!pushed && t.includes(': connected')) {
        pushed = true;
        backend.emit({ type: 'transition', data: transition });
      }
      return t.includes('event: transition') && t.includes(': heartbeat');
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toContain('no-cache');
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(text).toContain(`event: transition\ndata: ${JSON.stringify(transition)}\n\n`);
    expect(text).toContain(': heartbeat\n\n');
  });

  it('refuses streams beyond the cap with a 503', async () => {
    const { server } = await start({ sse: { maxClients: 1, heartbeatMs: 0 } });
    const first = readStream(`${server.url}/api/events`, (t) => t.includes(': connected'));
    await first;
    // The first client disconnected in readStream; open one that stays.
    const held = get(`${server.url}/api/events`);
    held.on('error', () => {});
    await new Promise<void>((r) => held.once('response', () => r()));
    const res = await fetch(`${server.url}/api/events`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(((await res.json()) as { error: string }).error).toMatch(/too many event streams/);
    held.destroy();
  });

  it('close() ends open streams', async () => {
    const { server } = await start({ sse: { heartbeatMs: 0 } });
    const ended = new Promise<string>((resolve, reject) => {
      get(`${server.url}/api/events`, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
          if (text.includes(': connected')) void server.close();
        });
        res.on('end', () => resolve(text));
      }).on('error', reject);
    });
    expect(await ended).toContain(': connected');
  });
});

describe('SSE hub', () => {
  class FakeResponse implements SseResponse {
    chunks: string[] = [];
    writableLength = 0;
    writableEnded = false;
    destroyed = false;
    status = 0;
    headers: Record<string, string> = {};
    private onClose: (() => void) | null = null;
    writeHead(status: number, headers: Record<string, string>) {
      this.status = status;
      this.headers = headers;
    }
    write(chunk: string) {
      this.chunks.push(chunk);
      return true;
    }
    end() {
      this.writableEnded = true;
      this.onClose?.();
    }
    destroy() {
      this.destroyed = true;
      this.onClose?.();
    }
    once(_event: 'close', listener: () => void) {
      this.onClose = listener;
    }
  }

  it('writes the stream headers and event framing', () => {
    const hub = createSseHub({ heartbeatMs: 0 });
    const res = new FakeResponse();
    expect(hub.attach(res).ok).toBe(true);
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'x-accel-buffering': 'no',
    });
    hub.send('calls', { count: 2, deps: ['a/b'], note: 'two\nlines' });
    hub.heartbeat();
    expect(res.chunks.slice(1)).toEqual([
      'event: calls\ndata: {"count":2,"deps":["a/b"],"note":"two\\nlines"}\n\n',
      ': heartbeat\n\n',
    ]);
    expect(() => hub.send('bad\ndata: x', {})).toThrow(/invalid event type/);
  });

  it('drops a client whose unsent data exceeds the limit, and closed ones', () => {
    const log = recordingLogger();
    const hub = createSseHub({ heartbeatMs: 0, maxBufferedBytes: 1000, log });
    const slow = new FakeResponse();
    const fine = new FakeResponse();
    const gone = new FakeResponse();
    hub.attach(slow);
    hub.attach(fine);
    hub.attach(gone);
    expect(hub.size).toBe(3);
    slow.writableLength = 5000;
    gone.end();
    hub.send('calls', { count: 1, deps: [] });
    expect(slow.destroyed).toBe(true);
    expect(hub.size).toBe(1);
    expect(fine.chunks).toHaveLength(2);
    expect(log.lines.some((l) => l.msg === 'api event stream client dropped')).toBe(true);
  });

  it('caps clients and refuses after close', () => {
    const hub = createSseHub({ heartbeatMs: 0, maxClients: 2 });
    expect(hub.attach(new FakeResponse()).ok).toBe(true);
    expect(hub.attach(new FakeResponse()).ok).toBe(true);
    expect(hub.attach(new FakeResponse())).toMatchObject({ ok: false, status: 503 });
    hub.close();
    expect(hub.size).toBe(0);
    expect(hub.attach(new FakeResponse())).toMatchObject({ ok: false, status: 503 });
  });
});

describe('static files', () => {
  it('serves index.html at / with a strict CSP, and assets with their type', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'breakerbar-static-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>BreakerBar</title>');
    writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
    const { server } = await start({ staticDir: dir });
    const index = await fetch(`${server.url}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
    expect(index.headers.get('x-frame-options')).toBe('DENY');
    expect(await index.text()).toContain('<title>BreakerBar</title>');
    const script = await fetch(`${server.url}/assets/app.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toBe('console.log(1)');
    expect((await fetch(`${server.url}/assets/missing.js`)).status).toBe(404);
  });

  it('without a staticDir, / is 404', async () => {
    const { server } = await start();
    expect((await fetch(`${server.url}/`)).status).toBe(404);
  });

  it('refuses a staticDir that does not exist', async () => {
    await expect(start({ staticDir: join(tmpdir(), 'breakerbar-no-such-dir-xyz') })).rejects.toThrow(
      /dashboard directory/,
    );
  });
});

describe('listening', () => {
  it('refuses a non-loopback address unless allowNonLoopback is set', async () => {
    await expect(start({ host: '0.0.0.0' })).rejects.toThrow(/refusing to listen on 0\.0\.0\.0.*allowNonLoopback/);
  });

  it('refuses a short token', async () => {
    await expect(start({ token: 'short' })).rejects.toThrow(/at least 32/);
  });

  it('reports a port in use clearly', async () => {
    const { server } = await start();
    await expect(start({ port: server.port })).rejects.toThrow(/port is already in use/);
  });

  it('never logs the token', async () => {
    const { server, log } = await start();
    await control(server, 'a%2Fb', { action: 'reset', reason: 'x' });
    await control(server, 'a%2Fb', { action: 'reset', reason: 'x' }, `${TOKEN.slice(0, -1)}0`);
    expect(log.lines.length).toBeGreaterThan(0);
    expect(log.text()).not.toContain(TOKEN.slice(0, 16));
  });
});

describe('/api/maintenance', () => {
  const post = (server: ApiServer, body: unknown, token = TOKEN) =>
    fetch(`${server.url}/api/maintenance`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('starts with a token and a valid body, stops with a token, reads without one', async () => {
    const { server, backend } = await start();
    const started = await post(server, { durationSec: 7200, reason: 'upgrading OpenClaw' });
    expect(started.status).toBe(200);
    expect(await started.json()).toMatchObject({ manual: { reason: 'upgrading OpenClaw' } });
    const read = await fetch(`${server.url}/api/maintenance`);
    expect(read.status).toBe(200);
    const stopped = await fetch(`${server.url}/api/maintenance`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(stopped.status).toBe(200);
    expect(backend.maintenanceRequests).toEqual([{ durationSec: 7200, reason: 'upgrading OpenClaw' }, undefined, null]);
  });

  it('refuses a missing token, a bad duration and unknown fields, naming the field', async () => {
    const { server, backend } = await start();
    expect((await post(server, { durationSec: 60 }, 'wrong')).status).toBe(401);
    expect((await fetch(`${server.url}/api/maintenance`, { method: 'DELETE' })).status).toBe(401);
    const bad = await post(server, { durationSec: 0 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ param: 'durationSec' });
    const unknown = await post(server, { durationSec: null, until: 5 });
    expect(await unknown.json()).toMatchObject({ param: 'until' });
    expect((await post(server, { durationSec: null, reason: 'a\nb' })).status).toBe(400);
    expect(backend.maintenanceRequests).toEqual([]);
  });
});
