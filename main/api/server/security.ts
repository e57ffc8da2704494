/**
 * The request checks of BreakerBar's local API, as pure functions so that each
 * rule is tested on its own and the HTTP layer only decides the order.
 *
 * A server on 127.0.0.1 is not private: any web page the user opens can make
 * the browser send requests to it. Two attacks matter:
 * - DNS rebinding: a page on `evil.example` re-points its own name at
 *   127.0.0.1 and then reads our responses as same-origin. The browser still
 *   sends `Host: evil.example:<port>`, so a server that accepts only its own
 *   loopback names is immune. (OWASP, "DNS rebinding"; the same rule Electron's
 *   security checklist applies to local servers:
 *   https://www.electronjs.org/docs/latest/tutorial/security)
 * - Cross-site requests (CSRF): a page posts to us directly. Browsers mark
 *   those with `Origin`; we accept only our own, and mutations also need the
 *   API token a web page cannot read.
 *   (https://cheatsheetseries.owasp.org/cheatsheets/Cross-Site_Request_Forgery_Prevention_Cheat_Sheet.html)
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { Caller, Sessions } from './sessions.js';

export type CheckResult = { ok: true } | { ok: false; status: number; error: string };

/** The address BreakerBar's server is bound to (the address actually bound, not the configured name). */
export interface ListenAddress {
  host: string;
  port: number;
}

const OK: CheckResult = { ok: true };

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and the name `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = unbracket(host.toLowerCase());
  if (h === 'localhost' || h === '::1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** 0.0.0.0 or ::: every interface, loopback included. */
function isWildcard(host: string): boolean {
  const h = unbracket(host);
  return h === '0.0.0.0' || h === '::';
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** `host:port` as it appears in a Host header or an origin (IPv6 literals bracketed, port 80 implied). */
function authority(host: string, port: number): string[] {
  const h = isIP(unbracket(host)) === 6 ? `[${unbracket(host)}]` : host;
  return port === 80 ? [`${h}:80`, h] : [`${h}:${port}`];
}

/** Splits `name:port` / `[v6]:port`; null when it is not of that shape. */
function parseAuthority(value: string): { host: string; port: number | null } | null {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value);
  if (!match) return null;
  return { host: unbracket(match[1]!), port: match[2] === undefined ? null : Number(match[2]) };
}

/** The Host values BreakerBar answers to on a loopback or specific address. */
function acceptedHosts(listen: ListenAddress): Set<string> {
  const names = isLoopbackHost(listen.host) ? ['127.0.0.1', 'localhost', '::1', listen.host] : [listen.host];
  return new Set(names.flatMap((name) => authority(name.toLowerCase(), listen.port)));
}

function hostAccepted(value: string, listen: ListenAddress): boolean {
  const v = value.toLowerCase();
  if (acceptedHosts(listen).has(v)) return true;
  if (!isWildcard(listen.host)) return false;
  // Bound to every interface (only with allowNonLoopback): any IP literal with our port, or localhost. An
  // IP literal cannot be rebound; DNS rebinding always arrives under the attacker's own host name.
  const parsed = parseAuthority(v);
  if (!parsed) return false;
  const port = parsed.port ?? 80;
  return port === listen.port && (parsed.host === 'localhost' || isIP(parsed.host) !== 0);
}

/**
 * DNS-rebinding defence: the Host header must name the address BreakerBar listens on, with its port
 * (`127.0.0.1:<port>`, `localhost:<port>`, `[::1]:<port>` on loopback). Anything else is 403.
 */
export function checkHost(hostHeader: string | undefined, listen: ListenAddress): CheckResult {
  if (hostHeader === undefined || hostHeader === '') {
    return { ok: false, status: 403, error: 'missing Host header' };
  }
  if (hostAccepted(hostHeader, listen)) return OK;
  return { ok: false, status: 403, error: `Host ${clip(hostHeader)} is not this server (DNS rebinding defence)` };
}

/**
 * Cross-site defence. An absent Origin is allowed: curl, the CLI and same-origin GETs send none; a
 * request without Origin that mutates still needs the token (checked separately, always, on POST).
 * A present Origin must be BreakerBar's own page: `http://` + the bound address or `localhost`, with the
 * port. `null` (sandboxed frames, `file:` pages) and every other origin are 403.
 */
export function checkOrigin(originHeader: string | undefined, listen: ListenAddress): CheckResult {
  if (originHeader === undefined) return OK;
  const origin = originHeader.toLowerCase();
  const own = new Set(
    [listen.host, ...(isLoopbackHost(listen.host) ? ['localhost'] : [])].flatMap((name) =>
      authority(name.toLowerCase(), listen.port).map((a) => `http://${a}`),
    ),
  );
  if (own.has(origin)) return OK;
  if (isWildcard(listen.host) && origin.startsWith('http://') && hostAccepted(origin.slice(7), listen)) return OK;
  return { ok: false, status: 403, error: `Origin ${clip(originHeader)} is not allowed (cross-site request)` };
}

/** RFC 6750 `b64token`, the only shape a Bearer credential may have. */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * `Authorization: Bearer <token>`. The comparison runs in constant time over SHA-256 digests, so
 * neither the token's content nor its length leaks through response timing
 * (https://cheatsheetseries.owasp.org/cheatsheets/Authentication_Cheat_Sheet.html).
 * The error never repeats what was sent.
 */
export function checkToken(authorizationHeader: string | undefined, token: string): CheckResult {
  const checked = checkCredential(authorizationHeader, token, null);
  return checked.ok ? OK : checked;
}

/**
 * `Authorization: Bearer <credential>`: the API token (the owner: the CLI, the app's main process) or, with
 * `sessions`, a browser's session token (sessions.ts). Says which, for the rules that tell them apart.
 */
export function checkCredential(
  authorizationHeader: string | undefined,
  token: string,
  sessions: Sessions | null,
): { ok: true; caller: Caller } | { ok: false; status: number; error: string } {
  if (authorizationHeader === undefined || authorizationHeader === '') {
    return { ok: false, status: 401, error: 'missing API token (Authorization: Bearer <token>)' };
  }
  const match = BEARER.exec(authorizationHeader);
  if (!match) return { ok: false, status: 401, error: 'malformed Authorization header (expected Bearer <token>)' };
  const credential = match[1] ?? '';
  const given = createHash('sha256').update(credential).digest();
  const expected = createHash('sha256').update(token).digest();
  // An empty configured token must never match anything (defence against a misconfigured caller).
  if (token.length > 0 && timingSafeEqual(given, expected)) return { ok: true, caller: 'owner' };
  if (sessions?.valid(credential)) return { ok: true, caller: 'session' };
  return { ok: false, status: 401, error: sessions ? 'wrong API token or expired session' : 'wrong API token' };
}

/** Attacker-controlled header values are echoed only shortened, as JSON-safe text. */
function clip(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > 80 ? `${printable.slice(0, 80)}…` : printable;
}
