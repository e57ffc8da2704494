/**
 * The dashboard's built files: `GET /` is `index.html`, `GET /assets/…` the
 * files under `assets/`; nothing outside the directory, ever.
 */
import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';
import { hasControlChars, safeDecode } from '../../shared/api/text.js';
import { type Rejection, send } from './respond.js';

const MAX_STATIC_FILE = 16 * 1024 * 1024;

/**
 * The dashboard: only its own scripts, styles and API, no plugins, no <base> tricks, no framing
 * (https://www.electronjs.org/docs/latest/tutorial/security#7-define-a-content-security-policy).
 * Applied to every static file, since an SVG opened directly is a document too.
 */
const STATIC_CSP = "default-src 'self'; base-uri 'none'; object-src 'none'; form-action 'self'; frame-ancestors 'none'";

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
 * Serves one file from the static root, never anything outside it: every segment must be a plain name
 * (no empty segment, no `:`, no leading dot, no encoded `/`), the joined path must stay under the root,
 * and so must its real path once symbolic links are resolved; the file is opened without following a
 * final symlink and must be a regular file.
 */
export async function serveStatic(res: ServerResponse, root: string, rawSegments: string[]): Promise<StaticResult> {
  const notFound: StaticResult = { ok: false, rejection: { status: 404, error: 'not found' } };
  const segments: string[] = [];
  for (const raw of rawSegments) {
    const name = safeDecode(raw);
    if (name === null || name === '' || name.startsWith('.') || /[/\\:\0]/.test(name) || hasControlChars(name)) {
      return notFound;
    }
    segments.push(name);
  }
  const candidate = resolve(root, ...segments);
  if (!candidate.startsWith(root + sep)) return notFound;
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    return notFound;
  }
  if (!real.startsWith(root + sep)) return notFound;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(real, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return notFound;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_STATIC_FILE) return notFound;
    const body = await handle.readFile();
    const type = CONTENT_TYPES[extname(real).toLowerCase()] ?? 'application/octet-stream';
    res.setHeader('content-security-policy', STATIC_CSP);
    // Revalidate each time: the dashboard may be rebuilt while BreakerBar runs.
    res.setHeader('cache-control', 'no-cache');
    if (type.startsWith('text/html')) res.setHeader('cross-origin-opener-policy', 'same-origin');
    send(res, 200, type, body);
    return { ok: true };
  } finally {
    await handle.close();
  }
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
