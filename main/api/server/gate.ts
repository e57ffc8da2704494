/**
 * The gate every request passes before routing, decided from the request line
 * and headers alone: one Host naming this server (DNS rebinding), an Origin of
 * our own (cross-site), a sane path. A list of checks, run in order; the first
 * refusal wins, so a new check is one more entry.
 */
import type { IncomingMessage } from 'node:http';
import { type Rejection, rejectionOf } from './respond.js';
import { checkHost, checkOrigin, type ListenAddress } from './security.js';

const MAX_PATH_LENGTH = 2048;

/** What a check sees: the request, its raw path and the address actually bound. */
export interface GateInput {
  req: IncomingMessage;
  method: string;
  rawPath: string;
  listen: ListenAddress;
}

/** Null to let the request on; a rejection to answer it with. */
export type GateCheck = (input: GateInput) => Rejection | null;

// Node keeps the first of repeated Host headers; two of them are an attempt to confuse a proxy.
const singleHost: GateCheck = ({ req }) =>
  (req.headersDistinct.host?.length ?? 0) > 1 ? { status: 403, error: 'more than one Host header' } : null;

const ownHost: GateCheck = ({ req, listen }) => {
  const host = checkHost(req.headers.host, listen);
  return host.ok ? null : rejectionOf(host);
};

const ownOrigin: GateCheck = ({ req, listen }) => {
  const origin = checkOrigin(req.headers.origin, listen);
  return origin.ok ? null : rejectionOf(origin);
};

const pathShape: GateCheck = ({ rawPath }) => {
  if (!rawPath.startsWith('/')) return { status: 400, error: 'the request target must be a path' };
  if (rawPath.length > MAX_PATH_LENGTH) return { status: 414, error: 'path too long' };
  const unsafe = unsafePath(rawPath);
  return unsafe === null ? null : { status: 400, error: unsafe };
};

/** The checks in their order: Host before Origin before the path, so a foreign page learns nothing. */
export const GATE: readonly GateCheck[] = [singleHost, ownHost, ownOrigin, pathShape];

export function passGate(input: GateInput, checks: readonly GateCheck[] = GATE): Rejection | null {
  for (const check of checks) {
    const rejection = check(input);
    if (rejection) return rejection;
  }
  return null;
}

/**
 * Path traversal, refused for every route before routing (OWASP "Path Traversal"): a raw or encoded
 * backslash, NUL, a `.` or `..` segment (also when spelled `%2e%2e` or hidden in `..%2f..`), or broken
 * percent-encoding. The WHATWG URL parser would quietly resolve `..`, so the raw target is inspected.
 */
export function unsafePath(rawPath: string): string | null {
  if (rawPath.includes('\\')) return 'backslash in path';
  for (const segment of rawPath.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return 'malformed percent-encoding in path';
    }
    if (decoded.includes('\0')) return 'NUL in path';
    if (decoded.includes('\\')) return 'backslash in path';
    if (decoded.split('/').some((part) => part === '.' || part === '..')) return 'dot segment in path';
  }
  return null;
}
