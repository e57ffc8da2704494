/**
 * An OpenClaw agent database as the gateway (2026.7.2 and later) keeps it: the
 * same tables, the same WAL mode and busy timeout, written the way the gateway
 * writes (one short transaction per append). The rehearsal's `sqlite` format,
 * the tests and the benchmarks write through this class.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';

/** The schema version written; the newest BreakerBar has been checked against. */
export const OPENCLAW_AGENT_SCHEMA_VERSION = 19;

/** The tables BreakerBar reads or relies on, in OpenClaw's layout (abridged to what matters here). */
export const OPENCLAW_AGENT_SCHEMA = `
  CREATE TABLE IF NOT EXISTS session_windows (
    session_id TEXT NOT NULL PRIMARY KEY,
    session_key TEXT NOT NULL,
    previous_session_id TEXT,
    reason TEXT CHECK (reason IS NULL OR reason IN ('initial', 'reset', 'rollover', 'fork', 'rewind', 'switch', 'recovery', 'compaction')),
    status TEXT,
    model_provider TEXT,
    model TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE IF NOT EXISTS transcript_events (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event_json TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq),
    FOREIGN KEY (session_id) REFERENCES session_windows(session_id) ON DELETE CASCADE
  ) STRICT;
  CREATE TABLE IF NOT EXISTS transcript_event_identities (
    session_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event_type TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, event_id)
  ) STRICT;
  CREATE TABLE IF NOT EXISTS session_transcript_active_events (
    session_id TEXT NOT NULL,
    active_position INTEGER NOT NULL,
    event_seq INTEGER NOT NULL,
    message_position INTEGER,
    PRIMARY KEY (session_id, active_position)
  ) STRICT;
`;

export function agentDatabasePath(stateDir: string, agentId: string): string {
  return join(stateDir, 'agents', agentId, 'agent', 'openclaw-agent.sqlite');
}

export class OpenClawAgentDb {
  readonly db: Database.Database;
  private readonly nextSeq = new Map<string, number>();
  private readonly insertWindow;
  private readonly insertEvent;
  private readonly insertIdentity;
  private readonly insertActive;

  constructor(
    readonly path: string,
    options: { schemaVersion?: number } = {},
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(OPENCLAW_AGENT_SCHEMA);
    this.db.pragma(`user_version = ${options.schemaVersion ?? OPENCLAW_AGENT_SCHEMA_VERSION}`);
    this.insertWindow = this.db.prepare(
      `INSERT OR IGNORE INTO session_windows (session_id, session_key, reason, created_at, updated_at)
       VALUES (?, ?, 'initial', ?, ?)`,
    );
    this.insertEvent = this.db.prepare(
      'INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)',
    );
    this.insertIdentity = this.db.prepare(
      `INSERT OR IGNORE INTO transcript_event_identities (session_id, event_id, seq, event_type, created_at)
       VALUES (?, ?, ?, ?, ?)`,
    );
    this.insertActive = this.db.prepare(
      `INSERT OR REPLACE INTO session_transcript_active_events (session_id, active_position, event_seq, message_position)
       VALUES (?, ?, ?, ?)`,
    );
    for (const row of this.db
      .prepare('SELECT session_id AS id, max(seq) AS seq FROM transcript_events GROUP BY session_id')
      .all() as Array<{ id: string; seq: number }>) {
      this.nextSeq.set(row.id, row.seq + 1);
    }
  }

  /** Appends records (JSONL-shaped lines) to a session in one transaction, as the gateway does per append. */
  append(sessionId: string, agentId: string, lines: readonly string[], now = Date.now()): void {
    this.db.transaction(() => {
      this.insertWindow.run(sessionId, `agent:${agentId}:${sessionId}`, now, now);
      for (const line of lines) {
        const seq = this.nextSeq.get(sessionId) ?? 0;
        this.nextSeq.set(sessionId, seq + 1);
        this.insertEvent.run(sessionId, seq, line, now);
        const record = JSON.parse(line) as { id?: string; type?: string };
        if (record.id) this.insertIdentity.run(sessionId, record.id, seq, record.type ?? 'message', now);
        this.insertActive.run(sessionId, seq, seq, seq);
      }
    })();
  }

  /** `PRAGMA wal_checkpoint(mode)`: `busy` is 1 when a reader kept it from completing. */
  checkpoint(mode: 'PASSIVE' | 'FULL' | 'RESTART' | 'TRUNCATE' = 'TRUNCATE'): {
    busy: number;
    log: number;
    checkpointed: number;
  } {
    const [result] = this.db.pragma(`wal_checkpoint(${mode})`) as Array<{
      busy: number;
      log: number;
      checkpointed: number;
    }>;
    return result ?? { busy: 1, log: -1, checkpointed: -1 };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
