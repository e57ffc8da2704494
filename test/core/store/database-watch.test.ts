/**
 * Rule: BreakerBar's database deleted or replaced while it runs does not go unnoticed: one error in the log
 * per change, and `/api/status` says `store.ok: false` with what happened, until it is restarted.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Monitor } from '../../../main/api/root/monitor.js';
import type { ApiStatus } from '../../../main/api/types.js';
import { loadConfig } from '../../../main/core/config/index.js';
import type { Logger } from '../../../main/core/runtime/log.js';
import { silentLogger } from '../../../main/core/runtime/log.js';
import { DatabaseWatch, fileIdOf, judgeIdentity } from '../../../main/core/store/database-watch.js';
import { Store } from '../../../main/core/store/db.js';
import { until } from '../../helpers/transcripts.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bb-dbwatch-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const removeDatabase = (path: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
};

describe('judgeIdentity', () => {
  it('tells the same file, a deleted one and a replaced one apart', () => {
    expect(judgeIdentity({ dev: 1, ino: 7 }, { dev: 1, ino: 7 })).toBeNull();
    expect(judgeIdentity({ dev: 1, ino: 7 }, null)).toBe('deleted');
    expect(judgeIdentity({ dev: 1, ino: 7 }, { dev: 1, ino: 8 })).toBe('replaced');
    expect(judgeIdentity({ dev: 1, ino: 7 }, { dev: 2, ino: 7 })).toBe('replaced');
  });
});

describe('DatabaseWatch over a running store', () => {
  it('logs one error when the file is deleted, another when a different file takes its place', () => {
    const path = join(root, 'breakerbar.sqlite');
    const store = Store.open(path);
    const errors: string[] = [];
    const log: Logger = { ...silentLogger, error: (msg) => errors.push(msg) };
    let now = 1000;
    const watch = new DatabaseWatch(path, fileIdOf(path) as NonNullable<ReturnType<typeof fileIdOf>>, log, () => now);
    try {
      expect(watch.check()).toEqual({ ok: true });

      removeDatabase(path);
      now = 2000;
      // The store keeps working on the unlinked file: the loss is silent unless watched.
      store.setMeta('still', 'writing');
      expect(watch.check()).toMatchObject({ ok: false, problem: 'deleted', since: 2000 });
      expect(watch.check()).toMatchObject({ ok: false, problem: 'deleted', since: 2000 });
      expect(errors).toEqual(['database deleted under BreakerBar']);

      Store.open(path).close();
      now = 3000;
      const replaced = watch.check();
      expect(replaced).toMatchObject({ ok: false, problem: 'replaced', since: 3000 });
      expect(replaced.detail).toContain('restart BreakerBar');
      expect(errors).toEqual(['database deleted under BreakerBar', 'database replaced under BreakerBar']);
      expect(watch.health()).toBe(replaced);
    } finally {
      store.close();
    }
  });
});

describe('a running monitor', () => {
  it('reports its database deleted, then replaced, in /api/status', async () => {
    const home = join(root, 'home');
    mkdirSync(home, { recursive: true });
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ server: { port: 0 }, gatewayMetrics: { enabled: false } }),
    );
    const loaded = loadConfig(undefined, {
      env: { BREAKERBAR_HOME: home, OPENCLAW_STATE_DIR: join(root, 'openclaw') },
      home: root,
      platform: 'linux',
    });
    const monitor = new Monitor(loaded, { log: silentLogger, gateway: false, storeWatchMs: 20 });
    await monitor.start();
    try {
      const status = async () => (await (await fetch(`${monitor.apiUrl}/api/status`)).json()) as ApiStatus;
      expect((await status()).store).toEqual({ ok: true });

      removeDatabase(loaded.dbPath);
      await until(async () => (await status()).store?.ok === false, 5000, 'the deletion to be reported');
      expect((await status()).store).toMatchObject({ ok: false, problem: 'deleted' });

      writeFileSync(loaded.dbPath, 'someone else’s file');
      await until(async () => (await status()).store?.problem === 'replaced', 5000, 'the replacement to be reported');
    } finally {
      await monitor.stop();
    }
  });
});
