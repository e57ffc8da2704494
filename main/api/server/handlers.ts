/**
 * What each route does, keyed by its name in the route table: the input is
 * already parsed and checked (main/api/routes.ts), so a handler only asks the
 * backend and says how to answer. A refusal the caller can act on is thrown as
 * a Refusal (404 for what is not there, 409 for what cannot be done now).
 */

import { type DangerousChange, dangerousChanges } from '../../core/config/dangerous-changes.js';
import { keyOfError, validateConfigFile } from '../../core/config/file.js';
import { ConfigError } from '../../core/config/schema.js';
import type { Logger } from '../../core/runtime/log.js';
import type { DataRouteName, InputOf, ResponseOf, RouteName, Routes } from '../routes.js';
import type { ConfigConfirmation } from '../types.js';
import type { ApiBackend } from './api-backend.js';
import type { ConfigConfirmations } from './config-confirmation.js';
import type { Caller, Sessions } from './sessions.js';
import type { SignInCodes } from './sign-in.js';

/** A request the handler turns down, with the status and words for the caller (and more the caller can act on). */
export class Refusal extends Error {
  override name = 'Refusal';
  constructor(
    readonly status: number,
    message: string,
    readonly param?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** What a handler may know about the request beyond its parsed input. */
export interface RequestFacts {
  /** The `Origin` header: browsers send it on every POST; the CLI and the app's main process do not. */
  origin: string | undefined;
  /** Whose credential the request carried (null on the routes that take none). */
  caller: Caller | null;
}

/** A confirmation code on its way to the human, out of the page's reach. */
export interface ConfirmationDelivery {
  code: string;
  expiresAt: number;
  changes: DangerousChange[];
}

/** An answer: JSON (the usual) or text of a given type, with extra headers. */
export type Reply =
  | { json: unknown; headers?: Record<string, string> }
  | { text: string; contentType: string; headers?: Record<string, string> };

export interface HandlerContext {
  backend: ApiBackend;
  log: Logger;
  version: string;
  signIn: SignInCodes;
  /** The session tokens a browser gets for a redeemed one-time code (never the API token). */
  sessions: Sessions;
  /** The codes that confirm a dangerous config change from a browser. */
  confirmations: ConfigConfirmations;
  /** Sends a confirmation code where the page cannot read it (the daemon's log, a desktop notification). */
  deliverConfirmation(delivery: ConfirmationDelivery): void;
}

type Handler<N extends RouteName> = (
  input: InputOf<N>,
  context: HandlerContext,
  request: RequestFacts,
) => Reply | Promise<Reply>;
/** Every route but the event stream (the server attaches that to its hub) and the data routes (the backend's). */
type HandledName = {
  [N in RouteName]: Routes[N]['answer'] extends 'stream' ? never : N extends DataRouteName ? never : N;
}[RouteName];
export type Handlers = { [N in HandledName]: Handler<N> };

/** What the backend answers each data route with, typed as the route table says. */
type DataAnswers = { [N in DataRouteName]: (input: InputOf<N>) => ResponseOf<N> | Promise<ResponseOf<N>> };

/**
 * A data route's answer: the backend's method of the route's name, given the parsed input, as JSON. A data route
 * the backend has no method for (or one of another type) fails to compile here.
 */
export async function answerData(name: DataRouteName, input: unknown, backend: ApiBackend): Promise<Reply> {
  const answers: DataAnswers = backend;
  const answer = answers[name] as (this: ApiBackend, input: unknown) => unknown;
  return { json: await answer.call(backend, input) };
}

/** Runs a backend call that throws a user-worded Error when it cannot act; that becomes `status`. */
function orRefuse<T>(status: number, fallback: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw new Refusal(status, error instanceof Error ? error.message : fallback);
  }
}

export const HANDLERS: Handlers = {
  // The version header lets a client tell BreakerBar from something else on the port.
  healthz: (_, { version }) => ({ json: { ok: true }, headers: { 'x-breakerbar-version': version } }),
  metrics: async (_, { backend }) => {
    const metrics = await backend.metrics();
    return { text: metrics.body, contentType: metrics.contentType };
  },
  incident: (id, { backend }) => {
    const incident = backend.incident(id);
    if (!incident) throw new Refusal(404, `no incident ${id}`);
    return { json: incident };
  },
  control: (request, { backend, log }) => {
    const transitions = orRefuse(409, 'control refused', () => backend.control(request));
    log.info('breaker control applied', { dep: request.dep, action: request.action });
    return { json: { transitions } };
  },
  restart: (request, context) => watchdog(request, context),
  pause: (request, context) => watchdog(request, context),
  resume: (request, context) => watchdog(request, context),
  maintenance: (_, { backend }) => ({ json: orRefuse(409, 'maintenance refused', () => backend.maintenance()) }),
  startMaintenance: (request, { backend, log }) => {
    const answer = orRefuse(409, 'maintenance refused', () => backend.maintenance(request));
    log.info('maintenance started through the API', { until: answer.manual?.until ?? null });
    return { json: answer };
  },
  stopMaintenance: (_, { backend, log }) => {
    const answer = orRefuse(409, 'maintenance refused', () => backend.maintenance(null));
    log.info('maintenance stopped through the API', { until: answer.manual?.until ?? null });
    return { json: answer };
  },
  saveConfig: ({ config, confirmCode }, context, { origin, caller }) => {
    const { backend, log } = context;
    try {
      validateConfigFile(config);
      // A browser's change to what runs commands, opens the API or sends data elsewhere needs a human, and so
      // does a browser session's whatever it sends (it may be whoever redeemed a sign-in code first); only the
      // owner's token without an Origin (the CLI, the app's main process: Node's fetch) is trusted as the owner.
      if (origin !== undefined || caller !== 'owner') confirmDangerous(config, confirmCode, context);
      const answer = backend.saveConfig(config);
      log.info('config file saved through the API');
      return { json: answer };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new Refusal(400, error.message, keyOfError(error) ?? 'config');
    }
  },
  // Only the owner mints sign-in codes: a session cannot pass its access on.
  signInCode: (_, { signIn }, { caller }) => {
    if (caller !== 'owner') throw new Refusal(403, 'sign-in codes are issued to the API token only');
    return { json: signIn.issue() };
  },
  signIn: ({ code }, { signIn, sessions, log }) => {
    if (!signIn.redeem(code)) throw new Refusal(401, 'sign-in code unknown, used or expired');
    log.info('dashboard signed in with a one-time code');
    return { json: { token: sessions.issue() } };
  },
};

function watchdog(request: InputOf<'restart'>, { backend, log }: HandlerContext): Reply {
  const answer = orRefuse(409, 'watchdog refused', () => backend.watchdog(request));
  log.info('watchdog control applied', { action: request.action, decision: answer.decision });
  return { json: answer };
}

/** The config file the change replaces, as written; an unreadable one counts as empty (all is new). */
function currentConfig(backend: ApiBackend): Record<string, unknown> {
  try {
    return backend.config().raw;
  } catch {
    return {};
  }
}

/** Returns when the change may be saved; otherwise throws the refusal that asks for (or turns down) a code. */
function confirmDangerous(config: unknown, code: string | undefined, context: HandlerContext): void {
  const changes = dangerousChanges(currentConfig(context.backend), config);
  const decision = context.confirmations.decide(changes, code);
  if (decision.kind === 'allowed') {
    if (changes.changes.length > 0) {
      context.log.info('dangerous config change confirmed with its code', { keys: keysOf(changes.changes).join(', ') });
    }
    return;
  }
  const confirm = (expiresAt: number | null): { confirm: ConfigConfirmation } => ({
    confirm: { keys: keysOf(changes.changes), changes: changes.changes, expiresAt },
  });
  switch (decision.kind) {
    case 'issue':
      context.deliverConfirmation({ code: decision.code, expiresAt: decision.expiresAt, changes: changes.changes });
      throw new Refusal(
        428,
        'this change needs confirming: enter the code BreakerBar just showed in a desktop notification and its log',
        'confirmCode',
        confirm(decision.expiresAt),
      );
    case 'refused':
      throw new Refusal(
        403,
        'confirmation code wrong, used, expired or for another change; save again for a new code',
        'confirmCode',
        confirm(null),
      );
    case 'throttled':
      throw new Refusal(
        429,
        `too many confirmation codes sent lately; try again after ${new Date(decision.retryAt).toISOString()}`,
        'confirmCode',
        confirm(null),
      );
  }
}

const keysOf = (changes: DangerousChange[]): string[] => [...new Set(changes.map((change) => change.key))];
