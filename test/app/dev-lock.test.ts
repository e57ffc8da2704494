import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pidLockState } from '../../main/app/dev-lock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bb-dev-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('pidLockState (the lock check of a development app)', () => {
  it('no pid file: not held', () => {
    expect(pidLockState(dir)).toEqual({ held: false });
  });

  it('held while the recorded process lives, free once it is gone', () => {
    writeFileSync(join(dir, 'breakerbar.pid'), `${process.pid}\n`);
    expect(pidLockState(dir)).toEqual({ held: true, pid: process.pid });
    expect(pidLockState(dir, () => false)).toEqual({ held: false });
  });
});
