/**
 * How the CLI talks to a running BreakerBar: the address it wrote next to its
 * database (or the configured one), the local API token from the same
 * directory, and plain HTTP on loopback with a timeout. Every failure is a
 * sentence for the user, never a stack trace.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CallRequest, createClient, type ApiClient as RouteClient } from '../api/client.js';
import { readApiUrl } from '../core/api-files/address.js';
import { serverUrl, tokenRefusal } from '../core/api-files/loopback.js';
import { API_TOKEN_FILE } from '../core/api-files/token.js';
import type { LoadedConfig } from '../core/config/index.js';
import { isLocked } from '../core/runtime/lock.js';

const TIMEOUT_MS = 10_000;
/** Slow routes (the doctor probes the gateway): wait longer. */
const SLOW_TIMEOUT_MS = 30_000;

export class ApiClientError extends Error {
  override name = 'ApiClientError';
}

/** The route table's typed client (`call('status')`), and where it connects. */
export interface ApiClient extends RouteClient {
  url: string;
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
  const url = written ?? serverUrl(host, port);
  // The token is read only for the routes that need it: reading the status needs no access to the data directory.
  const transport = async (call: CallRequest) => request(url, call, call.token ? tokenFor(url, dataDir) : null);
  return { url, call: createClient(transport).call };
}

/**
 * The token, for a daemon on this machine only (main/core/api-files/loopback.ts), and only while a daemon holds
 * this data directory's lock: the address file outlives a daemon killed with `kill -9`, and whatever listens
 * on that port afterwards — any local user's program — would be sent the token.
 */
function tokenFor(url: string, dataDir: string): string {
  const refusal = tokenRefusal(url);
  if (refusal !== null) throw new ApiClientError(refusal);
  let running: boolean;
  try {
    running = isLocked(dataDir);
  } catch (error) {
    throw new ApiClientError(`cannot tell whether BreakerBar runs for ${dataDir}: ${(error as Error).message}`);
  }
  if (!running) {
    throw new ApiClientError(
      `no BreakerBar is running for ${dataDir}; ${url}, the address it left, may belong to another program now, so the API token is not sent there. Start it with \`breakerbar daemon\``,
    );
  }
  return readToken(dataDir);
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

async function request(url: string, { method, path, body, slow }: CallRequest, token: string | null): Promise<unknown> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(slow ? SLOW_TIMEOUT_MS : TIMEOUT_MS),
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
  return parsed;
}
