/**
 * Check 2b: what BreakerBar would read under the state directory — agents,
 * JSONL transcripts, SQLite agent databases and their schema versions — and
 * whatever it could not read, with the permission fix.
 *
 * Strictly read-only. An agent database in WAL mode is only opened while its
 * `-wal` and `-shm` files exist (the gateway has it open): opening one without
 * them would create them, owned by whoever runs the doctor. Otherwise its
 * schema version is read from the file header, which is then up to date.
 */
import { accessSync, closeSync, constants, type Dirent, existsSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { LoadedConfig } from '../config/index.js';
import { AGENT_DATABASE_NAME, AgentDatabase, SchemaError } from '../sources/agent-database.js';
import { transcriptRole } from '../sources/transcripts-jsonl.js';
import { errnoCode, isPermissionError, permissionFix, statOrCode } from './fs-util.js';
import { type Finding, finding } from './types.js';

const SQLITE_MAGIC = 'SQLite format 3\0';

export type AgentDatabaseInspection =
  | { kind: 'ok'; version: number; from: 'sqlite' | 'header' }
  | { kind: 'newer'; version: number; from: 'sqlite' | 'header' }
  | { kind: 'problem'; level: 'warn' | 'error'; message: string; fix?: string };

/** The schema version of one agent database and whether BreakerBar can read it, without writing anything. */
export function inspectAgentDatabase(path: string, maxSchemaVersion: number): AgentDatabaseInspection {
  const header = Buffer.alloc(100);
  let size: number;
  try {
    const fd = openSync(path, 'r');
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
  if (walMode && !walOpen) {
    // Fully checkpointed (no writer has it open): the header is current.
    const version = header.readUInt32BE(60);
    return version > maxSchemaVersion
      ? { kind: 'newer', version, from: 'header' }
      : { kind: 'ok', version, from: 'header' };
  }

  let version: number;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 1000');
      version = db.pragma('user_version', { simple: true }) as number;
    } finally {
      db.close();
    }
  } catch (error) {
    return openProblem(path, error);
  }
  if (version > maxSchemaVersion) return { kind: 'newer', version, from: 'sqlite' };
  try {
    // The daemon's own check of the layout (table and columns it reads).
    AgentDatabase.open(path, maxSchemaVersion).close();
  } catch (error) {
    if (error instanceof SchemaError) return { kind: 'problem', level: 'warn', message: error.message };
    return openProblem(path, error);
  }
  return { kind: 'ok', version, from: 'sqlite' };
}

