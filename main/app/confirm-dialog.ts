/**
 * The native dialog that asks the human before the dashboard saves settings that run a command, open
 * the API to the network or send data elsewhere (config/dangerous-changes.ts). It runs in the main
 * process, out of the renderer's reach: a compromised page can ask, but only a click says yes. Cancel
 * is the default button and what Escape or closing the box answers.
 * https://www.electronjs.org/docs/latest/api/dialog#dialogshowmessageboxwindow-options
 */
import { BrowserWindow, dialog, type MessageBoxOptions, type WebContents } from 'electron';
import type { DangerousChange } from '../api/types.js';
import type { Translator } from '../words/messages/index.js';

/** Resolves true when the human confirmed the changes; `sender` is the dashboard that asked. */
export type ConfirmDangerous = (changes: DangerousChange[], sender: WebContents | undefined) => Promise<boolean>;

const CANCEL = 0;
const SAVE = 1;

/** What the box says: each change on its own line, in the app's language. */
export function confirmDialogOptions(changes: DangerousChange[], words: Translator): MessageBoxOptions {
  const lines = changes.map((change) => `• ${words.t('confirm.change', change)}`).join('\n');
  return {
    type: 'warning',
    title: words.t('confirm.dialog.title'),
    message: words.t('confirm.dialog.message'),
    detail: words.t('confirm.dialog.detail', { lines }),
    buttons: [words.t('confirm.dialog.cancel'), words.t('confirm.dialog.save')],
    defaultId: CANCEL,
    cancelId: CANCEL,
    noLink: true,
  };
}

/** The native message box, modal on the dashboard window that asked (free-standing when it has none). */
export function nativeConfirm(words: Translator): ConfirmDangerous {
  return async (changes, sender) => {
    const options = confirmDialogOptions(changes, words);
    const window = sender === undefined ? null : BrowserWindow.fromWebContents(sender);
    const { response } = window ? await dialog.showMessageBox(window, options) : await dialog.showMessageBox(options);
    return response === SAVE;
  };
}
