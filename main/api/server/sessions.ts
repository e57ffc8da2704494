/**
 * Browser sessions: what a browser holds instead of the API token.
 *
 * The API token (core/api-files/token.ts) is the owner's credential: the CLI run by the owner and the app's main
 * process read it from a file only the owner can read. A browser signed in with a one-time code gets a session
 * token instead, so that whatever reached a browser — or whoever redeemed a code first — is never the owner:
 * the server knows which of the two authenticated a request, and a session's dangerous config change always
 * needs the human's confirmation (handlers.ts).
 *
 * A session token is `bbs.<issued, base36 ms>.<nonce>.<mac>`, the mac an HMAC-SHA-256 of the rest under a key
 * derived from the API token: verifiable without keeping state, so sessions survive a daemon restart, and all
 * of them end when the API token is replaced. Each lives `SESSION_TTL_MS`.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SESSION_TOKEN_SHAPE } from '../session-token.js';

/** A browser stays signed in this long; then `breakerbar dashboard --open` signs it in again. */
export const SESSION_TTL_MS = 7 * 24 * 3_600_000;
const PREFIX = 'bbs';
const NONCE_BYTES = 18;

/** Who a valid credential says the caller is. */
export type Caller = 'owner' | 'session';

export interface Sessions {
  /** A new session token, issued now. */
  issue(): string;
  /** Whether `credential` is a session token this daemon issued, unexpired. */
  valid(credential: string): boolean;
}

export function createSessions(
  apiToken: string,
  options: { clock?: () => number; random?: (size: number) => Buffer } = {},
): Sessions {
  const clock = options.clock ?? Date.now;
  const random = options.random ?? randomBytes;
  // Its own key, not the token itself: a session token shows nothing usable about the API token.
  const key = createHash('sha256').update(`breakerbar session key\0${apiToken}`).digest();
  const mac = (body: string) => createHmac('sha256', key).update(body).digest('base64url');
  return {
    issue() {
      const body = `${PREFIX}.${clock().toString(36)}.${random(NONCE_BYTES).toString('base64url')}`;
      return `${body}.${mac(body)}`;
    },
    valid(credential) {
      const match = SESSION_TOKEN_SHAPE.exec(credential);
      if (!match) return false;
      const body = credential.slice(0, credential.lastIndexOf('.'));
      const given = Buffer.from(match[3] ?? '', 'base64url');
      const expected = Buffer.from(mac(body), 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
      const age = clock() - Number.parseInt(match[1] ?? '', 36);
      // A session from the future is a clock stepped back: still bounded by the TTL once the clock catches up.
      return age < SESSION_TTL_MS && age > -SESSION_TTL_MS;
    },
  };
}
