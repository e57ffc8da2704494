/**
 * One-time sign-in codes: how `breakerbar dashboard --open` signs a browser in without putting the
 * API token on a command line (an opener's arguments are visible to every local user in `ps`).
 *
 * The CLI, holding the token, asks the daemon for a code; the browser opens `/#code=…` and trades the
 * code for the token at `POST /api/session`. A code is 192 random bits, lives a minute, works once,
 * and only its SHA-256 digest is kept, so a memory dump or a log line cannot replay it.
 * Pure apart from the random source: the clock is injected.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SignInCode } from '../../shared/api/types.js';

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

const digest = (code: string): string => createHash('sha256').update(code).digest('hex');

export function createSignInCodes(options: SignInCodesOptions = {}): SignInCodes {
  const clock = options.clock ?? Date.now;
  const ttlMs = options.ttlMs ?? SIGN_IN_CODE_TTL_MS;
  const random = options.random ?? randomBytes;
  /** Digest → expiry, in issue order (a Map keeps insertion order: the first key is the oldest). */
  const codes = new Map<string, number>();

  const prune = (now: number) => {
    for (const [hash, expiresAt] of codes) if (expiresAt <= now) codes.delete(hash);
  };

  return {
    issue() {
      const now = clock();
      prune(now);
      while (codes.size >= MAX_OUTSTANDING) codes.delete(codes.keys().next().value as string);
      const code = random(CODE_BYTES).toString('base64url');
      const expiresAt = now + ttlMs;
      codes.set(digest(code), expiresAt);
      return { code, expiresAt };
    },
    redeem(code) {
      if (typeof code !== 'string' || !CODE_SHAPE.test(code)) return false;
      const hash = digest(code);
      const expiresAt = codes.get(hash);
      if (expiresAt === undefined) return false;
      codes.delete(hash);
      return clock() < expiresAt;
    },
    get outstanding() {
      prune(clock());
      return codes.size;
    },
  };
}
