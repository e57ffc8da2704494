/**
 * The app's client of a core's local API (the daemon's, whether the app
 * started it or a service did): JSON over loopback HTTP with the token from
 * `<dataDir>/api-token`, the same calls the dashboard makes in a browser.
 * No Electron here: it is tested against a real server on loopback.
 */
import { type ApiClient, type CallRequest, createClient } from '../api/client.js';
import { tokenRefusal } from '../core/api-files/loopback.js';

const TIMEOUT_MS = 10_000;
/** Slow routes (the doctor probes the gateway and reads the OpenClaw tree): give them longer. */
const SLOW_TIMEOUT_MS = 30_000;

/** A refusal or failure, worded for the user; `param` names the offending field when the API said. */
export class CoreApiError extends Error {
  override name = 'CoreApiError';
  constructor(
    message: string,
    readonly status: number | null,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export interface CoreApiOptions {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  /** The local API token, read when needed (null: not there yet); read again after a 401. */
  token(): string | null;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export class CoreApi {
  readonly url: string;
  /** Every route of the table (main/api/routes.ts), typed: `call('status')`, `call('incident', {id})`. */
  readonly call: ApiClient['call'];
  private readonly fetchImpl: typeof fetch;
  private cachedToken: string | null = null;
  /** Why the token may not go to this URL (not loopback), or null: then it goes with every call. */
  private readonly refusal: string | null;

  constructor(private readonly options: CoreApiOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? fetch;
    this.refusal = tokenRefusal(this.url);
    this.call = createClient((request) => this.request(request)).call;
  }

  /** `/healthz` answered by a BreakerBar (its version header), not by whatever else took the port. */
  async alive(timeoutMs = 2000): Promise<boolean> {
    try {
      const response = await this.fetchImpl(`${this.url}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
      await response.body?.cancel();
      return response.ok && response.headers.get('x-breakerbar-version') !== null;
    } catch {
      return false;
    }
  }

  private token(refresh: boolean): string | null {
    if (refresh || this.cachedToken === null) this.cachedToken = this.options.token();
    return this.cachedToken;
  }

  private async request({ method, path, body, slow, token }: CallRequest): Promise<unknown> {
    // A route that needs the token is not tried without it: the refusal says why, instead of a 401.
    if (token && this.refusal !== null) throw new CoreApiError(this.refusal, null);
    const timeoutMs = slow ? SLOW_TIMEOUT_MS : undefined;
    let response = await this.send(method, path, body, false, timeoutMs);
    // The core may have been restarted with a new token file (a fresh data directory): read it once more.
    if (response.status === 401) response = await this.send(method, path, body, true, timeoutMs);
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new CoreApiError(
        `BreakerBar at ${this.url} answered ${response.status} with something that is not JSON`,
        response.status,
      );
    }
    if (!response.ok) {
      const { error, param } = (parsed ?? {}) as { error?: unknown; param?: unknown };
      throw new CoreApiError(
        typeof error === 'string' ? error : `HTTP ${response.status}`,
        response.status,
        typeof param === 'string' ? param : null,
      );
    }
    return parsed;
  }

  private async send(
    method: string,
    path: string,
    body: unknown,
    refreshToken: boolean,
    timeoutMs = this.options.timeoutMs ?? TIMEOUT_MS,
  ): Promise<Response> {
    const headers: Record<string, string> = {};
    // Every call to a loopback core carries the token: the routes that need it get it, the rest ignore it.
    const token = this.refusal === null ? this.token(refreshToken) : null;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await this.fetchImpl(`${this.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new CoreApiError(`BreakerBar at ${this.url} did not answer (${cause})`, null);
    }
  }
}
