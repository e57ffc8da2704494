/**
 * Rule: BreakerBar's data directory is 0700 and its files 0600, whatever the umask; an existing directory of
 * ours is tightened, anyone else's is left alone; `breakerbar doctor` names a data file open to others.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeApiUrl } from '../../../main/core/api-files/address.js';
import { checkDataPrivacy } from '../../../main/core/doctor/privacy-check.js';
import { lockDataDir } from '../../../main/core/runtime/lock.js';
import { Store } from '../../../main/core/store/db.js';
import { ensurePrivateDir } from '../../../main/core/store/private-files.js';

let root: string;
let umask: number;

const modeOf = (path: string) => statSync(path).mode & 0o777;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'breakerbar-modes-'));
  // The permissive umask most desktops run with: what a plain mkdir or open would honour.
  umask = process.umask(0o022);
});

afterEach(() => {
  process.umask(umask);
  rmSync(root, { recursive: true, force: true });
});

describe('private data files', () => {
  it('creates the database directory 0700 and the database with its -wal and -shm 0600', () => {
    const dataDir = join(root, 'data');
    const dbPath = join(dataDir, 'breakerbar.db');
    const store = Store.open(dbPath);
    try {
      store.setMeta('probe', '1');
      expect(modeOf(dataDir)).toBe(0o700);
      for (const path of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) expect(modeOf(path)).toBe(0o600);
    } finally {
      store.close();
    }
  });

  it('makes a database created earlier with looser modes private when it is opened', () => {
    const dbPath = join(root, 'breakerbar.db');
    Store.open(dbPath).close();
    chmodSync(dbPath, 0o644);
    const store = Store.open(dbPath);
    store.close();
    expect(modeOf(dbPath)).toBe(0o600);
  });

  it('writes the lock, the pid file and the API address 0600', () => {
    const lock = lockDataDir(root);
    try {
      writeApiUrl(root, 'http://127.0.0.1:4999');
      for (const name of ['breakerbar.lock', 'breakerbar.lock-journal', 'breakerbar.pid', 'api-url'])
        expect(modeOf(join(root, name))).toBe(0o600);
    } finally {
      lock.release();
    }
  });

  it('creates a data directory 0700, tightens one of ours, and leaves a directory holding other files alone', () => {
    const fresh = join(root, 'fresh');
    expect(ensurePrivateDir(fresh)).toEqual({ kind: 'created' });
    expect(modeOf(fresh)).toBe(0o700);
    expect(ensurePrivateDir(fresh)).toEqual({ kind: 'private' });

    const ours = join(root, 'ours');
    mkdirSync(ours, { mode: 0o755 });
    chmodSync(ours, 0o755);
    writeFileSync(join(ours, 'breakerbar.sqlite'), '');
    expect(ensurePrivateDir(ours)).toEqual({ kind: 'tightened' });
    expect(modeOf(ours)).toBe(0o700);

    // BreakerBar's home as a user makes it before a first start: only the config file, the directory 0755.
    const home = join(root, 'home');
    mkdirSync(home);
    chmodSync(home, 0o755);
    writeFileSync(join(home, 'config.json'), '{}');
    expect(ensurePrivateDir(home)).toEqual({ kind: 'tightened' });
    expect(modeOf(home)).toBe(0o700);

    const shared = join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o755);
    writeFileSync(join(shared, 'notes.txt'), 'not ours');
    const result = ensurePrivateDir(shared);
    expect(result).toMatchObject({ kind: 'foreign', mode: 0o755 });
    expect(modeOf(shared)).toBe(0o755);
  });
});

describe('doctor: data privacy', () => {
  it('names each data file open to other users, and says all is private once fixed', () => {
    const dbPath = join(root, 'breakerbar.db');
    Store.open(dbPath).close();
    chmodSync(root, 0o755);
    chmodSync(dbPath, 0o644);
    const findings = checkDataPrivacy(root, dbPath);
    expect(findings.map((f) => [f.level, f.title])).toEqual([
      ['warn', `the data directory ${root} is open to other users (mode 755)`],
      ['warn', `${dbPath} is open to other users (mode 644)`],
    ]);
    expect(findings[1]?.fix).toBe(
      `run \`chmod 600 ${dbPath}\` (BreakerBar sets these modes itself on what it creates)`,
    );

    chmodSync(root, 0o700);
    chmodSync(dbPath, 0o600);
    expect(checkDataPrivacy(root, dbPath).map((f) => f.level)).toEqual(['ok']);

    // The config file holds secrets (webhook tokens), wherever it is.
    const config = join(root, 'elsewhere.json');
    writeFileSync(config, '{}');
    chmodSync(config, 0o644);
    expect(checkDataPrivacy(root, dbPath, config).map((f) => [f.level, f.title])).toEqual([
      ['warn', `${config} is open to other users (mode 644)`],
    ]);
  });
});
