/**
 * Confirming a dangerous config change made from a browser. The page that asks is not trusted to
 * say yes: the daemon sends a six-digit code where no script in the page can read it (its log and a
 * desktop notification), and saves the change only when the same change comes back with that code.
 *
 * A code is bound to one change (the hash of the dangerous values it sets, see
 * config/dangerous-changes.ts), lives two minutes, works once, and is burnt after three wrong tries;
 * at most five codes are sent in ten minutes, so a page cannot guess its way through by asking again
 * and again (each code also pings the human). Pure apart from the random code: the clock is injected.
 */
import { createHash, randomInt } from 'node:crypto';
import type { DangerousChanges } from '../../core/config/dangerous-changes.js';
import { createOneTimeCodes } from './one-time-codes.js';

/** Long enough to read a notification and type six digits, short enough to be useless later. */
export const CONFIRM_CODE_TTL_MS = 120_000;
/** Wrong codes tried for a change before its code is burnt. */
export const CONFIRM_WRONG_TRIES = 3;
/** Codes sent at most per window; beyond that a change waits (and the human has been pinged already). */
export const CONFIRM_ISSUE_LIMIT = 5;
export const CONFIRM_ISSUE_WINDOW_MS = 10 * 60_000;
const CODE_SHAPE = /^\d{6}$/;
/** Changes waiting for their code at once: more than a person confirms in two minutes. */
const MAX_OUTSTANDING = 8;

export type ConfirmDecision =
  /** Nothing dangerous changes, or the code given confirms exactly this change: save. */
  | { kind: 'allowed' }
  /** No code given: send this one out of band and ask for it. */
  | { kind: 'issue'; code: string; expiresAt: number }
  /** A code was given and it is wrong, used, expired, burnt or for another change. */
  | { kind: 'refused' }
  /** Too many codes sent lately: try again at `retryAt`. */
  | { kind: 'throttled'; retryAt: number };

export interface ConfigConfirmationsOptions {
  clock?: () => number;
  /** A new six-digit code (tests make it predictable). */
  generate?: () => string;
}

export interface ConfigConfirmations {
  decide(changes: DangerousChanges, code: string | undefined): ConfirmDecision;
}

const sixDigits = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');
/** The fingerprint holds the new secrets themselves; the store keeps only their hash. */
const bindingOf = (changes: DangerousChanges): string => createHash('sha256').update(changes.fingerprint).digest('hex');

export function createConfigConfirmations(options: ConfigConfirmationsOptions = {}): ConfigConfirmations {
  const clock = options.clock ?? Date.now;
  const codes = createOneTimeCodes({
    clock,
    ttlMs: CONFIRM_CODE_TTL_MS,
    generate: options.generate ?? sixDigits,
    shape: CODE_SHAPE,
    maxOutstanding: MAX_OUTSTANDING,
    wrongTries: CONFIRM_WRONG_TRIES,
    // Asking again for the same change replaces its code: only the newest one sent works.
    onePerBinding: true,
  });
  /** When each code in the window was sent, oldest first. */
  let issued: number[] = [];

  return {
    decide(changes, code) {
      if (changes.changes.length === 0) return { kind: 'allowed' };
      const binding = bindingOf(changes);
      if (code !== undefined) return codes.redeem(code, binding) ? { kind: 'allowed' } : { kind: 'refused' };
      const now = clock();
      issued = issued.filter((at) => at > now - CONFIRM_ISSUE_WINDOW_MS);
      if (issued.length >= CONFIRM_ISSUE_LIMIT) {
        return { kind: 'throttled', retryAt: (issued[0] as number) + CONFIRM_ISSUE_WINDOW_MS };
      }
      issued.push(now);
      return { kind: 'issue', ...codes.issue(binding) };
    },
  };
}
