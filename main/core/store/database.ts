/**
 * BreakerBar's own SQLite database: opening it safely (private files, WAL, a reader that waits for the
 * daemon's writes) and migrating it to the schema this BreakerBar understands.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { LATEST_VERSION, MIGRATIONS } from './migrations.js';
import { makePrivate, PRIVATE_DIR_MODE } from './private-files.js';
import { StoreError } from './store-error.js';

export type Db = Database.Database;

export function openDatabase(path: string, options: { readonly?: boolean } = {}): Db {
  const readonly = options.readonly ?? false;
  if (!readonly) mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  let db: Db;
  try {
    db = new Database(path, { readonly, fileMustExist: readonly });
  } catch (error) {
    const reason = (error as Error).message;
    throw new StoreError(
      readonly && /unable to open|does not exist/i.test(reason)
        ? `no BreakerBar database at ${path} yet (run \`breakerbar daemon\` first)`
        : `cannot open database ${path}: ${reason}`,
      { cause: error },
    );
  }
  try {
    // A reader waits for the daemon's short write transactions instead of failing.
    db.pragma('busy_timeout = 5000');
    // Reading the version is the first access to the file: a non-database fails here.
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > LATEST_VERSION) throw newerSchema(path, version);
    if (readonly) {
      if (version === 0) {
        throw new StoreError(`database ${path} has no BreakerBar schema yet (is the daemon just starting?)`);
      }
      return db;
    }
    // WAL lets `history`, the dashboard and the daemon read while the daemon writes.
    // synchronous=NORMAL in WAL mode survives a crash of BreakerBar itself (kill -9);
    // only an OS crash or power loss can lose the last transactions, never corrupt.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db, path);
    // After the first write, so the -wal and -shm files exist: SQLite creates them as the umask allows.
    makePrivate(path, `${path}-wal`, `${path}-shm`);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof StoreError) throw error;
    throw new StoreError(`cannot use database ${path}: ${(error as Error).message}`, { cause: error });
  }
}

function newerSchema(path: string, version: number): StoreError {
  return new StoreError(
    `database ${path} has schema version ${version}, newer than this BreakerBar understands (${LATEST_VERSION}); upgrade BreakerBar`,
  );
}

export function migrate(db: Db, path = 'database', upTo = LATEST_VERSION): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > LATEST_VERSION) throw newerSchema(path, current);
  for (const migration of MIGRATIONS) {
    if (migration.version <= current || migration.version > upTo) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
  return db.pragma('user_version', { simple: true }) as number;
}
