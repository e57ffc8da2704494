/**
 * One request the router matched to a route of the table: the token (and for a
 * POST the JSON body) the table asks for, the route's own parser, its handler,
 * and the answer written. A refusal comes back for the server to answer and log.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DataRouteName } from '../routes.js';
import {
  answerData,
  HANDLERS,
  type HandlerContext,
  type Handlers,
  Refusal,
  type Reply,
  type RequestFacts,
} from './handlers.js';
import { type Credentials, checkTokenHeader, readAuthorizedJson, readJson } from './request-body.js';
import { type Rejection, send, sendJson } from './respond.js';
import type { Match } from './router.js';
import type { Caller } from './sessions.js';

export interface DispatchOptions {
  credentials: Credentials;
  maxBodyBytes: number;
  clock: () => number;
  context: HandlerContext;
}

export async function answerRoute(
  req: IncomingMessage,
  res: ServerResponse,
  match: Extract<Match, { kind: 'route' }>,
  rawQuery: string,
  options: DispatchOptions,
): Promise<Rejection | null> {
  const { spec } = match;
  let body: unknown;
  let caller: Caller | null = null;
  if (spec.token && spec.method === 'POST') {
    const read = await readAuthorizedJson(req, res, options.credentials, options.maxBodyBytes);
    if (!read.ok) return read.rejection;
    body = read.value;
    caller = read.caller;
  } else if (spec.method === 'POST') {
    const read = await readJson(req, res, options.maxBodyBytes);
    if (!read.ok) return read.rejection;
    body = read.value;
  } else if (spec.token) {
    const checked = checkTokenHeader(req, options.credentials);
    if (!checked.ok) return checked.rejection;
    caller = checked.caller;
  }
  const input = spec.parse({ path: match.params, query: rawQuery, body, now: options.clock() });
  if (!input.ok) return { status: 400, error: input.error, param: input.param };
  let reply: Reply;
  try {
    if (spec.data) {
      reply = await answerData(match.name as DataRouteName, input.value, options.context.backend);
    } else {
      const handler = HANDLERS[match.name as keyof Handlers] as (
        input: unknown,
        context: HandlerContext,
        request: RequestFacts,
      ) => Reply | Promise<Reply>;
      reply = await handler(input.value, options.context, { origin: req.headers.origin, caller });
    }
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return {
      status: error.status,
      error: error.message,
      ...(error.param ? { param: error.param } : {}),
      ...(error.details ? { details: error.details } : {}),
    };
  }
  if ('json' in reply) {
    sendJson(res, 200, reply.json, reply.headers);
  } else {
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    send(res, 200, reply.contentType, reply.text);
  }
  return null;
}
