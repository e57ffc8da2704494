/**
 * The CLI's client of a running daemon: the token from the data directory,
 * sent to a daemon on this machine that holds the data directory's lock, and
 * refused (unsent, with the reason) to one whose address file names another
 * host, or whose daemon is gone (a stale address, maybe someone else's port).
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClientError, connect } from '../../main/cli/api-client.js';
import type { LoadedConfig } from '../../main/core/config/index.js';
import { type DataDirLock, lockDataDir } from '../../main/core/runtime/lock.js';
import { type FakeCore, startFakeCore } from '../app/fake-core.js';

let core: FakeCore;
/** The lock a running daemon holds on its data directory. */
let lock: DataDirLock | null;

beforeEach(async () => {
  core = await startFakeCore();
  lock = lockDataDir(core.dataDir);
});

afterEach(async () => {
  lock?.release();
  await core.close();
});

/** What connect() reads of a loaded config: the data directory and the configured address. */
function loaded(): LoadedConfig {
  return { dataDir: core.dataDir, config: { server: { host: '127.0.0.1', port: 1 } } } as unknown as LoadedConfig;
}

describe('the CLI’s API client', () => {
  it('sends the token to the daemon on this machine named by the address file', async () => {
    writeFileSync(join(core.dataDir, 'api-url'), `${core.url}\n`);
    const client = connect(loaded());
    expect(client.url).toBe(core.url);
    await client.call('resume');
    expect(core.backend.watchdogRequests).toEqual([{ action: 'resume' }]);
  });

  it('refuses to send it to another host, before any request, saying why', async () => {
    // TEST-NET-1: nothing answers there; the refusal must come before any attempt to connect.
    writeFileSync(join(core.dataDir, 'api-url'), 'http://192.0.2.7:18820\n');
    const client = connect(loaded());
    const refused = client.call('resume');
    await expect(refused).rejects.toBeInstanceOf(ApiClientError);
    await expect(refused).rejects.toThrow(
      'the local API token is sent only to this machine (127.0.0.1, ::1 or localhost), not to 192.0.2.7:18820',
    );
    expect(core.backend.watchdogRequests).toEqual([]);
  });

  it('after the daemon is gone, never sends the token to whatever listens at the address it left', async () => {
    // The daemon was killed (its lock released with it); another program took its port.
    lock?.release();
    lock = null;
    const seen: Array<string | undefined> = [];
    const squatter = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.end('{}');
    });
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(squatter.address() as AddressInfo).port}`;
      writeFileSync(join(core.dataDir, 'api-url'), `${url}\n`);
      const refused = connect(loaded()).call('resume');
      await expect(refused).rejects.toBeInstanceOf(ApiClientError);
      await expect(refused).rejects.toThrow(
        `no BreakerBar is running for ${core.dataDir}; ${url}, the address it left`,
      );
      expect(seen).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
  });
});
