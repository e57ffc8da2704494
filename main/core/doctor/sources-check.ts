/**
 * Check 2b: what BreakerBar would read under the state directory — agents,
 * JSONL transcripts, SQLite agent databases (their schema version, whether
 * their layout can be read, their zstd-compressed rows) — and whatever it could
 * not read, with the fix.
 *
 * Strictly read-only. An agent database in WAL mode is only opened in place
 * while its `-wal` and `-shm` files exist (the gateway has it open): opening one
 * without them would create them, owned by whoever runs the doctor. Otherwise
 * (fully checkpointed, so the file alone is current) a copy of its bytes is
 * checked in memory, up to a size; a larger one gets only its header's version.
 */
import {
  accessSync,
  closeSync,
  constants,
  type Dirent,
  existsSync,
  readdirSync,
  readFileSync,
  readSync,
} from 'node:fs';
import { join } from 'node:path';
import type { LoadedConfig } from '../config/index.js';
import { AGENT_DATABASE_NAME, AgentDatabase, type CompressionCheck, SchemaError } from '../sources/agent-database.js';
import { openRegularFile } from '../sources/regular-file.js';
import { transcriptRole } from '../sources/transcripts-jsonl.js';
import { ZSTD_DECODER } from '../sources/zstd.js';
import { errnoCode, humanSize, isPermissionError, permissionFix, permissionFixMessage, statOrCode } from './fs-util.js';
import { type Finding, saidFinding } from './types.js';

const SQLITE_MAGIC = 'SQLite format 3\0';
/** Compressed rows decoded per database: enough to tell "decodes" from "does not", quick on any size. */
const ZSTD_SAMPLE = 3;
/** Largest closed WAL database checked from an in-memory copy (the doctor must stay quick and small). */
const IMAGE_LIMIT_BYTES = 64 * 1024 * 1024;

export type AgentDatabaseInspection =
  | {
      kind: 'ok';
      version: number;
      /** `header`: only the file header was read (a large database nobody has open); its layout was not checked. */
      from: 'sqlite' | 'copy' | 'header';
      /** Null when the layout was not checked (`from: 'header'`). */
      compression: CompressionCheck | null;
    }
  | { kind: 'problem'; level: 'warn' | 'error'; message: string; fix?: string };