function openProblem(path: string, error: unknown): AgentDatabaseInspection {
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

const NO_AGENTS_FIX =
  "start the gateway once and talk to an agent (it creates agents/<id>/), or point openclawDir in BreakerBar's config at the right place (profiles: ~/.openclaw-<profile>)";

export function checkSources(loaded: LoadedConfig): Finding[] {
  const findings: Finding[] = [];
  const agentsDir = join(loaded.stateDir, 'agents');
  const listed = listDir(agentsDir);
  if ('code' in listed) {
    if (listed.code === 'ENOENT') {
      findings.push(finding('sources', 'warn', `no agents: ${agentsDir} does not exist`, undefined, NO_AGENTS_FIX));
    } else if (listed.code === 'EACCES' || listed.code === 'EPERM') {
      findings.push(
        finding(
          'sources',
          'error',
          `cannot list ${agentsDir} (permission denied)`,
          undefined,
          permissionFix(agentsDir),
        ),
      );
    } else {
      findings.push(finding('sources', 'error', `cannot list ${agentsDir} (${listed.code})`));
    }
    return findings;
  }

  const { includeArchives, sqliteMaxSchemaVersion } = loaded.config.ingest;
  const agents: AgentScan[] = [];
  for (const entry of listed.entries) {
    if (!entry.isDirectory()) continue;
    agents.push(scanAgent(join(agentsDir, entry.name), entry.name, includeArchives, sqliteMaxSchemaVersion, findings));
  }
  agents.sort((a, b) => a.id.localeCompare(b.id));

  if (agents.length === 0) {
    findings.unshift(finding('sources', 'warn', `no agents under ${agentsDir}`, undefined, NO_AGENTS_FIX));
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
    finding('sources', 'ok', `${agents.length} agent(s) under ${agentsDir}`, agents.map(describe).join(', ')),
  );

  const jsonlFiles = agents.reduce((n, a) => n + a.jsonl, 0);
  const archived = agents.reduce((n, a) => n + a.archived, 0);
  const jsonlAgents = agents.filter((a) => a.jsonl > 0).length;
  if (jsonlFiles > 0 || archived > 0) {
    findings.push(
      finding(
        'sources',
        jsonlFiles > 0 ? 'ok' : 'info',
        `${jsonlFiles} JSONL transcript file(s) in ${jsonlAgents} agent(s)`,
        archived > 0
          ? `${archived} archived transcript(s) (.reset/.deleted/.corrupt-/.bak) not read; ingest.includeArchives reads them`
          : 'legacy transcripts (OpenClaw up to 2026.7.1)',
      ),
    );
  }

  const databases = agents.flatMap((a) => (a.database ? [{ agent: a.id, ...a.database }] : []));
  const readable = databases.filter((d) => d.inspection.kind === 'ok');
  if (readable.length > 0) {
    const versions = [...new Set(readable.map((d) => (d.inspection as { version: number }).version))].sort(
      (a, b) => a - b,
    );
    findings.push(
      finding(
        'sources',
        'ok',
        `${readable.length} SQLite agent database(s), schema version ${versions.join(', ')}`,
        `${readable.map((d) => d.agent).join(', ')}; BreakerBar reads up to version ${sqliteMaxSchemaVersion}`,
      ),
    );
  }
  for (const d of databases) {
    const i = d.inspection;
    if (i.kind === 'newer') {
      findings.push(
        finding(
          'sources',
          'warn',
          `agent database of ${d.agent} has schema version ${i.version}, newer than BreakerBar reads (${sqliteMaxSchemaVersion})`,
          `${d.path}: its calls are not read`,
          'upgrade BreakerBar, or raise ingest.sqliteMaxSchemaVersion once you have checked the new schema',
        ),
      );
    } else if (i.kind === 'problem') {
      findings.push(finding('sources', i.level, `agent database of ${d.agent} cannot be read`, i.message, i.fix));
    }
  }

  if (jsonlFiles === 0 && databases.length === 0) {
    findings.push(
      finding(
        'sources',
        'warn',
        'no transcripts yet in any agent',
        `looked for agents/<id>/sessions/*.jsonl and agents/<id>/agent/${AGENT_DATABASE_NAME}`,
        'they appear after the first conversation with an agent; if the gateway has been used, check that openclawDir points at its state directory',
      ),
    );
  }
  return findings;
}

function scanAgent(
  dir: string,
  id: string,
  includeArchives: boolean,
  maxSchemaVersion: number,
  findings: Finding[],
): AgentScan {
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
      finding(
        'sources',
        'error',
        `cannot list ${sessionsDir} (permission denied)`,
        `agent ${id}: its JSONL transcripts are not read`,
        permissionFix(sessionsDir),
      ),
    );
  } else if (sessions.code !== 'ENOENT' && sessions.code !== 'ENOTDIR') {
    findings.push(finding('sources', 'error', `cannot list ${sessionsDir} (${sessions.code})`));
  }
  if (scan.unreadable.length > 0) {
    const first = scan.unreadable[0] as string;
    findings.push(
      finding(
        'sources',
        'error',
        `${scan.unreadable.length} transcript file(s) of agent ${id} cannot be read (permission denied)`,
        scan.unreadable.length > 1 ? `${first} and ${scan.unreadable.length - 1} more` : first,
        permissionFix(sessionsDir),
      ),
    );
  }

  const dbPath = join(dir, 'agent', AGENT_DATABASE_NAME);
  const stat = statOrCode(dbPath);
  if ('stats' in stat) {
    scan.database = { path: dbPath, inspection: inspectAgentDatabase(dbPath, maxSchemaVersion) };
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
