/**
 * The main-process side of the dashboard's bridge: one `ipcMain.handle` per
 * action (ipc-contract.ts names them), each refusing a sender that is not our
 * own renderer, checking its arguments, and answering with the core's JSON or
 * its `{error, param?}`. The dashboard never reaches the core any other way.
 * https://www.electronjs.org/docs/latest/tutorial/ipc
 */
import { type IpcMainInvokeEvent, ipcMain } from 'electron';
import type { ApiError } from '../shared/api/types.js';
import { type CoreApi, CoreApiError } from './core-api.js';
import { type Action, CHANNELS, checkArgs, isTrustedSender } from './ipc-contract.js';

export interface IpcOptions {
  /** The renderer's `file:` URL: the only sender served. */
  rendererUrl: string;
  /** The connected core's API, or null (then the answer says why there is none). */
  api(): CoreApi | null;
  /** Why there is no core right now, for that answer. */
  unavailable(): string;
  /** Called after an action that changes the core's state (the tray refreshes its status). */
  changed?(action: Action): void;
}

const MUTATIONS: ReadonlySet<Action> = new Set(['restart', 'pause', 'resume', 'control', 'saveConfig']);

/** Registers every handler; returns the function that removes them. */
export function enableIpc(options: IpcOptions): () => void {
  const entries = Object.entries(CHANNELS) as Array<[Action, string]>;
  for (const [action, channel] of entries) {
    ipcMain.handle(channel, (event: IpcMainInvokeEvent, ...args: unknown[]) => handle(options, action, event, args));
  }
  return () => {
    for (const [, channel] of entries) ipcMain.removeHandler(channel);
  };
}

export async function handle(
  options: IpcOptions,
  action: Action,
  event: Pick<IpcMainInvokeEvent, 'senderFrame'>,
  args: unknown[],
): Promise<unknown> {
  // A rejection, not an answer: a foreign frame learns nothing but that it was refused.
  if (!isTrustedSender(event.senderFrame, options.rendererUrl)) {
    throw new Error(`${CHANNELS[action]} refused: the sender is not BreakerBar's dashboard`);
  }
  const checked = checkArgs(action, args);
  if (!checked.ok) return checked.error;
  const api = options.api();
  if (!api) return { error: `BreakerBar's core is not reachable: ${options.unavailable()}` } satisfies ApiError;
  try {
    const answer = await checked.call(api);
    if (MUTATIONS.has(action)) options.changed?.(action);
    return answer;
  } catch (error) {
    if (error instanceof CoreApiError) {
      return error.param === null ? { error: error.message } : { error: error.message, param: error.param };
    }
    return { error: (error as Error).message ?? String(error) } satisfies ApiError;
  }
}
