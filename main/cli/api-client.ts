/**
 * How the CLI talks to a running BreakerBar: the address it wrote next to its
 * database (or the configured one), the local API token from the same
 * directory, and plain HTTP on loopback with a timeout. Every failure is a
 * sentence for the user, never a stack trace.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readApiUrl } from '../core/api-files/address.js';
import { API_TOKEN_FILE } from '../core/api-files/token.js';
import type { LoadedConfig } from '../core/config/index.js';
import { isLocked } from '../core/lock.js';

const TIMEOUT_MS = 10_000;

export class ApiClientError extends Error {
  override name = 'ApiClientError';
}

export interface ApiClient {
  url: string;
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  delete<T>(path: string): Promise<T>;
}

/** The running instance for this data directory; an error saying how to start one when there is none. */
export function connect(loaded: LoadedConfig): ApiClient {
  const { dataDir } = loaded;
  const written = readApiUrl(dataDir);
  if (!written && !isLocked(dataDir)) {
    throw new ApiClientError(
      `no BreakerBar is running for ${dataDir}: start it with \`breakerbar daemon\` (or \`breakerbar service install\`)`,
    );
  }
  const { host, port } = loaded.config.server;
  const url = written ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    get: (path) => request(url, 'GET', path, null, null),
    post: (path, body) => request(url, 'POST', path, readToken(dataDir), body),
    delete: (path) => request(url, 'DELETE', path, readToken(dataDir), null),
  };
}

function readToken(dataDir: string): string {
  try {
    return readFileSync(join(dataDir, API_TOKEN_FILE), 'utf8').trim();
  } catch (error) {
    throw new ApiClientError(
      `cannot read the local API token in ${dataDir} (${(error as NodeJS.ErrnoException).code ?? 'error'}): run this as the user who runs BreakerBar`,
    );
  }
}

async function request<T>(url: string, method: string, path: string, token: string | null, body: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${url}${path}`, {
      method,
      headers: token ? { authorization: `Bearer ${token}`, 'content-type': 'application/json' } : {},
      body: body === null ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new ApiClientError(`BreakerBar at ${url} did not answer (${cause}); is it still running?`);
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiClientError(`BreakerBar at ${url} answered ${response.status} with something that is not JSON`);
  }
  if (!response.ok) {
    const message = (parsed as { error?: unknown }).error;
    throw new ApiClientError(
      `BreakerBar refused: ${typeof message === 'string' ? message : `HTTP ${response.status}`}`,
    );
  }
  return parsed as T;
}
