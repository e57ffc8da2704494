/**
 * What a request must carry before its body is used: exactly one valid API
 * token, and for a body a JSON content type and a size within the limit.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Rejection, rejectionOf } from './respond.js';
import { checkCredential } from './security.js';
import type { Caller, Sessions } from './sessions.js';

/** What a request's credential is checked against: the API token, and the browser sessions it signs. */
export interface Credentials {
  token: string;
  sessions: Sessions | null;
}

/** Exactly one Authorization header, holding the API token or a session token: who the caller is, or why not. */
export function checkTokenHeader(
  req: IncomingMessage,
  credentials: Credentials,
): { ok: true; caller: Caller } | { ok: false; rejection: Rejection } {
  if ((req.headersDistinct.authorization?.length ?? 0) > 1) {
    return { ok: false, rejection: { status: 401, error: 'more than one Authorization header' } };
  }
  const auth = checkCredential(req.headers.authorization, credentials.token, credentials.sessions);
  return auth.ok ? auth : { ok: false, rejection: rejectionOf(auth) };
}

/**
 * Every request with a body: exactly one valid token, a JSON content type, a body within the limit that
 * parses. A browser cannot send application/json cross-site without a CORS preflight, which we never grant
 * (OWASP CSRF cheat sheet, "custom request headers"); forms and text/plain are refused. Token first, so an
 * unauthenticated caller learns nothing more.
 */
export async function readAuthorizedJson(
  req: IncomingMessage,
  res: ServerResponse,
  credentials: Credentials,
  maxBodyBytes: number,
): Promise<{ ok: true; value: unknown; caller: Caller } | { ok: false; rejection: Rejection }> {
  const checked = checkTokenHeader(req, credentials);
  if (!checked.ok) return checked;
  const read = await readJson(req, res, maxBodyBytes);
  return read.ok ? { ...read, caller: checked.caller } : read;
}

/** A JSON content type and a body within the limit that parses (what every POST needs, token aside). */
export async function readJson(
  req: IncomingMessage,
  res: ServerResponse,
  maxBodyBytes: number,
): Promise<{ ok: true; value: unknown } | { ok: false; rejection: Rejection }> {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    return { ok: false, rejection: { status: 415, error: 'content-type must be application/json' } };
  }
  const body = await readBody(req, res, maxBodyBytes);
  if (!body.ok) return { ok: false, rejection: body.rejection };
  try {
    return { ok: true, value: JSON.parse(body.body.toString('utf8')) };
  } catch {
    // Not the parser's message: V8 quotes the offending text, and bodies are never logged.
    return { ok: false, rejection: { status: 400, error: 'body is not valid JSON' } };
  }
}

type BodyResult = { ok: true; body: Buffer } | { ok: false; rejection: Rejection };

/** Reads at most `max` bytes; stops reading (and the connection is closed) as soon as it is exceeded. */
function readBody(req: IncomingMessage, res: ServerResponse, max: number): Promise<BodyResult> {
  const tooLarge: BodyResult = { ok: false, rejection: { status: 413, error: `body larger than ${max} bytes` } };
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > max) return Promise.resolve(tooLarge);
  if (req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyResult) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onAbort);
      resolvePromise(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.pause();
        finish(tooLarge);
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = () => finish({ ok: true, body: Buffer.concat(chunks) });
    const onAbort = () =>
      finish({ ok: false, rejection: { status: 400, error: 'request body incomplete', abandoned: true } });
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onAbort);
    req.once('close', onAbort);
  });
}
