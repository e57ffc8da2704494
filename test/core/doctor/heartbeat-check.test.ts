/** The doctor's heartbeat finding: configured or not, and how the last push (kept in the database) went. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Environment, loadConfig } from '../../../main/core/config/index.js';
import { checkHeartbeat, lastHeartbeat } from '../../../main/core/doctor/notifications-check.js';
import { META_HEARTBEAT } from '../../../main/core/notify/heartbeat-result.js';
import { Store } from '../../../main/core/store/db.js';

const NOW = Date.UTC(2026, 11, 1, 10);
let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'bb-doctor-heartbeat-'));
});

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

function loaded(heartbeat: object | null) {
  const path = join(tmp, 'config.json');
  writeFileSync(path, JSON.stringify({ dataDir: join(tmp, 'data'), ...(heartbeat ? { heartbeat } : {}) }));
  const environment: Environment = { env: {}, home: join(tmp, 'home'), platform: 'linux' };
  return loadConfig(path, environment);
}

const HB = { url: 'https://hc-ping.com/SECRET-UUID', kind: 'healthchecks', intervalSec: 60 };

describe('checkHeartbeat', () => {
  it('not configured is information with a way to set it up', () => {
    expect(checkHeartbeat(loaded(null), NOW)).toMatchObject([
      { level: 'info', title: 'no heartbeat (heartbeat.url null)' },
    ]);
  });

  it('configured: no push yet, a failed push, a stale push, a recent good push; the URL is redacted', () => {
    const config = loaded(HB);
    const title = 'heartbeat (healthchecks) → https://hc-ping.com/… every 60 s';
    expect(checkHeartbeat(config, NOW, null)[0]).toMatchObject({
      level: 'warn',
      title,
      detail: 'no push recorded yet',
    });
    const failed = {
      ts: NOW - 30_000,
      status: 'ok' as const,
      ok: false,
      error: 'https://hc-ping.com/…: HTTP 503',
      httpStatus: 503,
    };
    expect(checkHeartbeat(config, NOW, failed)[0]).toMatchObject({
      level: 'error',
      detail: 'last push 30 s ago failed: https://hc-ping.com/…: HTTP 503',
    });
    const good = { ts: NOW - 20_000, status: 'warning' as const, ok: true, error: null, httpStatus: 200 };
    expect(checkHeartbeat(config, NOW, good)[0]).toMatchObject({
      level: 'ok',
      detail: 'last push 20 s ago delivered (status warning)',
    });
    expect(checkHeartbeat(config, NOW, { ...good, ts: NOW - 600_000 })[0]).toMatchObject({ level: 'warn' });
    expect(JSON.stringify(checkHeartbeat(config, NOW, failed))).not.toContain('SECRET-UUID');
  });

  it('reads the last push from the database the daemon keeps', () => {
    const config = loaded(HB);
    expect(lastHeartbeat(config.dbPath)).toBeNull();
    mkdirSync(config.dataDir, { recursive: true });
    const store = Store.open(config.dbPath);
    store.setMeta(META_HEARTBEAT, JSON.stringify({ ts: NOW, status: 'ok', ok: true, error: null, httpStatus: 200 }));
    store.close();
    expect(lastHeartbeat(config.dbPath)).toEqual({ ts: NOW, status: 'ok', ok: true, error: null, httpStatus: 200 });
  });
});
