/**
 * What each route does, keyed by its name in the route table: the input is
 * already parsed and checked (shared/api/routes.ts), so a handler only asks the
 * backend and says how to answer. A refusal the caller can act on is thrown as
 * a Refusal (404 for what is not there, 409 for what cannot be done now).
 */
import type { InputOf, RouteName, Routes } from '../../shared/api/routes.js';
import type { ApiBackend } from '../../shared/api/types.js';
import { keyOfError } from '../config/file.js';
import { ConfigError } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { SignInCodes } from './sign-in.js';

/** A request the handler turns down, with the status and words for the caller. */
export class Refusal extends Error {
  override name = 'Refusal';
  constructor(
    readonly status: number,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

/** An answer: JSON (the usual) or text of a given type, with extra headers. */
export type Reply =
  | { json: unknown; headers?: Record<string, string> }
  | { text: string; contentType: string; headers?: Record<string, string> };

export interface HandlerContext {
  backend: ApiBackend;
  log: Logger;
  version: string;
  /** The API token, handed only to a browser that redeems a one-time code. */
  token: string;
  signIn: SignInCodes;
}

type Handler<N extends RouteName> = (input: InputOf<N>, context: HandlerContext) => Reply | Promise<Reply>;
/** Every route but the event stream (the server attaches that to its hub). */
type HandledName = { [N in RouteName]: Routes[N]['answer'] extends 'stream' ? never : N }[RouteName];
export type Handlers = { [N in HandledName]: Handler<N> };

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
  status: (_, { backend }) => ({ json: backend.status() }),
  history: (query, { backend }) => ({ json: backend.history(query) }),
  incidents: (query, { backend }) => ({ json: backend.incidents(query) }),
  incident: (id, { backend }) => {
    const incident = backend.incident(id);
    if (!incident) throw new Refusal(404, `no incident ${id}`);
    return { json: incident };
  },
  spend: (_, { backend }) => ({ json: backend.spend() }),
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
  config: (_, { backend }) => ({ json: backend.config() }),
  saveConfig: ({ config }, { backend, log }) => {
    let answer: unknown;
    try {
      answer = backend.saveConfig(config);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new Refusal(400, error.message, keyOfError(error) ?? 'config');
    }
    log.info('config file saved through the API');
    return { json: answer };
  },
  doctor: async (_, { backend }) => ({ json: await backend.doctor() }),
  signInCode: (_, { signIn }) => ({ json: signIn.issue() }),
  signIn: ({ code }, { signIn, token, log }) => {
    if (!signIn.redeem(code)) throw new Refusal(401, 'sign-in code unknown, used or expired');
    log.info('dashboard signed in with a one-time code');
    return { json: { token } };
  },
};

function watchdog(request: InputOf<'restart'>, { backend, log }: HandlerContext): Reply {
  const answer = orRefuse(409, 'watchdog refused', () => backend.watchdog(request));
  log.info('watchdog control applied', { action: request.action, decision: answer.decision });
  return { json: answer };
}
