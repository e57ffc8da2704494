/**
 * Short-lived, single-use codes: the store behind sign-in (sign-in.ts) and behind confirming a
 * dangerous config change (config-confirmation.ts). A code lives `ttlMs`, works once, and only its
 * SHA-256 digest is kept (with what it was issued for), so a memory dump or a log of the store
 * cannot replay it. A code may be bound to something (a change): it then works only for that, and
 * wrong guesses against that binding use up its tries. Pure apart from the random source: the
 * clock is injected.
 */
import { createHash } from 'node:crypto';

export interface OneTimeCodesOptions {
  clock: () => number;
  ttlMs: number;
  /** A new random code (the only impure part; tests may make codes predictable). */
  generate: () => string;
  /** What a code looks like: anything else is refused before any lookup. */
  shape: RegExp;
  /** Unredeemed codes kept at most; issuing more drops the oldest. */
  maxOutstanding: number;
  /**
   * Wrong codes tried against a binding before its code is burnt (a short code can be guessed,
   * a long one cannot: sign-in leaves this out).
   */
  wrongTries?: number;
  /** Issuing for a binding that has a code replaces it: one live code per binding. */
  onePerBinding?: boolean;
}

export interface IssuedCode {
  code: string;
  expiresAt: number;
}

export interface OneTimeCodes {
  issue(binding?: string): IssuedCode;
  /** True once for a code issued for `binding` less than `ttlMs` ago; a matching code is spent either way. */
  redeem(code: unknown, binding?: string): boolean;
  /** Codes issued and neither redeemed, burnt nor expired. */
  readonly outstanding: number;
}

interface Entry {
  binding: string;
  expiresAt: number;
  triesLeft: number;
}

const digest = (binding: string, code: string): string =>
  createHash('sha256').update(binding).update('\0').update(code).digest('hex');

export function createOneTimeCodes(options: OneTimeCodesOptions): OneTimeCodes {
  const { clock, ttlMs, generate, shape, maxOutstanding } = options;
  const wrongTries = options.wrongTries ?? Number.POSITIVE_INFINITY;
  /** Digest → entry, in issue order (a Map keeps insertion order: the first key is the oldest). */
  const codes = new Map<string, Entry>();

  const prune = (now: number) => {
    for (const [hash, entry] of codes) if (entry.expiresAt <= now) codes.delete(hash);
  };
  const dropBinding = (binding: string) => {
    for (const [hash, entry] of codes) if (entry.binding === binding) codes.delete(hash);
  };

  return {
    issue(binding = '') {
      const now = clock();
      prune(now);
      if (options.onePerBinding) dropBinding(binding);
      while (codes.size >= maxOutstanding) codes.delete(codes.keys().next().value as string);
      const code = generate();
      const expiresAt = now + ttlMs;
      codes.set(digest(binding, code), { binding, expiresAt, triesLeft: wrongTries });
      return { code, expiresAt };
    },
    redeem(code, binding = '') {
      const now = clock();
      prune(now);
      const hash = typeof code === 'string' && shape.test(code) ? digest(binding, code) : null;
      const entry = hash === null ? undefined : codes.get(hash);
      if (hash !== null && entry !== undefined) {
        codes.delete(hash);
        return now < entry.expiresAt;
      }
      // A wrong guess: the codes of this binding lose a try, and are burnt when they have none left.
      for (const [other, waiting] of codes) {
        if (waiting.binding !== binding) continue;
        waiting.triesLeft -= 1;
        if (waiting.triesLeft <= 0) codes.delete(other);
      }
      return false;
    },
    get outstanding() {
      prune(clock());
      return codes.size;
    },
  };
}
