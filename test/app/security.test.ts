/**
 * The window's security rules: navigation only to our own page, new windows
 * denied (links to this core's pages open in the browser), webviews refused,
 * permissions denied, a CSP on any http(s) response.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { DASHBOARD_CSP } from '../../main/api/server/static-files.js';
import { enableSecurity, guardContents, isAllowedNavigation, isExternalAllowed } from '../../main/app/security.js';

const RENDERER = 'app://dashboard/index.html';
const CORE = 'http://127.0.0.1:18820';

class Contents extends EventEmitter {
  /** What the contents show (our dashboard unless a test says otherwise). */
  url = `${RENDERER}#view=overview`;
  getURL = () => this.url;
  openHandler: ((details: { url: string }) => { action: string }) | null = null;
  setWindowOpenHandler = vi.fn((handler: (details: { url: string }) => { action: string }) => {
    this.openHandler = handler;
  });
  /** Fires a navigation event; returns whether it was refused. */
  navigate(event: string, url: string): boolean {
    const preventDefault = vi.fn();
    this.emit(event, { url, preventDefault });
    return preventDefault.mock.calls.length > 0;
  }
}

function guarded() {
  const contents = new Contents();
  const shell = { openExternal: vi.fn(async () => {}) };
  guardContents(contents as never, RENDERER, shell as never, () => CORE);
  return { contents, shell };
}

describe('navigation and new windows', () => {
  it('lets the window move within our page only', () => {
    expect(isAllowedNavigation(`${RENDERER}#view=logs`, RENDERER)).toBe(true);
    expect(isAllowedNavigation(`${RENDERER}?lang=zh-CN#view=logs`, RENDERER)).toBe(true);
    expect(isAllowedNavigation('https://example.com/', RENDERER)).toBe(false);
    expect(isAllowedNavigation('file:///etc/passwd', RENDERER)).toBe(false);
    // The same files as file: URLs are not our page any more.
    expect(isAllowedNavigation('file:///app/dist/renderer/index.html', RENDERER)).toBe(false);
    expect(isAllowedNavigation('app://dashboard/assets/icon.svg', RENDERER)).toBe(false);
    expect(isAllowedNavigation('app://elsewhere/index.html', RENDERER)).toBe(false);
    expect(isAllowedNavigation('app://dashboard:1/index.html', RENDERER)).toBe(false);
    expect(isAllowedNavigation('app://user@dashboard/index.html', RENDERER)).toBe(false);
  });

  it('refuses navigations and redirects elsewhere, and webviews', () => {
    const { contents } = guarded();
    expect(contents.navigate('will-navigate', 'https://evil.example/')).toBe(true);
    expect(contents.navigate('will-redirect', 'https://evil.example/')).toBe(true);
    expect(contents.navigate('will-frame-navigate', 'file:///etc/passwd')).toBe(true);
    expect(contents.navigate('will-navigate', `${RENDERER}#view=settings`)).toBe(false);
    expect(contents.navigate('will-attach-webview', RENDERER)).toBe(true);
  });

  it('denies every new window, opening this core’s own pages in the browser', () => {
    const { contents, shell } = guarded();
    expect(contents.openHandler?.({ url: `${CORE}/metrics` })).toEqual({ action: 'deny' });
    expect(shell.openExternal).toHaveBeenCalledWith(`${CORE}/metrics`);
    expect(contents.openHandler?.({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    expect(contents.openHandler?.({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(shell.openExternal).toHaveBeenCalledTimes(1);
  });

  it('opens the browser only for our dashboard, not for a page that got into other web contents', () => {
    const { contents, shell } = guarded();
    contents.url = 'https://evil.example/';
    expect(contents.openHandler?.({ url: `${CORE}/metrics` })).toEqual({ action: 'deny' });
    contents.url = 'file:///app/dist/renderer/index.html';
    expect(contents.openHandler?.({ url: `${CORE}/metrics` })).toEqual({ action: 'deny' });
    expect(shell.openExternal).not.toHaveBeenCalled();
  });

  it('opens in a browser only http(s) on the core’s origin, without credentials', () => {
    expect(isExternalAllowed(`${CORE}/`, CORE)).toBe(true);
    expect(isExternalAllowed('http://127.0.0.1:9999/metrics', CORE)).toBe(false);
    expect(isExternalAllowed('http://user:pw@127.0.0.1:18820/', CORE)).toBe(false);
    expect(isExternalAllowed('javascript:alert(1)', CORE)).toBe(false);
    expect(isExternalAllowed(`${CORE}/`, null)).toBe(false);
  });
});

describe('session rules', () => {
  function enabled() {
    const app = new EventEmitter();
    const session = {
      setPermissionRequestHandler: vi.fn(),
      setPermissionCheckHandler: vi.fn(),
      webRequest: { onHeadersReceived: vi.fn() },
    };
    const shell = { openExternal: vi.fn() };
    const guard = enableSecurity({
      app: app as never,
      session: session as never,
      shell: shell as never,
      rendererUrl: RENDERER,
      coreUrl: () => CORE,
    });
    return { app, session, shell, guard };
  }

  it('guards every web contents the app creates', () => {
    const { app } = enabled();
    const contents = new Contents();
    app.emit('web-contents-created', {}, contents);
    expect(contents.navigate('will-navigate', 'https://evil.example/')).toBe(true);
    expect(contents.setWindowOpenHandler).toHaveBeenCalled();
  });

  it('hands back the same guard, for a window to apply to its own web contents', () => {
    const { guard } = enabled();
    const contents = new Contents();
    guard(contents as never);
    expect(contents.navigate('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(contents.navigate('will-attach-webview', RENDERER)).toBe(true);
    expect(contents.setWindowOpenHandler).toHaveBeenCalledTimes(1);
  });

  it('denies every permission request and check', () => {
    const { session } = enabled();
    const callback = vi.fn();
    session.setPermissionRequestHandler.mock.calls[0]?.[0]({}, 'media', callback);
    expect(callback).toHaveBeenCalledWith(false);
    expect(session.setPermissionCheckHandler.mock.calls[0]?.[0]({}, 'notifications')).toBe(false);
  });

  it('adds the dashboard CSP to a response without one, and keeps one that is there', () => {
    const { session } = enabled();
    const listener = session.webRequest.onHeadersReceived.mock.calls[0]?.[0];
    const callback = vi.fn();
    listener({ responseHeaders: { 'Content-Type': ['text/html'] } }, callback);
    expect(callback).toHaveBeenLastCalledWith({
      responseHeaders: { 'Content-Type': ['text/html'], 'Content-Security-Policy': [DASHBOARD_CSP] },
    });
    listener({ responseHeaders: { 'content-security-policy': ["default-src 'none'"] } }, callback);
    expect(callback).toHaveBeenLastCalledWith({
      responseHeaders: { 'content-security-policy': ["default-src 'none'"] },
    });
  });
});
