/**
 * Writing answers: the headers every response carries, JSON and raw bodies,
 * and the shape of a refusal (status, message, the parameter at fault).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CheckResult } from './security.js';

/** Every response: no MIME sniffing, no framing (clickjacking), no referrer, no cross-origin embedding. */
export const BASE_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};
/** API responses are live data: never stored, and never a document that could run anything. */
export const API_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/** A request the gate turned away: status, message for the caller and the log, extra headers. */
export interface Rejection {
  status: number;
  error: string;
  param?: string;
  /** More for the caller to act on, sent beside `error` and `param` (a confirmation's keys). */
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** The client went away (or was cut off by a timeout, already logged): nothing to answer. */
  abandoned?: boolean;
}

export function rejectionOf(result: CheckResult & { ok: false }): Rejection {
  // RFC 6750: a 401 names the scheme it wants.
  const headers: Record<string, string> | undefined =
    result.status === 401 ? { 'www-authenticate': 'Bearer realm="breakerbar"' } : undefined;
  return { status: result.status, error: result.error, ...(headers ? { headers } : {}) };
}

export function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** A response for a connection that has no ServerResponse (parse errors, timeouts). */
export function rawJsonResponse(status: number, value: unknown): string {
  const body = JSON.stringify(value);
  const text = status === 408 ? 'Request Timeout' : status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    ...BASE_HEADERS,
    ...API_HEADERS,
  };
  const lines = Object.entries(headers).map(([name, v]) => `${name}: ${v}\r\n`);
  return `HTTP/1.1 ${status} ${text}\r\n${lines.join('')}\r\n${body}`;
}

export function canRespond(res: ServerResponse): boolean {
  return !res.headersSent && !res.writableEnded && !res.destroyed && res.socket !== null && !res.socket.destroyed;
}

export function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}