/** The schema version of one agent database and whether BreakerBar can read it, without writing anything. */
export function inspectAgentDatabase(path: string): AgentDatabaseInspection {
  const header = Buffer.alloc(100);
  let size: number;
  try {
    const { fd } = openRegularFile(path);
    try {
      size = readSync(fd, header, 0, 100, 0);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return isPermissionError(error)
      ? { kind: 'problem', level: 'error', message: `${path}: permission denied`, fix: permissionFix(path) }
      : { kind: 'problem', level: 'error', message: `${path}: ${(error as Error).message}` };
  }
  if (size === 0) {
    return { kind: 'problem', level: 'warn', message: `${path} is empty: the gateway has not created its tables yet` };
  }
  if (size < 100 || header.toString('latin1', 0, 16) !== SQLITE_MAGIC) {
    return {
      kind: 'problem',
      level: 'error',
      message: `${path} is not a SQLite database`,
      fix: 'check what wrote it; OpenClaw recreates agent databases it can open',
    };
  }
  const walMode = header[18] === 2 && header[19] === 2;
  const walOpen = existsSync(`${path}-wal`) && existsSync(`${path}-shm`);
  if (walMode && !walOpen) return inspectClosed(path, header.readUInt32BE(60));
  try {
    return inspectOpen(path, AgentDatabase.open(path), 'sqlite');
  } catch (error) {
    return openProblem(path, error);
  }
}

/** A fully checkpointed WAL database (no writer has it open): the file alone is current, so a copy of it is too. */
function inspectClosed(path: string, headerVersion: number): AgentDatabaseInspection {
  let image: Buffer;
  try {
    const size = statOrCode(path);
    if ('stats' in size && size.stats.size > IMAGE_LIMIT_BYTES) {
      return { kind: 'ok', version: headerVersion, from: 'header', compression: null };
    }
    image = readFileSync(path);
  } catch (error) {
    return openProblem(path, error);
  }
  try {
    return inspectOpen(path, AgentDatabase.fromImage(path, image), 'copy');
  } catch (error) {
    if (error instanceof SchemaError) return schemaProblem(error);
    // A gateway starting while the copy was read can leave it inconsistent: worth a second try, not an alarm.
    return {
      kind: 'problem',
      level: 'warn',
      message: `${path} could not be checked from a copy (${(error as Error).message}); the gateway may have started meanwhile`,
      fix: 'run `breakerbar doctor` again',
    };
  }
}

/** Layout already checked by opening; counts and samples its compressed rows. */
function inspectOpen(path: string, db: AgentDatabase, from: 'sqlite' | 'copy'): AgentDatabaseInspection {
  try {
    return { kind: 'ok', version: db.schemaVersion, from, compression: db.checkCompression(ZSTD_SAMPLE) };
  } catch (error) {
    return openProblem(path, error);
  } finally {
    db.close();
  }
}

/**
 * A layout BreakerBar cannot read is an error: every call in it goes
 * uncounted. Only a database OpenClaw has not set up yet (version 0, no
 * tables) is a warning.
 */
function schemaProblem(error: SchemaError): AgentDatabaseInspection {
  if (error.version === 0 && error.missing.includes('transcript_events')) {
    return { kind: 'problem', level: 'warn', message: error.message };
  }
  return {
    kind: 'problem',
    level: 'error',
    message: error.message,
    fix: `upgrade BreakerBar: this OpenClaw layout (schema version ${error.version}) is one it cannot read, and its calls are not counted meanwhile`,
  };
}

function openProblem(path: string, error: unknown): AgentDatabaseInspection {
  if (error instanceof SchemaError) return schemaProblem(error);
  const code = (error as { code?: string }).code ?? '';
  const message = (error as Error).message;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return { kind: 'problem', level: 'warn', message: `${path} is busy (${code}); try again` };
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_PERM')) {
    return {
      kind: 'problem',
      level: 'error',
      message: `cannot open ${path} read-only (${code}: ${message})`,
      fix: `${permissionFix(path)}; a WAL database also needs its -wal and -shm files readable`,
    };
  }
  return { kind: 'problem', level: 'error', message: `cannot read ${path} (${code || 'error'}: ${message})` };
}

interface AgentScan {
  id: string;
  jsonl: number;
  archived: number;
  unreadable: string[];
  database: { path: string; inspection: AgentDatabaseInspection } | null;
}

function listDir(path: string): { entries: Dirent[] } | { code: string } {
  try {
    return { entries: readdirSync(path, { withFileTypes: true }) };
  } catch (error) {
    return { code: errnoCode(error) ?? 'EUNKNOWN' };
  }
}

const NO_AGENTS_FIX = { key: 'doctor.sources.noAgentsFix' } as const;

