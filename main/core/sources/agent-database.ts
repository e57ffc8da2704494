/**
 * Reading one OpenClaw agent database (`agents/<id>/agent/openclaw-agent.sqlite`,
 * OpenClaw 2026.7.2 and later) without disturbing the gateway, its only writer:
 * read-only, one short statement at a time (no read snapshot outlives a page of
 * rows, so WAL checkpoints are never held back), and a schema check before any
 * row is read.
 *
 * The check is by shape, not by version number: OpenClaw raises `user_version`
 * for changes anywhere in the file (memory index, conversations…), most of
 * which never touch `transcript_events`. A database is read when that table has
 * the columns BreakerBar uses; a layout without them is refused, saying which
 * version it is and what is missing.
 */
import { closeSync, type Dirent, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openRegularFile } from './regular-file.js';
import { ZstdDecoder } from './zstd.js';

export const AGENT_DATABASE_NAME = 'openclaw-agent.sqlite';

/** Above every rowid a page query can meet (rowids are read as JS numbers). */
const LAST_ROWID = Number.MAX_SAFE_INTEGER;

/** Columns of `transcript_events` BreakerBar cannot do without. */
const REQUIRED_COLUMNS = ['session_id', 'seq', 'created_at', 'event_json'] as const;
/**
 * Read when present (OpenClaw 2026.9 and later): large events are stored
 * zstd-compressed here with `event_json` NULL, and `event_utf8_bytes` is their
 * decompressed size.
 */
const ZSTD_COLUMN = 'event_zstd';
const SIZE_COLUMN = 'event_utf8_bytes';

/**
 * How much of a database file a mapped connection reads through memory-mapped I/O
 * (SQLite caps it at its own build limit, 2 GiB by default): the rest of a larger
 * file is read as usual.
 */
const MAPPED_BYTES = 2 ** 31;

export interface AgentDatabaseOptions {
  /**
   * Read the file through memory-mapped I/O instead of a read call per page: a
   * pass over a whole database costs about a fifth less (measured reading every
   * row of 300 MB of events), since most rows spill onto overflow pages that are
   * otherwise each read and cached separately. For one-shot readers (`scan`)
   * only: on a mapped file, a failing disk or a file cut short by something
   * other than SQLite ends the process with a signal instead of an error the
   * daemon could report and retry.
   */
  mapped?: boolean;
}

export interface AgentDatabaseFile {
  agentId: string;
  path: string;
}

