/**
 * The dashboard's built files: `GET /` is `index.html`, `GET /assets/…` the
 * files under `assets/`; nothing outside the directory, ever. The app's
 * `app://dashboard` scheme (main/app/app-protocol.ts) serves the same files
 * through the same rules and with the same policy.
 */
import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';
import { hasControlChars, safeDecode } from '../text.js';
import { type Rejection, send } from './respond.js';

const MAX_STATIC_FILE = 16 * 1024 * 1024;

/**
 * The dashboard's Content-Security-Policy: only its own scripts, styles and API, no plugins, no <base>
 * tricks, no framing (https://www.electronjs.org/docs/latest/tutorial/security#7-define-a-content-security-policy).
 * Sent with every static file, since an SVG opened directly is a document too, by this server and by the
 * app's `app://` handler alike; the app's session adds it to any http(s) answer that lacks one.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; base-uri 'none'; object-src 'none'; form-action 'self'; frame-ancestors 'none'";

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The static file a path names (still encoded), or null when the path is not a static one. */
export function staticSegments(rawPath: string): string[] | null {
  if (rawPath === '/') return ['index.html'];
  if (rawPath.startsWith('/assets/')) return ['assets', ...rawPath.slice('/assets/'.length).split('/')];
  return null;
}

type StaticResult = { ok: true } | { ok: false; rejection: Rejection };

/**
 * The segments of a path (still encoded) as plain file names, or null when one is not: each must decode
 * once to a non-empty name without a leading dot (no `.`, `..`, hidden files), a separator (`/`, `\`, an
 * encoded `%2f` or `%5c`), `:`, NUL or another control character. Decoded here and nowhere else, so that
 * `%252e%252e` stays the harmless name `%2e%2e`.
 */
export function plainNames(rawSegments: string[]): string[] | null {
  const names: string[] = [];
  for (const raw of rawSegments) {
    const name = safeDecode(raw);
    if (name === null || name === '' || name.startsWith('.') || /[/\\:\0]/.test(name) || hasControlChars(name)) {
      return null;
    }
    names.push(name);
  }
  return names;
}

/** A file of the static root, read whole, with its Content-Type. */
export interface StaticFile {
  body: Buffer;
  contentType: string;
}

/**
 * Reads one file of the static root by its plain names (plainNames), never anything outside it: the joined
 * path must stay under the root, and so must its real path once symbolic links are resolved; the file is
 * opened without following a final symlink and must be a regular file within the size limit. Null otherwise.
 */
export async function readStaticFile(root: string, names: string[]): Promise<StaticFile | null> {
  const candidate = resolve(root, ...names);
  if (!candidate.startsWith(root + sep)) return null;
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    return null;
  }
  if (!real.startsWith(root + sep)) return null;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(real, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return null;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_STATIC_FILE) return null;
    const body = await handle.readFile();
    return { body, contentType: CONTENT_TYPES[extname(real).toLowerCase()] ?? 'application/octet-stream' };
  } finally {
    await handle.close();
  }
}

/** Serves one file of the static root (plainNames, then readStaticFile); a 404 for anything else. */
export async function serveStatic(res: ServerResponse, root: string, rawSegments: string[]): Promise<StaticResult> {
  const notFound: StaticResult = { ok: false, rejection: { status: 404, error: 'not found' } };
  const names = plainNames(rawSegments);
  const file = names === null ? null : await readStaticFile(root, names);
  if (file === null) return notFound;
  res.setHeader('content-security-policy', DASHBOARD_CSP);
  // Revalidate each time: the dashboard may be rebuilt while BreakerBar runs.
  res.setHeader('cache-control', 'no-cache');
  if (file.contentType.startsWith('text/html')) res.setHeader('cross-origin-opener-policy', 'same-origin');
  send(res, 200, file.contentType, file.body);
  return { ok: true };
}

export async function staticRootOf(dir: string): Promise<string> {
  let root: string;
  try {
    root = await realpath(resolve(dir));
  } catch (error) {
    throw new Error(`the dashboard directory ${dir} cannot be used: ${(error as Error).message}`);
  }
  if (!(await stat(root)).isDirectory()) throw new Error(`the dashboard directory ${dir} is not a directory`);
  return root;
}
