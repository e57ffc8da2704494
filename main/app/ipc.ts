/**
 * The main-process side of the dashboard's bridge: one `ipcMain.handle` on the
 * API channel (ipc-contract.ts), refusing a sender that is not our own
 * renderer, checking the call against the route table, and answering with the
 * core's JSON or its `{error, param?}`. The dashboard never reaches the core
 * any other way.
 * https://www.electronjs.org/docs/latest/tutorial/ipc
 */
import { type IpcMainInvokeEvent, ipcMain } from 'electron';
import type { CallableName } from '../shared/api/routes.js';
import type { ApiError } from '../shared/api/types.js';
import { type CoreApi, CoreApiError } from './core-api.js';
import { API_CHANNEL, checkCall, isMutation, isTrustedSender } from './ipc-contract.js';

export interface IpcOptions {
  /** The dashboard's page, `app://dashboard/index.html`: the only sender served. */
  rendererUrl: string;
  /** The connected core's API, or null (then the answer says why there is none). */
  api(): CoreApi | null;
  /** Why there is no core right now, for that answer. */
  unavailable(): string;
  /** Called after a call that changes the core's state (the tray refreshes its status). */
  changed?(route: CallableName): void;
  /** "Now" for the parameters' time defaults (tests). */
  clock?: () => number;
}

/** Registers the handler; returns the function that removes it. */
export function enableIpc(options: IpcOptions): () => void {
  ipcMain.handle(API_CHANNEL, (event: IpcMainInvokeEvent, ...args: unknown[]) => handle(options, event, args));
  return () => ipcMain.removeHandler(API_CHANNEL);
}

export async function handle(
  options: IpcOptions,
  event: Pick<IpcMainInvokeEvent, 'senderFrame'>,
  args: unknown[],
): Promise<unknown> {
  // A rejection, not an answer: a foreign frame learns nothing but that it was refused.
  if (!isTrustedSender(event.senderFrame, options.rendererUrl)) {
    throw new Error(`${API_CHANNEL} refused: the sender is not BreakerBar's dashboard`);
  }
  if (args.length !== 1) return { error: `${API_CHANNEL} takes one {route, params}`, param: 'arguments' };
  const checked = checkCall(args[0], (options.clock ?? Date.now)());
  if (!checked.ok) return checked.error;
  const api = options.api();
  if (!api) return { error: `BreakerBar's core is not reachable: ${options.unavailable()}` } satisfies ApiError;
  try {
    const call = api.call as (route: CallableName, params?: unknown) => Promise<unknown>;
    const answer = await call(checked.route, checked.params);
    if (isMutation(checked.route)) options.changed?.(checked.route);
    return answer;
  } catch (error) {
    if (error instanceof CoreApiError) {
      return error.param === null ? { error: error.message } : { error: error.message, param: error.param };
    }
    return { error: (error as Error).message ?? String(error) } satisfies ApiError;
  }
}