export function checkSources(loaded: LoadedConfig): Finding[] {
  const findings: Finding[] = [];
  const agentsDir = join(loaded.stateDir, 'agents');
  const listed = listDir(agentsDir);
  if ('code' in listed) {
    if (listed.code === 'ENOENT') {
      findings.push(
        saidFinding(
          'sources',
          'warn',
          { key: 'doctor.sources.agentsDirMissing', params: { dir: agentsDir } },
          undefined,
          NO_AGENTS_FIX,
        ),
      );
    } else if (listed.code === 'EACCES' || listed.code === 'EPERM') {
      findings.push(
        saidFinding(
          'sources',
          'error',
          { key: 'doctor.sources.cannotListDenied', params: { dir: agentsDir } },
          undefined,
          permissionFixMessage(agentsDir),
        ),
      );
    } else {
      findings.push(
        saidFinding('sources', 'error', {
          key: 'doctor.sources.cannotList',
          params: { dir: agentsDir, code: listed.code },
        }),
      );
    }
    return findings;
  }

  const { includeArchives } = loaded.config.ingest;
  const agents: AgentScan[] = [];
  for (const entry of listed.entries) {
    if (!entry.isDirectory()) continue;
    agents.push(scanAgent(join(agentsDir, entry.name), entry.name, includeArchives, findings));
  }
  agents.sort((a, b) => a.id.localeCompare(b.id));

  if (agents.length === 0) {
    findings.unshift(
      saidFinding(
        'sources',
        'warn',
        { key: 'doctor.sources.noAgents', params: { dir: agentsDir } },
        undefined,
        NO_AGENTS_FIX,
      ),
    );
    return findings;
  }

  const describe = (a: AgentScan): string => {
    const parts: string[] = [];
    if (a.jsonl > 0) parts.push(`${a.jsonl} JSONL`);
    if (a.database) {
      const i = a.database.inspection;
      parts.push(i.kind === 'problem' ? 'SQLite (unreadable)' : `SQLite v${i.version}`);
    }
    return `${a.id} (${parts.join(', ') || 'no transcripts yet'})`;
  };
  findings.unshift(
    saidFinding(
      'sources',
      'ok',
      { key: 'doctor.sources.agents', params: { n: agents.length, dir: agentsDir } },
      agents.map(describe).join(', '),
    ),
  );

  const jsonlFiles = agents.reduce((n, a) => n + a.jsonl, 0);
  const archived = agents.reduce((n, a) => n + a.archived, 0);
  const jsonlAgents = agents.filter((a) => a.jsonl > 0).length;
  if (jsonlFiles > 0 || archived > 0) {
    findings.push(
      saidFinding(
        'sources',
        jsonlFiles > 0 ? 'ok' : 'info',
        { key: 'doctor.sources.jsonl', params: { files: jsonlFiles, agents: jsonlAgents } },
        archived > 0 ? { key: 'doctor.sources.archived', params: { n: archived } } : { key: 'doctor.sources.legacy' },
      ),
    );
  }

  const databases = agents.flatMap((a) => (a.database ? [{ agent: a.id, ...a.database }] : []));
  findings.push(...databaseFindings(databases));

  if (jsonlFiles === 0 && databases.length === 0) {
    findings.push(
      saidFinding(
        'sources',
        'warn',
        { key: 'doctor.sources.noTranscripts' },
        { key: 'doctor.sources.noTranscriptsDetail', params: { database: AGENT_DATABASE_NAME } },
        { key: 'doctor.sources.noTranscriptsFix' },
      ),
    );
  }
  return findings;
}

type Inspected = { agent: string; path: string; inspection: AgentDatabaseInspection };
type Readable = { agent: string; path: string; inspection: Extract<AgentDatabaseInspection, { kind: 'ok' }> };

/** One line for the readable databases, then one per database with compressed rows or a problem. */
function databaseFindings(databases: readonly Inspected[]): Finding[] {
  const findings: Finding[] = [];
  const readable = databases.filter((d): d is Readable => d.inspection.kind === 'ok');
  if (readable.length > 0) {
    const versions = [...new Set(readable.map((d) => d.inspection.version))].sort((a, b) => a - b);
    const plain = readable.filter((d) => d.inspection.compression?.rows === 0).map((d) => d.agent);
    const unchecked = readable.filter((d) => d.inspection.compression === null).map((d) => d.agent);
    const details = [readable.map((d) => d.agent).join(', ')];
    if (plain.length > 0) details.push(`no zstd-compressed rows in ${plain.join(', ')}`);
    if (unchecked.length > 0) {
      details.push(
        `layout not checked for ${unchecked.join(', ')} (nobody has it open and it is over ${humanSize(IMAGE_LIMIT_BYTES)}: checked while the gateway runs)`,
      );
    }
    findings.push(
      saidFinding(
        'sources',
        'ok',
        { key: 'doctor.sources.databases', params: { n: readable.length, versions } },
        details.join('; '),
      ),
    );
  }
  for (const d of databases) {
    const i = d.inspection;
    if (i.kind === 'problem') {
      // The problem's message and fix come from inspectAgentDatabase as they are (an error, a path).
      findings.push(
        saidFinding(
          'sources',
          i.level,
          { key: 'doctor.sources.databaseUnreadable', params: { agent: d.agent } },
          i.message,
          i.fix,
        ),
      );
    } else if (i.compression && i.compression.rows > 0) {
      findings.push(compressionFinding(d.agent, d.path, i.compression));
    }
  }
  return findings;
}

