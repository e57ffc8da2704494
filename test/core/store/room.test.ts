/**
 * The room watch: which failures mean "no room", said once per shortage, counted meanwhile, ended by a room
 * check that passes; and the room check itself against a real SQLite file that may not grow.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../../main/core/store/db.js';
import { isOutOfRoom, RELAPSE_MS, ROOM_NEEDED_BYTES, RoomWatch, roomCheck } from '../../../main/core/store/room.js';
import { StoreError } from '../../../main/core/store/store-error.js';
import { recordingLogger } from '../../helpers/fake-backend.js';

const full = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

describe('isOutOfRoom', () => {
  it("knows SQLite's and the file system's codes, in the error or one it wraps, and a code sent across a thread", () => {
    expect(isOutOfRoom(full())).toBe(true);
    expect(isOutOfRoom(Object.assign(new Error('write'), { code: 'ENOSPC' }))).toBe(true);
    expect(isOutOfRoom(Object.assign(new Error('write'), { code: 'EDQUOT' }))).toBe(true);
    expect(isOutOfRoom(new Error('wrapped', { cause: full() }))).toBe(true);
    expect(isOutOfRoom(new StoreError('database or disk is full', { code: 'SQLITE_FULL' }))).toBe(true);
    expect(isOutOfRoom(Object.assign(new Error('locked'), { code: 'SQLITE_BUSY' }))).toBe(false);
    // The message alone is no code: only what SQLite or the system says counts.
    expect(isOutOfRoom(new Error('database or disk is full'))).toBe(false);
    expect(isOutOfRoom(null)).toBe(false);
  });
});

describe('RoomWatch', () => {
  function watch(check: () => void) {
    let now = 1_000;
    const log = recordingLogger();
    const room = new RoomWatch({ clock: () => now, log, dbPath: '/data/breakerbar.sqlite', check });
    const events: string[] = [];
    room.on('full', (s) => events.push(`full ${s.since} ${s.firstRefused}`));
    room.on('room', (s) => events.push(`room ${s.endedAt - s.since} ${s.refused}`));
    return { room, log, events, at: (ms: number) => (now = ms) };
  }

  it('says a shortage once, counts the writes refused meanwhile, and ends it once a check passes', () => {
    let roomy = false;
    const w = watch(() => {
      if (!roomy) throw full();
    });
    expect(w.room.failed(full(), 'calls')).toBe(true);
    w.at(2_000);
    expect(w.room.failed(full(), 'a watchdog decision')).toBe(true);
    expect(w.room.failed(new Error('something else'), 'a probe')).toBe(false);
    expect(w.room.state()).toEqual({
      since: 1_000,
      firstRefused: 'calls',
      error: 'database or disk is full',
      refused: 2,
    });
    w.room.check();
    expect(w.room.state()).not.toBeNull();
    roomy = true;
    w.at(61_000);
    w.room.check();
    expect(w.room.state()).toBeNull();
    expect(w.events).toEqual(['full 1000 calls', 'room 60000 2']);
    expect(w.log.lines.map((line) => line.level)).toEqual(['error', 'info']);
    // A check with room to spare says nothing.
    w.room.check();
    expect(w.events).toHaveLength(2);
  });

  it('a shortage back within ten minutes of its end is logged and in the state, not told again', () => {
    let roomy = false;
    const w = watch(() => {
      if (!roomy) throw full();
    });
    w.room.failed(full(), 'calls');
    roomy = true;
    w.at(5_000);
    w.room.check();
    // Room the check saw, gone at the next write (a quota the file system does not report, say).
    roomy = false;
    w.at(60_000);
    expect(w.room.failed(full(), 'calls')).toBe(true);
    expect(w.room.state()).toMatchObject({ since: 60_000 });
    roomy = true;
    w.room.check();
    expect(w.events).toEqual(['full 1000 calls', 'room 4000 1']);
    expect(w.log.lines.map((line) => line.msg)).toContain('no room to store again, soon after room came back');
    // A relapse that lasts is told once it has lasted as long.
    roomy = false;
    w.at(70_000);
    w.room.failed(full(), 'calls');
    w.room.check();
    expect(w.events).toHaveLength(2);
    w.at(70_000 + RELAPSE_MS);
    w.room.check();
    expect(w.events.at(-1)).toBe('full 70000 calls');
    roomy = true;
    w.room.check();
    expect(w.events.at(-1)).toBe(`room ${RELAPSE_MS} 1`);
    // Long after, a new shortage is told at once.
    roomy = false;
    w.at(70_000 + 3 * RELAPSE_MS);
    w.room.failed(full(), 'calls');
    expect(w.events).toHaveLength(5);
  });
});

describe('roomCheck', () => {
  let tmp: string;
  let store: Store;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'breakerbar-room-'));
    store = Store.open(join(tmp, 'breakerbar.sqlite'));
  });
  afterEach(() => {
    store.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('fails while the disk has less than the room needed, whatever the database says', () => {
    const check = roomCheck(
      tmp,
      () => store.tryGrowth(),
      () => ROOM_NEEDED_BYTES - 1,
    );
    expect(check).toThrow(expect.objectContaining({ code: 'ENOSPC' }));
  });

  it('fails while the database may not grow, passes once it may, and leaves nothing behind', () => {
    const check = roomCheck(
      tmp,
      () => store.tryGrowth(),
      () => ROOM_NEEDED_BYTES,
    );
    const pages = store.db.pragma('page_count', { simple: true }) as number;
    store.db.pragma(`max_page_count = ${pages}`);
    expect(check).toThrow(expect.objectContaining({ code: 'SQLITE_FULL' }));
    store.db.pragma('max_page_count = 1073741823');
    expect(check).not.toThrow();
    expect(store.getMeta('store.roomCheck')).toBeUndefined();
  });
});
