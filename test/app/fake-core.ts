/**
 * A core's local API on loopback without the monitor behind it: the real
 * HTTP server (token checks, routes, event stream) over the in-memory
 * FakeBackend, which records every request that reached it. The token is
 * written where a core writes it (`<dataDir>/api-token`).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApiServer, startApiServer } from '../../main/api/server/http.js';
import { silentLogger } from '../../main/core/runtime/log.js';
import { FakeBackend } from '../helpers/fake-backend.js';

export interface FakeCore {
  backend: FakeBackend;
  server: ApiServer;
  url: string;
  token: string;
  dataDir: string;
  /** Stops the server (keeps the data directory for a restart on the same port). */
  stop(): Promise<void>;
  /** Stops the server and removes the data directory. */
  close(): Promise<void>;
}

export async function startFakeCore(
  options: { port?: number; dataDir?: string; token?: string } = {},
): Promise<FakeCore> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'bb-app-core-'));
  const token = options.token ?? randomBytes(32).toString('hex');
  writeFileSync(join(dataDir, 'api-token'), `${token}\n`, { mode: 0o600 });
  const backend = new FakeBackend();
  const server = await startApiServer({
    backend,
    port: options.port ?? 0,
    token,
    log: silentLogger,
    version: '0.0.0-test',
    sse: { heartbeatMs: 0 },
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.close();
  };
  return {
    backend,
    server,
    url: server.url,
    token,
    dataDir,
    stop,
    close: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
