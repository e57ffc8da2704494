/**
 * The dashboard window's security rules, from Electron's checklist
 * (https://www.electronjs.org/docs/latest/tutorial/security), as named rules:
 * - #13 navigation: the window shows our own page, `app://dashboard/index.html`,
 *   and nothing else (`will-navigate`, `will-redirect`, `will-frame-navigate`
 *   refused elsewhere);
 * - #14 new windows: denied; an http(s) link to this core's own pages (the
 *   dashboard in a browser, `/metrics`) opens in the user's browser (#15), and
 *   only when it comes from our page;
 * - #12 webviews: never attached;
 * - #5 permissions (camera, notifications, geolocation…): all denied;
 * - #7 CSP: sent with every `app://` answer (app-protocol.ts); added to any
 *   http(s) response without one, which the dashboard should never load.
 * The guards are attached to the window's own web contents as it is created
 * (window.ts), and to any other web contents the app ever creates
 * (`web-contents-created`). Context isolation, the sandbox and no Node
 * integration are set on the window itself (window.ts); the scheme in
 * app-protocol.ts; the IPC sender check in ipc-contract.ts.
 */
import type { App, Session, Shell, WebContents } from 'electron';
import { DASHBOARD_CSP } from '../api/server/static-files.js';
import { isTrustedSender } from './ipc-contract.js';

/** A navigation the window may follow: our own page (a new fragment or query is the same page). */
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

/**
 * Sets the session's rules and guards every web contents created from now on; returns the guard itself, for
 * the window to apply to its own web contents as it creates them (before anything is loaded), whatever the
 * order in which Electron reports them.
 */
export function enableSecurity(options: SecurityOptions): (contents: GuardedContents) => void {
  const { app, session, shell, rendererUrl, coreUrl } = options;
  const guard = (contents: GuardedContents) => guardContents(contents, rendererUrl, shell, coreUrl);
  app.on('web-contents-created', (_event, contents) => guard(contents));
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => {
    const headers = details.responseHeaders ?? {};
    const present = Object.keys(headers).some((name) => name.toLowerCase() === 'content-security-policy');
    callback({ responseHeaders: present ? headers : { ...headers, 'Content-Security-Policy': [DASHBOARD_CSP] } });
  });
  return guard;
}

/** The web contents' calls the guards use. */
export type GuardedContents = Pick<WebContents, 'on' | 'setWindowOpenHandler' | 'getURL'>;

export function guardContents(
  contents: GuardedContents,
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
    // Only our dashboard opens the user's browser: a page that got into some other web contents does not.
    if (isAllowedNavigation(contents.getURL(), rendererUrl) && isExternalAllowed(url, coreUrl())) {
      void shell.openExternal(url);
    }
    return { action: 'deny' };
  });
}