/** How many rows of one database are zstd-compressed, and whether the newest of them decode. */
function compressionFinding(agent: string, path: string, check: CompressionCheck): Finding {
  const { rows, tried } = check;
  if (check.failures.length === 0) {
    return saidFinding(
      'sources',
      'ok',
      { key: 'doctor.sources.compressedOk', params: { agent, rows, tried } },
      { key: 'doctor.sources.decodedWith', params: { decoder: ZSTD_DECODER } },
    );
  }
  const first = check.failures[0] as CompressionCheck['failures'][number];
  return saidFinding(
    'sources',
    'error',
    { key: 'doctor.sources.compressedFailing', params: { agent, rows, failures: check.failures.length, tried } },
    {
      key: 'doctor.sources.compressedFailingDetail',
      params: { path, rowid: first.rowid, error: first.error, decoder: ZSTD_DECODER },
    },
    { key: 'doctor.sources.compressedFailingFix' },
  );
}

function scanAgent(dir: string, id: string, includeArchives: boolean, findings: Finding[]): AgentScan {
  const scan: AgentScan = { id, jsonl: 0, archived: 0, unreadable: [], database: null };
  const sessionsDir = join(dir, 'sessions');
  const sessions = listDir(sessionsDir);
  if ('entries' in sessions) {
    for (const entry of sessions.entries) {
      if (!entry.isFile()) continue;
      const path = join(sessionsDir, entry.name);
      const role = transcriptRole(path, includeArchives);
      if (role === 'follow') {
        scan.jsonl++;
        try {
          accessSync(path, constants.R_OK);
        } catch {
          scan.unreadable.push(path);
        }
      } else if (role === 'continue') {
        scan.archived++;
      }
    }
  } else if (sessions.code === 'EACCES' || sessions.code === 'EPERM') {
    findings.push(
      saidFinding(
        'sources',
        'error',
        { key: 'doctor.sources.cannotListDenied', params: { dir: sessionsDir } },
        { key: 'doctor.sources.sessionsNotRead', params: { agent: id } },
        permissionFixMessage(sessionsDir),
      ),
    );
  } else if (sessions.code !== 'ENOENT' && sessions.code !== 'ENOTDIR') {
    findings.push(
      saidFinding('sources', 'error', {
        key: 'doctor.sources.cannotList',
        params: { dir: sessionsDir, code: sessions.code },
      }),
    );
  }
  if (scan.unreadable.length > 0) {
    const first = scan.unreadable[0] as string;
    findings.push(
      saidFinding(
        'sources',
        'error',
        { key: 'doctor.sources.unreadable', params: { n: scan.unreadable.length, agent: id } },
        { key: 'doctor.sources.unreadableDetail', params: { first, more: scan.unreadable.length - 1 } },
        permissionFixMessage(sessionsDir),
      ),
    );
  }

  const dbPath = join(dir, 'agent', AGENT_DATABASE_NAME);
  const stat = statOrCode(dbPath);
  if ('stats' in stat) {
    scan.database = { path: dbPath, inspection: inspectAgentDatabase(dbPath) };
  } else if (stat.code === 'EACCES' || stat.code === 'EPERM') {
    scan.database = {
      path: dbPath,
      inspection: {
        kind: 'problem',
        level: 'error',
        message: `${dbPath}: permission denied`,
        fix: permissionFix(join(dir, 'agent')),
      },
    };
  }
  return scan;
}