/** Every agent database under `<stateDir>/agents`. */
export function findAgentDatabases(stateDir: string): AgentDatabaseFile[] {
  const agents = join(stateDir, 'agents');
  let entries: Dirent[];
  try {
    entries = readdirSync(agents, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: AgentDatabaseFile[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const path = join(agents, entry.name, 'agent', AGENT_DATABASE_NAME);
    if (existsSync(path)) found.push({ agentId: entry.name, path });
  }
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/** A database whose layout BreakerBar cannot read; the message names the version and what is missing. */
export class SchemaError extends Error {
  override name = 'SchemaError';

  constructor(
    message: string,
    /** The database's `PRAGMA user_version`. */
    readonly version: number,
    /** What BreakerBar needs and did not find: `transcript_events`, or its missing columns. */
    readonly missing: readonly string[],
  ) {
    super(message);
  }
}

interface RowPosition {
  rowid: number;
  sessionId: string;
  seq: number;
  createdAt: number;
  /** The event was stored zstd-compressed. */
  compressed: boolean;
}

/**
 * One `transcript_events` row. `json` is the record's JSON as bytes (read as a
 * BLOB, or decompressed, so long message text never becomes a JS string); a row
 * that cannot be decoded has `json: null` and says why in `error`, so that a
 * reader can count it and move past it instead of stopping there.
 */
export type TranscriptRow = RowPosition & ({ json: Buffer; error: null } | { json: null; error: string });

/**
 * A row as SQLite returns it, before decoding: an array (`.raw()`), in the order
 * of `AgentDatabase.rowColumns`, which spares building an object per row.
 */
type RawRow = [
  rowid: number,
  sessionId: string,
  seq: number,
  json: Buffer | null,
  zstd: Buffer | null,
  size: number | null,
  createdAt: number,
];

/**
 * The one place a row becomes JSON bytes (the daemon's source and `scan` both
 * read rows through `AgentDatabase`): `event_json` as is, else `event_zstd`
 * decompressed and checked against the size OpenClaw recorded. With `keep`
 * false, a decompressed `json` is a view of `decoder`'s buffer, valid until its
 * next decode.
 */
function decodeRow(raw: RawRow, decoder: ZstdDecoder, keep: boolean): TranscriptRow {
  const [rowid, sessionId, seq, json, zstd, size, createdAt] = raw;
  if (json !== null) return { rowid, sessionId, seq, createdAt, compressed: false, json, error: null };
  if (zstd === null) {
    return {
      rowid,
      sessionId,
      seq,
      createdAt,
      compressed: false,
      json: null,
      error: 'neither event_json nor event_zstd is set',
    };
  }
  const undecodable = (error: string): TranscriptRow => ({
    rowid,
    sessionId,
    seq,
    createdAt,
    compressed: true,
    json: null,
    error,
  });
  try {
    const decoded = keep ? decoder.decodeToKeep(zstd, size) : decoder.decode(zstd, size);
    if (size !== null && decoded.length !== size) {
      return undecodable(`event_zstd decodes to ${decoded.length} bytes, but event_utf8_bytes says ${size}`);
    }
    return { rowid, sessionId, seq, createdAt, compressed: true, json: decoded, error: null };
  } catch (error) {
    return undecodable(`event_zstd: ${(error as Error).message}`);
  }
}

/** Where a reader stopped: the last row's rowid and the row it was, to notice renumbering. */
export interface RowAnchor {
  rowid: number;
  sessionId: string;
  seq: number;
}

/** What the doctor reports about compressed rows: how many, and whether a sample of them decodes. */
export interface CompressionCheck {
  /** Rows stored zstd-compressed (0 where the layout has no `event_zstd`). */
  rows: number;
  /** Newest compressed rows decoded to check them. */
  tried: number;
  /** Those of them that did not decode, with why. */
  failures: Array<{ rowid: number; error: string }>;
}

export function isBusy(error: unknown): boolean {
  const code = (error as { code?: string })?.code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/** The columns of `transcript_events` (empty when there is no such table). */
function columnsOf(db: Database.Database): Set<string> {
  return new Set((db.pragma('table_info(transcript_events)') as Array<{ name: string }>).map((column) => column.name));
}

/** Throws SchemaError unless `columns` has what BreakerBar reads. */
function checkShape(path: string, version: number, columns: ReadonlySet<string>): void {
  if (columns.size === 0) {
    throw new SchemaError(
      `${path} (OpenClaw schema version ${version}) has no transcript_events table; not read until it has one`,
      version,
      ['transcript_events'],
    );
  }
  const missing = REQUIRED_COLUMNS.filter((column) => !columns.has(column));
  if (missing.length > 0) {
    throw new SchemaError(
      `${path} (OpenClaw schema version ${version}): transcript_events lacks ${missing.join(', ')} ` +
        `(BreakerBar reads ${REQUIRED_COLUMNS.join(', ')}, and ${ZSTD_COLUMN} when present); ` +
        'not read. This layout is unknown to this BreakerBar: upgrade it, or report the version',
      version,
      missing,
    );
  }
}

export class AgentDatabase {
  private readonly db: Database.Database;
  private readonly page;
  private readonly rowAt;
  private readonly versionCheck;
  private readonly lastRowid;
  private readonly bounds;
  private readonly snapshotTx;
  /** The SELECT list of a row (a RawRow), with NULL for compression columns an older layout lacks. */
  private readonly rowColumns: string;
  /** One zstd context and output buffer for every compressed row this connection reads. */
  private readonly decoder = new ZstdDecoder();
  private readonly zstdColumn: string;
  readonly schemaVersion: number;
  /** The layout has `event_zstd` (compressed events). */
  readonly hasCompressedEvents: boolean;

  private constructor(
    readonly path: string,
    db: Database.Database,
    schemaVersion: number,
    columns: ReadonlySet<string>,
  ) {
    this.db = db;
    this.schemaVersion = schemaVersion;
    this.hasCompressedEvents = columns.has(ZSTD_COLUMN);
    // Older layouts lack the compression columns: select NULL in their place so every row has one shape.
    this.zstdColumn = this.hasCompressedEvents ? ZSTD_COLUMN : 'NULL';
    const size = columns.has(SIZE_COLUMN) ? SIZE_COLUMN : 'NULL';
    this.rowColumns = `rowid, session_id, seq, CAST(event_json AS BLOB), ${this.zstdColumn}, ${size}, created_at`;
    this.page = db
      .prepare(`SELECT ${this.rowColumns} FROM transcript_events WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?`)
      .raw()
      .safeIntegers(false);
    this.rowAt = db.prepare('SELECT session_id AS sessionId, seq FROM transcript_events WHERE rowid = ?');
    this.versionCheck = db.prepare('PRAGMA data_version').pluck();
    this.lastRowid = db.prepare('SELECT max(rowid) FROM transcript_events').pluck();
    this.bounds = db.prepare('SELECT min(rowid), max(rowid) FROM transcript_events').raw();
    this.snapshotTx = db.transaction(<T>(read: () => T): T => read());
  }

  /**
   * Runs `read` in one read transaction: everything it asks sees the same commit, and SQLite checks the file
   * for other connections' commits once instead of at every statement (with the pages it then reads again).
   */
  inOneSnapshot<T>(read: () => T): T {
    return this.snapshotTx(read) as T;
  }

  /**
   * Opens `path` read-only and checks its shape. Throws SchemaError for a
   * database BreakerBar cannot read (no `transcript_events`, or it lacks a
   * column BreakerBar uses), whatever its version number.
   */
  static open(path: string, options: AgentDatabaseOptions = {}): AgentDatabase {
    // SQLite's own open() would block on a named pipe in the database's place: look without blocking first.
    closeSync(openRegularFile(path).fd);
    const db = new Database(path, { readonly: true, fileMustExist: true });
    if (options.mapped) {
      try {
        db.pragma(`mmap_size = ${MAPPED_BYTES}`);
      } catch {
        // A build or platform without memory-mapped I/O reads as usual.
      }
    }
    // Short: the caller retries with its own backoff instead of blocking the event loop.
    return AgentDatabase.checked(path, db, 50);
  }

  /**
   * A checked in-memory copy of a database file's bytes (`image`), for a
   * database that must not be opened in place: a WAL database no writer has
   * open, which opening would give new `-wal` and `-shm` files (the doctor).
   */
  static fromImage(path: string, image: Buffer): AgentDatabase {
    const copy = Buffer.from(image);
    // An in-memory database cannot be in WAL mode: mark the copy as a rollback-journal file.
    if (copy.length >= 20 && copy[18] === 2 && copy[19] === 2) copy.fill(1, 18, 20);
    return AgentDatabase.checked(path, new Database(copy, { readonly: true }), 0);
  }

  private static checked(path: string, db: Database.Database, busyTimeoutMs: number): AgentDatabase {
    try {
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      const version = db.pragma('user_version', { simple: true }) as number;
      const columns = columnsOf(db);
      checkShape(path, version, columns);
      return new AgentDatabase(path, db, version, columns);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Rows after `rowid`, in rowid order, at most `limit`, decoded: one short read transaction. */
  rowsAfter(rowid: number, limit: number): TranscriptRow[] {
    return (this.page.all(rowid, LAST_ROWID, limit) as RawRow[]).map((raw) => decodeRow(raw, this.decoder, true));
  }

  /**
   * The same rows as `rowsAfter`, handed to `visit` one by one instead of
   * returned: a decompressed row's `json` is only valid during its `visit`
   * (it lives in a buffer reused for the next row), which spares allocating
   * every event. Returns how many rows were visited and the last one's rowid
   * (`rowid` itself when there were none).
   */
  visitRowsAfter(
    rowid: number,
    limit: number,
    visit: (row: TranscriptRow) => void,
    /** The last rowid to read (a part of the table, for readers that split it). */
    through = LAST_ROWID,
  ): { rows: number; lastRowid: number } {
    const raws = this.page.all(rowid, through, limit) as RawRow[];
    for (const raw of raws) visit(decodeRow(raw, this.decoder, false));
    const last = raws[raws.length - 1];
    return { rows: raws.length, lastRowid: last ? last[0] : rowid };
  }

  /** The smallest and largest rowid (both 0 when the table is empty). */
  rowidBounds(): { first: number; last: number } {
    const row = this.bounds.get() as [number | null, number | null];
    return { first: row[0] ?? 0, last: row[1] ?? 0 };
  }

  /**
   * How many rows are compressed, and whether the newest `sample` of them
   * decode. Counting reads every row header (not the events themselves): meant
   * for the doctor, not for the ingest path.
   */
  checkCompression(sample: number): CompressionCheck {
    const where = `FROM transcript_events WHERE ${this.zstdColumn} IS NOT NULL`;
    const rows = this.db.prepare(`SELECT count(*) ${where}`).pluck().get() as number;
    const newest = this.db
      .prepare(`SELECT ${this.rowColumns} ${where} ORDER BY rowid DESC LIMIT ?`)
      .raw()
      .safeIntegers(false)
      .all(sample) as RawRow[];
    const tried = newest.map((raw) => decodeRow(raw, this.decoder, false));
    return {
      rows,
      tried: tried.length,
      failures: tried.flatMap((row) => (row.json === null ? [{ rowid: row.rowid, error: row.error }] : [])),
    };
  }

  /** True when the row at `anchor.rowid` is still the row that was read there. */
  anchorHolds(anchor: RowAnchor): boolean {
    const row = this.rowAt.get(anchor.rowid) as { sessionId: string; seq: number } | undefined;
    return row !== undefined && row.sessionId === anchor.sessionId && row.seq === anchor.seq;
  }

  /** Bytes of the file this connection reads through memory-mapped I/O (0: none). */
  mappedBytes(): number {
    return this.db.pragma('mmap_size', { simple: true }) as number;
  }

  /** The newest row's rowid (0 when empty). */
  maxRowid(): number {
    return (this.lastRowid.get() as number | null) ?? 0;
  }

  /** Changes whenever another connection (the gateway) commits: a cheap "anything new?". */
  dataVersion(): number {
    return this.versionCheck.get() as number;
  }

  close(): void {
    if (this.db.open) this.db.close();
    this.decoder.release();
  }
}
