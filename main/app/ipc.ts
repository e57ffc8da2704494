/**
 * The main-process side of the dashboard's bridge: one `ipcMain.handle` on the
 * API channel (ipc-contract.ts), refusing a sender that is not our own
 * renderer, checking the call against the route table, and answering with the
 * core's JSON or its `{error, param?}`. The dashboard never reaches the core
 * any other way. A config save that changes dangerous settings waits for the
 * human to confirm it in a native dialog (confirm-dialog.ts).
 * https://www.electronjs.org/docs/latest/tutorial/ipc
 */
import { type IpcMainInvokeEvent, ipcMain, type WebContents } from 'electron';
import type { CallableName } from '../api/routes.js';
import type { ApiError } from '../api/types.js';
import { dangerousChanges } from '../core/config/dangerous-changes.js';
import { validateConfigFile } from '../core/config/file.js';
import { type Translator, translator } from '../words/messages/index.js';
import { type ConfirmDangerous, nativeConfirm } from './confirm-dialog.js';
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
  /** The app's language, for the confirmation dialog (English when not given). */
  translator?: Translator;
  /**
   * Asks the human before a saved config changes dangerous settings (default: the native dialog,
   * confirm-dialog.ts). Not asked when nothing dangerous changes.
   */
  confirmDangerous?: ConfirmDangerous;
}

/** Registers the handler; returns the function that removes it. */
export function enableIpc(options: IpcOptions): () => void {
  ipcMain.handle(API_CHANNEL, (event: IpcMainInvokeEvent, ...args: unknown[]) => handle(options, event, args));
  return () => ipcMain.removeHandler(API_CHANNEL);
}

export async function handle(
  options: IpcOptions,
  event: Pick<IpcMainInvokeEvent, 'senderFrame'> & Partial<Pick<IpcMainInvokeEvent, 'sender'>>,
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
    if (checked.route === 'saveConfig') {
      const cancelled = await confirmSave(options, api, checked.params as { config: unknown }, event.sender);
      if (cancelled) return cancelled;
    }
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

/**
 * A saved config that changes dangerous settings is shown to the human first; the core then takes it
 * from this process without asking again (no Origin: trusted like the CLI). Null to go ahead, or the
 * answer that says nothing was saved.
 */
async function confirmSave(
  options: IpcOptions,
  api: CoreApi,
  params: { config: unknown },
  sender: WebContents | undefined,
): Promise<ApiError | null> {
  // The file the change replaces, as the core reads it; unreadable counts as empty (all is new).
  const current = await api.call('config').then(
    (view) => view.raw,
    () => ({}),
  );
  // An invalid file is refused by the core with the key at fault: no need to ask about it first.
  try {
    validateConfigFile(params.config);
  } catch {
    return null;
  }
  const { changes } = dangerousChanges(current, params.config);
  if (changes.length === 0) return null;
  const words = options.translator ?? translator('en');
  const confirm = options.confirmDangerous ?? nativeConfirm(words);
  if (await confirm(changes, sender)) return null;
  const keys = [...new Set(changes.map((change) => change.key))];
  return { error: words.t('confirm.dialog.cancelled', { keys }), param: 'confirm' };
}
