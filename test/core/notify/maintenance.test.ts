/** A maintenance window started by hand outlives BreakerBar's restart (real SQLite file). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AlertWindows } from '../../../main/core/notify/maintenance.js';
import { Store } from '../../../main/core/store/db.js';

const T0 = Date.UTC(2026, 11, 1, 10);
const HOUR = 3_600_000;
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(clock: { now: number }, path: string) {
  const store = Store.open(path);
  const windows = new AlertWindows({
    store,
    clock: () => clock.now,
    quietHours: [{ days: ['tue'], from: '09:00', to: '18:00', timeZone: 'UTC' }],
    maintenance: [],
  });
  return { store, windows };
}

describe('AlertWindows', () => {
  it('keeps a window started by hand across a restart, until it ends', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bb-maint-'));
    dirs.push(dir);
    const path = join(dir, 'db.sqlite');
    const clock = { now: T0 };
    const first = open(clock, path);
    first.windows.start(2 * HOUR, 'upgrading OpenClaw');
    expect(first.windows.state()).toEqual({ kind: 'maintenance', until: T0 + 2 * HOUR, reason: 'upgrading OpenClaw' });
    first.store.close();

    clock.now = T0 + HOUR;
    const second = open(clock, path);
    expect(second.windows.maintenance()).toMatchObject({ until: T0 + 2 * HOUR, reason: 'upgrading OpenClaw' });
    // Once it is over, the quiet hours beneath it show again.
    clock.now = T0 + 2 * HOUR;
    expect(second.windows.maintenance()).toBeNull();
    expect(second.windows.state()).toMatchObject({ kind: 'quiet_hours', until: Date.UTC(2026, 11, 1, 18) });
    second.store.close();
  });

  it('stop ends it (and says whether one was in force), also after a restart', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bb-maint-'));
    dirs.push(dir);
    const path = join(dir, 'db.sqlite');
    const clock = { now: T0 };
    const first = open(clock, path);
    first.windows.start(null, '');
    expect(first.windows.current()).toMatchObject({ until: null, reason: 'maintenance' });
    expect(first.windows.stop()).toBe(true);
    expect(first.windows.stop()).toBe(false);
    first.store.close();
    const second = open(clock, path);
    expect(second.windows.current()).toBeNull();
    expect(() => second.windows.start(0, 'x')).toThrow(/positive duration/);
    second.store.close();
  });
});
