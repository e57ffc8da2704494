/**
 * The local API token in a browser. `breakerbar dashboard` opens
 * `http://127.0.0.1:<port>/#token=<hex>`: a fragment never reaches the server
 * or its logs. On load the token moves to sessionStorage (this tab only, gone
 * when it closes) and leaves the address bar, so it is not bookmarked, shared
 * in a screenshot or kept in history.
 */

const STORAGE_KEY = 'breakerbar.apiToken';
/** What BreakerBar writes: 32 random bytes as hex. Anything else in the fragment is ignored. */
const TOKEN_SHAPE = /^[0-9a-f]{64}$/;

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
  return TOKEN_SHAPE.test(value);
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
    params.delete('token');
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
