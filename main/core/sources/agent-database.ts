/**
 * Reading one OpenClaw agent database (`agents/<id>/agent/openclaw-agent.sqlite`,
 * OpenClaw 2026.7.2 and later) without disturbing the gateway, its only writer:
 * read-only, one short statement at a time (no read snapshot outlives a page of
 * rows, so WAL checkpoints are never held back), and a schema check before any
 * row is read — a version BreakerBar does not know is reported, not guessed at.
 */
import { type Dirent, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export const AGENT_DATABASE_NAME = 'openclaw-agent.sqlite';

/** Columns of `transcript_events` BreakerBar reads. */
const REQUIRED_COLUMNS = ['session_id', 'seq', 'event_json', 'created_at'] as const;

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

export class SchemaError extends Error {
  override name = 'SchemaError';
}

export interface TranscriptRow {
  rowid: number;
  sessionId: string;
  seq: number;
  /** The record's JSON as bytes: read as a BLOB so long message text never becomes a JS string. */
  json: Buffer;
  createdAt: number;
}

/** Where a reader stopped: the last row's rowid and the row it was, to notice renumbering. */
export interface RowAnchor {
  rowid: number;
  sessionId: string;
  seq: number;
}

export function isBusy(error: unknown): boolean {
  const code = (error as { code?: string })?.code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

export class AgentDatabase {
  private readonly db: Database.Database;
  private readonly page;
  private readonly rowAt;
  private readonly versionCheck;
  private readonly lastRowid;
  readonly schemaVersion: number;

  private constructor(
    readonly path: string,
    db: Database.Database,
    schemaVersion: number,
  ) {
    this.db = db;
    this.schemaVersion = schemaVersion;
    this.page = db
      .prepare(
        `SELECT rowid AS rowid, session_id AS sessionId, seq, CAST(event_json AS BLOB) AS json, created_at AS createdAt
         FROM transcript_events WHERE rowid > ? ORDER BY rowid LIMIT ?`,
      )
      .safeIntegers(false);
    this.rowAt = db.prepare('SELECT session_id AS sessionId, seq FROM transcript_events WHERE rowid = ?');
    this.versionCheck = db.prepare('PRAGMA data_version').pluck();
    this.lastRowid = db.prepare('SELECT max(rowid) FROM transcript_events').pluck();
  }

  /**
   * Opens `path` read-only and checks its schema. Throws SchemaError for a
   * database BreakerBar must not read (unknown version, missing columns).
   */
  static open(path: string, maxSchemaVersion: number): AgentDatabase {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      // Short: the caller retries with its own backoff instead of blocking the event loop.
      db.pragma('busy_timeout = 50');
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > maxSchemaVersion) {
        throw new SchemaError(
          `${path} has OpenClaw schema version ${version}, newer than the newest BreakerBar knows (${maxSchemaVersion}); not read. Upgrade BreakerBar, or raise ingest.sqliteMaxSchemaVersion if you have checked the new schema.`,
        );
      }
      const columns = new Set(
        (db.pragma('table_info(transcript_events)') as Array<{ name: string }>).map((column) => column.name),
      );
      if (columns.size === 0) {
        throw new SchemaError(`${path} (schema version ${version}) has no transcript_events table yet; not read`);
      }
      const missing = REQUIRED_COLUMNS.filter((column) => !columns.has(column));
      if (missing.length > 0) {
        throw new SchemaError(
          `${path} (schema version ${version}): transcript_events lacks ${missing.join(', ')}; this layout is unknown to BreakerBar, not read`,
        );
      }
      return new AgentDatabase(path, db, version);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Rows after `rowid`, in rowid order, at most `limit`: one short read transaction. */
  rowsAfter(rowid: number, limit: number): TranscriptRow[] {
    return this.page.all(rowid, limit) as TranscriptRow[];
  }

  /** True when the row at `anchor.rowid` is still the row that was read there. */
  anchorHolds(anchor: RowAnchor): boolean {
    const row = this.rowAt.get(anchor.rowid) as { sessionId: string; seq: number } | undefined;
    return row !== undefined && row.sessionId === anchor.sessionId && row.seq === anchor.seq;
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
  }
}
