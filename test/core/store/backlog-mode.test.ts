/**
 * The ingest connection's backlog mode: a large page cache and checkpoints every few groups while large
 * groups arrive, SQLite's defaults again once they have stayed small for a checkpoint period.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AUTOCHECKPOINT_PAGES,
  BACKLOG_CACHE_KIB,
  BACKLOG_CHECKPOINT_GROUPS,
  BACKLOG_GROUP_EVENTS,
  BacklogMode,
} from '../../../main/core/store/backlog-mode.js';
import { Store } from '../../../main/core/store/db.js';

let dir: string;
let path: string;
let store: Store;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bb-backlog-'));
  path = join(dir, 'breakerbar.sqlite');
  store = Store.open(path);
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const pragma = (name: string) => store.db.pragma(name, { simple: true }) as number;

/** Rows enough to fill some WAL pages. */
function write(rows: number): void {
  store.db.transaction(() => {
    const insert = store.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    for (let i = 0; i < rows; i++) insert.run(`k${Math.random()}`, 'x'.repeat(200));
  })();
}

describe('BacklogMode', () => {
  it('follows live writes with SQLite’s automatic checkpoints and default cache', () => {
    const defaultCache = pragma('cache_size');
    const mode = new BacklogMode(store.db);
    mode.beforeGroup(BACKLOG_GROUP_EVENTS - 1);
    expect(mode.active).toBe(false);
    expect(pragma('wal_autocheckpoint')).toBe(AUTOCHECKPOINT_PAGES);
    expect(pragma('cache_size')).toBe(defaultCache);
  });

  it('switches to backlog mode on a large group and back after a quiet checkpoint period', () => {
    const defaultCache = pragma('cache_size');
    const mode = new BacklogMode(store.db);
    mode.beforeGroup(BACKLOG_GROUP_EVENTS);
    expect(mode.active).toBe(true);
    expect(pragma('cache_size')).toBe(-BACKLOG_CACHE_KIB);
    expect(pragma('wal_autocheckpoint')).toBe(0);
    // A period with a large group in it keeps the mode…
    mode.period();
    expect(mode.active).toBe(true);
    // …a period with only small ones ends it.
    mode.beforeGroup(1);
    mode.period();
    expect(mode.active).toBe(false);
    expect(pragma('cache_size')).toBe(defaultCache);
    expect(pragma('wal_autocheckpoint')).toBe(AUTOCHECKPOINT_PAGES);
  });

  it('checkpoints every few groups in backlog mode', () => {
    const mode = new BacklogMode(store.db);
    mode.beforeGroup(BACKLOG_GROUP_EVENTS);
    write(2000);
    const before = statSync(path).size;
    for (let i = 1; i < BACKLOG_CHECKPOINT_GROUPS; i++) mode.afterGroup();
    // Not yet: the pages are still only in the WAL.
    expect(statSync(path).size).toBe(before);
    mode.afterGroup();
    expect(statSync(path).size).toBeGreaterThan(before);
  });
});
