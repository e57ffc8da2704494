/**
 * Confirming a dangerous settings change in a browser: the daemon refuses such a change from a page
 * until it comes back with the six-digit code it has just shown on the desktop and in its log (never
 * to the page). This reads the daemon's request for a code and sends the same change again with the
 * code the person gives (confirm-prompt.ts asks for it). In the app the main process asks in a native
 * dialog instead, and none of this comes into play.
 */
import type { ConfigConfirmation, DangerousChange } from '../main/api/types.js';
import { ApiFailure, Cancelled } from './api.js';

/** The person dismissed the prompt: nothing was saved. */
export class NotConfirmed extends Cancelled {
  override name = 'NotConfirmed';
}

/** Asks for the code; `refused` when the last one was turned down. Rejects with NotConfirmed when dismissed. */
export type AskCode = (confirmation: ConfigConfirmation, refused: boolean) => Promise<string>;

/** Codes asked for one save at most: enough for a typo or two, never a loop (the daemon burns a code after three). */
export const MAX_ASKS = 3;
/** What a confirmation code looks like: six digits. */
export const CODE_SHAPE = /^\d{6}$/;
const CHANGE_KINDS = new Set(['added', 'changed', 'removed']);

const isText = (value: unknown): value is string | null => value === null || typeof value === 'string';

function isChange(value: unknown): value is DangerousChange {
  if (typeof value !== 'object' || value === null) return false;
  const change = value as Record<string, unknown>;
  return (
    typeof change.key === 'string' &&
    CHANGE_KINDS.has(change.change as string) &&
    isText(change.from) &&
    isText(change.to)
  );
}

/** The `confirm` of a refused answer, when it has a well-formed one (it comes off the network). */
export function confirmationOf(value: unknown): ConfigConfirmation | undefined {
  const confirm = (value as { confirm?: unknown } | null)?.confirm;
  if (typeof confirm !== 'object' || confirm === null) return undefined;
  const { keys, changes, expiresAt } = confirm as Record<string, unknown>;
  if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'string')) return undefined;
  if (!Array.isArray(changes) || !changes.every(isChange)) return undefined;
  if (expiresAt !== null && typeof expiresAt !== 'number') return undefined;
  return { keys, changes, expiresAt };
}

/**
 * Saves through `save`; when the daemon asks for a code (428) or turns one down (403), asks the person
 * and sends the same change again with it. Any other failure, or too many asks, is thrown as it came.
 */
export async function saveConfirmed<T>(save: (code: string | undefined) => Promise<T>, ask: AskCode): Promise<T> {
  let code: string | undefined;
  for (let asked = 0; ; asked++) {
    try {
      return await save(code);
    } catch (error) {
      const needsCode =
        error instanceof ApiFailure && error.confirm !== undefined && (error.status === 428 || error.status === 403);
      if (!needsCode || asked >= MAX_ASKS) throw error;
      code = await ask(error.confirm as ConfigConfirmation, error.status === 403);
    }
  }
}
