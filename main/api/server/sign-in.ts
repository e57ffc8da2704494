/**
 * One-time sign-in codes: how `breakerbar dashboard --open` signs a browser in without putting the
 * API token on a command line (an opener's arguments are visible to every local user in `ps`).
 *
 * The CLI, holding the token, asks the daemon for a code; the browser opens `/#code=…` and trades the
 * code for the token at `POST /api/session`. A code is 192 random bits, lives a minute, works once,
 * and only its SHA-256 digest is kept, so a memory dump or a log line cannot replay it (the store is
 * one-time-codes.ts, shared with the confirmation of dangerous config changes).
 */
import { randomBytes } from 'node:crypto';
import type { SignInCode } from '../types.js';
import { createOneTimeCodes } from './one-time-codes.js';

/** Long enough to start a browser, short enough that a code seen in history is useless. */
export const SIGN_IN_CODE_TTL_MS = 60_000;
/** Unredeemed codes kept at most; issuing more drops the oldest (each needs the API token anyway). */
const MAX_OUTSTANDING = 16;
/** 24 random bytes, base64url: 32 characters. */
const CODE_BYTES = 24;
const CODE_SHAPE = /^[A-Za-z0-9_-]{32}$/;

export interface SignInCodesOptions {
  clock?: () => number;
  ttlMs?: number;
  /** Random bytes (tests may make codes predictable). */
  random?: (size: number) => Buffer;
}

export interface SignInCodes {
  issue(): SignInCode;
  /** True once for a code issued less than `ttlMs` ago; the code is spent either way. */
  redeem(code: unknown): boolean;
  /** Codes issued and neither redeemed nor expired. */
  readonly outstanding: number;
}

export function createSignInCodes(options: SignInCodesOptions = {}): SignInCodes {
  const random = options.random ?? randomBytes;
  // 192 bits cannot be guessed: wrong tries need no limit, and several browsers may be opening at once.
  const codes = createOneTimeCodes({
    clock: options.clock ?? Date.now,
    ttlMs: options.ttlMs ?? SIGN_IN_CODE_TTL_MS,
    generate: () => random(CODE_BYTES).toString('base64url'),
    shape: CODE_SHAPE,
    maxOutstanding: MAX_OUTSTANDING,
  });
  return {
    issue: () => codes.issue(),
    redeem: (code) => codes.redeem(code),
    get outstanding() {
      return codes.outstanding;
    },
  };
}
