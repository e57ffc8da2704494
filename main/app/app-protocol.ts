/**
 * The dashboard's origin in the app: `app://dashboard/index.html`, a
 * privileged standard, secure scheme served from the built renderer directory
 * (`dist/renderer`) and nothing else, instead of a `file:` URL
 * (https://www.electronjs.org/docs/latest/tutorial/security#18-avoid-usage-of-the-file-protocol-and-prefer-usage-of-custom-protocols).
 * A `file:` page may read any file the user can, and every file on the disk
 * is its own origin; here the page's origin is one host, its CSP is a real
 * header, and a request maps to a file only through the rules below: the
 * very rules (and policy) of the daemon's server for the same files
 * (main/api/server/static-files.ts).
 *
 * `dashboardTarget` is pure: URL and method → the file's names or a refusal.
 * `answerDashboard` reads the file; `enableAppProtocol` hands answers to
 * Electron's `protocol.handle`.
 */
import type { Protocol } from 'electron';
import { DASHBOARD_CSP, plainNames, readStaticFile, staticRootOf } from '../api/server/static-files.js';

export const APP_SCHEME = 'app';
export const DASHBOARD_HOST = 'dashboard';
/** The one page the window shows; IPC senders and navigations are checked against it (ipc-contract.ts). */
export const DASHBOARD_URL = `${APP_SCHEME}://${DASHBOARD_HOST}/index.html`;

/**
 * `standard`: the URL has a host and relative URLs resolve (`assets/app.js`), so the page has an origin of its
 * own, `'self'` in its CSP means `app://dashboard`, and its ES modules load as same-origin requests. `secure`:
 * a secure context, like https (sessionStorage, no mixed-content downgrade). Nothing else: the renderer makes
 * no `fetch` to this scheme (its API calls go through the preload bridge), so no `supportFetchAPI`; no
 * `corsEnabled` (it would let other origins read these files); never `bypassCSP`.
 */
export const APP_SCHEME_PRIVILEGES = { standard: true, secure: true } as const;

/** Must run before the app is ready (Electron reads privileged schemes once, at start-up). */
export function registerAppScheme(protocol: Pick<Protocol, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { ...APP_SCHEME_PRIVILEGES } }]);
}

export type DashboardTarget = { ok: true; names: string[] } | { ok: false; status: 403 | 404 | 405; reason: string };

/**
 * What a request maps to: `/` and `/index.html` are the page, `/assets/…` the files under `assets/`; any other
 * path, a segment that is not a plain file name (plainNames: `..`, `%2e%2e`, `%2f`, a backslash, a hidden
 * file), another scheme, host, port or credentials, or a method other than GET and HEAD is refused. The query
 * and fragment name no file. Whether the file exists, is a regular file and stays inside the directory once
 * links are resolved is the reader's part (readStaticFile).
 */
export function dashboardTarget(url: string, method: string): DashboardTarget {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { ok: false, status: 404, reason: 'not a URL' };
  }
  if (
    target.protocol !== `${APP_SCHEME}:` ||
    target.hostname !== DASHBOARD_HOST ||
    target.port !== '' ||
    target.username !== '' ||
    target.password !== ''
  ) {
    return { ok: false, status: 403, reason: `only ${APP_SCHEME}://${DASHBOARD_HOST}/ is served` };
  }
  if (method !== 'GET' && method !== 'HEAD') return { ok: false, status: 405, reason: 'GET or HEAD only' };
  // The path as the URL parser left it (still percent-encoded): decoded once, segment by segment, below.
  const path = target.pathname;
  let raw: string[];
  if (path === '/' || path === '/index.html') raw = ['index.html'];
  else if (path.startsWith('/assets/')) raw = ['assets', ...path.slice('/assets/'.length).split('/')];
  else return { ok: false, status: 404, reason: 'not a file of the dashboard' };
  const names = plainNames(raw);
  if (names === null) return { ok: false, status: 404, reason: 'not a plain file name' };
  return { ok: true, names };
}

/** One answer of the scheme, as `protocol.handle` will turn it into a Response. */
export interface DashboardAnswer {
  status: number;
  headers: Record<string, string>;
  /** Null for a refusal and for HEAD. */
  body: Buffer | null;
}

/** The headers of every answer, refusals included: the dashboard's CSP, no sniffing, no caching of stale builds. */
function headers(contentType: string): Record<string, string> {
  return {
    'content-type': contentType,
    'content-security-policy': DASHBOARD_CSP,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-cache',
  };
}

function refusal(status: number, reason: string): DashboardAnswer {
  return { status, headers: headers('text/plain; charset=utf-8'), body: Buffer.from(`${reason}\n`) };
}

/** Answers one request from `root` (a real path: staticRootOf). */
export async function answerDashboard(root: string, url: string, method: string): Promise<DashboardAnswer> {
  const target = dashboardTarget(url, method);
  if (!target.ok) return refusal(target.status, target.reason);
  const file = await readStaticFile(root, target.names);
  if (file === null) return refusal(404, 'not found');
  return { status: 200, headers: headers(file.contentType), body: method === 'HEAD' ? null : file.body };
}

export interface AppProtocolOptions {
  protocol: Pick<Protocol, 'handle'>;
  /** The built renderer: `dist/renderer` (paths.ts). */
  rendererDir: string;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

/** Serves the scheme (after `ready`). A missing renderer directory is a 404 on every request, logged once. */
export function enableAppProtocol(options: AppProtocolOptions): void {
  const { protocol, rendererDir, log } = options;
  const root = staticRootOf(rendererDir).catch((error: Error) => {
    log?.('the dashboard files cannot be served', { error: error.message });
    return null;
  });
  protocol.handle(APP_SCHEME, async (request) => {
    const dir = await root;
    const answer =
      dir === null
        ? refusal(404, 'the dashboard is not built')
        : await answerDashboard(dir, request.url, request.method);
    return new Response(answer.body === null ? null : new Uint8Array(answer.body), {
      status: answer.status,
      headers: answer.headers,
    });
  });
}
