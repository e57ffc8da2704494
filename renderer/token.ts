/**
 * The local API token in a browser. `breakerbar dashboard` opens
 * `http://127.0.0.1:<port>/#token=<hex>`: a fragment never reaches the server
 * or its logs. On load the token moves to sessionStorage (this tab only, gone
 * when it closes) and leaves the address bar, so it is not bookmarked, shared
 * in a screenshot or kept in history. `breakerbar dashboard --open` opens
 * (through a page only its owner can read) `/#code=<one-time code>` instead,
 * which the page trades at `POST /api/session` for a session token of its own,
 * kept the same way.
 */
import { SESSION_TOKEN_SHAPE } from '../main/api/session-token.js';

const STORAGE_KEY = 'breakerbar.apiToken';
/**
 * What BreakerBar writes: the API token, 32 random bytes as hex, or a browser session's token (what a sign-in
 * code is traded for). Anything else in the fragment is ignored.
 */
const TOKEN_SHAPE = /^[0-9a-f]{64}$/;

/** A one-time sign-in code as the server issues it: 24 random bytes, base64url. */
const CODE_SHAPE = /^[A-Za-z0-9_-]{32}$/;

/** POSTs a JSON body without the token; resolves with the parsed answer, rejects on any refusal. */
/** Sends a code to `POST /api/session` and answers what the server said (rejects when it refused). */
export type SessionExchange = (code: string) => Promise<unknown>;

/** The parts of `window` this module touches, so it can be tested without a browser. */
export interface TokenEnvironment {
  location: { hash: string; pathname: string; search: string };
  history: { replaceState(data: unknown, unused: string, url: string): void };
  storage: {
    getItem(key: string): string | null;
    setItem(key: string, value: string): void;
    removeItem(key: string): void;
  };
}

/** Splits `#token=…&view=…` into its parameters. */
export function fragmentParams(hash: string): URLSearchParams {
  return new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
}

export function isTokenShape(value: string): boolean {
  return TOKEN_SHAPE.test(value) || SESSION_TOKEN_SHAPE.test(value);
}

export class TokenStore {
  constructor(private readonly env: TokenEnvironment) {}

  /**
   * Takes a token from the URL fragment (stores it, removes it from the address bar, keeping any other
   * fragment parameter), else keeps what this tab stored before.
   */
  adoptFromLocation(): void {
    const params = fragmentParams(this.env.location.hash);
    if (!params.has('token')) return;
    const token = params.get('token')?.trim().toLowerCase() ?? '';
    if (isTokenShape(token)) this.set(token);
    this.dropFromLocation(params, 'token');
  }

  /**
   * Takes a one-time sign-in code from the fragment (`breakerbar dashboard --open`), removing it from the
   * address at once: it is spent by the exchange anyway, and must not be bookmarked. Null when there is none.
   */
  takeCodeFromLocation(): string | null {
    const params = fragmentParams(this.env.location.hash);
    if (!params.has('code')) return null;
    const code = params.get('code')?.trim() ?? '';
    this.dropFromLocation(params, 'code');
    return CODE_SHAPE.test(code) ? code : null;
  }

  /** Trades a sign-in code for the token (`POST /api/session`) and keeps it; false when refused. */
  async redeem(code: string, exchange: SessionExchange): Promise<boolean> {
    const token = await exchange(code).catch(() => null);
    const value = (token as { token?: unknown } | null)?.token;
    if (typeof value !== 'string' || !isTokenShape(value)) return false;
    this.set(value);
    return true;
  }

  private dropFromLocation(params: URLSearchParams, name: string): void {
    params.delete(name);
    const rest = params.toString();
    const { pathname, search } = this.env.location;
    this.env.history.replaceState(null, '', `${pathname}${search}${rest === '' ? '' : `#${rest}`}`);
  }

  get(): string | null {
    try {
      return this.env.storage.getItem(STORAGE_KEY);
    } catch {
      // Storage can be disabled (privacy settings): the token then lives only as long as the page.
      return this.memory;
    }
  }

  set(token: string): void {
    this.memory = token;
    try {
      this.env.storage.setItem(STORAGE_KEY, token);
    } catch {
      // See get().
    }
  }

  clear(): void {
    this.memory = null;
    try {
      this.env.storage.removeItem(STORAGE_KEY);
    } catch {
      // See get().
    }
  }

  private memory: string | null = null;
}
