/**
 * The dashboard window's security rules, from Electron's checklist
 * (https://www.electronjs.org/docs/latest/tutorial/security), as named rules
 * applied to every web contents the app creates:
 * - #13 navigation: the window shows our own `index.html` and nothing else
 *   (`will-navigate`, `will-redirect`, `will-frame-navigate` refused elsewhere);
 * - #14 new windows: denied; an http(s) link to this core's own pages
 *   (the dashboard in a browser, `/metrics`) opens in the user's browser;
 * - #12 webviews: never attached;
 * - #5 permissions (camera, notifications, geolocation…): all denied;
 * - #7 CSP: the renderer's own meta policy for `file:`; the same policy as a
 *   header on any http(s) response, which the dashboard should never load.
 * Context isolation, the sandbox and no Node integration are set on the window itself (window.ts).
 */
import type { App, Session, Shell, WebContents } from 'electron';
import { isTrustedSender } from './ipc-contract.js';

/** What the daemon's server sends for the dashboard (main/core/server/http.ts, STATIC_CSP). */
export const DASHBOARD_CSP =
  "default-src 'self'; base-uri 'none'; object-src 'none'; form-action 'self'; frame-ancestors 'none'";

/** A navigation the window may follow: our own document (a new fragment or query is the same page). */
export function isAllowedNavigation(url: string, rendererUrl: string): boolean {
  return isTrustedSender({ url }, rendererUrl);
}

/** An http(s) URL on this core's own origin (its dashboard, `/metrics`), the only kind opened in a browser. */
export function isExternalAllowed(url: string, coreUrl: string | null): boolean {
  if (coreUrl === null) return false;
  try {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return false;
    if (target.username !== '' || target.password !== '') return false;
    return target.origin === new URL(coreUrl).origin;
  } catch {
    return false;
  }
}

export interface SecurityOptions {
  app: Pick<App, 'on'>;
  session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'webRequest'>;
  shell: Pick<Shell, 'openExternal'>;
  rendererUrl: string;
  /** The connected core's base URL (for links to its pages), null when there is none. */
  coreUrl(): string | null;
}

export function enableSecurity(options: SecurityOptions): void {
  const { app, session, shell, rendererUrl, coreUrl } = options;
  app.on('web-contents-created', (_event, contents) => guardContents(contents, rendererUrl, shell, coreUrl));
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => {
    const headers = details.responseHeaders ?? {};
    const present = Object.keys(headers).some((name) => name.toLowerCase() === 'content-security-policy');
    callback({ responseHeaders: present ? headers : { ...headers, 'Content-Security-Policy': [DASHBOARD_CSP] } });
  });
}

export function guardContents(
  contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>,
  rendererUrl: string,
  shell: Pick<Shell, 'openExternal'>,
  coreUrl: () => string | null,
): void {
  const refuseElsewhere = (event: { url: string; preventDefault(): void }) => {
    if (!isAllowedNavigation(event.url, rendererUrl)) event.preventDefault();
  };
  contents.on('will-navigate', refuseElsewhere);
  contents.on('will-redirect', refuseElsewhere);
  contents.on('will-frame-navigate', refuseElsewhere);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isExternalAllowed(url, coreUrl())) void shell.openExternal(url);
    return { action: 'deny' };
  });
}
