/**
 * Rule: every request the local API should not serve (wrong Host, foreign
 * Origin, no or wrong token, oversized body, slow client, path traversal,
 * wrong content type or method) gets a clean 4xx JSON answer, is logged, and
 * changes nothing: the backend's control() is never called.
 *
 * fetch normalises away most of these attacks (it resolves `..`, forbids
 * setting Host), so requests go through `http.request` or a raw socket.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { type IncomingHttpHeaders, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { unsafePath } from '../../../main/api/server/gate.js';
import { type ApiServer, startApiServer } from '../../../main/api/server/http.js';
import { checkHost, checkOrigin, checkToken } from '../../../main/api/server/security.js';
import { API_TOKEN_FILE, loadOrCreateApiToken } from '../../../main/core/api-files/token.js';
import { FakeBackend, type RecordingLogger, recordingLogger } from '../../helpers/fake-backend.js';

const TOKEN = randomBytes(32).toString('hex');
const SECRET = 'TOP-SECRET-OUTSIDE-STATIC-DIR';
const REQUEST_TIMEOUT_MS = 300;
const MAX_BODY = 16 * 1024;

describe('checkHost (DNS rebinding)', () => {
  const listen = { host: '127.0.0.1', port: 4321 };
  it.each(['127.0.0.1:4321', 'localhost:4321', 'LOCALHOST:4321', '[::1]:4321'])('accepts %s', (host) => {
    expect(checkHost(host, listen)).toEqual({ ok: true });
  });
  it.each([
    undefined,
    '',
    'evil.example:4321',
    'evil.example',
    '127.0.0.1',
    '127.0.0.1:1',
    'localhost',
    'localhost.:4321',
    'localhost.evil.example:4321',
    '127.0.0.1.nip.io:4321',
    '0.0.0.0:4321',
    '[::ffff:127.0.0.1]:4321',
    '127.0.0.1:4321@evil.example',
  ])('refuses %s with 403', (host) => {
    expect(checkHost(host, listen)).toMatchObject({ ok: false, status: 403 });
  });
  it('on port 80, the port may be omitted', () => {
    expect(checkHost('localhost', { host: '127.0.0.1', port: 80 })).toEqual({ ok: true });
  });
  it('on ::1, the bracketed literal and localhost', () => {
    expect(checkHost('[::1]:9', { host: '::1', port: 9 })).toEqual({ ok: true });
    expect(checkHost('localhost:9', { host: '::1', port: 9 })).toEqual({ ok: true });
  });
  it('on a specific non-loopback address, only that address', () => {
    const lan = { host: '192.168.1.20', port: 9 };
    expect(checkHost('192.168.1.20:9', lan)).toEqual({ ok: true });
    expect(checkHost('localhost:9', lan)).toMatchObject({ ok: false });
    expect(checkHost('evil.example:9', lan)).toMatchObject({ ok: false });
  });
  it('on a wildcard address, IP literals and localhost with the port, never a DNS name', () => {
    const any = { host: '0.0.0.0', port: 9 };
    expect(checkHost('192.168.1.20:9', any)).toEqual({ ok: true });
    expect(checkHost('[fe80::1]:9', any)).toEqual({ ok: true });
    expect(checkHost('localhost:9', any)).toEqual({ ok: true });
    expect(checkHost('192.168.1.20:10', any)).toMatchObject({ ok: false });
    expect(checkHost('evil.example:9', any)).toMatchObject({ ok: false });
  });
});

describe('checkOrigin (cross-site requests)', () => {
  const listen = { host: '127.0.0.1', port: 4321 };
  it.each([undefined, 'http://127.0.0.1:4321', 'http://localhost:4321'])('accepts %s', (origin) => {
    expect(checkOrigin(origin, listen)).toEqual({ ok: true });
  });
  it.each([
    'null',
    '',
    'http://evil.example',
    'http://127.0.0.1:1',
    'https://127.0.0.1:4321',
    'http://127.0.0.1:4321/',
    'http://127.0.0.1:4321.evil.example',
    'file://',
    'http://127.0.0.1:4321, http://evil.example',
  ])('refuses %s with 403', (origin) => {
    expect(checkOrigin(origin, listen)).toMatchObject({ ok: false, status: 403 });
  });
});

describe('checkToken', () => {
  it('accepts Bearer <token>, the scheme in any case', () => {
    expect(checkToken(`Bearer ${TOKEN}`, TOKEN)).toEqual({ ok: true });
    expect(checkToken(`bearer ${TOKEN}`, TOKEN)).toEqual({ ok: true });
  });
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['wrong', `Bearer ${randomBytes(32).toString('hex')}`],
    ['a prefix', `Bearer ${TOKEN.slice(0, 10)}`],
    ['longer', `Bearer ${TOKEN}0`],
    ['Basic', `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`],
    ['no scheme', TOKEN],
    ['scheme only', 'Bearer'],
    ['two tokens', `Bearer ${TOKEN} ${TOKEN}`],
    ['a comma list', `Bearer ${TOKEN}, Bearer ${TOKEN}`],
  ])('refuses %s with 401, never echoing it', (_name, header) => {
    const result = checkToken(header, TOKEN);
    expect(result).toMatchObject({ ok: false, status: 401 });
    expect(JSON.stringify(result)).not.toContain(TOKEN.slice(0, 10));
  });
  it('an empty configured token matches nothing', () => {
    expect(checkToken('Bearer x', '')).toMatchObject({ ok: false });
  });
});

describe('unsafePath', () => {
  it.each([
    '/../package.json',
    '/%2e%2e/',
    '/%2E%2e/x',
    '/.%2e/x',
    '/assets/..%2f..%2fetc/passwd',
    '/assets/%00',
    '/assets/a\\..\\b',
    '/assets/%5c..',
    '/./healthz',
    '/assets/%c0%ae%c0%ae/x',
    '/assets/%',
  ])('refuses %s', (path) => {
    expect(unsafePath(path)).not.toBeNull();
  });
  it.each(['/', '/healthz', '/api/breakers/openai%2Fgpt-4o/control', '/assets/app.3f2a.js', '/a..b'])(
    'lets %s through',
    (path) => {
      expect(unsafePath(path)).toBeNull();
    },
  );
});

describe('API token file', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'breakerbar-token-'));
    return () => rmSync(dataDir, { recursive: true, force: true });
  });
  const posix = process.platform !== 'win32';

  it('is created on first start: 32 random bytes in hex, owner-only, then reused', () => {
    const token = loadOrCreateApiToken(dataDir);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const path = join(dataDir, API_TOKEN_FILE);
    if (posix) expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8').trim()).toBe(token);
    expect(loadOrCreateApiToken(dataDir)).toBe(token);
    const other = mkdtempSync(join(tmpdir(), 'breakerbar-token-'));
    expect(loadOrCreateApiToken(other)).not.toBe(token);
    rmSync(other, { recursive: true, force: true });
  });

  it.skipIf(!posix)('an existing file readable by others is tightened to 0600 and its token kept', () => {
    const token = randomBytes(32).toString('hex');
    const path = join(dataDir, API_TOKEN_FILE);
    writeFileSync(path, `${token}\n`);
    chmodSync(path, 0o644);
    expect(loadOrCreateApiToken(dataDir)).toBe(token);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('an empty leftover is replaced; other content is an error that does not quote it', () => {
    const path = join(dataDir, API_TOKEN_FILE);
    writeFileSync(path, '');
    expect(loadOrCreateApiToken(dataDir)).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(path, 'hunter2-not-a-token');
    expect(() => loadOrCreateApiToken(dataDir)).toThrow(/delete it/);
    expect(() => loadOrCreateApiToken(dataDir)).not.toThrow(/hunter2/);
  });

  it.skipIf(!posix)('a symbolic link at the token path is refused', () => {
    const elsewhere = join(dataDir, 'elsewhere');
    writeFileSync(elsewhere, `${randomBytes(32).toString('hex')}\n`);
    symlinkSync(elsewhere, join(dataDir, API_TOKEN_FILE));
    expect(() => loadOrCreateApiToken(dataDir)).toThrow(/symbolic link/);
  });
});

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Attempt {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

describe('the server under attack', () => {
  let root: string;
  let server: ApiServer;
  let port: number;
  let backend: FakeBackend;
  let log: RecordingLogger;
  let own: string;

  beforeAll(async () => {
    // root/secret.txt must never be served; root/public is the static dir.
    root = mkdtempSync(join(tmpdir(), 'breakerbar-security-'));
    writeFileSync(join(root, 'secret.txt'), SECRET);
    const pub = join(root, 'public');
    mkdirSync(join(pub, 'assets'), { recursive: true });
    writeFileSync(join(pub, 'index.html'), '<!doctype html><title>BreakerBar</title>');
    writeFileSync(join(pub, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(pub, 'assets', '.hidden'), SECRET);
    if (process.platform !== 'win32') symlinkSync(join(root, 'secret.txt'), join(pub, 'assets', 'link.txt'));
    backend = new FakeBackend();
    log = recordingLogger();
    server = await startApiServer({
      backend,
      port: 0,
      token: TOKEN,
      log,
      version: 'test',
      staticDir: pub,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      maxBodyBytes: MAX_BODY,
      // Every refusal here must be logged with its reason; how a flood of them is thinned is log-throttle.test.ts's.
      refusalsLogged: { perWindow: Number.POSITIVE_INFINITY },
    });
    port = server.port;
    own = `127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  beforeEach(() => {
    log.lines.length = 0;
    backend.controls.length = 0;
    backend.historyQueries.length = 0;
  });

  /** One request through http.request: the path and headers go out exactly as given. */
  function send(attempt: Attempt): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: attempt.method ?? 'GET',
          path: attempt.path,
          headers: { host: own, ...attempt.headers },
          agent: false,
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      req.end(attempt.body);
    });
  }

  const authorized = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const controlPath = '/api/breakers/openai%2Fgpt-4o/control';
  const goodBody = JSON.stringify({ action: 'force_open', reason: 'attack' });
  const post = (headers: Record<string, string>, body = goodBody): Attempt => ({
    method: 'POST',
    path: controlPath,
    headers,
    body,
  });

  /** A clean 4xx JSON, logged with its status, nothing changed, and no secret anywhere. */
  function expectRejected(res: RawResponse, status: number | number[]): void {
    const statuses = Array.isArray(status) ? status : [status];
    expect(statuses).toContain(res.status);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const parsed = JSON.parse(res.body) as { error: unknown };
    expect(typeof parsed.error).toBe('string');
    expect(res.body).not.toContain(SECRET);
    expect(backend.controls).toEqual([]);
    const line = log.lines.find((l) => l.msg === 'api request rejected' && l.fields.status === res.status);
    expect(line, `no rejection logged in ${log.text()}`).toBeDefined();
    expect(line?.level).toBe('warn');
    expect(typeof line?.fields.reason).toBe('string');
    expect(log.text()).not.toContain(TOKEN.slice(0, 12));
  }

  it('serves a legitimate control (the baseline the attacks differ from)', async () => {
    const res = await send(post(authorized));
    expect(res.status).toBe(200);
    expect(backend.controls).toHaveLength(1);
    expect(log.text()).not.toContain(TOKEN.slice(0, 12));
  });

  it.each<[string, () => Attempt, number]>([
    ['Host evil.example:PORT', () => ({ path: '/api/status', headers: { host: `evil.example:${port}` } }), 403],
    ['Host 127.0.0.1:1', () => ({ path: '/api/status', headers: { host: '127.0.0.1:1' } }), 403],
    ['Host without port', () => ({ path: '/api/status', headers: { host: '127.0.0.1' } }), 403],
    [
      'Host localhost.evil.example',
      () => ({ path: '/healthz', headers: { host: `localhost.evil.example:${port}` } }),
      403,
    ],
    ['rebinding POST with the token', () => post({ ...authorized, host: `evil.example:${port}` }), 403],
    ['rebinding event stream', () => ({ path: '/api/events', headers: { host: `evil.example:${port}` } }), 403],
  ])('wrong Host: %s', async (_name, attempt, status) => {
    expectRejected(await send(attempt()), status);
    expect(backend.historyQueries).toEqual([]);
  });

  it.each<[string, () => Attempt, number]>([
    ['on GET', () => ({ path: '/api/status', headers: { origin: 'http://evil.example' } }), 403],
    ['on the event stream', () => ({ path: '/api/events', headers: { origin: 'https://evil.example' } }), 403],
    ['on history', () => ({ path: '/api/history', headers: { origin: 'http://evil.example' } }), 403],
    ['on POST, even with the token', () => post({ ...authorized, origin: 'http://evil.example' }), 403],
    ['null on POST', () => post({ ...authorized, origin: 'null' }), 403],
    ['another local port on POST', () => post({ ...authorized, origin: 'http://127.0.0.1:1' }), 403],
    [
      'on a CORS preflight',
      () => ({ method: 'OPTIONS', path: controlPath, headers: { origin: 'http://evil.example' } }),
      403,
    ],
  ])('foreign Origin %s', async (_name, attempt, status) => {
    expectRejected(await send(attempt()), status);
    expect(backend.historyQueries).toEqual([]);
  });

  it('our own Origin is accepted', async () => {
    expect((await send(post({ ...authorized, origin: `http://127.0.0.1:${port}` }))).status).toBe(200);
    expect((await send({ path: '/api/status', headers: { origin: `http://localhost:${port}` } })).status).toBe(200);
  });

  it.each<[string, Record<string, string>]>([
    ['missing', { 'content-type': 'application/json' }],
    ['wrong', { 'content-type': 'application/json', authorization: `Bearer ${randomBytes(32).toString('hex')}` }],
    ['malformed: no scheme', { 'content-type': 'application/json', authorization: TOKEN }],
    ['malformed: Basic', { 'content-type': 'application/json', authorization: `Basic ${TOKEN}` }],
    ['malformed: scheme only', { 'content-type': 'application/json', authorization: 'Bearer' }],
    ['malformed: two values', { 'content-type': 'application/json', authorization: `Bearer ${TOKEN} x` }],
    ['wrong content type and no token', { 'content-type': 'text/plain' }],
  ])('token %s → 401', async (_name, headers) => {
    const res = await send(post(headers));
    expectRejected(res, 401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('a token in the query string is not a token', async () => {
    expectRejected(
      await send({
        method: 'POST',
        path: `${controlPath}?token=${TOKEN}`,
        headers: { 'content-type': 'application/json' },
        body: goodBody,
      }),
      401,
    );
  });

  it.each([
    ['text/plain', 'text/plain;charset=UTF-8'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['a JSON look-alike', 'application/jsonp'],
    ['none', ''],
  ])('wrong content type on POST (%s) → 415', async (_name, type) => {
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
    if (type !== '') headers['content-type'] = type;
    expectRejected(await send(post(headers)), 415);
  });

  it.each<[string, Attempt, string]>([
    ['GET on the control route', { path: controlPath }, 'POST'],
    ['PUT on status', { method: 'PUT', path: '/api/status' }, 'GET, HEAD'],
    ['DELETE on metrics', { method: 'DELETE', path: '/metrics' }, 'GET, HEAD'],
    ['POST on history', { method: 'POST', path: '/api/history', headers: authorized, body: '{}' }, 'GET, HEAD'],
    ['OPTIONS without Origin', { method: 'OPTIONS', path: controlPath }, 'POST'],
    ['POST on the events stream', { method: 'POST', path: '/api/events', headers: authorized, body: '{}' }, 'GET'],
  ])('method not allowed: %s → 405', async (_name, attempt, allow) => {
    const res = await send(attempt);
    expectRejected(res, 405);
    expect(res.headers.allow).toBe(allow);
  });

  it('unknown paths → 404', async () => {
    expectRejected(
      await send({ path: '/api/breakers/x/restart', method: 'POST', headers: authorized, body: goodBody }),
      404,
    );
    expectRejected(await send({ path: '/admin' }), 404);
  });

  it('an absolute-form request target → 400', async () => {
    expectRejected(await send({ path: `http://evil.example/api/status` }), 400);
  });

  it('oversized body with a declared length → 413 before the body is sent', async () => {
    const res = await new Promise<RawResponse>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: controlPath,
          headers: { host: own, ...authorized, 'content-length': String(1024 * 1024) },
          agent: false,
        },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (c: string) => {
            body += c;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
        },
      );
      req.on('error', reject);
      // Only the start of the megabyte: the answer must not wait for the rest.
      req.write('{"action":"force_open","reason":"');
    });
    expectRejected(res, 413);
    expect(res.headers.connection).toBe('close');
  });

  it('oversized chunked body → 413 once the limit is crossed', async () => {
    const res = await new Promise<RawResponse>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: controlPath,
          headers: { host: own, ...authorized, 'transfer-encoding': 'chunked' },
          agent: false,
        },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (c: string) => {
            body += c;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
        },
      );
      // Writes after the server hung up fail; the answer is what matters.
      req.on('error', () => {});
      req.write(`{"action":"force_open","reason":"${'x'.repeat(MAX_BODY)}`);
      setTimeout(() => reject(new Error('no answer to an oversized body')), 3000).unref();
    });
    expectRejected(res, 413);
  });

  it('a body of exactly the limit is read', async () => {
    const json = JSON.stringify({ action: 'reset', reason: 'boundary' });
    const res = await send(post(authorized, json + ' '.repeat(MAX_BODY - json.length)));
    expect(res.status).toBe(200);
    expect(backend.controls).toHaveLength(1);
  });

  /** Writes `text` on a raw socket, then waits for the server to close it. */
  function stall(text: string): Promise<{ data: string; closedAfterMs: number }> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const socket = connect(port, '127.0.0.1', () => {
        if (text !== '') socket.write(text);
      });
      let data = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        data += chunk;
      });
      socket.on('error', () => {});
      socket.on('close', () => resolve({ data, closedAfterMs: Date.now() - started }));
      setTimeout(() => {
        socket.destroy();
        reject(new Error('the server kept a stalled connection open'));
      }, REQUEST_TIMEOUT_MS + 3000).unref();
    });
  }

  it('slow client: half the headers, then silence → 408 and closed within the timeout', async () => {
    const { data, closedAfterMs } = await stall(`GET /api/status HTTP/1.1\r\nHost: ${own}\r\n`);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1500);
    expect(data).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(data.slice(data.indexOf('\r\n\r\n') + 4))).toHaveProperty('error');
    expect(log.lines.some((l) => l.msg === 'api request rejected' && l.fields.status === 408)).toBe(true);
  });

  it('slow client: a POST whose body never completes → closed within the timeout, nothing applied', async () => {
    const head =
      `POST ${controlPath} HTTP/1.1\r\nHost: ${own}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"action":"force_open",';
    const { data, closedAfterMs } = await stall(head);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1500);
    expect(data).toMatch(/^HTTP\/1\.1 408 /);
    expect(backend.controls).toEqual([]);
    expect(log.lines.some((l) => l.msg === 'api request rejected' && l.fields.status === 408)).toBe(true);
    expect(log.text()).not.toContain(TOKEN.slice(0, 12));
  });

  it('slow client: a connection that sends nothing is closed within the timeout', async () => {
    const { closedAfterMs } = await stall('');
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1500);
  });

  it('two Host headers → 403', async () => {
    const { data } = await stall(
      `GET /api/status HTTP/1.1\r\nHost: ${own}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
    );
    expect(data).toMatch(/^HTTP\/1\.1 403 /);
  });

  it.each(['HTTP/1.1', 'HTTP/1.0'])('no Host header (%s) → 403 JSON', async (version) => {
    const { data } = await stall(`GET /api/status ${version}\r\nConnection: close\r\n\r\n`);
    expect(data).toMatch(/^HTTP\/1\.[01] 403 /);
    expect(data).toContain('"error":"missing Host header"');
    expect(log.lines.some((l) => l.msg === 'api request rejected' && l.fields.status === 403)).toBe(true);
  });

  it('Expect: 100-continue without the token → 401, and no 100 Continue invites the body', async () => {
    const head =
      `POST ${controlPath} HTTP/1.1\r\nHost: ${own}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 50\r\nExpect: 100-continue\r\n\r\n';
    const { data } = await stall(head);
    expect(data).toMatch(/^HTTP\/1\.1 401 /);
    expect(data).not.toContain('100 Continue');
    expect(backend.controls).toEqual([]);
  });

  it('Expect: 100-continue with the token → 100 Continue, then the control', async () => {
    const res = await new Promise<{ continued: boolean; status: number }>((resolve, reject) => {
      let continued = false;
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: controlPath,
          headers: { host: own, ...authorized, expect: '100-continue', 'content-length': String(goodBody.length) },
          agent: false,
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve({ continued, status: response.statusCode ?? 0 }));
        },
      );
      req.on('continue', () => {
        continued = true;
        req.end(goodBody);
      });
      req.on('error', reject);
    });
    expect(res).toEqual({ continued: true, status: 200 });
    expect(backend.controls).toHaveLength(1);
  });

  it('malformed HTTP → 400 JSON, logged', async () => {
    const { data } = await stall('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(data).toMatch(/^HTTP\/1\.1 400 /);
    expect(data).toContain('application/json');
    expect(log.lines.some((l) => l.msg === 'api request rejected' && l.fields.status === 400)).toBe(true);
  });

  it.each([
    '/../package.json',
    '/../secret.txt',
    '/%2e%2e/',
    '/%2e%2e/secret.txt',
    '/%2E%2E/%2E%2E/package.json',
    '/assets/../../secret.txt',
    '/assets/..%2f..%2fetc/passwd',
    '/assets/..%2f..%2fsecret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/assets/.%2e/.%2e/secret.txt',
    '/assets/%c0%ae%c0%ae/secret.txt',
    '/assets/%00',
    '/assets/app.js%00.png',
    '/assets/..\\..\\secret.txt',
    '/assets/%5c..%5c..%5csecret.txt',
    '/assets//etc/passwd',
    '/assets/%2fetc%2fpasswd',
    '/assets/C:%5cWindows%5cwin.ini',
    '/assets/C:',
    '/assets/.hidden',
    '/assets/link.txt',
    '/assets/',
    '/assets',
    '/index.html/../secret.txt',
  ])('path traversal %s → 4xx, nothing outside the static dir', async (path) => {
    const res = await send({ path });
    expectRejected(res, [400, 404]);
  });

  it('the static route still serves what is inside', async () => {
    const res = await send({ path: '/assets/app.js' });
    expect(res.status).toBe(200);
    expect(res.body).toBe('console.log(1)');
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'self'/);
  });
});
