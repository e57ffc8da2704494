/**
 * The dashboard's `app://dashboard` scheme: which request URL maps to which
 * file (a pure decision), and what is answered from a real directory: the
 * page and its assets with their types, nothing outside the renderer
 * directory however the path is spelt, the dashboard's CSP on every answer.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DASHBOARD_CSP } from '../../main/api/server/static-files.js';
import {
  answerDashboard,
  DASHBOARD_URL,
  dashboardTarget,
  enableAppProtocol,
  registerAppScheme,
} from '../../main/app/app-protocol.js';

describe('what a request maps to', () => {
  it('maps the page and its assets, whatever the query or fragment', () => {
    expect(dashboardTarget(DASHBOARD_URL, 'GET')).toEqual({ ok: true, names: ['index.html'] });
    expect(dashboardTarget('app://dashboard/', 'GET')).toEqual({ ok: true, names: ['index.html'] });
    expect(dashboardTarget('app://dashboard/index.html?lang=en#view=logs', 'HEAD')).toEqual({
      ok: true,
      names: ['index.html'],
    });
    expect(dashboardTarget('app://dashboard/assets/words/messages/index.js', 'GET')).toEqual({
      ok: true,
      names: ['assets', 'words', 'messages', 'index.js'],
    });
    // Decoded once: a name with a space, and `%252e` stays the harmless name `%2e`.
    expect(dashboardTarget('app://dashboard/assets/a%20b.js', 'GET')).toEqual({
      ok: true,
      names: ['assets', 'a b.js'],
    });
    expect(dashboardTarget('app://dashboard/assets/%252e%252e/x', 'GET')).toEqual({
      ok: true,
      names: ['assets', '%2e%2e', 'x'],
    });
  });

  it('refuses traversal however it is spelt', () => {
    for (const url of [
      'app://dashboard/assets/../../etc/passwd',
      'app://dashboard/assets/%2e%2e/%2e%2e/etc/passwd',
      'app://dashboard/assets/..%2f..%2fetc%2fpasswd',
      'app://dashboard/assets/%2fetc%2fpasswd',
      'app://dashboard/assets/..\\..\\etc\\passwd',
      'app://dashboard/assets/a%5c..%5cb',
      'app://dashboard/assets/.hidden',
      'app://dashboard/assets//app.js',
      'app://dashboard/assets/',
      'app://dashboard/assets/c:%5cwindows',
      'app://dashboard/assets/a%00b',
      'app://dashboard/assets/%e0%a4%a',
    ]) {
      expect(dashboardTarget(url, 'GET'), url).toMatchObject({ ok: false, status: 404 });
    }
  });

  it('resolves dot segments as the URL parser does: never above the origin’s root', () => {
    expect(dashboardTarget('app://dashboard/assets/%2E%2E/index.html', 'GET')).toEqual({
      ok: true,
      names: ['index.html'],
    });
    expect(dashboardTarget('app://dashboard/assets/../../../index.html', 'GET')).toEqual({
      ok: true,
      names: ['index.html'],
    });
  });

  it('serves the page and assets/ only, never the rest of the directory', () => {
    expect(dashboardTarget('app://dashboard/index.html.map', 'GET')).toMatchObject({ ok: false, status: 404 });
    expect(dashboardTarget('app://dashboard/other.html', 'GET')).toMatchObject({ ok: false, status: 404 });
    expect(dashboardTarget('app://dashboard/assets', 'GET')).toMatchObject({ ok: false, status: 404 });
  });

  it('refuses other hosts, ports, credentials, schemes and methods', () => {
    for (const url of [
      'app://elsewhere/index.html',
      'app://dashboard.example/index.html',
      'app://dashboard:8080/index.html',
      'app://user:pw@dashboard/index.html',
      'app:///index.html',
      'file:///app/dist/renderer/index.html',
      'http://dashboard/index.html',
    ]) {
      expect(dashboardTarget(url, 'GET'), url).toMatchObject({ ok: false, status: 403 });
    }
    expect(dashboardTarget(DASHBOARD_URL, 'POST')).toMatchObject({ ok: false, status: 405 });
    expect(dashboardTarget('not a url', 'GET')).toMatchObject({ ok: false, status: 404 });
  });
});

describe('answers from the renderer directory', () => {
  let base: string;
  let root: string;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'bb-app-protocol-')));
    root = join(base, 'renderer');
    mkdirSync(join(root, 'assets', 'vendor'), { recursive: true });
    writeFileSync(join(root, 'index.html'), '<!doctype html>');
    writeFileSync(join(root, 'assets', 'app.js'), 'export {};');
    writeFileSync(join(root, 'assets', 'style.css'), 'body{}');
    writeFileSync(join(root, 'assets', 'icon.svg'), '<svg/>');
    writeFileSync(join(root, 'assets', 'vendor', 'uPlot.min.css'), '.u{}');
    writeFileSync(join(root, 'assets', 'data.bin'), 'x');
    writeFileSync(join(base, 'secret.txt'), 'outside');
    symlinkSync(join(base, 'secret.txt'), join(root, 'assets', 'out.js'));
    symlinkSync(base, join(root, 'assets', 'up'));
    symlinkSync(join(root, 'assets', 'app.js'), join(root, 'assets', 'alias.js'));
  });

  afterEach(() => {
    rmSync(base, { recursive: true, force: true });
  });

  const answer = (url: string, method = 'GET') => answerDashboard(root, url, method);

  it('answers the page and its assets with their content types', async () => {
    const page = await answer(DASHBOARD_URL);
    expect(page.status).toBe(200);
    expect(page.body?.toString()).toBe('<!doctype html>');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const types = await Promise.all(
      ['app.js', 'style.css', 'icon.svg', 'vendor/uPlot.min.css', 'data.bin'].map(
        async (name) => (await answer(`app://dashboard/assets/${name}`)).headers['content-type'],
      ),
    );
    expect(types).toEqual([
      'text/javascript; charset=utf-8',
      'text/css; charset=utf-8',
      'image/svg+xml',
      'text/css; charset=utf-8',
      'application/octet-stream',
    ]);
  });

  it('sends the dashboard’s CSP and nosniff with every answer, refusals included', async () => {
    const answers = await Promise.all([
      answer(DASHBOARD_URL),
      answer('app://dashboard/assets/missing.js'),
      answer('app://elsewhere/index.html'),
      answer(DASHBOARD_URL, 'POST'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 404, 403, 405]);
    for (const a of answers) {
      expect(a.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(a.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('follows no link out of the directory, and serves no directory', async () => {
    expect((await answer('app://dashboard/assets/out.js')).status).toBe(404);
    expect((await answer('app://dashboard/assets/up/secret.txt')).status).toBe(404);
    expect((await answer('app://dashboard/assets/vendor')).status).toBe(404);
    expect((await answer('app://dashboard/assets/%2e%2e/%2e%2e/secret.txt')).status).toBe(404);
    // A link that stays inside is the file it names.
    expect((await answer('app://dashboard/assets/alias.js')).body?.toString()).toBe('export {};');
  });

  it('answers HEAD without a body', async () => {
    const head = await answer(DASHBOARD_URL, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
  });

  it('hands Electron a Response per request, and a 404 when the renderer is not built', async () => {
    const handlers = new Map<string, (request: { url: string; method: string }) => Promise<Response>>();
    const protocol = { handle: vi.fn((scheme: string, handler: never) => handlers.set(scheme, handler)) };
    enableAppProtocol({ protocol: protocol as never, rendererDir: root });
    const response = await handlers.get('app')?.({ url: 'app://dashboard/assets/app.js', method: 'GET' });
    expect(response?.status).toBe(200);
    expect(await response?.text()).toBe('export {};');
    expect(response?.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);

    const log = vi.fn();
    enableAppProtocol({ protocol: protocol as never, rendererDir: join(base, 'missing'), log });
    const missing = await handlers.get('app')?.({ url: DASHBOARD_URL, method: 'GET' });
    expect(missing?.status).toBe(404);
    expect(log).toHaveBeenCalledWith('the dashboard files cannot be served', expect.anything());
  });
});

describe('the scheme’s privileges', () => {
  it('are standard and secure, without fetch, CORS or a CSP bypass', () => {
    const protocol = { registerSchemesAsPrivileged: vi.fn() };
    registerAppScheme(protocol);
    expect(protocol.registerSchemesAsPrivileged).toHaveBeenCalledWith([
      { scheme: 'app', privileges: { standard: true, secure: true } },
    ]);
  });
});
